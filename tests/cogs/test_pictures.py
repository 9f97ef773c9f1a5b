"""Cards as pictures: the drawing itself, and the pictures players get through the fake
Discord (their hand, the table message), their alt text, styles and failures."""

import asyncio
import datetime
import functools
import gc
import io
import itertools
import logging
import random
import re
import threading
import time
from types import SimpleNamespace

from PIL import Image

import cogs.pictures
from cogs.live.table_message import TableMessages
from cogs.pictures import ANSWER_WAIT, BEHIND, BEHIND_WAIT, Pictures, draw
from cogs.pictures.cache import ByteLRU
from cogs.pictures.draw import (
    BLUE,
    CARD_W,
    FRAME,
    GOLD,
    MUTED,
    PLAIN,
    PLAYABLE,
    RED,
    HandScene,
    Shown,
    draw_hand,
)
from cogs.pictures.turns import Turns
from rules import Card, Game, Variant, shuffled_deck
from rules.i18n import Lang
from tests.cogs.test_convergence_random import moves_on
from tests.fakediscord.models import Perm
from tests.helpers import HeldWrite, table_for
from tests.nlk_driver import Driver, actor, running_bot, title

PLAYERS = ["ann", "bob", "cy"]
WORDS = {14: "ace", 13: "king", 12: "queen", 11: "jack"}
SUIT_WORDS = ("spades", "hearts", "diamonds", "clubs")


def decode(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image.convert("RGB")


def near(colour, target, within=40) -> bool:
    return sum((a - b) ** 2 for a, b in zip(colour, target, strict=True)) <= within ** 2


def has_colour(image: Image.Image, target) -> bool:
    return any(near(c, target) for _n, c in image.getcolors(1 << 16))


def english_hand(cards, trump: str | None) -> str:
    """The hand in words, as a person would list it: by suit (trump last), low to high."""
    last = "SHDC".index(trump) if trump else None
    order = [s for s in range(4) if s != last] + ([last] if last is not None else [])
    parts = []
    for suit in order:
        ranks = sorted(c.rank for c in cards if c.suit == suit)
        if ranks:
            name = SUIT_WORDS[suit] + (" (trump)" if suit == last else "")
            parts.append(f"{name}: " + ", ".join(WORDS.get(r, str(r)) for r in ranks))
    return "; ".join(parts)


# --- the drawing -----------------------------------------------------------------------------

def test_a_hand_picture_raises_and_edges_the_playable_cards_and_greys_the_others():
    cards = [Card.parse(c) for c in ("7S", "9S", "JS", "8H", "QH")]
    states = [PLAYABLE, MUTED, PLAYABLE, MUTED, MUTED]
    rows = ((Shown(cards[0], "7", states[0]), Shown(cards[1], "9", states[1]),
             Shown(cards[2], "J", states[2])),
            (Shown(cards[3], "8", states[3]), Shown(cards[4], "Q", states[4])))
    drawn = draw_hand(HandScene(rows, False))
    image = decode(drawn.png)
    assert image.size == (drawn.width, drawn.height)
    assert [b.card for b in drawn.boxes] == cards
    first_row = [b for b in drawn.boxes if b.card.suit == 0]
    assert first_row[0].y0 < first_row[1].y0 and first_row[2].y0 == first_row[0].y0
    for box, state in zip(drawn.boxes, states, strict=True):
        edge = image.getpixel((box.x0 + 1, (box.y0 + box.y1) // 2))
        assert near(edge, GOLD) == (state == PLAYABLE), (box, edge)
        unit = (box.x1 - box.x0) / CARD_W
        face = image.getpixel((round(box.x0 + 6 * unit), round(box.y1 - 8 * unit)))
        assert (max(face) < 200) == (state == MUTED), (box, face)


def test_four_colours_draw_diamonds_blue_and_two_colours_red():
    row = ((Shown(Card.parse("9D"), "9", PLAIN), Shown(Card.parse("KD"), "K", PLAIN)),)
    four = decode(draw_hand(HandScene(row, True)).png)
    two = decode(draw_hand(HandScene(row, False)).png)
    assert has_colour(four, BLUE) and not has_colour(four, RED)
    assert has_colour(two, RED) and not has_colour(two, BLUE)


def test_a_forty_card_hand_is_small():
    deck = [Card.parse(r + s) for s in "SHDC" for r in "AKQJT98765432"]
    hand = sorted(random.Random(2).sample(deck, 40))
    rows = tuple(tuple(Shown(c, str(c.rank), PLAYABLE if i % 3 else MUTED)
                       for i, c in enumerate(hand) if c.suit == s) for s in range(4))
    drawn = draw_hand(HandScene(rows, True))
    assert len(drawn.png) < 50_000
    assert max(drawn.width / FRAME.width, drawn.height / FRAME.height) == FRAME.ratio


def held_drawing(monkeypatch) -> threading.Event:
    """The drawing thread holds every picture until the event is set: a picture sent to
    be drawn is then surely not drawn yet, however fast the thread (an urgent one is sent
    at once, and a one-card hand can be drawn before the loop turns)."""
    from concurrent.futures import ThreadPoolExecutor

    go = threading.Event()

    class Held(ThreadPoolExecutor):
        def submit(self, fn, /, *args, **kwargs):
            def held():
                go.wait(30)
                return fn(*args, **kwargs)
            return super().submit(held)

    monkeypatch.setattr(cogs.pictures, "DRAWER", Held(max_workers=1))
    return go


async def test_a_kept_picture_is_taken_at_once_however_short_the_wait(monkeypatch):
    """A hand's picture drawn before (the hand just redrawn, then **My hand**) is taken at
    once, with no wait left at all (the first answer's deadline is near); one not drawn yet
    is late, and lands in the cache for the redraw after."""
    pictures = Pictures()
    scene = HandScene(((Shown(Card.parse("9D"), "9", PLAIN),),), False)
    found = (scene, "9 of diamonds")
    go = held_drawing(monkeypatch)
    late = await pictures.within(pictures.hand_now(found, urgent=True), 0.0)
    assert isinstance(late, cogs.pictures.Late)
    go.set()
    drawn = await pictures.hand_picture(found)  # the drawing left behind, landed
    assert drawn is not None and drawn.description == "9 of diamonds"
    others = []  # what else the event loop has to do: it does not wait for that
    asyncio.get_running_loop().call_soon(others.append, "another table's work")
    assert await pictures.within(pictures.hand_now(found, urgent=True), 0.0) is drawn
    assert not others  # taken without a turn of the loop
    assert await pictures.within(pictures.hand_now(None), 0.0) is None  # text only


async def test_a_kept_table_picture_is_taken_at_once_however_short_the_wait(monkeypatch):
    """The table message's picture, as for a hand: one drawn before (the answer's picture,
    started as the move was written) is taken at once, with no wait left; one still being
    drawn is late."""
    pictures = Pictures()
    table = table_for(Game.from_deck(shuffled_deck(3, "7"), 0, names=PLAYERS,
                                     variant=Variant("free", True)))
    go = held_drawing(monkeypatch)
    late = await pictures.within(pictures.public_now(table, Lang.EN, urgent=True), 0.0)
    assert isinstance(late, cogs.pictures.Late)
    go.set()
    drawn = await pictures.public(table, Lang.EN)  # the drawing left behind, landed
    assert drawn is not None and drawn.filename == "table.png"
    others = []
    asyncio.get_running_loop().call_soon(others.append, "another table's work")
    assert await pictures.within(pictures.public_now(table, Lang.EN, urgent=True), 0.0) \
        is drawn
    assert not others  # taken without a turn of the loop


async def test_a_drawing_that_fails_gives_no_picture_and_one_warning(monkeypatch, caplog):
    pictures = Pictures()
    scene = HandScene(((Shown(Card.parse("9D"), "9", PLAIN),),), False)

    def broken(*_args):
        raise OSError("Pillow could not encode")

    monkeypatch.setattr(cogs.pictures, "draw_picture", broken)
    with caplog.at_level(logging.WARNING, logger="cogs.pictures"):
        assert await pictures._picture(scene, "9 of diamonds", "hand.png") is None
        assert await pictures._picture(scene, "9 of diamonds", "hand.png") is None
    warnings = [r for r in caplog.records if r.name == "cogs.pictures"]
    assert len(warnings) == 1 and "sending text" in warnings[0].getMessage()
    monkeypatch.undo()
    drawn = await pictures._picture(scene, "9 of diamonds", "hand.png")
    assert drawn is not None and drawn.description == "9 of diamonds"


async def test_a_picture_an_answer_waits_for_is_drawn_before_background_redraws():
    turns = Turns()
    order = []

    async def draw(name, urgent):
        async with turns.turn(urgent):
            order.append(name)
            await asyncio.sleep(0.01)

    first = asyncio.create_task(draw("first", False))
    await asyncio.sleep(0)  # it holds the turn; the rest queue up behind it
    queued = [asyncio.create_task(draw(name, urgent)) for name, urgent in
              [("redraw 1", False), ("redraw 2", False), ("answer", True)]]
    await asyncio.sleep(0)
    queued[1].cancel()  # a waiter that goes away is skipped
    await asyncio.gather(first, *queued, return_exceptions=True)
    assert order == ["first", "answer", "redraw 1"]
    async with turns.turn(False):  # and the turn is free again
        pass


async def test_an_answer_waits_longer_for_its_picture_only_while_the_drawing_is_behind():
    """An answer waits ``ANSWER_WAIT`` for its picture while the drawing keeps up, and up
    to ``BEHIND_WAIT`` while more pictures wait for a drawer than ``BEHIND`` for each: that
    holds fast players back while the drawing falls behind; never past the first answer's
    deadline."""
    pictures = Pictures(processes=0)  # one drawer
    tapped = SimpleNamespace(created_at=datetime.datetime.now(datetime.UTC))
    assert ANSWER_WAIT < BEHIND_WAIT
    assert pictures.answer_wait_for(tapped) == ANSWER_WAIT
    go_on = asyncio.Event()

    async def drawing():
        async with pictures.turns.turn(False):
            await go_on.wait()

    drawings = [asyncio.create_task(drawing()) for _ in range(1 + BEHIND)]
    await asyncio.sleep(0)  # one draws, the others wait: as many as ``BEHIND`` a drawer
    assert pictures.turns.waiting == BEHIND and not pictures.behind()
    assert pictures.answer_wait_for(tapped) == ANSWER_WAIT
    drawings.append(asyncio.create_task(drawing()))  # one more: behind
    await asyncio.sleep(0)
    assert pictures.behind()
    assert pictures.answer_wait_for(tapped) == BEHIND_WAIT
    old = SimpleNamespace(created_at=tapped.created_at - datetime.timedelta(seconds=2.49))
    assert pictures.answer_wait_for(old) < 0.02  # the first answer's deadline comes first
    go_on.set()
    await asyncio.gather(*drawings)
    assert not pictures.behind() and pictures.answer_wait_for(tapped) == ANSWER_WAIT


async def test_a_picture_asked_for_while_the_card_parts_are_drawn_waits_for_a_few_only(
        monkeypatch):
    """At start-up the parts of the card faces are drawn in a thread (``Pictures.warm``)
    under the font lock. The first picture asked for meanwhile (a move right after a
    restart) waits for a few of those parts, not for a whole size of them, however slowly
    a starved machine draws them: here each part takes 3 ms longer, and a size of them
    (936 faces' parts) takes 2.8 s."""
    parts = draw._marks
    begun, over = threading.Event(), threading.Event()

    class Over(Exception):
        """The test is done: the warming stops."""

    def slow_parts(*args):
        if over.is_set():
            raise Over
        begun.set()
        time.sleep(0.003)
        return parts(*args)

    monkeypatch.setattr(draw, "_marks", slow_parts)
    pictures = Pictures()
    warming = asyncio.create_task(asyncio.to_thread(pictures.warm))
    try:
        assert await asyncio.to_thread(begun.wait, 10)
        row = tuple(Shown(Card.parse(c), c[0], PLAYABLE) for c in ("7S", "9S", "JS", "QS"))
        start = time.perf_counter()
        picture = await pictures._picture(HandScene((row,), False), "spades", "hand.png")
        waited = time.perf_counter() - start
    finally:
        over.set()
        await warming
    assert picture is not None
    assert waited < 1.0, f"the picture waited {waited:.2f} s for the card parts"


def test_a_kept_picture_gives_the_garbage_collector_one_object_to_scan():
    """The cache holds thousands of pictures; a full collection scans every tracked object
    with the event loop stopped, so a kept picture is plain values under one object."""
    pictures = Pictures()
    scene = HandScene(tuple(tuple(Shown(Card.parse(r + s), r, PLAYABLE if r == "A" else PLAIN)
                                  for r in "9TJQKA") for s in "SH"), False)
    picture = pictures.draw(scene, "two suits", "hand.png")
    gc.collect()  # a tuple of plain values is untracked by the first collection seeing it
    assert gc.is_tracked(picture)
    assert [o for o in gc.get_referents(picture)
            if gc.is_tracked(o) and o is not type(picture)] == []
    assert picture.key == (*scene.key(), "two suits")
    assert [b.card for b in picture.boxes] == [c.card for row in scene.rows for c in row]
    assert [b.state for b in picture.boxes].count(PLAYABLE) == 2


async def test_a_drawing_process_draws_what_this_thread_draws_and_is_replaced_if_killed():
    """The bot draws in a process of its own, warmed as it starts: the same picture, byte
    for byte, as drawn here; a drawing process that died is replaced, warmed, by the next
    picture, and the bot's own pictures never wait for it to come back."""
    here, there = Pictures(), Pictures(processes=1)
    try:
        await asyncio.to_thread(there.warm)  # starts the process, which warms itself
        [first] = there.pool.processes
        scene = HandScene(tuple(tuple(Shown(Card.parse(r + s), r, PLAYABLE if r > "9" else
                                            PLAIN) for r in "789TJ") for s in "DC"), True)
        drawn = await there._picture(scene, "ten cards", "hand.png")
        assert drawn == here.draw(scene, "ten cards", "hand.png")
        assert first.poll() is None
        first.kill()
        await asyncio.to_thread(first.wait)
        other = HandScene(scene.rows[:1], False)
        again = await there._picture(other, "five cards", "hand.png")
        assert again == here.draw(other, "five cards", "hand.png")
        [second] = there.pool.processes
        assert second.pid != first.pid and second.poll() is None
    finally:
        there.close()
    assert await there._picture(HandScene(scene.rows[1:], False), "closed", "hand.png") is None


async def test_a_drawing_process_loads_no_discord_library():
    """A drawing process loads the drawing code only: not Discord's library and its HTTP
    stack (twice the memory and start-up time of a process, for each one the bot runs)."""
    pictures = Pictures(processes=1)
    try:
        scene = HandScene(tuple(tuple(Shown(Card.parse(r + s), r) for r in "789TJ")
                                for s in "DC"), False)
        assert await pictures._picture(scene, "ten cards", "hand.png") is not None
        # A question asked in the drawing process itself, after its first picture.
        loaded = await pictures.pool.run(functools.partial(
            eval, "sorted({'discord', 'aiohttp', 'aiosqlite', 'asyncpg'} "
                  "& set(__import__('sys').modules))"))
        assert loaded == []
    finally:
        pictures.close()


class Blob:
    def __init__(self, size):
        self.size = size


def test_the_cache_keeps_the_newest_pictures_within_its_bytes():
    cache = ByteLRU(100)
    for key in "abc":
        cache.put(key, Blob(30))
    assert cache.bytes == 90 and cache.get("a") is not None  # a is now the newest
    cache.put("d", Blob(30))  # 120 bytes: the least recently used (b) goes
    assert cache.get("b") is None and cache.get("a") is not None and cache.bytes == 90
    cache.put("huge", Blob(101))
    assert cache.get("huge") is None


# --- through the fake Discord ----------------------------------------------------------------

def nlk(bot):
    return bot.get_cog("NLK")


def picture_of(bot, data: bytes):
    """The picture the bot drew for these bytes, with the layout its renderer reported."""
    found = [p for p in nlk(bot).pictures.cache._items.values() if p.png == data]
    assert found, "the attachment is not a picture the bot drew"
    return found[0]


async def to_the_shed_phase(driver, table):
    while " · collect" in title(table):
        await driver._collect_step(table)
    assert " · shed" in title(table), title(table)


def play_choices(hand) -> set[str]:
    """The cards the hand's buttons and selects offer to play."""
    offered = {b.custom_id.rsplit(".", 1)[1] for b in hand.buttons()
               if ":play." in (b.custom_id or "")}
    return offered | {o["value"] for s in hand.selects() for o in s.raw.get("options", [])}


async def test_hands_and_the_table_carry_pictures_with_their_cards_in_words(fake_discord,
                                                                           tmp_path):
    fake = fake_discord
    # Drawn as the bot draws them when it runs: in a process of their own.
    async with running_bot(fake, tmp_path / "nlk.sqlite3", picture_processes=1) as bot:
        assert bot.get_cog("NLK").publisher.pictures.pool is not None
        driver = Driver(fake, random.Random(7))
        table = await driver.seat_and_start(PLAYERS[0], PLAYERS[1:], turn_timer=0)
        # The table message: the collect phase's cards, sent with the interaction's answer.
        [attached] = table.attachments
        assert attached.filename == "table.png" and attached.content_type == "image/png"
        assert table.embeds[0]["image"]["url"] == "attachment://table.png"
        assert attached.description.startswith("Stack tops: ann: ")
        assert all(f"{name}: " in attached.description for name in PLAYERS)
        await to_the_shed_phase(driver, table)
        # Play until someone must beat a card and holds some that can and some that can't.
        table_id = int(table.embeds[0]["footer"]["text"].split()[1])
        while True:
            state = await bot.service.get(table_id)
            assert state.user_to_act() is not None, title(table)
            name = next(p for p in PLAYERS if state.user_to_act() == fake.user(p).id)
            hand = await driver.open_hand(name, table)
            view = state.view_of_user(fake.user(name).id)
            plays = play_choices(hand)
            if view.trick and plays and len(plays) < len(view.own):
                break
            await driver._choose(name, hand)
        [picture_file] = hand.attachments
        assert picture_file.filename == "hand.png"
        assert hand.embeds[0]["image"]["url"] == "attachment://hand.png"
        assert "♠" in hand.embeds[0]["description"] or "♥" in hand.embeds[0]["description"] \
            or "♦" in hand.embeds[0]["description"] or "♣" in hand.embeds[0]["description"]
        image = decode(picture_file.data)
        picture = picture_of(bot, picture_file.data)
        assert image.size == (picture.width, picture.height)
        # The alt text names exactly the hand's cards, in the picture's order.
        expected = english_hand(view.own, view.trump)
        assert picture_file.description.startswith(
            f"Your hand, {len(view.own)} cards: {expected}.")
        assert sorted(b.card for b in picture.boxes) == sorted(view.own)
        # The cards standing out are exactly the ones the buttons offer to play.
        marked = {str(b.card) for b in picture.boxes if b.state == PLAYABLE}
        assert marked == plays
        for box in picture.boxes:
            edge = image.getpixel((box.x0 + 1, (box.y0 + box.y1) // 2))
            assert near(edge, GOLD) == (str(box.card) in plays), (box, edge)

        # A table edit that changes nothing in the picture re-sends no file: someone
        # leaving after this hand changes the seat list only.
        leaver = next(p for p in PLAYERS if p != name)
        # (once the table message shows the last play, its picture included: its edits
        # follow the answers)
        live = bot.get_cog("NLK").publisher.tables.get(table_id)
        shown = live.kinds[TableMessages.name]
        await fake.wait_until(lambda: not live.converging(TableMessages.name) and
                              not shown.behind(live.newest), timeout=15)
        before = table.attachments[0]
        versions = len(table.versions)
        ix = await fake.slash(leaver, None, "nlk", "leave")
        await ix.wait_response()
        await fake.wait_until(lambda: "leaves after this hand" in table.text(), timeout=15)
        edited = next(v for v in table.versions[versions:]
                      if "leaves after this hand" in v.text())
        assert [a.id for a in edited.attachments] == [before.id]
        assert edited.embeds[0]["image"]["url"] == "attachment://table.png"
        # A play changes the trick: its picture is sent anew.
        hand = await driver.open_hand(name, table)
        await driver._choose(name, hand)
        await fake.wait_until(lambda: table.attachments[0].id != before.id, timeout=15)


async def test_four_colours_text_only_and_a_server_without_pictures(fake_discord, tmp_path):
    fake = fake_discord
    fake.add_user("owner", permissions=Perm.MANAGE_GUILD)
    async with running_bot(fake, tmp_path / "nlk.sqlite3") as bot:
        driver = Driver(fake, random.Random(7))
        table = await driver.seat_and_start(PLAYERS[0], PLAYERS[1:], turn_timer=0)
        await to_the_shed_phase(driver, table)
        table_id = int(table.embeds[0]["footer"]["text"].split()[1])
        state = await bot.service.get(table_id)
        name = next(p for p in PLAYERS
                    if any(c.suit == 2 for c in state.view_of_user(fake.user(p).id).own))

        async def hand_picture():
            hand = await driver.open_hand(name, table)
            return hand, (decode(hand.attachments[0].data) if hand.attachments else None)

        _hand, classic = await hand_picture()
        assert has_colour(classic, RED) and not has_colour(classic, BLUE)
        ix = await fake.slash(name, None, "nlk", "cards", {"style": "four-colour"})
        await ix.wait_response()
        _hand, four = await hand_picture()
        assert has_colour(four, BLUE)
        # Another player's pictures keep the server's style.
        other = next(p for p in PLAYERS if p != name)
        other_hand = await driver.open_hand(other, table)
        assert not has_colour(decode(other_hand.attachments[0].data), BLUE)

        ix = await fake.slash(name, None, "nlk", "cards", {"style": "text"})
        await ix.wait_response()
        hand, none = await hand_picture()
        assert none is None and "image" not in hand.embeds[0]
        assert hand.embeds[0]["description"]  # the text is all there is

        # The server turns pictures off: the table message drops its picture, and a player
        # who never chose gets text too.
        ix = await fake.slash("owner", None, "nlk", "settings", {"pictures": "off"})
        assert "Saved." in str((await ix.wait_response()).data)
        await fake.wait_until(lambda: not table.attachments, timeout=15)
        assert "image" not in table.embeds[0]
        assert not (await driver.open_hand(other, table)).attachments
        ix = await fake.slash("owner", None, "nlk", "settings", {"pictures": "four-colour"})
        await ix.wait_response()
        await fake.wait_until(lambda: bool(table.attachments), timeout=15)
        assert table.embeds[0]["image"]["url"] == "attachment://table.png"


async def test_a_missing_font_gives_text_and_one_warning(fake_discord, tmp_path, caplog):
    fake = fake_discord
    async with running_bot(fake, tmp_path / "nlk.sqlite3") as bot:
        pictures: Pictures = nlk(bot).pictures
        pictures.fonts = tmp_path / "no-fonts"
        pictures.broken = None
        with caplog.at_level(logging.WARNING, logger="cogs.pictures"):
            driver = Driver(fake, random.Random(7))
            table = await driver.seat_and_start(PLAYERS[0], PLAYERS[1:], turn_timer=0)
            assert not table.attachments and "image" not in table.embeds[0]
            assert " · collect" in title(table)
            for name in PLAYERS:
                hand = await driver.open_hand(name, table)
                assert not hand.attachments and hand.embeds[0]["description"]
            await driver._collect_step(table)
            assert not table.attachments
        warnings = [r for r in caplog.records if r.name == "cogs.pictures"]
        assert len(warnings) == 1 and "card pictures are off" in warnings[0].getMessage()


async def test_a_card_style_is_kept_per_player(fake_discord, tmp_path):
    fake = fake_discord
    async with running_bot(fake, tmp_path / "nlk.sqlite3") as bot:
        for style in ("four-colour", "text", "server", "pictures"):
            ix = await fake.slash("ann", None, "nlk", "cards", {"style": style})
            response = await ix.wait_response()
            assert response.ephemeral
            saved = await bot.servers.card_style(fake.user("ann").id)
            assert saved == (None if style == "server" else style)
        assert await bot.servers.card_style(fake.user("ann").id + 1) is None


async def test_a_six_player_hand_shows_pictures_at_every_step_and_resends_none(fake_discord,
                                                                              tmp_path):
    fake = fake_discord
    players = ["ann", "bob", "cy", "dee", "eve", "fay"]
    async with running_bot(fake, tmp_path / "nlk.sqlite3"):
        driver = Driver(fake, random.Random(4))
        table = await driver.seat_and_start(players[0], players[1:], turn_timer=0)
        await driver.play_hand(table)
        playing = [v for v in table.versions if " · collect" in v.embeds[0]["title"]
                   or " · shed" in v.embeds[0]["title"]]
        assert len(playing) > 20
        for version in playing:  # every step of the hand carries its picture
            [picture] = version.attachments
            assert version.embeds[0]["image"]["url"] == "attachment://table.png"
            assert decode(picture.data).size[0] > 0
        # A file was sent only when the picture changed: a new attachment never repeats the
        # bytes of the one before it (every move of a hand changes the public cards, so here
        # each edit has a new one; a leave, in the test above, keeps its picture).
        for before, after in itertools.pairwise(playing):
            if after.attachments[0].id != before.attachments[0].id:
                assert after.attachments[0].data != before.attachments[0].data
        # Every private hand opened during the hand carried its picture too.
        hands = [m for m in fake.messages(include_deleted=True) if m.visible_to is not None
                 and m.embeds and m.embeds[0].get("title", "").startswith("Your ")]
        assert hands and all(m.versions[0].attachments for m in hands
                             if "no cards" not in m.versions[0].text())
        assert not fake.rate_limited, fake.rate_limited


def slow_drawing(monkeypatch, seconds: float):
    """Every picture takes ``seconds`` longer to draw (a bot busy drawing for other
    tables); returns the real drawing, to put back."""
    real = cogs.pictures.draw_picture

    def slow(*args):
        time.sleep(seconds)
        return real(*args)

    monkeypatch.setattr(cogs.pictures, "draw_picture", slow)
    return real


async def test_a_late_picture_never_holds_up_an_answer_and_follows_it(fake_discord, tmp_path,
                                                                      monkeypatch):
    """While pictures are slow to draw (a bot busy drawing for other tables), a tap is
    answered without waiting for its new picture, which follows: on the table message in a
    paced edit, on a hand through its token."""
    fake = fake_discord
    async with running_bot(fake, tmp_path / "nlk.sqlite3") as bot:
        driver = Driver(fake, random.Random(7))
        table = await driver.seat_and_start(PLAYERS[0], PLAYERS[1:], turn_timer=0)
        pictures = nlk(bot).pictures
        pictures.answer_wait = ANSWER_WAIT  # as the bot runs, not as the tests set it
        real = slow_drawing(monkeypatch, 1.5)
        before = table.attachments[0].id
        name = actor(table)
        move = next(b for b in table.buttons() if (b.label or "").startswith(f"{name}: "))
        ix = await fake.click(name, table, custom_id=move.custom_id)
        response = await ix.wait_response()
        assert response.type == 7 and response.at - ix.created_at < 1.0
        # The answer kept the picture the message had; a paced edit brings the new one.
        assert table.attachments[0].id == before
        assert table.embeds[0]["image"]["url"] == "attachment://table.png"
        await fake.wait_until(lambda: table.attachments[0].id != before, timeout=10)
        assert table.versions[-1].via == "channel_edit"

        monkeypatch.setattr(cogs.pictures, "draw_picture", real)
        await to_the_shed_phase(driver, table)
        slow_drawing(monkeypatch, 1.5)
        name = actor(table)
        ix = await fake.click(name, table, label="My hand")
        response = await ix.wait_response()
        assert response.type == 4 and response.at - ix.created_at < 1.0
        hand = await ix.wait_message()
        assert not hand.attachments and "image" not in hand.embeds[0]
        await fake.wait_until(lambda: bool(hand.attachments), timeout=10)
        assert hand.versions[-1].via == "webhook_edit"
        assert hand.embeds[0]["image"]["url"] == "attachment://hand.png"
    fake.assert_clean()


async def test_the_bot_connects_once_its_pictures_are_ready(fake_discord, tmp_path,
                                                           monkeypatch):
    """The drawing is made ready (``Pictures.warm``: the font and the card parts, a second
    or two) before the bot connects: the first taps after a start or a restart find it
    ready, and no answer waits for a picture that cannot be drawn yet."""
    fake = fake_discord
    before = len(fake.sessions)
    connected: list[int] = []

    def slow_prepare(*_args):
        time.sleep(1.0)
        connected.append(len(fake.sessions))  # the sessions once the drawing was ready

    monkeypatch.setattr(cogs.pictures, "prepare", slow_prepare)
    async with running_bot(fake, tmp_path / "nlk.sqlite3"):
        assert connected == [before]  # the bot had not connected while it warmed
        driver = Driver(fake, random.Random(7))
        table = await driver.seat_and_start(PLAYERS[0], PLAYERS[1:], turn_timer=0)
        assert table.attachments and table.embeds[0]["image"]["url"] == "attachment://table.png"
    fake.assert_clean()


async def hand_open_in_the_shed(fake, bot, *, paint_wait: float):
    """A table in the shed phase with the person to act's hand open, and the pictures'
    waits as the bot runs them (the hand's answer goes at once), but for ``paint_wait``:
    the driver, the table message, that person and their hand."""
    driver = Driver(fake, random.Random(7))
    table = await driver.seat_and_start(PLAYERS[0], PLAYERS[1:], turn_timer=0)
    await to_the_shed_phase(driver, table)
    name = actor(table)
    hand = await driver.open_hand(name, table)
    pictures = nlk(bot).pictures
    pictures.answer_wait = ANSWER_WAIT
    pictures.paint_wait = paint_wait
    return driver, table, name, hand


async def test_a_paced_table_edit_waits_a_while_for_its_picture_then_goes_and_it_follows(
        fake_discord, tmp_path, monkeypatch):
    """A move made from a hand edits the table message in a paced edit, which holds the
    channel's turn to edit: if its picture is not drawn within ``paint_wait``, the edit
    goes with the picture the message has, and the new picture follows once drawn."""
    fake = fake_discord
    async with running_bot(fake, tmp_path / "nlk.sqlite3") as bot:
        driver, table, name, hand = await hand_open_in_the_shed(fake, bot, paint_wait=0.2)
        slow_drawing(monkeypatch, 3.0)
        before, text, versions = table.attachments[0].id, table.text(), len(table.versions)
        started = time.monotonic()
        await driver._choose(name, hand)
        await fake.wait_until(lambda: any(v.via == "channel_edit" and v.text() != text
                                          for v in table.versions[versions:]), timeout=10)
        assert time.monotonic() - started < 2.5  # not held up by the 3 s drawing
        edited = next(v for v in table.versions[versions:] if v.text() != text)
        assert [a.id for a in edited.attachments] == [before]  # it kept its picture
        assert edited.embeds[0]["image"]["url"] == "attachment://table.png"
        # Once drawn, the new picture follows in another paced edit of the same state; none
        # goes meanwhile (it would show what the message shows, and spend the channel's
        # budget the picture's edit needs).
        await fake.wait_until(lambda: table.attachments[0].id != before, timeout=15)
        assert table.versions[-1].via == "channel_edit"
        assert table.versions[-1].text() == edited.text() or actor(table) != name
        edits = [v for v in table.versions[versions:] if v.via == "channel_edit"]
        assert edits[-2] is edited and edits[-1] is table.versions[-1], len(edits)
    fake.assert_clean()


async def test_a_paced_table_edit_carries_its_changes_picture_in_one_edit(
        fake_discord, tmp_path, monkeypatch):
    """A move made from a hand edits the table message in a paced edit, which draws the
    change's picture first (within ``paint_wait``) and carries it: one of the channel's
    edits for the change, not one without its picture and a second to put it in (at a move
    a second, that doubling left the table message seconds behind)."""
    fake = fake_discord
    async with running_bot(fake, tmp_path / "nlk.sqlite3") as bot:
        # ``paint_wait`` far longer than the drawing, however slow the machine.
        driver, table, name, hand = await hand_open_in_the_shed(fake, bot, paint_wait=10.0)
        slow_drawing(monkeypatch, 0.3)  # the picture is never ready at once
        before, text, versions = table.attachments[0].id, table.text(), len(table.versions)
        await driver._choose(name, hand)
        await fake.wait_until(lambda: any(v.via == "channel_edit" and v.text() != text
                                          for v in table.versions[versions:]), timeout=20)
        edited = next(v for v in table.versions[versions:] if v.text() != text)
        assert edited.via == "channel_edit"
        assert [a.id for a in edited.attachments] != [before]  # the change's own picture
        assert edited.embeds[0]["image"]["url"] == "attachment://table.png"
    fake.assert_clean()


async def test_a_paced_edit_that_waited_for_the_channel_carries_the_newest_picture_in_one(
        fake_discord, tmp_path, monkeypatch):
    """At a move a second a channel's edits are spent: the table message's edit waits for
    the channel's room, and moves made meanwhile (an AI's, which no tap drew ahead) are
    shown by one edit carrying the newest snapshot's picture, drawn once the room came, not
    one edit without it and a second to put it in."""
    fake = fake_discord
    async with running_bot(fake, tmp_path / "nlk.sqlite3") as bot:
        driver = Driver(fake, random.Random(7), humans={"ann"})
        table = await driver.new_table("ann", seats=2, turn_timer=0)
        await driver.click("ann", table, "Add AI (host)")
        await driver.click("ann", table, "Start (host)")
        while " · shed" not in title(table) or actor(table) != "ann":
            if actor(table) == "ann" and " · collect" in title(table):
                await driver._collect_step(table)
            else:
                await driver.wait_for_table(table, move_of(table))
        hand = await driver.open_hand("ann", table)
        await asyncio.sleep(0.5)  # the table message's loop has nothing left to do
        pictures = nlk(bot).pictures
        pictures.answer_wait = ANSWER_WAIT
        pictures.paint_wait = 10.0  # far longer than the drawing, however slow the machine
        slow_drawing(monkeypatch, 0.3)  # an AI's move is not drawn at once
        # The channel's budget spent for the next 5 s, as at a move a second.
        nlk(bot).publisher.pacer.spend([table.channel_id])
        before, versions = table.attachments[0].id, len(table.versions)
        shown = move_of(table)
        await driver._choose("ann", hand)  # and the AI moves while the edit waits
        await fake.wait_until(lambda: any(v.via == "channel_edit" and move_of(v) > shown
                                          for v in table.versions[versions:]), timeout=20)
        await asyncio.sleep(1.5)  # long enough for a second edit to land
        edits = [v for v in table.versions[versions:] if v.via == "channel_edit"]
        assert len(edits) == 1, [(move_of(v), [a.id for a in v.attachments]) for v in edits]
        assert move_of(edits[0]) == move_of(table) > shown + 1  # ann's move and the AI's
        assert [a.id for a in edits[0].attachments] != [before]  # its own new picture
        assert edits[0].embeds[0]["image"]["url"] == "attachment://table.png"
    fake.assert_clean()


def move_of(message) -> int:
    """The move a table message's version shows (its footer's "move M")."""
    found = re.search(r"· move (\d+) ·", message.embeds[0]["footer"]["text"])
    assert found, message.embeds[0]["footer"]["text"]
    return int(found.group(1))


async def test_a_paced_edit_never_takes_the_table_message_back_to_an_older_state(
        fake_discord, tmp_path, monkeypatch):
    """A tap answered without its picture leaves a redraw waiting for it; a second tap's
    answer meanwhile draws a newer state, which that redraw must not take back (the next
    player would see the buttons of a move already made)."""
    fake = fake_discord
    async with running_bot(fake, tmp_path / "nlk.sqlite3") as bot:
        driver = Driver(fake, random.Random(7))
        table = await driver.seat_and_start(PLAYERS[0], PLAYERS[1:], turn_timer=0)
        pictures = nlk(bot).pictures
        pictures.answer_wait = ANSWER_WAIT  # as the bot runs: answers go without pictures
        slow_drawing(monkeypatch, 0.5)
        versions = len(table.versions)
        await driver._collect_step(table)  # a redraw waits for this state's picture
        await driver._collect_step(table)  # answered meanwhile
        await asyncio.sleep(3.0)  # every redraw has landed
        shown = [move_of(v) for v in table.versions[versions:]]
        assert shown == sorted(shown), shown
        assert table.attachments and move_of(table) == shown[-1]
    fake.assert_clean()


async def test_an_answer_lands_after_a_paced_edit_already_on_its_way(fake_discord, tmp_path,
                                                                     monkeypatch):
    """A paced edit of an older state is on its way to Discord when a tap is answered with
    a newer one: the answer waits for it, so the newer state lands last and stays."""
    fake = fake_discord
    async with running_bot(fake, tmp_path / "nlk.sqlite3") as bot:
        driver = Driver(fake, random.Random(7))
        table = await driver.seat_and_start(PLAYERS[0], PLAYERS[1:], turn_timer=0)
        pictures = nlk(bot).pictures
        pictures.answer_wait = ANSWER_WAIT  # as the bot runs: answers go without pictures
        real_request = bot.http.request  # the table message is edited in its channel
        on_its_way = asyncio.Event()

        async def slow_edit(route, **fields):
            if route.method == "PATCH" and route.path.startswith("/channels/"):
                on_its_way.set()
                await asyncio.sleep(0.5)  # a slow request to Discord
            return await real_request(route, **fields)

        real_draw = slow_drawing(monkeypatch, 0.3)
        monkeypatch.setattr(bot.http, "request", slow_edit)
        await driver._collect_step(table)  # its redraw will carry its picture
        await asyncio.wait_for(on_its_way.wait(), 5)
        monkeypatch.setattr(cogs.pictures, "draw_picture", real_draw)  # no redraw follows
        await driver._collect_step(table)  # answered while that redraw is on its way
        newest = move_of(table)
        await asyncio.sleep(2.0)
        assert move_of(table) == newest, [move_of(v) for v in table.versions[-4:]]
    fake.assert_clean()


async def test_turns_let_as_many_draw_at_once_as_there_are_drawers_an_answer_first():
    """Two drawers: answers draw two at once; redraws in the background one at a time, so
    that an answer's picture never waits for redraws being drawn on every drawer; a turn
    that comes free goes to a waiting answer first."""
    turns = Turns(2)
    drawing, most, order = 0, 0, []
    released = {name: asyncio.Event() for name in
                ("first", "second", "answer", "another", "redraw", "late answer")}

    async def draw(name, urgent):
        nonlocal drawing, most
        async with turns.turn(urgent):
            drawing += 1
            most = max(most, drawing)
            order.append(name)
            await released[name].wait()
            drawing -= 1

    async def settled():
        # A turn handed on takes a few of the loop's rounds (the drawing ends, the next
        # waiter wakes): a number of rounds, not of seconds, so a slow machine waits as long.
        for _ in range(20):
            await asyncio.sleep(0)

    def start(*names_urgent):
        return [asyncio.create_task(draw(name, urgent)) for name, urgent in names_urgent]

    tasks = start(("first", False), ("second", False))
    await asyncio.sleep(0)
    assert order == ["first"] and turns.waiting == 1  # one turn is kept for answers
    tasks += start(("answer", True))
    await asyncio.sleep(0)
    assert order == ["first", "answer"]  # at once, beside the redraw being drawn
    tasks += start(("another", True))
    await asyncio.sleep(0)
    assert turns.waiting == 2  # both drawers are busy
    released["answer"].set()
    await settled()
    # The answer's turn goes to the next answer, not to the redraw waiting before it.
    assert order == ["first", "answer", "another"]
    released["another"].set()
    await settled()
    # A free turn, but the background already holds its one: the redraw waits.
    assert order == ["first", "answer", "another"] and turns.waiting == 1
    released["first"].set()
    await settled()
    assert order[-1] == "second"  # the background's turn is handed on in its line
    tasks += start(("redraw", False), ("late answer", True))
    await asyncio.sleep(0)
    assert order[-1] == "late answer" and turns.waiting == 1
    for event in released.values():
        event.set()
    await asyncio.gather(*tasks)
    assert most == 2 and order == ["first", "answer", "another", "second", "late answer",
                                   "redraw"]
    assert turns.waiting == 0


async def test_a_redraw_an_answer_comes_to_wait_for_takes_the_turn_kept_for_answers():
    """Two drawers, a redraw drawing and another waiting (the second turn is kept for
    answers): once an answer waits for the second (``hurry``), it draws at once."""
    turns = Turns(2)
    order, hurried = [], set()
    release = asyncio.Event()

    async def draw(name):
        async with turns.turn(False, lambda: name in hurried):
            order.append(name)
            await release.wait()

    tasks = [asyncio.create_task(draw(name)) for name in ("drawing", "waiting")]
    await asyncio.sleep(0)
    assert order == ["drawing"] and turns.waiting == 1
    hurried.add("waiting")
    turns.hurry()
    await asyncio.sleep(0)
    assert order == ["drawing", "waiting"] and turns.waiting == 0
    release.set()
    await asyncio.gather(*tasks)


async def test_one_drawer_draws_answers_and_redraws_in_turn():
    """With one drawer there is no turn to keep: a redraw draws when it is free, and a
    waiting answer goes before waiting redraws."""
    turns = Turns(1)
    order = []
    release = asyncio.Event()

    async def draw(name, urgent):
        async with turns.turn(urgent):
            order.append(name)
            await release.wait()

    tasks = [asyncio.create_task(draw(name, urgent)) for name, urgent in
             [("redraw", False), ("second redraw", False), ("answer", True)]]
    await asyncio.sleep(0)
    assert order == ["redraw"] and turns.waiting == 2
    release.set()
    await asyncio.gather(*tasks)
    assert order == ["redraw", "answer", "second redraw"]
    assert turns.waiting == 0


async def test_a_picture_asked_for_while_on_its_way_is_drawn_once_in_an_answers_turn(
        monkeypatch):
    """Two drawers: the same hand asked for by its redraw and then by an answer is drawn
    once; and the answer, arriving while that redraw waits behind other redraws, moves it
    ahead of them."""
    pictures = Pictures()
    pictures.turns = Turns(1)
    drawn: list[str] = []
    real = cogs.pictures.draw_picture

    def counted(scene, key, alt, *args):
        drawn.append(alt)
        time.sleep(0.02)
        return real(scene, key, alt, *args)

    monkeypatch.setattr(cogs.pictures, "draw_picture", counted)

    def scene(card):
        return HandScene(((Shown(Card.parse(card), card[0], PLAIN),),), False)

    busy = asyncio.create_task(pictures._picture(scene("2S"), "busy", "hand.png"))
    await asyncio.sleep(0)
    redraws = [asyncio.create_task(pictures._picture(scene(c), c, "hand.png"))
               for c in ("3S", "4S", "5S")]
    await asyncio.sleep(0)
    answer = await pictures._picture(scene("5S"), "5S", "hand.png", urgent=True)
    others = await asyncio.gather(busy, *redraws)
    assert drawn == ["busy", "5S", "3S", "4S"]
    assert answer is others[-1] and answer is not None
    assert pictures._drawing == {}  # nothing left on its way


async def test_an_answer_never_waits_for_its_picture_past_discords_three_seconds(
        fake_discord, tmp_path, monkeypatch):
    """However long the pictures' wait is set (the tests set it long, so that answers carry
    their pictures on a busy machine), an answer whose picture takes longer than Discord's
    3 seconds goes without it, in time, and the picture follows."""
    fake = fake_discord
    async with running_bot(fake, tmp_path / "nlk.sqlite3") as bot:
        driver = Driver(fake, random.Random(7))
        table = await driver.seat_and_start(PLAYERS[0], PLAYERS[1:], turn_timer=0)
        assert nlk(bot).pictures.answer_wait > 3  # (as the tests run the bot)
        real_draw = slow_drawing(monkeypatch, 4.0)
        before = move_of(table)
        ix = await fake.click(actor(table), table, custom_id=moves_on(table)[0].custom_id)
        answer = await ix.wait_response()
        assert answer.type == 7 and move_of(table) > before  # answered in time, moved on
        answered = len(table.versions)
        await fake.wait_until(lambda: len(table.versions) > answered and table.attachments,
                              timeout=15)  # the picture follows
        # The same for a player's own hand, answered as a private message of its own.
        monkeypatch.setattr(cogs.pictures, "draw_picture", real_draw)
        await to_the_shed_phase(driver, table)
        slow_drawing(monkeypatch, 4.0)
        ix = await fake.slash(actor(table), None, "nlk", "hand", {})
        hand = await ix.wait_message()
        assert hand.ephemeral and hand.embeds
        await fake.wait_until(lambda: hand.attachments, timeout=15)
    fake.assert_clean()


async def test_a_lesson_or_practice_picture_later_than_three_seconds_defers_the_answer(
        fake_discord, tmp_path, monkeypatch):
    """A lesson step's and a practice hand's picture is what the reader waits for: when it
    takes longer than Discord's 3 seconds, the answer is deferred in time (no "This
    interaction failed"), and the step comes with its picture once drawn."""
    fake = fake_discord
    fake.add_user("dee")
    async with running_bot(fake, tmp_path / "nlk.sqlite3"):
        slow_drawing(monkeypatch, 4.0)
        for command in ("learn", "practice"):
            ix = await fake.slash("dee", None, "nlk", command)
            answer = await ix.wait_response()
            assert answer.name.startswith("DEFERRED"), answer.name  # in time
            message = await ix.wait_message()
            await fake.wait_until(lambda m=message: m.attachments and m.embeds, timeout=15)
            assert message.ephemeral
    fake.assert_clean()


async def test_handing_a_turn_on_costs_the_same_however_many_pictures_wait():
    """A burst of redraws queued behind one drawer (50 tables changing at once): handing
    each turn on does not ask every waiting picture whether an answer now waits for it
    (each is asked when it queues, and when told to hurry), and they draw in order."""
    turns = Turns(1)
    asked, order = 0, []

    def hurried() -> bool:
        nonlocal asked
        asked += 1
        return False

    async def draw(number):
        async with turns.turn(False, hurried):
            order.append(number)
            await asyncio.sleep(0)

    await asyncio.gather(*(draw(number) for number in range(300)))
    assert order == list(range(300))
    assert asked <= 300, asked  # asking them all at every turn: 300 × 299 / 2
    assert turns.waiting == 0


async def lobby_of_three(fake, seats: int = 4):
    """A driver, and a lobby where the three players are seated, ready to start: by
    default with a seat still free, so that Start deals (a full lobby is dealt ahead)."""
    driver = Driver(fake, random.Random(3))
    table = await driver.new_table(PLAYERS[0], seats=seats)
    for name in PLAYERS[1:]:
        await driver.click(name, table, "Join")
    return driver, table


async def test_start_s_table_picture_is_drawn_while_the_deal_is_written(fake_discord, tmp_path,
                                                                       monkeypatch):
    """**Start** starts drawing the table's picture while the deal is being written (the
    answer waits for the longer of the two, not both), from the table after the first
    draw, which plays itself; the lobby shows no hand before the write, and the answer
    carries the picture drawn meanwhile."""
    from cogs.pictures import TABLE_FILE

    fake = fake_discord
    async with running_bot(fake, tmp_path / "nlk.sqlite3") as bot:
        driver, table = await lobby_of_three(fake)
        cog = bot.get_cog("NLK")
        held = HeldWrite(cog.service.repo, "start_hand", monkeypatch)
        shown = len(table.versions)
        tap = asyncio.ensure_future(driver.click(PLAYERS[0], table, "Start (host)"))
        await asyncio.wait_for(held.writing.wait(), 5)
        await fake.wait_until(lambda: bool(held.early(TABLE_FILE)), timeout=5)
        assert len(table.versions) == shown and " · collect" not in title(table)
        held.release()
        await asyncio.wait_for(tap, 10)
        assert " · collect" in title(table)
        # The answer carries a picture whose drawing began while the deal was written.
        pictures = cog.publisher.pictures
        early = [pictures.cache.get(key) for key in held.early(TABLE_FILE)]
        assert [a.data for a in table.current.attachments] in [[p.png] for p in early if p]
    fake.assert_clean()


async def test_a_full_lobby_s_deal_is_drawn_before_start_is_tapped(fake_discord, tmp_path,
                                                                   monkeypatch):
    """The Join that fills the lobby has the first hand dealt ahead and its table picture
    sent to be drawn: **Start** then deals that hand, and its answer carries that picture,
    drawn once, with no drawing left to wait for."""
    from tests.helpers import SentBeforeWrite

    fake = fake_discord
    async with running_bot(fake, tmp_path / "nlk.sqlite3") as bot:
        cog = bot.get_cog("NLK")
        deal = SentBeforeWrite(cog.service.repo, "start_hand", monkeypatch)
        driver, table = await lobby_of_three(fake, seats=3)
        # Started once the last Join's answer is on its way, in the background's line.
        for _ in range(1000):
            if deal.sent:
                break
            await asyncio.sleep(0.01)
        assert deal.sent == ["TableScene"]
        assert " · collect" not in title(table)
        await driver.click(PLAYERS[0], table, "Start (host)")
        assert deal.at_write == [["TableScene"]] and deal.sent == ["TableScene"]
        assert " · collect" in title(table)
        assert [a.filename for a in table.current.attachments] == ["table.png"]
    fake.assert_clean()


async def test_a_tap_s_picture_is_sent_to_be_drawn_before_its_change_is_written(fake_discord,
                                                                               tmp_path,
                                                                               monkeypatch):
    """**Start** and a move on the table message send the picture their answer will carry
    to be drawn before the change is written, though the write never lets the event loop
    turn: a drawing begun in a task would wait for the write and only then start."""
    from tests.helpers import SentBeforeWrite

    fake = fake_discord
    async with running_bot(fake, tmp_path / "nlk.sqlite3") as bot:
        driver, table = await lobby_of_three(fake)
        repo = bot.get_cog("NLK").service.repo
        deal = SentBeforeWrite(repo, "start_hand", monkeypatch)
        await driver.click(PLAYERS[0], table, "Start (host)")
        assert deal.at_write == [["TableScene"]]
        assert " · collect" in title(table) and table.current.attachments
        move = SentBeforeWrite(repo, "record_action", monkeypatch)
        await driver._collect_step(table)
        assert move.at_write and move.at_write[0] == ["TableScene"], move.at_write
    fake.assert_clean()
