"""The bot's one lifetime and its stop: every long-lived piece of its work (the clocks, the
tables' owners and all they run, the resuming at start-up) lives within it, so ending it
leaves none running; a ping delete in flight gets its grace first; and what the messages
show is written down only after all of that has stopped."""

import asyncio
import contextlib
import json
import random
import sqlite3
from pathlib import Path

import cogs.live.pings
from bot.client import answering
from cogs.live.owner import RECORDS
from cogs.live.pings import Pings
from tests.cogs.test_reliability import ping_after_a_turn, play_a_turn, remembered_pings
from tests.helpers import table_id_of
from tests.nlk_driver import Driver, running_bot

ROOT = Path(__file__).resolve().parent.parent.parent
# A message posted (in the channel, or as a follow-up through a tap's token), or deleted.
POSTS = ("POST", r"/channels/\d+/messages$|/webhooks/\d+/[^/]+$")
DELETES = ("DELETE", r"/messages/\d+$")


def work_of_the_bot() -> list[str]:
    """Each running task whose code is the bot's own (``bot/``, ``cogs/``), as the chain of
    the bot's coroutines it is in (``Scope._guarded > Clocks._run``), but for the answers
    to interactions."""
    found = []
    for task in asyncio.all_tasks():
        if task.done() or task is asyncio.current_task() or answering(task):
            continue
        chain, coro = [], task.get_coro()
        while hasattr(coro, "cr_code"):
            path = Path(coro.cr_code.co_filename)
            if path.is_relative_to(ROOT / "bot") or path.is_relative_to(ROOT / "cogs"):
                chain.append(coro.cr_code.co_qualname)
            coro = coro.cr_await
        if chain:
            found.append(" > ".join(chain))
    return found


def records(path) -> dict[str, str]:
    """What the bot wrote down that its tables' messages show (``live:<kind>:<table>``)."""
    db = sqlite3.connect(path)
    try:
        return dict(db.execute("SELECT key, value FROM bot_state WHERE key LIKE ?",
                               (f"{RECORDS}%",)))
    finally:
        db.close()


@contextlib.asynccontextmanager
async def an_owner_mid_step(fake, path, seed: int):
    """The bot with a table whose owner is mid-step: a turn was played and the next turn's
    ping is on its way, held in the fake until the end (``(bot, table)``)."""
    driver = Driver(fake, random.Random(seed))
    hold = None
    try:
        async with running_bot(fake, path) as bot:
            table = await driver.seat_and_start("ann", ["bob", "cy"], turn_timer=0)
            hold = fake.hold(*POSTS)
            await play_a_turn(driver, table)
            await asyncio.wait_for(hold.reached.wait(), 10)
            yield bot, table
    finally:
        if hold is not None:
            hold.release()


async def test_once_the_bots_lifetime_is_over_none_of_its_work_is_left_running(
        fake_discord, tmp_path):
    """Ending the bot's lifetime (a stop's first step once interactions are drained) stops
    the clocks and every table's owner, mid-step included, and all they run, and waits for
    them: no task of the bot's is left but the records' last batch, written after."""
    async with an_owner_mid_step(fake_discord, tmp_path / "nlk.sqlite3", 4) as (bot, _):
        running = work_of_the_bot()
        assert any("Clocks._run" in work for work in running), running
        assert any("LiveTable._converge" in work for work in running), running
        await bot.lifetime.close()
        left = [work for work in work_of_the_bot() if "Notes._write" not in work]
        assert left == []
        assert all(live.scope.over for live in bot.get_cog("NLK").publisher.tables)
    assert work_of_the_bot() == []


async def test_a_stop_while_an_owner_is_mid_step_stops_it_then_writes_down_its_records(
        fake_discord, tmp_path):
    """The bot stops while a table's owner is posting the next turn's ping: the step is
    cancelled (it never posts after the stop), and what every kind shows was written down
    after that, as the owner last held it (the records of the move just made included,
    which were still waiting for their batch)."""
    path = tmp_path / "nlk.sqlite3"
    async with an_owner_mid_step(fake_discord, path, 5) as (bot, table):
        live = bot.get_cog("NLK").publisher.tables.get(table_id_of(table))
        assert live.converging(Pings.name)
    assert not live.converging(Pings.name) and live.scope.over
    held = {f"{RECORDS}{name}:{live.id}": text for name, text in live._records.items()
            if text is not None}
    assert held and records(path) == held


async def test_a_ping_delete_in_flight_at_a_stop_lands_and_is_written_down(
        fake_discord, tmp_path, monkeypatch):
    """A ping delete Discord has done but not yet answered when the bot stops gets its
    grace: it lands, and the record written after the owners stopped owes it nothing (one
    cancelled instead would stay written down, and the next start would delete it twice)."""
    monkeypatch.setattr(cogs.live.pings, "PING_GRACE", 60.0)  # (ends as the delete lands)
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    driver = Driver(fake, random.Random(7))
    hold = None
    try:
        async with running_bot(fake, path) as bot:
            table = await driver.seat_and_start("ann", ["bob", "cy"], turn_timer=0)
            old = await ping_after_a_turn(driver, path, table)
            hold = fake.hold(*DELETES, answer=True)
            await play_a_turn(driver, table)
            await asyncio.wait_for(hold.reached.wait(), 10)
            assert old.deleted and old.id in remembered_pings(path)  # done, not yet heard
            stopping = asyncio.create_task(bot.close())
            tables = bot.get_cog("NLK").publisher.tables
            await fake.wait_until(lambda: tables.stopped, timeout=10)
            hold.release()  # the answer comes during the grace
            await asyncio.wait_for(stopping, 30)
        [record] = [json.loads(value) for key, value in records(path).items()
                    if key.startswith(f"{RECORDS}{Pings.name}:")]
        assert old.id not in record["owed"]
    finally:
        if hold is not None:
            hold.release()
