"""What several test modules share: hand-built tables, the table message's budget, and the
steps that bring a bot-driven table to its shed phase with every hand open. (The ``service``
fixture is in ``conftest.py``; the engine tests' card helpers are in ``rules_helpers.py``.)"""

import dataclasses
import random
import re

from bot.db.records import TableStatus
from bot.tables.service import Seat, Table
from cogs import render
from rules import Game, Variant, shuffled_deck
from rules.i18n import Lang
from tests.nlk_driver import description, my_turn, open_hand, title

LONG = [f"Maximilian Oberhausen-Lindqvist{i}" for i in range(9)]  # 32 characters each
MARKDOWN = [f"__*{i}*__ ~~the~~ `very` **long**|{i}"[:32] for i in range(9)]  # escaping grows
PLAYERS = ["ann", "bob", "cy"]


# --- hand-built tables, without Discord -----------------------------------------------------

def table_for(game: Game, *, ai: int = 0, status=TableStatus.PLAYING, seed="ab" * 16,
              **fields) -> Table:
    """A table around ``game``: users 1000, 1001 … in its seats, the first ``ai`` of them AI
    players; ``fields`` replace any other of the table's values."""
    seats = [Seat(1000 + i, name, "heuristic" if i < ai else None)
             for i, name in enumerate(game.names)]
    # A running hand's table holds its seats for the next hand too (nobody is leaving).
    table = Table(id=123456789012345678, guild_id=1, channel_id=2, host_id=1000,
                  next_seats=list(seats), max_seats=game.n, variant=Variant("free", True),
                  status=status, message_id=3, seats=seats, game=game, hand_number=12,
                  seed=seed, missed=(0,) * game.n)
    return dataclasses.replace(table, **fields)


def play(names, seed: int):
    """Every state of one random hand: ``(game copy, table)`` after each action."""
    rng = random.Random(seed)
    game = Game.from_deck(shuffled_deck(len(names), str(seed)), seed % len(names),
                          names=names, variant=Variant("free", True))
    table = table_for(game, ai=2)
    yield table
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
        # Mark moves as nobody's choice at random, the longest mark included.
        index = len(game.history()) - 1
        table.marks[index] = rng.choice(["", "forced", "ai", "stand-in"])
        yield table


# The hands the table message's budget tests draw in every state: one for each (names,
# language) case, six different hands in all, each reaching a drawn card, a full trick and
# the end. Hands of ordinary length (800 to 1,200 moves): seeds 4 and 5 run to 1,750 and
# 2,300, and drawing a state costs more the longer its history, so those would cost several
# times as much and show nothing more.
CASE_SEEDS = {"long": (0, 1, 2), "markdown": (3, 6, 7)}


def case_seed(names, lang: Lang) -> int:
    """The seed of the one nine-seat hand a (names, language) case plays (``CASE_SEEDS``)."""
    return CASE_SEEDS["markdown" if names is MARKDOWN else "long"][list(Lang).index(lang)]


def size(embed) -> tuple[int, int]:
    fields = embed.fields
    chars = len(embed.title or "") + len(embed.description or "") + sum(
        len(f.name) + len(f.value) for f in fields) + len(embed.footer.text or "")
    lines = (1 if embed.title else 0) + len((embed.description or "").split("\n")) + sum(
        1 + len(f.value.split("\n")) for f in fields) + (1 if embed.footer.text else 0)
    return chars, lines


def text_of(embed) -> str:
    parts = [embed.title or "", embed.description or "", embed.footer.text or ""]
    return "\n".join(parts + [f"{f.name}\n{f.value}" for f in embed.fields])


def check_budget(table: Table, lang: Lang = Lang.EN) -> None:
    embed = render.table_embed(table, lang)
    chars, lines = size(embed)
    assert chars <= 1200 and lines <= 20, (lang, chars, lines, text_of(embed))
    assert len(embed.fields) <= 25 and all(len(f.value) <= 1024 for f in embed.fields)
    assert all(len(f.name) <= 256 for f in embed.fields) and len(embed.title or "") <= 256
    for row in render.table_view(table, lang).to_components():
        for item in row["components"]:
            assert len(item["label"]) <= 80 and len(item["custom_id"]) <= 100, item


# --- a table the bot runs, through the fake Discord -----------------------------------------

def table_id_of(table) -> int:
    return int(table.embeds[0]["footer"]["text"].split()[1])


async def to_the_shed_phase(driver, table):
    while " · collect" in title(table):
        await driver._collect_step(table)
    assert " · shed" in title(table), title(table)


async def open_every_hand(driver, table):
    """Each player taps My hand once, on the table message."""
    for name in PLAYERS:
        await driver.open_hand(name, table)
    return {name: open_hand(driver.fake, name) for name in PLAYERS}


async def tap_once(driver, name, hand):
    """The player's one tap for this turn, on their open hand."""
    await driver._choose(name, hand)


async def play_until(driver, hands, done, *, tapped=None, moves=20):
    """Tap once on whichever open hand has the turn, until ``done()`` (each tapper's name is
    added to ``tapped``); fails after ``moves`` taps."""
    for _ in range(moves):
        await driver.fake.wait_until(lambda: done() or any(my_turn(h) for h in hands.values()),
                                     timeout=10)
        if done():
            return
        name = next(n for n, h in hands.items() if my_turn(h))
        if tapped is not None:
            tapped.add(name)
        await tap_once(driver, name, hands[name])
    raise AssertionError(f"not done after {moves} taps")


ANY_ACTOR = re.compile(r"▶ [^*\n]*\*\*(.+?)\*\*")  # "▶ **ann** …" or "▶ Au tour d’**ann**"


async def play_out_by_ids(fake, table, over: str, rng: random.Random, *,
                          humans: set[str] | None = None) -> list:
    """Play the hand to its end (until the table's title ends with ``over``) by custom ids
    only, so in any language, opening hands privately in phase two; returns every private
    hand message seen, as (player, message). With ``humans``, every other seat is an AI's:
    its turns are waited for, not played."""
    def actor() -> str | None:
        found = ANY_ACTOR.search(description(table))
        who = found[1] if found else None
        return who if humans is None or who in humans else None

    hands = []
    for _ in range(3000):
        if title(table).endswith(over):
            return hands
        who = actor()
        if who is None:
            await fake.wait_until(lambda: actor() is not None or title(table).endswith(over),
                                  timeout=20)
            continue
        moves = [b for b in table.buttons() if b.custom_id.split(":")[3].split(".")[0]
                 in ("give", "draw", "keep")]
        if moves:
            ix = await fake.click(who, table, custom_id=rng.choice(moves).custom_id)
            assert (await ix.wait_response()).type == 7
            continue
        mine = next(b for b in table.buttons() if b.custom_id.endswith(":hand"))
        ix = await fake.click(who, table, custom_id=mine.custom_id)
        assert (await ix.wait_response()).ephemeral
        hand = await ix.wait_message()
        hands.append((who, hand))
        plays = [b for b in hand.buttons() if ":play." in b.custom_id or
                 b.custom_id.endswith(":take")]
        options = [(s, o["value"]) for s in hand.selects() for o in s.raw.get("options", [])]
        shown = table.embeds[0].get("footer", {}).get("text")  # its move number
        if plays and (not options or rng.random() < 0.5):
            ix = await fake.click(who, hand, custom_id=rng.choice(plays).custom_id)
        else:
            select, value = rng.choice(options)
            ix = await fake.select(who, hand, select.custom_id, [value])
        assert (await ix.wait_response()).type == 7
        # The publisher redraws the table message, outside any interaction (an edit that
        # only brings the picture of the state before does not count).
        await fake.wait_until(lambda shown=shown: table.embeds[0].get("footer", {})
                              .get("text") != shown or title(table).endswith(over),
                              timeout=10)
    raise AssertionError("the hand did not end")



class RecordingWay:
    """A way of sending that reaches every message and records each request instead of
    sending it (``requests``): ``("post", id, spec)``, ``("edit", id, spec)``,
    ``("delete", id)``. ``hold``
    keeps edits in flight until it is set; ``editing`` is set once an edit began."""

    def __init__(self) -> None:
        import asyncio
        from contextlib import nullcontext

        self.requests: list[tuple] = []
        self.ids = iter(range(1000, 10**6))
        self.hold: asyncio.Event | None = None
        self.editing = asyncio.Event()
        self._turn = nullcontext

    def reaches(self, message_id, within=0.0):
        return True

    def posts(self, within=0.0):
        return True

    def lapses(self):
        return None

    def turn(self):
        return self._turn()

    async def room(self):
        pass

    def keeps_copies(self):
        return False

    def borrowing(self, tokens, clock):
        return self

    async def exists(self, message_id):
        return True

    async def history(self, limit, *, before=None):
        return None

    async def post(self, spec):
        message_id = next(self.ids)
        self.requests.append(("post", message_id, spec))
        return message_id

    async def edit(self, message_id, spec):
        self.editing.set()
        if self.hold is not None:
            await self.hold.wait()
        self.requests.append(("edit", message_id, spec))

    async def delete(self, message_id):
        self.requests.append(("delete", message_id))

    def kinds(self):
        return [request[0] for request in self.requests]


class StateStore:
    """The bot's own state (``bot_state``) in memory: values by key, as the records read
    and write them."""

    def __init__(self, values: dict[str, str] | None = None) -> None:
        self.values: dict[str, str] = dict(values or {})

    async def state_values(self, prefix):
        return {k: v for k, v in self.values.items() if k.startswith(prefix)}

    async def set_state_values(self, values):
        for key, value in values.items():
            if value is None:
                self.values.pop(key, None)
            else:
                self.values[key] = value


# --- a change held while it is being written ---------------------------------------------

class SentBeforeWrite:
    """Which pictures had been sent to be drawn (in the drawing thread) when the
    repository's ``method`` (a write: ``record_action``, ``start_hand``) was called: the
    write runs as it does (on the loop's thread, without letting the loop turn), and
    ``at_write`` lists, for each call, the scenes sent before it, by kind (``TableScene``,
    ``HandScene``)."""

    def __init__(self, repo, method: str, monkeypatch) -> None:
        from concurrent.futures import ThreadPoolExecutor

        import cogs.pictures

        self.sent: list[str] = []
        self.at_write: list[list[str]] = []
        write = getattr(repo, method)
        sent = self.sent

        class Drawer(ThreadPoolExecutor):
            def submit(self, fn, /, *args, **kwargs):
                scene = getattr(fn, "args", (None, None))[1]
                sent.append(type(scene).__name__)
                return super().submit(fn, *args, **kwargs)

        def held(*args, **kwargs):
            self.at_write.append(list(self.sent))
            return write(*args, **kwargs)

        monkeypatch.setattr(repo, method, held)
        monkeypatch.setattr(cogs.pictures, "DRAWER", Drawer(max_workers=1))


class HeldWrite:
    """The repository's ``method`` (a write: ``record_action``, ``start_hand``) held until
    ``release``, and every picture drawing started meanwhile: what starts before the write
    ends (``early``) and after."""

    def __init__(self, repo, method: str, monkeypatch) -> None:
        import asyncio

        from cogs.pictures import Pictures

        self.writing, self.written = asyncio.Event(), asyncio.Event()
        self.drawn: list[tuple[str, bool, object]] = []
        write = getattr(repo, method)
        draw = Pictures._draw

        async def held(*args, **kwargs):
            self.writing.set()
            await self.written.wait()
            return await write(*args, **kwargs)

        async def drawing(pictures, scene, key, alt, filename, urgent, *rest):
            self.drawn.append((filename, self.written.is_set(), key))
            return await draw(pictures, scene, key, alt, filename, urgent, *rest)

        monkeypatch.setattr(repo, method, held)
        monkeypatch.setattr(Pictures, "_draw", drawing)

    def early(self, filename: str) -> list[object]:
        """The keys of the pictures named ``filename`` started while the write was held."""
        return [key for name, released, key in self.drawn if name == filename and not released]

    def release(self) -> None:
        self.written.set()
