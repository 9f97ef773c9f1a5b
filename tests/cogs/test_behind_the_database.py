"""What Discord shows catches up with the database when the bot finds its own copy of a
table behind it (issue 35: on PostgreSQL, a table message and its ping stayed two moves
behind, and the person to act was never pinged).

A process's cached table falls behind the database when another process writes the table
(two sessions during a hand-over both get clicks; a shard process started on the same
database). The store then notices on the next change (the stored log has moves it lacks),
reloads the table and refuses the tap as out of date. Nothing showed the table it reloaded:
the owner kept the old snapshot, so the table message and the ping stayed where they were
until someone made a move that succeeded, and the person they named could not make one."""

import asyncio
import random

import aiohttp
import discord
import pytest
from discord.http import handle_message_parameters

from bot.db.connect import open_database
from bot.db.repository import Repository
from bot.errors import Stale
from bot.tables.service import TableService
from cogs.routes.clicks import ELSEWHERE_SECONDS
from rules import Variant
from tests.backends import BACKENDS, database_target
from tests.cogs.test_convergence_random import converged, moves_on
from tests.nlk_driver import Driver, TimeMachine, actor, running_bot

PLAYERS = ["ann", "bob"]


def cached(bot):
    [table] = bot.service.cached()
    return table


async def other_process_moves(url: str, table_id: int, moves: int) -> None:
    """Another process on the same database makes ``moves`` moves of the person to act."""
    db = await open_database(url)
    try:
        other = TableService(Repository(db))
        for _ in range(moves):
            table = await other.get(table_id)
            assert table.game is not None and table.game.to_act is not None
            user = table.seats[table.game.to_act].user_id
            action = table.game.legal_actions()[0]
            await other.act(table_id, user, table.game.version, action)
    finally:
        await db.close()


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_table_found_behind_the_database_is_shown_as_stored(fake_discord, tmp_path,
                                                                    backend):
    fake, clock = fake_discord, TimeMachine()
    driver = Driver(fake, random.Random(2))
    async with database_target(backend, tmp_path) as url, \
            running_bot(fake, url, clock=clock) as bot:
        table = await driver.seat_and_start("ann", ["bob"], turn_timer=0)
        await converged(fake, bot, table, clock, PLAYERS)
        before = cached(bot)
        who = actor(table)
        assert who is not None and moves_on(table)
        await other_process_moves(url, before.id, 2)
        # The person the table message names taps a move there: the bot finds the stored
        # log ahead of its own, reloads the table, and says the button is out of date.
        ix = await fake.click(who, table, custom_id=moves_on(table)[0].custom_id)
        refused = await ix.wait_response()
        assert refused.ephemeral and "out of date" in refused.data["content"]
        assert cached(bot).game.version > before.game.version  # (forced moves follow)
        # What Discord shows must catch up with the table as stored: the table message,
        # and a ping for whoever is to act now.
        await converged(fake, bot, table, clock, PLAYERS)


async def post_as_another_process(fake, channel_id: int, count: int) -> None:
    """Another process of the bot posts ``count`` messages in the channel (its turn pings,
    say): Discord counts them in the bot's budget there."""
    http = discord.http.HTTPClient(asyncio.get_running_loop())
    await http.static_login(fake.token)
    try:
        for n in range(count):
            with handle_message_parameters(content=f"from the other process, {n}") as params:
                await http.send_message(channel_id, params=params)
    finally:
        await http.close()


async def test_a_table_another_process_moved_waits_out_that_process_s_channel_budget(
        fake_discord, tmp_path, monkeypatch):
    """The other process (a hand-over's) posts and edits in the table's channel too, in the
    budget Discord counts for the bot there, which this one can't see. Once this process
    finds the table moved on, it counts the channel's budget as used for one window: the
    edit that shows the move waits, where it would have earned a 429."""
    fake, clock = fake_discord, TimeMachine()
    fake.set_channel_rate_limit(5, 1.0)  # a window of 1 s on both sides, to keep it short
    monkeypatch.setattr("cogs.transport.pacer.WINDOW", 1.0)
    driver = Driver(fake, random.Random(2))
    async with database_target("sqlite", tmp_path) as url, \
            running_bot(fake, url, clock=clock) as bot:
        table = await driver.seat_and_start("ann", ["bob"], turn_timer=0)
        await converged(fake, bot, table, clock, PLAYERS)
        publisher = bot.get_cog("NLK").publisher

        def idle() -> bool:
            return all(not len(live.scope) and
                       not any(live.converging(name) for name in live.kinds)
                       for live in publisher.tables)

        await fake.wait_until(idle, timeout=10)  # its picture and its ping: all sent
        await asyncio.sleep(1.2)  # and out of the window
        before, who = cached(bot), actor(table)
        assert idle() and who is not None and moves_on(table)
        await other_process_moves(url, before.id, 1)
        await post_as_another_process(fake, table.channel_id, 5)  # the window is full
        ix = await fake.click(who, table, custom_id=moves_on(table)[0].custom_id)
        refused = await ix.wait_response()
        assert refused.ephemeral and "out of date" in refused.data["content"]
        await converged(fake, bot, table, clock, PLAYERS)
    assert fake.rate_limited == []


async def test_a_tap_another_process_played_is_answered_by_that_process_alone(
        fake_discord, tmp_path):
    """In a hand-over both processes get the tap, and the one that played it answers with
    the move. This one, finding the move played elsewhere, waits before refusing ("out of
    date", which the person would read as their move refused), and lets its refusal go
    once Discord says the tap was answered: the person sees the move, nothing else."""
    fake, clock = fake_discord, TimeMachine()
    driver = Driver(fake, random.Random(2))
    async with database_target("sqlite", tmp_path) as url, \
            running_bot(fake, url, clock=clock) as bot:
        table = await driver.seat_and_start("ann", ["bob"], turn_timer=0)
        await converged(fake, bot, table, clock, PLAYERS)
        who = actor(table)
        assert who is not None and moves_on(table)
        await other_process_moves(url, cached(bot).id, 1)
        ix = await fake.click(who, table, custom_id=moves_on(table)[0].custom_id)
        # The other process answers a moment later, with the move drawn (the bot of this
        # process has found the move played by then: it takes milliseconds).
        await asyncio.sleep(ELSEWHERE_SECONDS / 5)
        async with aiohttp.ClientSession() as session:
            async with session.post(
                    f"{fake.api_base}/interactions/{ix.id}/{ix.token}/callback",
                    json={"type": 7, "data": {"content": "the move, as the other drew it"}}
                    ) as answered:
                assert answered.status in (200, 204), await answered.text()
        assert (await ix.wait_response()).type == 7
        # This process's refusal came second, and was let go.
        await fake.wait_until(lambda: [v.code for v in fake.violations] == [40060],
                              timeout=ELSEWHERE_SECONDS + 5)
        await converged(fake, bot, table, clock, PLAYERS)
    assert not [m for m in fake.ephemerals_for(who) if "out of date" in m.content]
    assert fake.rate_limited == []


async def test_only_a_reload_that_changed_something_is_told(database):
    """The store tells of a table it loaded again only when the database held something
    new: a button from an older hand (judged again after a reload) redraws nothing."""
    here, there = TableService(Repository(database)), TableService(Repository(database))
    table = (await here.create(1, 100, 10, "Ann", 2, Variant())).table
    await here.join(table.id, 11, "Bob")
    table = (await here.start(table.id, 10)).table
    game = table.game
    assert game is not None
    user = table.seats[game.to_act].user_id
    with pytest.raises(Stale):  # a version this process has not seen: same table reloaded
        await here.act(table.id, user, game.version + 50, game.legal_actions()[0])
    assert await told(here) == []
    await other_process_moves_with(there, table.id)
    with pytest.raises(Stale):  # the stored log is ahead: reloaded, and told
        await here.act(table.id, user, game.version, game.legal_actions()[0])
    [shown] = await told(here)
    assert shown.game.version > game.version
    assert shown.game.version == (await there.get(table.id)).game.version


async def told(service: TableService) -> list:
    """The tables the store says it loaded again since the last look (none come later:
    the store says so before the request that found it is refused)."""
    try:
        return await asyncio.wait_for(service.store.reloads(), 1.0)
    except TimeoutError:
        return []


async def other_process_moves_with(other: TableService, table_id: int) -> None:
    table = await other.get(table_id)
    assert table.game is not None and table.game.to_act is not None
    await other.act(table_id, table.seats[table.game.to_act].user_id, table.game.version,
                    table.game.legal_actions()[0])
