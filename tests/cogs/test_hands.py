"""An open hand comes to its player: it is redrawn in place when their turn comes, so a
player who keeps it open plays each shed turn with one tap."""

import asyncio
import random
import re

from tests.helpers import (
    PLAYERS,
    HeldWrite,
    open_every_hand,
    play_until,
    table_id_of,
    tap_once,
    to_the_shed_phase,
)
from tests.nlk_driver import (
    Driver,
    actor,
    check_no_hand_leaks,
    is_over,
    move_of,
    my_turn,
    open_hand,
    running_bot,
)


def finished(hand) -> bool:
    """The hand says how its owner finished: the hand is over."""
    return "You finished" in hand.text() or "You lost" in hand.text()


def hands_of(bot):
    return bot.get_cog("NLK").publisher.hands


async def shed_with_every_hand_open(fake):
    """A three-player table in its shed phase, each player's hand open (no turn timer)."""
    driver = Driver(fake, random.Random(7))
    table = await driver.seat_and_start(PLAYERS[0], PLAYERS[1:], turn_timer=0)
    await to_the_shed_phase(driver, table)
    return driver, table, await open_every_hand(driver, table)


async def test_an_open_hand_follows_the_turn_and_each_shed_turn_is_one_tap(fake_discord,
                                                                           tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    async with running_bot(fake, path):
        driver, table, hands = await shed_with_every_hand_open(fake)
        taps = 0
        while True:
            # Nobody taps Refresh or My hand: the turn arrives in the hand already open.
            await fake.wait_until(lambda: any(my_turn(h) for h in hands.values())
                                  or all(finished(h) for h in hands.values()), timeout=5)
            if all(finished(h) for h in hands.values()):
                break
            name = next(n for n, h in hands.items() if my_turn(h))
            assert open_hand(fake, name) is hands[name]  # the same message, edited in place
            await tap_once(driver, name, hands[name])
            taps += 1
            assert taps < 500
        await fake.wait_until(lambda: is_over(table), timeout=15)
        # One tap per turn: every shed move a person made was a tap on their open hand.
        assert taps > 5 and driver.hands_opened == len(PLAYERS)
        for name, hand in hands.items():
            assert not my_turn(hand)
            # The hand was redrawn by the bot (webhook edits), not only by its owner's taps.
            assert any(v.via == "webhook_edit" for v in hand.versions), name
    # Only the owner's own cards were ever drawn into each hand, at every version.
    assert check_no_hand_leaks(fake, path, table_id_of(table)) > 0
    for name, hand in hands.items():
        assert hand.visible_to == fake.user(name).id
    fake.assert_clean()


async def test_a_dismissed_hand_is_dropped_without_errors(fake_discord, tmp_path, caplog):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    async with running_bot(fake, path) as bot:
        driver, table, hands = await shed_with_every_hand_open(fake)
        tracker = hands_of(bot)
        waiting = next(n for n in PLAYERS if n != actor(table))
        dismissed = hands[waiting]
        fake.dismiss(waiting, dismissed)
        assert open_hand(fake, waiting) is None
        others = [n for n in PLAYERS if n != waiting]
        # Play on until the turn comes to the dismissed hand: the bot redraws it, Discord
        # answers 404 once, and the hand is forgotten.
        # (The dismissed message is never redrawn, so it never shows the turn.)
        await play_until(driver, hands,
                         lambda: not still_held(tracker, table, fake, waiting, dismissed))
        # The other hands are still followed: when the turn comes to one, it is redrawn.
        held = tracker.held(table_id_of(table))
        assert all(fake.user(n).id in held for n in others)
        hands[waiting] = await driver.open_hand(waiting, table)
        redraws = {n: sum(v.via == "webhook_edit" for v in hands[n].versions) for n in others}

        def redrawn() -> bool:
            return any(sum(v.via == "webhook_edit" for v in hands[n].versions) > redraws[n]
                       for n in others)

        await play_until(driver, hands, redrawn)
        assert not [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL")]
    # Discord says 404 Unknown Message for a dismissed ephemeral; the bot cannot know in
    # advance, so exactly that one refusal is expected, and nothing else.
    assert [(v.status, v.code) for v in fake.violations] == [(404, 10008)]
    assert len(fake.rate_limited) == 0


def still_held(tracker, table, fake, name, message) -> bool:
    """Whether the bot still keeps ``message`` as ``name``'s open hand."""
    held = tracker.held(table_id_of(table)).get(fake.user(name).id)
    return held is not None and held.token.interaction_id == message.interaction_id


async def test_an_expired_hand_is_dropped_before_its_token_lapses(fake_discord, tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    async with running_bot(fake, path) as bot:
        driver, table, hands = await shed_with_every_hand_open(fake)
        tracker = hands_of(bot)
        # A hand is followed once the bot has its answer back, a moment after its player sees
        # it: the clock moves only once every hand is followed, or a hand followed after the
        # move would count as opened fourteen and a half minutes later.
        await fake.wait_until(lambda: tracker.tracked() == len(PLAYERS), timeout=10)
        # Fourteen and a half minutes pass for the bot: the tokens are nearly spent.
        real = tracker.clock
        tracker.clock = lambda: real() + 14.5 * 60
        frozen = {name: len(hand.versions) for name, hand in hands.items()}
        name = actor(table)
        hand = await driver.open_hand(name, table)  # a fresh token for the player to act
        before = move_of(table)
        await tap_once(driver, name, hand)
        await fake.wait_until(lambda: move_of(table) > before or is_over(table), timeout=10)
        await fake.wait_until(lambda: set(tracker.held(table_id_of(table)))
                              <= {fake.user(name).id}, timeout=15)
        # The lapsed hands were left alone: no edit through a dead token was tried.
        for other, old in hands.items():
            assert len(old.versions) == frozen[other]
    fake.assert_clean()


async def test_state_is_freed_when_the_table_closes(fake_discord, tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    async with running_bot(fake, path) as bot:
        driver, table, hands = await shed_with_every_hand_open(fake)
        publisher = bot.get_cog("NLK").publisher
        # A hand is followed once the bot has its answer back, a moment after the player
        # sees it (longer with a larger picture attached).
        await fake.wait_until(lambda: publisher.hands.tracked() >= len(PLAYERS), timeout=5)
        ix = await fake.slash("ann", None, "nlk", "end")
        await ix.wait_response()
        await fake.wait_until(lambda: publisher.hands.tracked() == 0, timeout=5)
        # (The pacer's per-channel window is time-based and pruned on later activity.)
        await fake.wait_until(lambda: publisher.held() == 0, timeout=10)
        # The hands were drawn one last time: the table is closed, no controls are left.
        for hand in hands.values():
            assert not my_turn(hand)
    fake.assert_clean()


async def test_a_redraw_on_its_way_never_lands_after_a_newer_answer(fake_discord, tmp_path):
    """A redraw of a hand (drawn from an older state) and a tap's answer on that hand must not
    cross: the hand never goes back to an older move, or its owner sees the old turn."""
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    async with running_bot(fake, path):
        driver, table, hands = await shed_with_every_hand_open(fake)
        leader = actor(table)
        await fake.wait_until(lambda: my_turn(hands[leader]), timeout=5)
        # From here, Discord holds every redraw of an open hand on its way.
        held = fake.hold("PATCH", r"/messages/@original$")
        await tap_once(driver, leader, hands[leader])
        await fake.wait_until(lambda: actor(table) not in (None, leader), timeout=5)
        second = actor(table)
        await held.reached.wait()  # a redraw of the third player's hand is on its way
        await tap_once(driver, second, await driver.open_hand(second, table))  # a new hand
        await fake.wait_until(lambda: actor(table) not in (None, second), timeout=5)
        third = actor(table)
        assert third not in (leader, second)
        refresh = await fake.click(third, hands[third], label="Refresh")
        await asyncio.sleep(0.3)
        held.release()
        assert (await refresh.wait_response()).type == 7
        await fake.wait_until(lambda: my_turn(hands[third]), timeout=5)
        await asyncio.sleep(0.5)  # anything still on its way lands
        moves = [move_of_version(v) for v in hands[third].versions]
        assert moves == sorted(moves), moves
        assert my_turn(hands[third])
    fake.assert_clean()


def move_of_version(version) -> int:
    footer = version.embeds[0].get("footer", {}).get("text", "") if version.embeds else ""
    found = re.search(r"move (\d+)", footer)
    return int(found[1]) if found else -1


def every_hand_follows(bot, table) -> bool:
    """Whether every player's open hand is followed at the table's newest snapshot."""
    live = bot.get_cog("NLK").publisher.tables.get(table_id_of(table))
    held = hands_of(bot).held(table_id_of(table))
    return live is not None and len(held) == len(PLAYERS) and \
        all(h.revision == live.newest.revision for h in held.values())


async def test_a_move_elsewhere_draws_nothing_for_a_hand_it_leaves_as_it_was(
        fake_discord, tmp_path, monkeypatch):
    """A move redraws the hands it changes (the mover's, the next player's) and only
    those: the third player's open hand is neither drawn nor sent anything."""
    from cogs.live import open_hands

    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    async with running_bot(fake, path) as bot:
        driver, table, hands = await shed_with_every_hand_open(fake)

        def settled() -> bool:
            return every_hand_follows(bot, table)

        leader = actor(table)
        await fake.wait_until(lambda: my_turn(hands[leader]) and settled(), timeout=5)
        drawn: list[int] = []
        real = open_hands.draw_hand

        def counted(table, user_id, *args, **kwargs):
            drawn.append(user_id)
            return real(table, user_id, *args, **kwargs)

        monkeypatch.setattr(open_hands, "draw_hand", counted)
        edits = {name: len(hand.versions) for name, hand in hands.items()}
        await tap_once(driver, leader, hands[leader])
        await fake.wait_until(lambda: actor(table) not in (None, leader), timeout=5)
        second = actor(table)
        await fake.wait_until(lambda: my_turn(hands[second]) and settled(), timeout=5)
        third = next(name for name in PLAYERS if name not in (leader, second))
        assert fake.user(leader).id in drawn and fake.user(second).id in drawn
        assert fake.user(third).id not in drawn
        assert len(hands[third].versions) == edits[third]
    fake.assert_clean()


def messages_built(monkeypatch) -> list[int]:
    """The ids of the messages discord.py builds from a webhook's answer, from now on."""
    import discord

    built: list[int] = []
    real = discord.Webhook._create_message

    def counted(self, data, *args, **kwargs):
        built.append(int(data["id"]))
        return real(self, data, *args, **kwargs)

    monkeypatch.setattr(discord.Webhook, "_create_message", counted)
    return built


async def test_a_redraw_of_a_hand_reads_nothing_of_discords_answer(fake_discord, tmp_path,
                                                                  monkeypatch):
    """A hand's redraw only needs to know it went through: no message is built from
    Discord's answer (that parse was a fair share of the bot's CPU per change)."""
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    built = messages_built(monkeypatch)
    async with running_bot(fake, path):
        driver, table, hands = await shed_with_every_hand_open(fake)
        leader = actor(table)
        await fake.wait_until(lambda: my_turn(hands[leader]), timeout=5)
        await tap_once(driver, leader, hands[leader])
        await fake.wait_until(lambda: actor(table) not in (None, leader), timeout=5)
        second = actor(table)
        await fake.wait_until(lambda: my_turn(hands[second]), timeout=5)
        assert hands[second].versions[-1].via == "webhook_edit"  # redrawn by the bot
        assert not {hand.id for hand in hands.values()} & set(built)
    fake.assert_clean()


async def test_a_hand_shown_makes_its_picture_scene_once(fake_discord, tmp_path,
                                                         monkeypatch):
    """**My hand** makes the scene of the hand's picture once: for the picture it sends,
    and for what the followed hand is known to show (it was made twice)."""
    from cogs.pictures import Pictures

    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    async with running_bot(fake, path) as bot:
        driver, table, hands = await shed_with_every_hand_open(fake)
        tracker = hands_of(bot)

        def settled() -> bool:
            return every_hand_follows(bot, table)

        await fake.wait_until(settled, timeout=5)
        name = next(n for n in PLAYERS if n != actor(table))
        user_id = fake.user(name).id
        made: list[int] = []
        real = Pictures.hand_scene

        def counted(self, table, user, *args, **kwargs):
            if user == user_id:
                made.append(user)
            return real(self, table, user, *args, **kwargs)

        monkeypatch.setattr(Pictures, "hand_scene", counted)
        hand = await driver.open_hand(name, table)
        await fake.wait_until(lambda: settled() and still_held(tracker, table, fake, name,
                                                               hand), timeout=5)
        assert len(made) == 1
    fake.assert_clean()


async def test_a_turn_ping_posted_through_a_token_reads_only_its_id(fake_discord, tmp_path,
                                                                   monkeypatch):
    """A turn ping goes as a follow-up of the newest tap: of Discord's answer the bot reads
    the new message's id, and builds no message from it; the ping it replaces is deleted
    through its own token all the same."""
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    built = messages_built(monkeypatch)
    async with running_bot(fake, path):
        driver, table, hands = await shed_with_every_hand_open(fake)

        def pings():
            return [m for m in fake.public_messages() if m.pinged_user_ids and m.buttons()]

        leader = actor(table)
        await fake.wait_until(lambda: any(not m.deleted for m in pings()), timeout=5)
        first = next(m for m in pings() if not m.deleted)
        await tap_once(driver, leader, hands[leader])
        await fake.wait_until(lambda: first.deleted and
                              any(not m.deleted for m in pings()), timeout=5)
        second = next(m for m in pings() if not m.deleted)
        assert second.versions[0].via == "followup"  # posted through a token
        assert not {first.id, second.id} & set(built)
    fake.assert_clean()


async def test_the_table_message_is_edited_in_its_channel_without_reading_the_answer(
        fake_discord, tmp_path, monkeypatch):
    """The owner's edit of the table message (a move from a hand) builds no message from
    Discord's answer: the bot only needs to know it went through."""
    import discord

    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    async with running_bot(fake, path) as bot:
        driver, table, hands = await shed_with_every_hand_open(fake)
        publisher = bot.get_cog("NLK").publisher

        def landed() -> bool:  # the bot has Discord's answer to its newest edit
            live = publisher.tables.get(table_id_of(table))
            shown = publisher.messages.of(live) if live is not None else None
            return shown is not None and shown.drawn is not None and \
                shown.drawn[0] == live.newest.revision

        leader = actor(table)
        await fake.wait_until(lambda: my_turn(hands[leader]), timeout=5)
        built: list[int] = []
        real = discord.Message.__init__

        def counted(self, *, state, channel, data):
            built.append(int(data["id"]))
            real(self, state=state, channel=channel, data=data)

        monkeypatch.setattr(discord.Message, "__init__", counted)
        edits = len(table.versions)
        await tap_once(driver, leader, hands[leader])
        await fake.wait_until(lambda: len(table.versions) > edits and
                              actor(table) not in (None, leader) and landed(), timeout=5)
        assert table.versions[-1].via == "channel_edit"
        assert table.id not in built
    fake.assert_clean()


async def test_a_shed_move_s_picture_is_drawn_while_the_move_is_written(fake_discord, tmp_path,
                                                                       monkeypatch):
    """A tap on an open hand starts drawing the picture its answer carries while the move
    is being written: the write and the drawing overlap, and the answer waits for the
    longer, not for both. Nothing is shown before the write, and the answer carries the
    picture drawn meanwhile."""
    from cogs.pictures import HAND_FILE

    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    async with running_bot(fake, path) as bot:
        driver, table, hands = await shed_with_every_hand_open(fake)
        await fake.wait_until(lambda: any(my_turn(h) for h in hands.values()), timeout=5)
        name = next(n for n, h in hands.items() if my_turn(h))
        hand = hands[name]
        cog = bot.get_cog("NLK")
        held = HeldWrite(cog.service.repo, "record_action", monkeypatch)
        shown = len(hand.versions)
        tap = asyncio.ensure_future(tap_once(driver, name, hand))
        await asyncio.wait_for(held.writing.wait(), 5)
        await fake.wait_until(lambda: bool(held.early(HAND_FILE)), timeout=5)
        assert len(hand.versions) == shown  # nothing shown before the write
        held.release()
        await asyncio.wait_for(tap, 10)
        # The answer carries a picture whose drawing began while the move was written.
        pictures = cog.publisher.pictures
        early = [pictures.cache.get(key) for key in held.early(HAND_FILE)]
        assert [a.data for a in hand.current.attachments] in [[p.png] for p in early if p]
    fake.assert_clean()


async def test_a_tap_on_a_hand_is_answered_after_a_redraw_of_it_on_its_way_lands(
        fake_discord, tmp_path):
    """The turn comes to a player, and the redraw that gives their hand its controls is on
    its way (not yet carried out) when they tap **Refresh** on it: the answer waits for the
    redraw to land, so Discord applies the two in the order sent and the hand never goes
    back to the move before."""
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    async with running_bot(fake, path) as bot:
        driver, table, hands = await shed_with_every_hand_open(fake)
        leader = actor(table)
        await fake.wait_until(lambda: my_turn(hands[leader]), timeout=5)
        # Discord holds the redraws of the other two hands, through the tokens that made them.
        others = [name for name in PLAYERS if name != leader]
        tokens = [ix.token for ix in fake.state.interactions.values()
                  if ix.original in [hands[name] for name in others]]
        held = fake.hold("PATCH", rf"/webhooks/\d+/({'|'.join(map(re.escape, tokens))})"
                                  r"/messages/@original$")
        await tap_once(driver, leader, hands[leader])
        await fake.wait_until(lambda: actor(table) not in (None, leader), timeout=5)
        second = actor(table)
        live = hands_of(bot).tables.get(table_id_of(table))
        flights = hands_of(bot).of(live).flights
        await fake.wait_until(lambda: flights.get(fake.user(second).id), timeout=5)
        versions = len(hands[second].versions)
        refresh = await fake.click(second, hands[second], label="Refresh")
        answer = asyncio.ensure_future(refresh.wait_response())
        await asyncio.sleep(0.3)
        assert not answer.done(), "answered while a redraw of the hand was on its way"
        held.release()
        assert (await answer).type == 7
        await asyncio.sleep(0.3)  # anything still on its way lands
        vias = [v.via for v in hands[second].versions[versions:]]
        assert vias[:2] == ["webhook_edit", "interaction_update"], vias
        assert my_turn(hands[second])
    fake.assert_clean()
