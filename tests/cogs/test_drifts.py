"""What Discord shows catches up after a restart and after /nlk table: the drifts found by
trying the bot as a new user would, each replayed through the fake Discord."""

import asyncio
import random
import sqlite3

from tests.cogs.test_reliability import live_table_messages, stored_message_id
from tests.groupdm_member import group_dm
from tests.helpers import PLAYERS, open_every_hand, play_until, table_id_of, to_the_shed_phase
from tests.nlk_driver import Driver, actor, is_over, move_of, running_bot


def stop_as_if_killed(bot) -> None:
    """Make the bot's stop write nothing down at the end, as after SIGKILL: only its own
    work is stopped, with its lifetime (what it wrote as it went is all the next start
    has)."""

    async def write_nothing() -> None:
        pass

    bot.get_cog("NLK").publisher.close = write_nothing


def moves(message) -> list[str]:
    """The custom ids of a message's move buttons (draw, give, keep)."""
    return [b.custom_id for b in message.buttons() if b.custom_id and
            b.custom_id.split(":")[3].split(".")[0] in ("give", "draw", "keep")]


def webhook_edits(hand) -> int:
    return sum(v.via == "webhook_edit" for v in hand.versions)


async def test_open_hands_go_on_following_the_table_after_a_hard_restart(fake_discord,
                                                                          tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    async with running_bot(fake, path) as bot:
        driver = Driver(fake, random.Random(7))
        table = await driver.seat_and_start(PLAYERS[0], PLAYERS[1:], turn_timer=0)
        await to_the_shed_phase(driver, table)
        hands = await open_every_hand(driver, table)
        await asyncio.sleep(1.5)  # killed a moment later (its records are written by then)
        stop_as_if_killed(bot)
    before = {name: webhook_edits(hand) for name, hand in hands.items()}
    async with running_bot(fake, path):
        # Nobody opens a hand again: the ones opened before the restart follow the turn.
        waiting = [n for n in PLAYERS if n != actor(table)]

        def followed() -> bool:
            return is_over(table) or all(webhook_edits(hands[n]) > before[n] for n in waiting)

        await play_until(driver, hands, followed)
        assert any(webhook_edits(hands[n]) > before[n] for n in waiting)
    fake.assert_clean()


async def test_the_ping_links_to_the_table_message_posted_again_by_nlk_table(fake_discord,
                                                                             tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    async with running_bot(fake, path):
        driver = Driver(fake, random.Random(3))
        table = await driver.seat_and_start("ann", ["bob"], turn_timer=0)
        name = actor(table)
        ping = await fake.wait_until(
            lambda: next((m for m in fake.public_messages() if m.pinged_user_ids), None),
            timeout=10)
        assert f"/{table.id})" in ping.text()
        ix = await fake.slash(name, None, "nlk", "table", {})
        await ix.wait_response()
        await fake.wait_until(lambda: len(live_table_messages(fake, table_id_of(table))) == 1,
                              timeout=10)  # the old one goes
        [again] = live_table_messages(fake, table_id_of(table))
        assert again.id != table.id
        # The live ping's [Table] link follows the table message, without waiting for the
        # next turn.
        await fake.wait_until(lambda: f"/{again.id})" in ping.text(), timeout=10)
    fake.assert_clean()


async def test_a_table_whose_nlk_new_never_answered_gets_its_message_after_a_restart(
        fake_discord, tmp_path, monkeypatch):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    monkeypatch.setattr("bot.client.DRAIN_SECONDS", 0.2)
    async with running_bot(fake, path) as bot:
        # The table is stored; the bot dies before its answer reaches Discord.
        hold = fake.hold("POST", r"/interactions/\d+/[^/]+/callback")
        await fake.slash("ann", None, "nlk", "new", {"seats": 3})
        await asyncio.wait_for(hold.reached.wait(), 10)
        fake.rest.holds.remove(hold)
        stop_as_if_killed(bot)
    [table_id] = _table_ids(path)
    assert stored_message_id(path, table_id) is None
    assert live_table_messages(fake, table_id) == []
    async with running_bot(fake, path):
        await fake.wait_until(lambda: len(live_table_messages(fake, table_id)) == 1,
                              timeout=10)
        await fake.wait_until(lambda: stored_message_id(path, table_id) is not None,
                              timeout=10)
        [posted] = live_table_messages(fake, table_id)
        await Driver(fake, random.Random(4)).click("bob", posted, "Join")
        assert "bob" in posted.text()
    hold.release()


def _table_ids(path) -> list[int]:
    db = sqlite3.connect(path)
    try:
        return [row[0] for row in db.execute("SELECT id FROM tables")]
    finally:
        db.close()


async def test_a_table_reloaded_from_the_database_keeps_its_message_current(fake_discord,
                                                                            tmp_path):
    # A table is reloaded from the database when another process played first, or when a
    # move that played itself was found stored already (seen on PostgreSQL after a copy):
    # its snapshots must never look older to the owner than those it showed before.
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    async with running_bot(fake, path) as bot:
        driver = Driver(fake, random.Random(2))
        table = await driver.seat_and_start("ann", ["bob"], turn_timer=0)
        for _ in range(3):
            await driver._collect_step(table)
        bot.service.store.forget(table_id_of(table))
        before = move_of(table)
        for _ in range(2):  # moves made from the ping: the owner edits the table message
            name = actor(table)
            # The live ping, once redrawn for the table's current move (until then it may
            # still carry the buttons of the turn's first move, which are out of date).
            ping = await fake.wait_until(lambda n=name: next(
                (m for m in fake.public_messages()
                 if m.pinged_user_ids == [fake.user(n).id] and moves(m) and
                 all(f":{move_of(table)}:" in c for c in moves(m))), None), timeout=10)
            tap = await fake.click(name, ping, custom_id=driver.rng.choice(moves(ping)))
            await tap.wait_response()
            [held] = [t for t in bot.service.cached() if t.id == table_id_of(table)]
            await fake.wait_until(lambda h=held: move_of(table) == h.game.version, timeout=10)
        assert move_of(table) > before
    fake.assert_clean()


async def test_nlk_new_where_a_table_never_got_its_message_answers_with_that_table(
        fake_discord, tmp_path, monkeypatch):
    """A group DM's table stored with no message (the bot was killed before its
    ``/nlk new`` answered): after a restart nothing can post it (no token yet), and the next
    ``/nlk new`` there is refused, as a table is open; the refusal must bring that table's
    message with it, not point at a message that never was."""
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    monkeypatch.setattr("bot.client.DRAIN_SECONDS", 0.2)
    alice, bob = group_dm(fake, ["alice", "bob"], installed=["alice"])
    async with running_bot(fake, path, dev_guild=None) as bot:
        await bot.tree.sync()
        hold = fake.hold("POST", r"/interactions/\d+/[^/]+/callback")
        await alice.slash("nlk", "new", {"seats": 3})
        await asyncio.wait_for(hold.reached.wait(), 10)
        fake.rest.holds.remove(hold)
        stop_as_if_killed(bot)
    [table_id] = _table_ids(path)
    assert stored_message_id(path, table_id) is None
    async with running_bot(fake, path, dev_guild=None):
        ix = await alice.slash("nlk", "new", {"seats": 3})
        await ix.wait_message()
        table = await fake.wait_until(lambda: next(iter(live_table_messages(
            fake, table_id, alice.channel)), None), timeout=10)
        assert "None" not in " ".join(m.text() for m in alice.sees())
        await fake.wait_until(lambda: stored_message_id(path, table_id) == table.id,
                              timeout=10)
        joined = await bob.click(table, custom_id=next(
            b.custom_id for b in table.buttons() if b.custom_id.endswith(":join")))
        assert (await joined.wait_response()).type == 7
        assert "bob" in table.text()
    hold.release()
