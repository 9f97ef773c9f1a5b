"""A disk that refuses writes while the bot runs: the player gets a polite refusal, and
nothing changes.

Every write of the repository goes through ``Repository.transaction()``; these tests write
through it to a table of their own, so they hold whatever the bot's tables look like.
"""

from __future__ import annotations

import logging
import sqlite3

import pytest

from bot.db.repository import Repository
from bot.db.sqlite import SQLiteDatabase
from bot.db.storage import Duplicate
from bot.errors import Refusal, StorageUnavailable
from cogs.answers.replies import sentence


@pytest.fixture
async def repo(tmp_path):
    db = await SQLiteDatabase.open(str(tmp_path / "nlk.sqlite3"))
    await db.migrate()
    await db.writer.execute("CREATE TABLE moves (n INTEGER PRIMARY KEY, what TEXT NOT NULL UNIQUE)")
    try:
        yield Repository(db)
    finally:
        await db.close()


async def play(repo: Repository, *moves: str) -> None:
    async with repo.transaction() as db:
        for move in moves:
            await db.execute("INSERT INTO moves (what) VALUES (?)", (move,))


async def moves(repo: Repository) -> list[str]:
    return [row[0] for row in await repo.db.all("SELECT what FROM moves ORDER BY n")]


async def test_a_read_only_disk_refuses_politely_and_changes_nothing(repo, caplog):
    await play(repo, "a")
    # What a disk that turned read-only under the bot looks like to SQLite: every write
    # fails with "attempt to write a readonly database".
    await repo.db.writer.execute("PRAGMA query_only = ON")
    with caplog.at_level(logging.WARNING), pytest.raises(StorageUnavailable) as refused:
        await play(repo, "b", "c")
    assert isinstance(refused.value, Refusal)
    assert sentence(refused.value) == (
        "The bot can't save moves right now (its disk refuses writes), so nothing changed. "
        "Please try again in a while.")
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "readonly database" in warnings[0].getMessage()
    assert not repo.db.writer.in_transaction
    assert await moves(repo) == ["a"]

    # The disk comes back: writes work again, on the same connection.
    await repo.db.writer.execute("PRAGMA query_only = OFF")
    await play(repo, "b")
    assert await moves(repo) == ["a", "b"]


async def test_a_full_disk_refuses_politely_and_keeps_nothing_of_the_transaction(repo):
    await play(repo, "a")
    async with repo.db.writer.execute("PRAGMA page_count") as cursor:
        pages = (await cursor.fetchone())[0]
    # SQLite's own size limit gives a real SQLITE_FULL ("database or disk is full").
    await repo.db.writer.execute(f"PRAGMA max_page_count = {pages}")
    with pytest.raises(StorageUnavailable):
        await play(repo, "b", *(f"{n} " + "x" * 1000 for n in range(200)))
    assert not repo.db.writer.in_transaction
    assert await moves(repo) == ["a"]


async def test_mistakes_in_the_sql_are_not_mistaken_for_the_disk(repo):
    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        async with repo.transaction() as db:
            await db.execute("UPDATE nowhere SET x = 1")
    await play(repo, "a")
    with pytest.raises(Duplicate):  # callers rely on seeing a repeated key for what it is
        await play(repo, "b", "a")
    assert not repo.db.writer.in_transaction
    assert await moves(repo) == ["a"]


def count_trips(repo: Repository, monkeypatch) -> list:
    """Each trip to the writer connection's thread, from now on."""
    trips = []
    queue = type(repo.db.writer)._execute

    async def counted(self, fn, *args, **kwargs):
        if self is repo.db.writer:
            trips.append(fn)
        return await queue(self, fn, *args, **kwargs)

    monkeypatch.setattr(type(repo.db.writer), "_execute", counted)
    return trips


async def test_a_transaction_goes_to_the_writers_thread_in_as_few_trips_as_it_reads(
        repo, monkeypatch):
    """Statements whose result nobody reads wait for the next query or the commit: a
    transaction of writes, one read and more writes is two trips to the writer's thread
    (not one per statement), and the read sees the writes before it."""
    trips = count_trips(repo, monkeypatch)
    async with repo.transaction() as db:
        await db.execute("INSERT INTO moves (what) VALUES (?)", ("a",))
        await db.executemany("INSERT INTO moves (what) VALUES (?)", [("b",), ("c",)])
        seen = await db.one("SELECT COUNT(*) FROM moves")
        await db.execute("INSERT INTO moves (what) VALUES (?)", ("d",))
        await db.execute("DELETE FROM moves WHERE what = ?", ("b",))
    assert seen[0] == 3
    assert len(trips) == 2
    assert await moves(repo) == ["a", "c", "d"]


class Behind(Exception):
    """What a check in the tests below refuses with."""


async def test_a_check_refuses_the_transaction_and_nothing_of_it_is_kept(database):
    """``require``: a check that fails refuses the whole transaction, writes made before
    it included, on each backend; one that holds lets it through."""
    async with database.transaction() as db:
        await db.execute("CREATE TABLE moves (n INTEGER PRIMARY KEY, what TEXT NOT NULL)")

    async def move(what: str, expected: int) -> None:
        async with database.transaction() as db:
            await db.execute("INSERT INTO moves (n, what) VALUES (?, ?)", (100 + expected, "x"))
            await db.require("SELECT COUNT(*) = ? FROM moves WHERE n < 100", (expected,),
                             Behind)
            await db.execute("DELETE FROM moves WHERE n >= 100")
            await db.execute("INSERT INTO moves (n, what) VALUES (?, ?)", (expected, what))

    await move("a", 0)
    with pytest.raises(Behind):
        await move("b", 0)  # the log already has one: this move was made for an older one
    await move("c", 1)
    rows = await database.all("SELECT what FROM moves ORDER BY n")
    assert [row[0] for row in rows] == ["a", "c"]


async def test_a_move_checks_and_writes_in_one_trip_to_the_writers_thread(repo, monkeypatch):
    """A transaction that only checks and writes is one trip: the writer is held for no
    longer than SQLite works on it, not across turns of the event loop."""
    trips = count_trips(repo, monkeypatch)
    async with repo.transaction() as db:
        await db.require("SELECT COUNT(*) = 0 FROM moves", (), Behind)
        await db.execute("INSERT INTO moves (what) VALUES (?)", ("a",))
    assert len(trips) == 1
    with pytest.raises(Behind):
        async with repo.transaction() as db:
            await db.execute("INSERT INTO moves (what) VALUES (?)", ("b",))
            await db.require("SELECT COUNT(*) = 0 FROM moves", (), Behind)
    assert not repo.db.writer.in_transaction
    assert await moves(repo) == ["a"]
