"""What real servers throw at a running table: a deleted table message, a kill in the middle
of ``/nlk new``, restarts with many tables, Discord failing an edit, and permissions taken
away mid-table."""

import asyncio
import json
import logging
import random
import sqlite3

import cogs.live.ways
from tests.fakediscord import DEFAULT_BOT_PERMISSIONS, Perm
from tests.helpers import table_id_of
from tests.nlk_driver import Driver, actor, move_of, running_bot, spawn_bot, title


def stored_message_id(path, table_id: int) -> int | None:
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT message_id FROM tables WHERE id = ?", (table_id,)).fetchone()[0]
    finally:
        db.close()


def live_table_messages(fake, table_id: int, channel=None):
    """Public messages still in the channel that carry the table's embed and buttons."""
    prefix = f"nlk:{table_id}:"
    return [m for m in fake.public_messages(channel) if m.embeds and any(
        (b.custom_id or "").startswith(prefix) for b in m.buttons())]


def only_expected_refusals(fake, *allowed: tuple[str, int]) -> None:
    """No 429s, and Discord refused nothing but the (method, status) pairs a test caused."""
    assert not fake.rate_limited, fake.rate_limited
    unexpected = [v for v in fake.violations if (v.method, v.status) not in allowed]
    assert not unexpected, [str(v) for v in unexpected]


# --- a deleted table message -----------------------------------------------------------------


async def test_a_deleted_table_message_comes_back_when_someone_opens_their_hand(
        fake_discord, tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    async with running_bot(fake, path):
        driver = Driver(fake, random.Random(1))
        table = await driver.seat_and_start("ann", ["bob"])
        table_id = table_id_of(table)
        fake.delete_message(table)
        # Phase one, people only: nothing else would draw the table again.
        ix = await fake.slash(actor(table), None, "nlk", "hand")
        assert (await ix.wait_response()).ephemeral
        await fake.wait_until(lambda: live_table_messages(fake, table_id), timeout=10)
        [again] = live_table_messages(fake, table_id)
        await fake.wait_until(lambda: stored_message_id(path, table_id) == again.id)
        assert " · collect" in title(again) and move_of(again) == move_of(table)
        # And the table is playable from it.
        await driver._collect_step(again)
        assert move_of(again) > move_of(table)
    only_expected_refusals(fake, ("GET", 404))


async def test_nlk_new_brings_back_a_deleted_table_message(fake_discord, tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    async with running_bot(fake, path):
        driver = Driver(fake, random.Random(2))
        table = await driver.new_table("ann", seats=3)
        table_id = table_id_of(table)
        await fake.wait_until(lambda: stored_message_id(path, table_id) == table.id)
        fake.delete_message(table)
        ix = await fake.slash("bob", None, "nlk", "new")
        response = await ix.wait_response()
        assert not response.ephemeral, response.data  # not a link to a deleted message
        again = await ix.wait_message()
        assert "waiting for players" in title(again)
        await fake.wait_until(lambda: stored_message_id(path, table_id) == again.id)
        await driver.click("bob", again, "Join")
        assert "bob" in again.text()
        # While it exists, /nlk new still points at it.
        ix = await fake.slash("cy", None, "nlk", "new")
        response = await ix.wait_response()
        assert response.ephemeral and str(again.id) in response.data["content"]
    only_expected_refusals(fake, ("GET", 404))


async def test_nlk_table_moves_the_table_message_to_the_bottom(fake_discord, tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    async with running_bot(fake, path):
        driver = Driver(fake, random.Random(3))
        table = await driver.seat_and_start("ann", ["bob"])
        table_id = table_id_of(table)
        for i in range(3):
            await fake.say("bob", None, f"chatter {i}")
        ix = await fake.slash("bob", None, "nlk", "table")
        response = await ix.wait_response()
        assert not response.ephemeral
        moved = await ix.wait_message()
        assert fake.public_messages()[-1].id == moved.id
        assert move_of(moved) == move_of(table) and title(moved) == title(table)
        await fake.wait_until(lambda: table.deleted, timeout=10)  # only one carries buttons
        assert live_table_messages(fake, table_id) == [moved]
        await fake.wait_until(lambda: stored_message_id(path, table_id) == moved.id)
        await driver._collect_step(moved)
        # A deleted message is brought back by the command too.
        fake.delete_message(moved)
        ix = await fake.slash("ann", None, "nlk", "table")
        back = await ix.wait_message()
        assert live_table_messages(fake, table_id) == [back]
        assert move_of(back) == move_of(moved)
    only_expected_refusals(fake, ("DELETE", 404))


# --- a kill between posting the table and recording it ---------------------------------------


async def test_a_kill_right_after_nlk_new_leaves_one_table_message(fake_discord, tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    process = await spawn_bot(fake, path)
    try:
        session = await fake.wait_for_bot(timeout=30)
        # The table is created and its message posted, but the bot dies before it hears
        # back, so it never records the message's id.
        hold = fake.hold("POST", r"/interactions/\d+/[^/]+/callback", answer=True)
        ix = await fake.slash("ann", None, "nlk", "new", {"seats": 3})
        await asyncio.wait_for(hold.reached.wait(), 10)
        posted = await ix.wait_message()
        process.kill()
        await process.wait()
        fake.rest.holds.remove(hold)
        hold.release()
        await fake.wait_for_disconnect(session)
        table_id = table_id_of(posted)
        assert stored_message_id(path, table_id) is None
        process = await spawn_bot(fake, path)
        await fake.wait_for_bot(timeout=30, after=session)
        await fake.wait_until(lambda: stored_message_id(path, table_id) is not None,
                              timeout=10)
        await asyncio.sleep(1.0)  # a second post would land by now
        assert live_table_messages(fake, table_id) == [posted]
        assert stored_message_id(path, table_id) == posted.id
        await Driver(fake, random.Random(4)).click("bob", posted, "Join")
        assert "bob" in posted.text()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


# --- restarts redraw only what is out of date ------------------------------------------------


async def test_a_restart_edits_only_the_table_messages_that_are_out_of_date(fake_discord,
                                                                             tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    channels = [fake.channel().id] + [fake.add_channel(f"nlk-{i}") for i in range(3)]
    async with running_bot(fake, path):
        tables = []
        for i, channel in enumerate(channels):
            # No timers: a restart renews a running turn's deadline, which edits its ping.
            ix = await fake.slash(f"host{i}", channel, "nlk", "new",
                                  {"seats": 3, "turn_timer": 0})
            tables.append(await ix.wait_message())
            await Driver(fake).click(f"guest{i}", tables[-1], "Join")
        for i in range(2):
            await Driver(fake).click(f"host{i}", tables[i], "Start (host)")
        # The last change of one table is made, but Discord refuses its edit until the bot
        # has stopped.
        failing = fake.fail("PATCH", rf"/channels/{channels[3]}/messages/", status=400,
                            code=50035, message="Invalid Form Body", times=1000)
        ix = await fake.slash("guest3", channels[3], "nlk", "leave")
        await ix.wait_response()
        await fake.wait_until(lambda: failing.count > 0, timeout=10)
    fake.rest.failures.remove(failing)
    assert "guest3" in tables[3].text()
    edits = fake.request_counts["PATCH /channels/{channel_id}/messages/{message_id}"]
    async with running_bot(fake, path):
        await fake.wait_until(lambda: "guest3" not in tables[3].text(), timeout=10)
        await asyncio.sleep(1.0)
        after = fake.request_counts["PATCH /channels/{channel_id}/messages/{message_id}"]
        assert after - edits == 1  # only the table whose message was out of date
    only_expected_refusals(fake, ("PATCH", 400))


# --- Discord failing an edit -------------------------------------------------------------------


async def test_a_failed_edit_is_retried_until_the_message_is_current(fake_discord, tmp_path,
                                                                     caplog):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    async with running_bot(fake, path):
        driver = Driver(fake, random.Random(5))
        table = await driver.new_table("ann", seats=3)
        await driver.click("bob", table, "Join")
        fake.fail("PATCH", r"/channels/\d+/messages/\d+", status=400, code=50035,
                  message="Invalid Form Body", times=2)
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="cogs.live.owner"):
            ix = await fake.slash("bob", None, "nlk", "leave")
            await ix.wait_response()
            # No further change comes: the retries alone bring the message up to date.
            await fake.wait_until(lambda: "bob" not in table.text(), timeout=15)
        warned = [r for r in caplog.records
                  if "could not update its table message" in r.message]
        assert len(warned) == 1  # one line for a persisting failure, not one per try
    only_expected_refusals(fake, ("PATCH", 400))


# --- permissions taken away mid-table -----------------------------------------------------------


async def test_a_post_refused_for_lost_permissions_is_told_once(fake_discord, tmp_path,
                                                                monkeypatch):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    fake.set_channel_rate_limit(limit=200, per=5.0)
    # A ping after an AI's move goes through the table's newest interaction while it is
    # recent: here none ever is, so the pings are channel posts, as at a table left alone.
    monkeypatch.setattr(cogs.live.ways, "BORROW_SECONDS", -1.0)
    async with running_bot(fake, path, channel_edits=150):
        driver = Driver(fake, random.Random(6), humans={"ann"})
        table = await driver.new_table("ann", seats=2)
        await driver.click("ann", table, "Add AI (host)")
        await driver.click("ann", table, "Start (host)")
        fake.set_bot_permissions(fake.channel().id,
                                 DEFAULT_BOT_PERMISSIONS & ~Perm.SEND_MESSAGES)

        def refused() -> bool:
            return any(v.method == "POST" and v.status == 403 for v in fake.violations)

        # Play until the bot, after an AI move, fails to ping ann in the channel.
        while not refused():
            assert " · collect" in title(table), "the hand moved on without a ping"
            if actor(table) == "ann":
                await driver._collect_step(table)
            else:
                await driver.wait_for_table(table, move_of(table))
            await asyncio.sleep(0.05)

        def notices():
            return [m for m in fake.ephemerals_for("ann") if "couldn't post" in m.content]

        ix = await fake.slash("ann", None, "nlk", "hand")
        await ix.wait_response()
        await fake.wait_until(lambda: notices(), timeout=5)
        [notice] = notices()
        assert "Send Messages" in notice.content and "Embed Links" not in notice.content
        ix = await fake.slash("ann", None, "nlk", "hand")
        await ix.wait_response()
        await asyncio.sleep(0.5)
        assert len(notices()) == 1  # once
    only_expected_refusals(fake, ("POST", 403))


# --- turn pings across a restart ---------------------------------------------------------------


def live_pings(fake):
    return [m for m in fake.public_messages() if not m.deleted and "your turn" in m.content]


def ping_records(path) -> dict[str, str]:
    """The bot's written-down turn pings: key live:turn_ping:<table> → its record."""
    db = sqlite3.connect(path)
    try:
        return dict(db.execute(
            "SELECT key, value FROM bot_state WHERE key LIKE 'live:turn_ping:%'"))
    finally:
        db.close()


def remembered_pings(path) -> list[int]:
    """The turn pings the bot has written down as posted and not yet deleted: the live
    ones and those owed a delete."""
    ids = []
    for value in ping_records(path).values():
        record = json.loads(value)
        ids += record["owed"] + ([record["ping"]["message"]] if record["ping"] else [])
    return sorted(ids)


async def play_a_turn(driver, table) -> None:
    """Tap until someone else is to act."""
    name = actor(table)
    while actor(table) == name:
        await driver._collect_step(table)


async def one_ping_for_the_player_to_act(fake, path, table):
    await fake.wait_until(lambda: [fake.user(actor(table)).id] == [
        u for m in live_pings(fake) for u in m.pinged_user_ids], timeout=10)
    [ping] = live_pings(fake)
    await fake.wait_until(lambda: remembered_pings(path) == [ping.id], timeout=10)
    return ping


async def ping_after_a_turn(driver, path, table):
    """Play a turn; the next player's ping, once posted and written down."""
    await play_a_turn(driver, table)
    return await one_ping_for_the_player_to_act(driver.fake, path, table)


async def test_a_ping_from_before_a_restart_is_deleted_when_its_turn_ends(fake_discord,
                                                                          tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    driver = Driver(fake, random.Random(7))
    async with running_bot(fake, path):
        table = await driver.seat_and_start("ann", ["bob", "cy"], turn_timer=0)
        ping = await ping_after_a_turn(driver, path, table)
    async with running_bot(fake, path):
        await asyncio.sleep(0.5)
        assert not ping.deleted  # its turn goes on: it stays the table's one live ping
        await play_a_turn(driver, table)
        await fake.wait_until(lambda: ping.deleted, timeout=10)
        await one_ping_for_the_player_to_act(fake, path, table)
    fake.assert_clean()


async def a_ping_discord_would_not_delete(fake, driver, path, table):
    """A turn's ping, then the next turn: Discord refuses to delete the old ping (as when
    the bot dies first), so both are written down. Returns the old ping and the refusal
    (in place until the test removes it)."""
    ping = await ping_after_a_turn(driver, path, table)
    failing = fake.fail("DELETE", r"/messages/\d+", status=403, code=50013,
                        message="Missing Permissions", times=1000)
    await play_a_turn(driver, table)
    await fake.wait_until(lambda: len(remembered_pings(path)) == 2, timeout=10)
    return ping, failing


async def test_a_ping_whose_turn_ended_before_it_could_be_deleted_goes_at_the_next_start(
        fake_discord, tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    driver = Driver(fake, random.Random(8))
    async with running_bot(fake, path):
        table = await driver.seat_and_start("ann", ["bob", "cy"], turn_timer=0)
        ping, failing = await a_ping_discord_would_not_delete(fake, driver, path, table)
        await fake.wait_until(lambda: failing.count > 0, timeout=10)
        assert not ping.deleted and len(live_pings(fake)) == 2
    fake.rest.failures.remove(failing)
    deletes = fake.request_counts["DELETE /channels/{channel_id}/messages/{message_id}"]
    async with running_bot(fake, path):
        await fake.wait_until(lambda: ping.deleted, timeout=10)
        current = await one_ping_for_the_player_to_act(fake, path, table)
        assert current.id != ping.id
        # Deleted as a paced channel request: the restarted bot has no token for it.
        assert fake.request_counts["DELETE /channels/{channel_id}/messages/{message_id}"] == \
            deletes + 1
    only_expected_refusals(fake, ("DELETE", 403))


async def test_a_ping_deleted_but_still_written_down_is_not_deleted_twice(fake_discord,
                                                                          tmp_path):
    """A run stopped hard (SIGKILL) between deleting a ping and writing that down leaves a
    record of a ping that is gone: the next start looks at the channel's history instead of
    sending a delete Discord would answer 404 (an invalid request), and forgets it."""
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    driver = Driver(fake, random.Random(7))
    async with running_bot(fake, path):
        table = await driver.seat_and_start("ann", ["bob", "cy"], turn_timer=0)
        old = await ping_after_a_turn(driver, path, table)
        await play_a_turn(driver, table)
        await fake.wait_until(lambda: old.deleted, timeout=10)
        current = await one_ping_for_the_player_to_act(fake, path, table)
    # What a hard stop can leave: the old ping deleted on Discord, still owed its delete.
    [(key, value)] = ping_records(path).items()
    owing = json.loads(value)
    owing["owed"].append(old.id)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE bot_state SET value = ? WHERE key = ?", (json.dumps(owing), key))
    assert remembered_pings(path) == sorted([old.id, current.id])
    deletes = fake.request_counts["DELETE /channels/{channel_id}/messages/{message_id}"]
    async with running_bot(fake, path):
        await fake.wait_until(lambda: remembered_pings(path) == [current.id], timeout=10)
        assert not current.deleted  # its turn goes on
        assert fake.request_counts["DELETE /channels/{channel_id}/messages/{message_id}"] == \
            deletes
    fake.assert_clean()


async def test_the_ping_records_of_the_format_before_are_read_once_at_the_next_start(
        fake_discord, tmp_path):
    """Records of the format before, one per ping (ping:<table>:<message>), are read once:
    the newest is the table's live ping again (its turn goes on: it stays), the older one
    is deleted, and one record per table is written in their place."""
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    driver = Driver(fake, random.Random(8))
    async with running_bot(fake, path):
        table = await driver.seat_and_start("ann", ["bob", "cy"], turn_timer=0)
        old, failing = await a_ping_discord_would_not_delete(fake, driver, path, table)
    fake.rest.failures.remove(failing)
    [(key, value)] = ping_records(path).items()
    record = json.loads(value)
    current, shows = record["ping"]["message"], record["ping"]["shows"]
    assert record["owed"] == [old.id] and current != old.id
    table_id = key.rpartition(":")[2]
    legacy = {f"ping:{table_id}:{current}": json.dumps({
        "channel": fake.channel().id, "hand": shows["hand"], "version": shows["version"],
        "user": shows["user_id"], "turn": shows["turn"], "deadline": shows["deadline"],
        "reminder": shows["reminder"], "shed": shows["shed"], "link": shows["link"]}),
        # (before records were JSON: channel, hand, version, user)
        f"ping:{table_id}:{old.id}": f"{fake.channel().id} 1 0 {shows['user_id']}"}
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM bot_state WHERE key = ?", (key,))
        db.executemany("INSERT INTO bot_state (key, value) VALUES (?, ?)", legacy.items())
    posts = fake.request_counts["POST /channels/{channel_id}/messages"]
    async with running_bot(fake, path):
        await fake.wait_until(lambda: old.deleted, timeout=10)
        await fake.wait_until(lambda: remembered_pings(path) == [current], timeout=10)
        assert [m.id for m in live_pings(fake)] == [current]  # adopted, not posted again
        assert fake.request_counts["POST /channels/{channel_id}/messages"] == posts
        db = sqlite3.connect(path)
        try:  # the records of the format before are gone
            assert not db.execute("SELECT key FROM bot_state WHERE key LIKE 'ping:%'").fetchall()
        finally:
            db.close()
    only_expected_refusals(fake, ("DELETE", 403))


async def test_a_table_closed_with_its_ping_delete_in_flight_deletes_it_at_the_next_start(
        fake_discord, tmp_path):
    """The bot stops while a closed table's ping is being deleted: the record still owes
    that delete, and the next start gives the closed table an owner, which deletes the
    ping, forgets the record, and is let go."""
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    driver = Driver(fake, random.Random(7))
    async with running_bot(fake, path):
        table = await driver.seat_and_start("ann", ["bob", "cy"], turn_timer=0)
        ping = await ping_after_a_turn(driver, path, table)
        hold = fake.hold("DELETE", r"/messages/\d+$")
        ix = await fake.slash("ann", None, "nlk", "end")
        await ix.wait_response()
        await asyncio.wait_for(hold.reached.wait(), 10)
    fake.rest.holds.remove(hold)
    assert not ping.deleted and remembered_pings(path) == [ping.id]
    async with running_bot(fake, path) as bot:
        await fake.wait_until(lambda: ping.deleted, timeout=10)
        await fake.wait_until(lambda: not ping_records(path), timeout=10)
        owners = bot.get_cog("NLK").publisher.tables
        await fake.wait_until(lambda: len(owners) == 0, timeout=10)
    only_expected_refusals(fake)
