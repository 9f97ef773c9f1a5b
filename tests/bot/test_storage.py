"""A disk that refuses writes while the bot runs: the player gets a polite refusal, and
nothing changes.

Every write of the repository goes through ``Repository.transaction()``; these tests write
through it to a table of their own, so they hold whatever the bot's tables look like.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading

import pytest

from bot.db import sqlite as sqlite_backend
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


def count_trips(repo: Repository, monkeypatch, connection=None) -> list:
    """Each trip to a connection's thread (the writer's, unless ``connection``), from now
    on."""
    target = repo.db.writer if connection is None else connection
    trips = []
    queue = type(target)._execute

    async def counted(self, fn, *args, **kwargs):
        if self is target:
            trips.append(fn)
        return await queue(self, fn, *args, **kwargs)

    monkeypatch.setattr(type(target), "_execute", counted)
    return trips


def count_calls(monkeypatch) -> list[int]:
    """Each call into SQLite that runs a transaction's statements, from now on: the thread
    it ran on."""
    calls = []
    run = sqlite_backend._run

    def counted(connection, statements, commit):
        calls.append(threading.get_ident())
        return run(connection, statements, commit)

    monkeypatch.setattr(sqlite_backend, "_run", counted)
    return calls


async def test_a_transaction_runs_on_the_loops_thread_in_as_few_calls_as_it_reads(
        repo, monkeypatch):
    """Statements whose result nobody reads wait for the next query or the commit: a
    transaction of writes, one read and more writes is two calls into SQLite (not one per
    statement), made on the event loop's thread (no trip to the writer's thread), and the
    read sees the writes before it."""
    trips = count_trips(repo, monkeypatch)
    calls = count_calls(monkeypatch)
    async with repo.transaction() as db:
        await db.execute("INSERT INTO moves (what) VALUES (?)", ("a",))
        await db.executemany("INSERT INTO moves (what) VALUES (?)", [("b",), ("c",)])
        seen = await db.one("SELECT COUNT(*) FROM moves")
        await db.execute("INSERT INTO moves (what) VALUES (?)", ("d",))
        await db.execute("DELETE FROM moves WHERE what = ?", ("b",))
    assert seen[0] == 3
    assert calls == [threading.get_ident()] * 2
    assert trips == []
    assert await moves(repo) == ["a", "c", "d"]


async def test_a_keyed_read_is_answered_on_the_loops_thread_and_sees_only_commits(
        repo, monkeypatch):
    """A keyed read (a table by id, its seats, a setting) is one call into SQLite on the
    event loop's thread, with no trip to the reader's thread; like every read it sees the
    last commit, not a transaction still open. A read that is not keyed goes to the
    reader's thread as before."""
    await play(repo, "a")
    reader_trips = count_trips(repo, monkeypatch, repo.db.reader)
    calls = count_calls(monkeypatch)
    row = await repo.db.one("SELECT what FROM moves WHERE n = ?", (1,), keyed=True)
    rows = await repo.db.all("SELECT what FROM moves WHERE n >= ?", (1,), keyed=True)
    assert row[0] == "a" and [r["what"] for r in rows] == ["a"]
    assert calls == [threading.get_ident()] * 2 and reader_trips == []
    async with repo.transaction() as db:
        await db.execute("INSERT INTO moves (what) VALUES (?)", ("b",))
        await db.one("SELECT 1")  # the insert is made, not yet committed
        assert tuple(await repo.db.one("SELECT COUNT(*) FROM moves", keyed=True)) == (1,)
    assert tuple(await repo.db.one("SELECT COUNT(*) FROM moves", keyed=True)) == (2,)
    assert await moves(repo) == ["a", "b"] and len(reader_trips) == 1


async def test_a_keyed_read_the_file_keeps_busy_is_read_in_the_readers_thread(
        repo, monkeypatch):
    """Should SQLite say the file is busy to a keyed read (it never waits on the loop's
    thread), the reader's thread reads it instead, waiting as SQLite waits."""
    await play(repo, "a")
    run = sqlite_backend._run

    def busy_on_the_loop(connection, statements, commit):
        if threading.current_thread() is threading.main_thread():
            error = sqlite3.OperationalError("database is locked")
            error.sqlite_errorcode = 5  # SQLITE_BUSY
            raise error
        return run(connection, statements, commit)

    monkeypatch.setattr(sqlite_backend, "_run", busy_on_the_loop)
    row = await repo.db.one("SELECT what FROM moves WHERE n = ?", (1,), keyed=True)
    assert row[0] == "a"
    monkeypatch.setattr(sqlite_backend, "_run", run)
    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        await repo.db.one("SELECT * FROM nothing_here", keyed=True)


async def test_another_process_writing_makes_a_write_wait_without_stopping_the_bot(repo):
    """While another process holds the file's write lock (``python -m bot sync``, or
    someone's sqlite3 shell), a transaction waits for it, and the event loop goes on
    meanwhile (every other table's taps are answered); then it is written."""
    other = sqlite3.connect(repo.db.name, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        ticking = asyncio.create_task(tick())
        writing = asyncio.create_task(play(repo, "a"))
        await asyncio.sleep(0.5)
        assert not writing.done()
        assert ticks >= 5  # blocked in SQLite's wait, the loop would not have ticked at all
        other.execute("ROLLBACK")
        await asyncio.wait_for(writing, 10)
        ticking.cancel()
    finally:
        other.close()
    assert await moves(repo) == ["a"]


async def test_a_write_that_waits_too_long_for_another_process_is_refused_politely(
        repo, monkeypatch):
    """Past the wait (5 s as the bot runs; 0.3 s here), the move is refused as a disk that
    refuses writes is, nothing of it is kept, and the next write goes through."""
    monkeypatch.setattr(sqlite_backend, "BUSY_SECONDS", 0.3)
    other = sqlite3.connect(repo.db.name, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(StorageUnavailable):
            await play(repo, "a")
        other.execute("ROLLBACK")
    finally:
        other.close()
    assert not repo.db.writer.in_transaction
    await play(repo, "b")
    assert await moves(repo) == ["b"]


def in_the_file(path: str) -> int:
    """How many moves the database file itself holds, without what its WAL holds."""
    file = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
    try:
        return int(file.execute("SELECT COUNT(*) FROM moves").fetchone()[0])
    finally:
        file.close()


async def test_the_wal_is_copied_into_the_file_by_the_reader_not_by_a_commit(
        repo, monkeypatch):
    """SQLite copies the WAL into the file (and waits for the disk) in the commit that
    takes it past 1,000 pages. Here no commit does: every ``CHECKPOINT_COMMITS`` commits,
    the reader's thread does."""
    monkeypatch.setattr(sqlite_backend, "CHECKPOINT_COMMITS", 30)
    await repo.db._copy_wal()  # the table of moves, in the file
    repo.db._commits = 0
    big = "x" * 160_000  # about 40 pages a move: past 1,000 pages within 30 commits
    for n in range(29):
        await play(repo, f"{n} {big}")
    assert in_the_file(repo.db.name) == 0
    await play(repo, f"29 {big}")
    assert repo.db._checkpoint is not None
    await repo.db._checkpoint
    assert in_the_file(repo.db.name) == 30
    assert len(await moves(repo)) == 30


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


async def test_a_move_checks_and_writes_in_one_call(repo, monkeypatch):
    """A transaction that only checks and writes is one call into SQLite: the writer is
    held for no longer than SQLite works on it, not across turns of the event loop."""
    calls = count_calls(monkeypatch)
    async with repo.transaction() as db:
        await db.require("SELECT COUNT(*) = 0 FROM moves", (), Behind)
        await db.execute("INSERT INTO moves (what) VALUES (?)", ("a",))
    assert len(calls) == 1
    with pytest.raises(Behind):
        async with repo.transaction() as db:
            await db.execute("INSERT INTO moves (what) VALUES (?)", ("b",))
            await db.require("SELECT COUNT(*) = 0 FROM moves", (), Behind)
    assert not repo.db.writer.in_transaction
    assert await moves(repo) == ["a"]
