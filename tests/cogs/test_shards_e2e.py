"""Two bot processes, two shards, one PostgreSQL: each runs its own servers' tables, a killed
process's tables (only those) pause until its restart resumes them, and during a hand-over
(two sessions for one shard) a click both receive is applied once."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import sys

import pytest

from tests.backends import database_target, needs_postgres
from tests.fakediscord import FakeDiscord
from tests.nlk_driver import ROOT, Driver, actor, move_of, spawn_bot, title

pytestmark = [pytest.mark.e2e, needs_postgres()]


def table_id_of(table) -> int:
    return int(table.embeds[0]["footer"]["text"].split()[1])


async def stored_moves(url: str, table_id: int) -> list[tuple[int, int, bool]]:
    """(hand number, action index, forced) of every stored move of the table, in order."""
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch(
            "SELECT h.number, a.idx, a.forced FROM actions a JOIN hands h ON h.id = a.hand_id "
            "WHERE h.table_id = $1 ORDER BY h.number, a.idx", table_id)
    finally:
        await conn.close()
    return [(row["number"], row["idx"], bool(row["forced"])) for row in rows]


async def steps(driver: Driver, table, count: int) -> None:
    """``count`` collect-phase taps (each one move)."""
    for _ in range(count):
        assert " · collect" in title(table), title(table)
        await driver._collect_step(table)


def check_moves(moves: list[tuple[int, int, bool]], driver: Driver) -> None:
    """No move lost or stored twice: indexes run 0, 1, 2 … and each tap made one move."""
    assert [idx for _hand, idx, _forced in moves] == list(range(len(moves)))
    assert sum(1 for *_, forced in moves if not forced) == driver.actions


async def publish_commands(fake: FakeDiscord, url: str) -> None:
    """``python -m bot sync``: the commands, globally, as an operator publishes them."""
    env = {**os.environ, **fake.env(), "NLK_DATABASE": url, "LOG_LEVEL": "WARNING"}
    for key in ("NLK_DEV_GUILD", "NLK_SHARDS"):
        env.pop(key, None)
    sync = await asyncio.create_subprocess_exec(sys.executable, "-m", "bot", "sync", cwd=ROOT,
                                                env=env)
    assert await asyncio.wait_for(sync.wait(), 60) == 0


@contextlib.asynccontextmanager
async def processes():
    started: list[asyncio.subprocess.Process] = []

    async def start(fake: FakeDiscord, url: str, shards: str) -> asyncio.subprocess.Process:
        process = await spawn_bot(fake, url, env={"NLK_SHARDS": shards, "NLK_DEV_GUILD": ""})
        started.append(process)
        return process

    try:
        yield start
    finally:
        for process in started:
            if process.returncode is None:
                process.kill()
                await process.wait()


async def test_two_processes_two_shards_kill_restart_and_hand_over(tmp_path):
    async with FakeDiscord(shards=2) as fake, database_target("postgresql", tmp_path) as url, \
            processes() as start:
        other = fake.add_guild("Shard One", shard=1)
        here = Driver(fake, random.Random(1), channel=fake.add_channel("nlk"))
        there = Driver(fake, random.Random(2), channel=fake.add_channel("nlk", guild=other))
        await publish_commands(fake, url)
        await start(fake, url, "0/2")
        one = await start(fake, url, "1/2")
        await fake.wait_for_bot(timeout=30, shard=0)
        first = await fake.wait_for_bot(timeout=30, shard=1)
        table_a = await here.seat_and_start("ann", ["bob", "cy", "dee"])
        table_b = await there.seat_and_start("eve", ["fay", "gus", "hal"])
        await steps(here, table_a, 2)
        await steps(there, table_b, 2)

        # The process of shard 1 dies mid-hand: only the tables of shard 1's servers pause.
        one.kill()
        await one.wait()
        await fake.wait_for_disconnect(first)
        shown = len(table_b.versions)
        await steps(here, table_a, 2)
        assert fake.gateway.active(shard=1) is None
        assert len(table_b.versions) == shown  # nobody else touched it

        # Its restart resumes them.
        one = await start(fake, url, "1/2")
        second = await fake.wait_for_bot(timeout=30, shard=1, after=first)
        await steps(there, table_b, 2)

        # A hand-over: a new process for shard 1 starts beside the old one, and both
        # receive the next click. It is applied once.
        await start(fake, url, "1/2")
        await fake.wait_until(lambda: len(fake.gateway.ready_sessions(shard=1)) == 2, 30,
                              "a second session for shard 1")
        fake.gateway.handover = True
        before = await stored_moves(url, table_id_of(table_b))
        move = move_of(table_b)
        labels = ("My stack", "Moves", "Fair deal")
        choice = next(b for b in table_b.buttons() if b.label not in labels)
        ix = await fake.click(actor(table_b), table_b, custom_id=choice.custom_id)
        await ix.wait_response()  # one of the two answers: the first wins
        await fake.wait_until(lambda: move_of(table_b) > move, 10,
                              "the table message to show the move")
        there.actions += 1
        fake.gateway.handover = False
        after = await stored_moves(url, table_id_of(table_b))
        assert len(after) - len(before) >= 1
        chosen = [m for m in after if not m[2]]
        assert len(chosen) == len([m for m in before if not m[2]]) + 1
        one.send_signal(signal.SIGTERM)  # the deploy ends: the old process leaves
        assert await asyncio.wait_for(one.wait(), 30) == 0
        await fake.wait_for_disconnect(second)

        await steps(there, table_b, 2)
        await steps(here, table_a, 2)
        check_moves(await stored_moves(url, table_id_of(table_a)), here)
        check_moves(await stored_moves(url, table_id_of(table_b)), there)
        assert fake.rate_limited == []
        # No IDENTIFY refused; the only refusals are the hand-over's second answer to the
        # click both processes received, and a second delete of a turn ping both processes
        # knew of (each deletes it once the turn moves on; Discord answers the later one
        # "Unknown Message", which the bot takes as done, and which is not among the
        # invalid requests Discord limits: 401, 403 and 429).
        assert [v for v in fake.violations if v.code not in (40060, 10008)] == []
        assert len([v for v in fake.violations if v.code == 40060]) <= 1
        gone_twice = [v for v in fake.violations if v.code == 10008]
        assert len(gone_twice) <= 1
        assert all(v.method == "DELETE" and was_a_ping(fake, v.path) for v in gone_twice)


def was_a_ping(fake: FakeDiscord, path: str) -> bool:
    """Whether the message at ``path`` (``…/messages/<id>``) was one of the bot's turn
    pings (as it was posted: a tap may have changed its text since)."""
    message = fake.state.messages.get(int(path.rsplit("/", 1)[-1]))
    return message is not None and message.deleted and \
        "your turn" in message.versions[0].content
