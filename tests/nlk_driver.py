"""Run the real NLK bot against the fake Discord and play it the way people do: by tapping.

The driver reads only what a user would see (the table message, pings, their own ephemeral
hand) and acts only through slash commands, buttons and selects.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.client import NLKBot
from bot.settings import Settings
from rules import Game, shuffled_deck
from tests.fakediscord import FakeDiscord
from tests.fakediscord.models import Message

ROOT = Path(__file__).resolve().parent.parent


class TimeMachine:
    """A clock for the bot that tests can move forward; clocks are woken to notice."""

    def __init__(self) -> None:
        self.offset = 0.0
        self.bots: list[NLKBot] = []

    def __call__(self) -> float:
        return time.time() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += seconds
        for bot in self.bots:
            if hasattr(bot, "clocks"):
                for table in bot.service.cached():
                    bot.clocks.poke(table)


ACTOR = re.compile(r"▶ \*\*(.+?)\*\*")
MOVE = re.compile(r"hand (\d+) · move (\d+)")


@contextlib.asynccontextmanager
async def running_bot(fake: FakeDiscord, database: Path, seed: int | None = 0, *,
                      clock: TimeMachine | None = None, ai_processes: int = 0,
                      picture_processes: int = 0, dev_guild: int | bool | None = True,
                      **options: object) -> AsyncIterator[NLKBot]:
    """The NLK bot, in this process, connected to ``fake`` and using ``database``.

    ``seed`` makes the deals reproducible (None: the bot's own random, committed seeds);
    AI moves are not paced, and think in threads unless ``ai_processes`` is set (pictures
    are drawn in a thread unless ``picture_processes`` is); the commands are synced to the
    fake's server unless ``dev_guild`` names another or is None.
    """
    previous = fake.sessions[-1] if fake.sessions else None
    settings = Settings(token=fake.token, database=str(database),
                        dev_guild=fake.guild_id if dev_guild is True else dev_guild or None,
                        api_base=fake.api_base, log_level="WARNING")
    options = {"ai_delay": 0.01, "ai_budget_ms": 50, **options}
    bot = NLKBot(settings, guild_ready_timeout=0.05, ai_processes=ai_processes,
                 picture_processes=picture_processes, clock=clock, **options)  # type: ignore[arg-type]
    if clock is not None:
        clock.bots.append(bot)
    task = asyncio.create_task(bot.start(fake.token))
    try:
        # Generous: on a busy two-core machine a start can take a while (not what is tested).
        await fake.wait_for_bot(timeout=30, after=previous)
        await asyncio.wait_for(bot.wait_until_ready(), 5)
        if seed is not None:
            # Reproducible deals: the n-th hand of this run is always the same.
            deals = random.Random(seed)
            bot.service.shuffle = lambda n, _seed: shuffled_deck(n, deals.random())
            bot.service.choose_dealer = deals.randrange
        if clock is not None:
            bot.service.clock = clock
        nlk = bot.get_cog("NLK")
        if nlk is not None:
            # Every answer carries its new picture, however busy the test machine: tests
            # check the pictures of every step. A late picture has its own test.
            nlk.publisher.pictures.answer_wait = 30.0
            # ... and the drawing processes (at a lower priority than the bot) are warm
            # before the first tap, so that no answer waits for one to start on a busy
            # test machine (a bot in service answers without the picture meanwhile).
            await asyncio.wait_for(nlk.warmed.wait(), 60)
        yield bot
    finally:
        await bot.close()
        with contextlib.suppress(Exception):
            await task


async def spawn_bot(fake: FakeDiscord, database: Path | str, *, stdout: object = None,
                    stderr: object = None, env: dict[str, str] | None = None,
                    module: str = "bot") -> asyncio.subprocess.Process:
    """``python -m bot`` as deployed, in a process of its own, connected to ``fake``.

    ``stdout`` and ``stderr`` are as for ``asyncio.create_subprocess_exec`` (None: discarded);
    ``env`` adds to (or, with an empty value, removes from) the bot's environment;
    ``module`` runs another bot in its place, in the same environment (``tests.naive_bot``,
    the load benchmark's yardstick).
    """
    env = {key: value for key, value in {
        **os.environ, **fake.env(), "NLK_DATABASE": str(database),
        "NLK_DEV_GUILD": str(fake.guild_id), "LOG_LEVEL": "WARNING", **(env or {})}.items()
        if value}
    quiet = asyncio.subprocess.DEVNULL
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", module, cwd=ROOT, env=env,
        stdout=quiet if stdout is None else stdout, stderr=quiet if stderr is None else stderr)


def title(message: Message) -> str:
    return message.embeds[0].get("title", "") if message.embeds else ""


def description(message: Message) -> str:
    return message.embeds[0].get("description", "") if message.embeds else ""


def field_value(message: Message, name_start: str) -> str | None:
    for embed in message.embeds:
        for f in embed.get("fields", []):
            if f["name"].startswith(name_start):
                return f["value"]
    return None


def actor(message: Message) -> str | None:
    found = ACTOR.search(description(message))
    return found[1] if found else None


def move_of(message: Message) -> int:
    """The engine version a table or hand message shows (its footer says ``move N``)."""
    footer = message.embeds[0].get("footer", {}).get("text", "") if message.embeds else ""
    found = re.search(r"move (\d+)", footer)
    return int(found[1]) if found else -1


def is_over(message: Message) -> bool:
    return title(message).endswith(" · over")


def is_hand(message: Message) -> bool:
    return title(message).startswith(("Your hand", "Your stack"))


def open_hand(fake: FakeDiscord, name: str, channel: int | None = None) -> Message | None:
    """The newest hand message ``name`` still has open in the channel (not dismissed): what
    they see of their own cards without tapping anything."""
    hands = [m for m in fake.visible_to(name, channel) if m.visible_to is not None
             and is_hand(m)]
    return hands[-1] if hands else None


def my_turn(hand: Message) -> bool:
    """The hand shows its owner's turn, with their controls."""
    text = hand.text()
    controls = any(b.label != "Refresh" for b in hand.buttons()) or bool(hand.selects())
    return ("Your turn" in text or "Your lead" in text) and controls


@dataclass
class Driver:
    """Plays whole hands through the fake, by taps only."""

    fake: FakeDiscord
    rng: random.Random = field(default_factory=lambda: random.Random(1))
    take_chance: float = 0.15
    actions: int = 0
    hands_opened: int = 0
    humans: set[str] | None = None  # None: every seat is a person; others are AI seats
    channel: int | None = None  # where ``new_table`` opens a table (None: the fake's own)

    def is_human(self, name: str | None) -> bool:
        return name is not None and (self.humans is None or name in self.humans)

    async def wait_for_table(self, table: Message, after_move: int) -> None:
        """Until the table message shows a later move (AI moves edit it in the background)."""
        await self.fake.wait_until(lambda: is_over(table) or move_of(table) > after_move,
                                   timeout=30)

    async def new_table(self, host: str, **options: object) -> Message:
        ix = await self.fake.slash(host, self.channel, "nlk", "new", options or None)
        response = await ix.wait_response()
        assert response.type == 4 and not response.ephemeral
        return await ix.wait_message()

    async def click(self, user: str, message: Message, label: str | None = None, *,
                    prefix: str | None = None, custom_id: str | None = None,
                    expect: int | None = 7):
        ix = await self.fake.click(user, message, label=label, prefix=prefix,
                                   custom_id=custom_id)
        response = await ix.wait_response()
        if expect is not None:
            assert response.type == expect, (response.type, response.data)
        return ix, response

    async def seat_and_start(self, host: str, others: list[str], **options: object) -> Message:
        table = await self.new_table(host, seats=max(2, len(others) + 1), **options)
        for name in others:
            await self.click(name, table, "Join")
        await self.click(host, table, "Start (host)")
        # Hand 1 is dealt: in its collect phase, or already shedding when no move of the
        # collect phase had a choice (it then plays itself: about one two-player deal in
        # ten thousand).
        assert " · collect" in title(table) or " · shed" in title(table), title(table)
        return table

    async def play_hand(self, table: Message, *, limit: int = 20000) -> None:
        """Tap through a whole hand until the table message announces the loser."""
        while not is_over(table) and self.actions < limit:
            if not self.is_human(actor(table)):
                await self.wait_for_table(table, move_of(table))
            elif " · collect" in title(table):
                await self._collect_step(table)
            else:
                await self._shed_turn(table, actor(table))
        if not is_over(table):
            raise AssertionError(f"hand not over after {self.actions} actions")

    async def _collect_step(self, table: Message) -> None:
        name = actor(table)
        assert name is not None, description(table)
        choices = [b for b in table.buttons() if b.label not in ("My stack", "Moves", "Fair deal")]
        assert choices, f"no action buttons for {name}: {[b.label for b in table.buttons()]}"
        button = self.rng.choice(choices)
        ix = await self.fake.click(name, table, custom_id=button.custom_id)
        response = await ix.wait_response()
        assert response.type == 7, response.data
        self.actions += 1

    async def open_hand(self, name: str, table: Message) -> Message:
        """The player's hand, from their latest turn ping if there is one, else the table."""
        user = self.fake.user(name).id
        pings = [m for m in self.fake.public_messages()
                 if not m.deleted and user in m.pinged_user_ids
                 and any(b.label in ("My hand", "My stack") for b in m.buttons())]
        source = pings[-1] if pings else table
        label = "My hand" if any(b.label == "My hand" for b in source.buttons()) else "My stack"
        ix = await self.fake.click(name, source, label=label)
        response = await ix.wait_response()
        assert response.type == 4 and response.ephemeral
        self.hands_opened += 1
        return await ix.wait_message()

    async def _shed_turn(self, table: Message, name: str | None) -> None:
        """One player's turn in phase two, played from their ephemeral hand."""
        while self.is_human(name) and not is_over(table):
            assert name is not None
            hand = await self.open_hand(name, table)
            name = await self._play_from(name, hand, table)
            if name is None:
                # The hand ended with this player's action: wait for the table to say so.
                await self.fake.wait_until(lambda: is_over(table), timeout=10)
            elif not self.is_human(name):
                await self.wait_for_table(table, move_of(hand) - 1)

    async def _play_from(self, name: str, hand: Message, table: Message) -> str | None:
        """Play as long as it is this player's turn; return who is next (None: over)."""
        tap = None
        while True:
            text = hand.text()
            if "Not your turn yet" in text or "Well played" in text:
                return await self._next_actor(table, hand, tap)
            if "Your turn" not in text and "Your lead" not in text:
                return None
            tap = await self._choose(name, hand)
            self.actions += 1

    async def _next_actor(self, table: Message, hand: Message, tap: Any) -> str | None:
        """Who acts after the hand's last move (a hand does not name them): the person the
        answer to ``tap`` pinged, or else (an AI, or no tap) whoever the table message names
        once it shows that move."""
        move = move_of(hand)

        def pinged() -> list[int]:
            return [u for m in (tap.followups if tap is not None else []) for u in
                    m.pinged_user_ids]

        await self.fake.wait_until(
            lambda: bool(pinged()) or is_over(table) or move_of(table) >= move, timeout=30)
        found = pinged()
        return self.fake.user(found[0]).name if found else actor(table)

    async def _choose(self, name: str, hand: Message) -> Any:
        # Moves only: not Refresh, nor a Hint (where a server allows hints).
        buttons = [b for b in hand.buttons() if b.label != "Refresh"
                   and not b.custom_id.endswith(":hint")]
        take = [b for b in buttons if (b.label or "").startswith("Take")]
        plays = [b for b in buttons if b not in take]
        selects = hand.selects()
        options = [(s, o["value"]) for s in selects for o in s.raw.get("options", [])]
        if take and (self.rng.random() < self.take_chance or not (plays or options)):
            ix = await self.fake.click(name, hand, custom_id=take[0].custom_id)
        elif plays:
            # Random, not always the lowest card: fixed strategies can cycle for ever.
            ix = await self.fake.click(name, hand, custom_id=self.rng.choice(plays).custom_id)
        else:
            assert options, f"no controls on {name}'s hand: {hand.text()}"
            select, value = self.rng.choice(options)
            ix = await self.fake.select(name, hand, select.custom_id, [value])
        response = await ix.wait_response()
        assert response.type == 7, response.data
        return ix


def rebuild(hand_row, action_rows, upto: int) -> Game:
    """The hand's state after ``upto`` actions, from the database rows."""
    from rules import Action, Variant

    names = json.loads(hand_row["names"])
    game = Game.from_deck(json.loads(hand_row["deck"]), hand_row["dealer"], names=names,
                          variant=Variant(hand_row["last_card"],
                                          bool(hand_row["must_beat_in_suit"])))
    for row in action_rows[:upto]:
        action = Action.from_json({"act": row["act"], "card": row["card"], "to": row["target"]})
        game.apply(action, row["seat"])
    return game


def stacks_by_version(hand_row, action_rows) -> list[list[set[str]]]:
    """Every seat's cards after each number of actions, replayed once (a hand is shown in
    thousands of versions; replaying from the deal for each would be quadratic)."""
    from rules import Action

    game = rebuild(hand_row, action_rows, 0)
    states = [[{str(c) for c in stack} for stack in game.stacks]]
    for row in action_rows:
        action = Action.from_json({"act": row["act"], "card": row["card"], "to": row["target"]})
        game.apply(action, row["seat"])
        states.append([{str(c) for c in stack} for stack in game.stacks])
    return states


SYMBOL_SUITS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}


def listed_hand(message_text: str) -> set[str]:
    """The cards a "Your hand" embed lists, as engine text (``TD``)."""
    cards = set()
    for line in message_text.splitlines():
        if line[:1] in SYMBOL_SUITS and "(" not in line.split()[0][1:]:
            suit = SYMBOL_SUITS[line[0]]
            for rank in line.replace("(trump)", "").split()[1:]:
                cards.add(("T" if rank == "10" else rank) + suit)
    return cards


def database_rows(path: Path, table_id: int):
    """``(hands, {hand_id: actions})`` straight from the SQLite file."""
    import sqlite3

    db = sqlite3.connect(path)
    db.row_factory = sqlite3.Row
    try:
        hands = db.execute("SELECT * FROM hands WHERE table_id = ? ORDER BY number",
                           (table_id,)).fetchall()
        actions = {h["id"]: db.execute("SELECT * FROM actions WHERE hand_id = ? ORDER BY idx",
                                       (h["id"],)).fetchall() for h in hands}
    finally:
        db.close()
    return hands, actions


def check_no_hand_leaks(fake: FakeDiscord, path: Path, table_id: int) -> int:
    """Every hand ever shown went only to its owner and listed exactly their cards then.

    Returns how many hand versions were checked.
    """
    hands, actions = database_rows(path, table_id)
    by_number = {h["number"]: h for h in hands}
    stacks: dict[int, list[list[set[str]]]] = {}  # hand id → every seat's cards, per version
    checked = 0
    for message in fake.state.messages.values():  # deleted ones too
        for version in message.versions:
            for embed in version.embeds:
                heading = embed.get("title", "")
                if not heading.startswith(("Your hand", "Your stack")):
                    continue
                assert message.visible_to is not None, "a hand was shown publicly"
                found = MOVE.search(embed.get("footer", {}).get("text", ""))
                assert found, embed
                hand_row = by_number[int(found[1])]
                owner = message.visible_to
                players = json.loads(hand_row["players"])
                assert owner in players, "a hand was shown to someone not playing"
                if heading.startswith("Your hand"):
                    if hand_row["id"] not in stacks:
                        stacks[hand_row["id"]] = stacks_by_version(hand_row,
                                                                   actions[hand_row["id"]])
                    own = stacks[hand_row["id"]][int(found[2])][players.index(owner)]
                    assert listed_hand(embed.get("description", "")) == own
                    checked += 1
    return checked
