"""Shards: NLK_SHARDS, dealing shards to processes, and a process running only the tables of
its own shards' servers."""

import asyncio
import contextlib
import time

import pytest

from bot.cluster.identify import IdentifyGate, advisory_lock
from bot.cluster.shards import Shards, deal, shard_of
from bot.db.repository import Repository
from bot.settings import SettingsError, load_settings
from bot.tables.service import TableService
from rules import Variant

ZERO, ONE = 4 << 22, 5 << 22  # servers on shards 0 and 1 of 2


def test_nlk_shards_names_a_run_of_shards_or_one():
    assert Shards.parse("0-3/8").ids == (0, 1, 2, 3)
    assert Shards.parse(" 5/8 ").ids == (5,)
    assert str(Shards.parse("2-2/4")) == "2/4"
    for bad in ("3-1/8", "8/8", "0-3", "a/b", "0-3/0", ""):
        with pytest.raises(ValueError):
            Shards.parse(bad)


def test_settings_read_nlk_shards_and_explain_a_bad_value():
    settings = load_settings({"DISCORD_TOKEN": "t", "NLK_SHARDS": "1/2"}, dotenv=None)
    assert settings.shards == Shards(1, 1, 2)
    assert load_settings({"DISCORD_TOKEN": "t"}, dotenv=None).shards is None
    with pytest.raises(SettingsError, match="NLK_SHARDS"):
        load_settings({"DISCORD_TOKEN": "t", "NLK_SHARDS": "4/2"}, dotenv=None)


def test_a_server_belongs_to_its_shard_and_a_dm_to_shard_0():
    assert shard_of(ONE, 2) == 1 and shard_of(ZERO, 2) == 0 and shard_of(None, 2) == 0
    assert Shards(1, 1, 2).owns_guild(ONE) and not Shards(1, 1, 2).owns_guild(None)
    assert Shards(0, 1, 2).share == 1.0 and Shards(1, 1, 4).share == 0.25


def test_shards_are_dealt_evenly_in_order():
    assert [str(p) for p in deal(2, 4)] == ["0-1/4", "2-3/4"]
    assert [str(p) for p in deal(3, 7)] == ["0-2/7", "3-4/7", "5-6/7"]
    assert [str(p) for p in deal(1, 1)] == ["0/1"]
    with pytest.raises(ValueError):
        deal(3, 2)


async def test_a_process_resumes_and_sweeps_only_its_own_servers_tables(database):
    repo = Repository(database)
    setup = TableService(repo)
    mine = (await setup.create(ONE, 100, 10, "Ann", 4, Variant())).table.id
    theirs = (await setup.create(ZERO, 101, 11, "Bob", 4, Variant())).table.id
    service = TableService(repo)  # the process of shard 1 of 2, started afterwards
    service.shards = Shards(1, 1, 2)
    assert [t.id for t in await service.open_tables()] == [mine]
    assert await service.owned([mine, theirs, 999]) == {mine}
    service.clock = lambda: 10**10  # both tables long idle
    assert [c.table.id for c in await service.end_idle(60)] == [mine]
    assert (await setup.get(theirs)).is_open
    assert service.tracked() == 0  # the other process's table was never loaded here


async def test_identify_waits_out_the_buckets_last_identify_even_across_restarts(
        monkeypatch):
    stored: dict[str, str] = {}
    now = [1000.0]

    async def read(key):
        return stored.get(key)

    async def write(key, value):
        stored[key] = value

    slept: list[float] = []

    async def fake_sleep(seconds):
        slept.append(seconds)
        now[0] += seconds

    monkeypatch.setattr(asyncio, "sleep", fake_sleep)
    gate = IdentifyGate(read, write, 2, clock=lambda: now[0])
    assert await gate.wait(0) == 0  # bucket 0: nobody identified yet
    assert await gate.wait(1) == 0  # bucket 1: its own turn
    gate.identified(0)
    gate.identified(1)
    await gate.close()
    now[0] += 2.0
    restarted = IdentifyGate(read, write, 2, clock=lambda: now[0])  # a new process
    assert await restarted.wait(2) == pytest.approx(3.5)  # bucket 0 again: 5.5 s after
    assert slept == [pytest.approx(3.5)]
    await restarted.close()


def _gates(**options):
    """Two gates, as two processes of a cluster have: their times in one store, and a lock
    per bucket shared by both, as PostgreSQL's advisory lock is."""
    stored: dict[str, str] = {}
    locks: dict[int, asyncio.Lock] = {}

    async def read(key):
        return stored.get(key)

    async def write(key, value):
        stored[key] = value

    @contextlib.asynccontextmanager
    async def lock(bucket):
        async with locks.setdefault(bucket, asyncio.Lock()):
            yield

    return tuple(IdentifyGate(read, write, 1, lock=lock, **options) for _ in range(2))


async def test_the_next_identify_waits_from_when_the_last_went_out_not_from_its_turn():
    # A busy process sends its IDENTIFY a while after its turn came; the next process in the
    # bucket still waits the whole spacing after that IDENTIFY went out (its READY came).
    first, second = _gates(clock=time.monotonic, spacing=0.5)
    await first.wait(0)
    nexts = asyncio.create_task(second.wait(1))  # the other process, waiting its turn
    await asyncio.sleep(0.3)  # the busy process: its IDENTIFY goes out late
    sent = time.monotonic()
    first.identified(0)  # its READY
    await nexts
    assert time.monotonic() - sent >= 0.5 - 0.01
    second.identified(1)
    await asyncio.gather(first.close(), second.close())


async def test_an_identify_never_answered_frees_its_bucket_after_the_spacing():
    first, second = _gates(spacing=0.2)
    await first.wait(0)  # no READY ever comes
    await asyncio.wait_for(second.wait(1), 10)
    await asyncio.gather(first.close(), second.close())
    assert not first._holding and not second._holding


class _LockConnection:
    """A pooled connection whose advisory lock call fails (``fails`` names which)."""

    def __init__(self, fails: str) -> None:
        self.fails, self.sent, self.terminated = fails, list[str](), False

    async def execute(self, sql, *args):
        self.sent.append(sql.split("(")[0])
        if self.fails in sql:
            raise asyncio.CancelledError()

    def terminate(self):
        self.terminated = True


class _OnePool:
    def __init__(self, conn) -> None:
        self.conn = conn

    @contextlib.asynccontextmanager
    async def acquire(self):
        yield self.conn


@pytest.mark.parametrize("fails", ["pg_advisory_lock", "pg_advisory_unlock"])
async def test_a_connection_that_may_still_hold_the_identify_lock_is_dropped(fails):
    # The pool hands connections back as they were left (no reset query): one cancelled
    # while taking or freeing the bucket's lock may hold it still, and would keep every other
    # process from identifying. It is closed instead, and the server frees its locks.
    conn = _LockConnection(fails)
    with pytest.raises(asyncio.CancelledError):
        async with advisory_lock(_OnePool(conn))(0):
            pass
    assert conn.terminated


async def test_the_identify_lock_is_freed_on_its_connection_which_is_kept():
    conn = _LockConnection("nothing fails")
    async with advisory_lock(_OnePool(conn))(1):
        pass
    assert conn.sent == ["SELECT pg_advisory_lock", "SELECT pg_advisory_unlock"]
    assert not conn.terminated
