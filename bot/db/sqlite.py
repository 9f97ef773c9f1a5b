"""The SQLite connection and the forward-only migrations runner.

Start-up problems with the database file (missing folder, read-only disk, full disk, damaged
file, …) become one ``DatabaseUnusable`` whose message says what is wrong, in a sentence, and
the connection is always closed again, so a failed start-up never leaves a thread running.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from bot.db.storage import Duplicate, Row, Transaction
from bot.errors import StorageUnavailable

log = logging.getLogger(__name__)
T = TypeVar("T")



HERE = Path(__file__).resolve()


def _migrations_folder(here: Path = HERE) -> Path:
    """Installed from a wheel, the migrations are package data of ``bot.migrations``; in a
    checkout (and an editable install) they are the top-level ``migrations/`` folder.

    Where neither is there, the folder named is where this install keeps them (the one
    beside ``bot/`` when installed), not a guess beside site-packages."""
    installed = here.parents[1] / "migrations"
    checkout = here.parents[2]
    if installed.is_dir() or not (checkout / "pyproject.toml").is_file():
        return installed
    return checkout / "migrations"


MIGRATIONS = _migrations_folder()

# How long a write waits while another process writes to the file (SQLite's busy timeout
# elsewhere), and the pauses between its tries.
BUSY_SECONDS = 5.0
BUSY_FIRST_PAUSE, BUSY_LONGEST_PAUSE = 0.002, 0.1
# The writer's commits between two copies of the WAL into the file: at a few pages each,
# about the 1,000 pages at which SQLite's own checkpoint would run.
CHECKPOINT_COMMITS = 250
_NAME = re.compile(r"^(\d{4})-[a-z0-9-]+\.sql$")

# Primary SQLite result codes that mean "the storage is the problem", not the SQL.
SQLITE_BUSY, SQLITE_LOCKED, SQLITE_READONLY, SQLITE_IOERR = 5, 6, 8, 10
SQLITE_CORRUPT, SQLITE_FULL, SQLITE_CANTOPEN, SQLITE_NOTADB = 11, 13, 14, 26
SQLITE_PERM = 3
STORAGE_CODES = frozenset({SQLITE_PERM, SQLITE_BUSY, SQLITE_LOCKED, SQLITE_READONLY,
                           SQLITE_IOERR, SQLITE_CORRUPT, SQLITE_FULL, SQLITE_CANTOPEN,
                           SQLITE_NOTADB})


class DatabaseUnusable(Exception):
    """The database file can't be used; ``str()`` is one line saying why, for the operator."""


class DatabaseTooNew(DatabaseUnusable):
    """The database was written by a newer version of the bot than this one."""


class MigrationsBroken(Exception):
    """The bot's own migrations folder is missing, empty or out of order: a broken install."""


def primary_code(error: sqlite3.Error) -> int | None:
    """The primary SQLite result code of ``error`` (extended codes folded), if known."""
    code = getattr(error, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def is_storage_error(error: BaseException) -> bool:
    """True when ``error`` says the disk or the file failed (read-only, full, I/O, damaged,
    locked) rather than the SQL: constraint violations and SQL mistakes are not."""
    if not isinstance(error, sqlite3.Error):
        return False
    if isinstance(error, sqlite3.IntegrityError | sqlite3.ProgrammingError
                  | sqlite3.InterfaceError):
        return False
    code = primary_code(error)
    if code is not None:
        return code in STORAGE_CODES
    # Errors raised by the sqlite3 module itself carry no code: go by the wording.
    text = str(error).lower()
    return any(words in text for words in (
        "readonly database", "disk i/o error", "disk is full", "not a database", "malformed",
        "unable to open database file", "database is locked"))


async def rollback_quietly(db: aiosqlite.Connection) -> None:
    """Roll back an open transaction, if any; a disk that fails the writes may fail this
    too, and SQLite then rolls back by itself on the next read."""
    with contextlib.suppress(sqlite3.Error, ValueError):
        if db.in_transaction:
            await db.rollback()


def storage_refusal(error: BaseException) -> StorageUnavailable | None:
    """The player's polite refusal for a write the disk refused (the real error is logged
    here, once), or None if ``error`` is anything else."""
    if not is_storage_error(error):
        return None
    log.warning("the database refused a write, so the request was refused: %s", error)
    return StorageUnavailable()


def _reason(path: str, error: sqlite3.Error) -> str:
    """Why ``path`` can't be used, in a few words, followed by SQLite's own wording."""
    code = primary_code(error)
    said = f"(SQLite: {error})"
    target = Path(path)
    if code == SQLITE_FULL:
        return f"the disk is full {said}"
    if code == SQLITE_NOTADB:
        return f"the file is not an SQLite database (it may be damaged) {said}"
    if code == SQLITE_CORRUPT:
        return f"the file is damaged: restore it from a backup {said}"
    if code in (SQLITE_READONLY, SQLITE_PERM):
        return f"it is read-only: the bot needs to write to the file and its folder {said}"
    if code in (SQLITE_BUSY, SQLITE_LOCKED):
        return f"another program holds it locked (is another copy of the bot running?) {said}"
    if code == SQLITE_IOERR:
        return f"the disk refused to read or write it {said}"
    # SQLITE_CANTOPEN, or anything else: look at the path to say what is wrong.
    with contextlib.suppress(OSError):
        if target.is_dir():
            return f"it is a directory, not a file {said}"
        folder = target.parent
        if not folder.exists():
            return f"its folder {folder} does not exist {said}"
        if not folder.is_dir():
            return f"{folder} is not a folder {said}"
        if (target.exists() and not os.access(target, os.W_OK)) \
                or not os.access(folder, os.W_OK):
            return (f"it is read-only: the bot needs to write to the file and its folder "
                    f"{folder} {said}")
    return f"SQLite can't use it {said}"


def unusable(path: str, error: sqlite3.Error) -> DatabaseUnusable:
    return DatabaseUnusable(f"can't open the database {path}: {_reason(path, error)}")


def migration_files(folder: Path | None = None) -> list[tuple[int, Path]]:
    """``(number, path)`` for every ``NNNN-name.sql``, in order; numbers must run 1, 2, …"""
    folder = MIGRATIONS if folder is None else folder
    try:
        names = list(folder.iterdir())
    except FileNotFoundError:
        raise MigrationsBroken(
            f"the migrations folder {folder} is missing: reinstall the bot") from None
    except NotADirectoryError:
        raise MigrationsBroken(
            f"the migrations folder {folder} is not a folder: reinstall the bot") from None
    except OSError as error:
        raise MigrationsBroken(
            f"can't read the migrations folder {folder} ({error.strerror}): check its "
            "permissions, or reinstall the bot") from None
    found = sorted((int(m.group(1)), p) for p in names if (m := _NAME.match(p.name)))
    if not found:
        raise MigrationsBroken(
            f"the migrations folder {folder} has no migrations: reinstall the bot")
    for expected, (number, path) in enumerate(found, 1):
        if number != expected:
            raise MigrationsBroken(f"migration {path.name} in {folder} is out of sequence "
                                   f"(expected {expected}): reinstall the bot")
    return found


async def _close_quietly(db: aiosqlite.Connection) -> None:
    """Close ``db`` whatever state it is in: its thread must not outlive a failed start."""
    with contextlib.suppress(Exception):
        await db.close()


async def connect(path: str, *, check: bool = True) -> aiosqlite.Connection:
    """Open the database in WAL mode with foreign keys on, ready to be written.

    With ``check``, the file is also checked for damage (``PRAGMA quick_check``, about a
    second per few hundred MB) and for being writable. Raises ``DatabaseUnusable`` with the
    reason; the connection is closed again on any failure.
    """
    try:
        # Opened here rather than by aiosqlite.connect(), which leaves its worker thread
        # calling into a closed event loop when the open fails.
        raw = await asyncio.to_thread(sqlite3.connect, path, isolation_level=None,
                                      check_same_thread=False)
    except sqlite3.Error as error:
        raise unusable(path, error) from None
    db = await aiosqlite.Connection(lambda: raw, 64)
    try:
        db.row_factory = aiosqlite.Row
        await waits_for_others(db, BUSY_SECONDS)
        await db.execute("PRAGMA journal_mode = WAL")
        # NORMAL in WAL mode: a commit survives the bot crashing or being killed; a power cut
        # or OS crash can lose the last commits, never the database (see README, Operations).
        await db.execute("PRAGMA synchronous = NORMAL")
        await db.execute("PRAGMA foreign_keys = ON")
        if check:
            await _check(db, path)
    except sqlite3.Error as error:
        await _close_quietly(db)
        if is_storage_error(error):
            raise unusable(path, error) from None
        raise
    except BaseException:
        await _close_quietly(db)
        raise
    return db


async def _check(db: aiosqlite.Connection, path: str) -> None:
    """Raise ``DatabaseUnusable`` if the file is damaged, or if it can't be written."""
    async with db.execute("PRAGMA quick_check") as cursor:
        problems = [str(row[0]) for row in await cursor.fetchall()]
    if problems != ["ok"]:
        raise DatabaseUnusable(
            f"can't open the database {path}: the file is damaged: restore it from a backup "
            f"(SQLite's quick_check: {problems[0] if problems else 'no answer'})")
    # A read-only file opens without complaint and fails at the first move: write something
    # now, without keeping it, so a refusing disk is found before the bot goes online.
    await db.execute("BEGIN IMMEDIATE")
    try:
        version = await schema_version(db)
        await db.execute(f"PRAGMA user_version = {version}")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            await db.execute("ROLLBACK")
        raise
    await db.execute("ROLLBACK")


async def schema_version(db: aiosqlite.Connection) -> int:
    async with db.execute("PRAGMA user_version") as cursor:
        row = await cursor.fetchone()
    return int(row[0]) if row else 0


async def _database_path(db: aiosqlite.Connection) -> str:
    with contextlib.suppress(Exception):
        async with db.execute("PRAGMA database_list") as cursor:
            for row in await cursor.fetchall():
                if row[1] == "main" and row[2]:
                    return str(row[2])
    return "(unknown)"


async def migrate(db: aiosqlite.Connection, folder: Path | None = None) -> int:
    """Apply every migration newer than the database; each script is one transaction.

    Raises ``MigrationsBroken`` if ``folder`` (default: the bot's own) is missing or empty,
    ``DatabaseTooNew`` for a database from a newer bot, and ``DatabaseUnusable`` when the
    disk refuses the writes.
    """
    files = migration_files(folder)
    latest = files[-1][0]
    try:
        current = await schema_version(db)
        if current > latest:
            raise DatabaseTooNew(
                f"The database is at schema version {current}, but this bot only knows up to "
                f"{latest}. It was written by a newer version of the bot: upgrade the bot, or "
                "point NLK_DATABASE at another file."
            )
        for number, path in files:
            if number <= current:
                continue
            # executescript() commits first; the script's own BEGIN/COMMIT keeps it atomic.
            try:
                await db.executescript(path.read_text(encoding="utf-8"))
            except sqlite3.Error as error:
                if is_storage_error(error):
                    raise
                await rollback_quietly(db)
                raise DatabaseUnusable(
                    f"can't bring the database {await _database_path(db)} up to date: "
                    f"migration {path.name} failed ({error}), so its schema is not the one "
                    f"its stored version ({current}, PRAGMA user_version) says; was the "
                    "version changed by hand? Nothing was changed: restore the database from "
                    "a backup, or set its version back.") from None
            if await schema_version(db) != number:
                raise RuntimeError(f"migration {path.name} did not set user_version to {number}")
    except sqlite3.Error as error:
        if not is_storage_error(error):
            raise
        await rollback_quietly(db)
        raise unusable(await _database_path(db), error) from None
    return latest


@dataclass(frozen=True)
class _Statement:
    """A statement waiting for the transaction's next trip."""

    sql: str
    params: tuple[Any, ...] | list[tuple[Any, ...]]  # one tuple, or rows (``many``)
    many: bool = False  # ``executemany``
    # A check (``require``): the transaction is refused with this unless the statement's
    # first row's first value is true.
    refusal: Callable[[], Exception] | None = None


class _SQLiteTransaction:
    """Statements on one connection, run in as few calls into SQLite as the transaction
    allows: a statement whose result nobody reads waits, and goes with the next query, or
    with the commit, in one call (``_trip``). An error in a statement that waited is raised
    by the call that ran it, still inside the transaction, so it is rolled back all the same.
    A check (``require``) waits the same way and is made by that call: a move's transaction,
    which checks the log's next index and writes, is one call.

    The writer's transactions run on the event loop's own thread (``inline``): SQLite works
    on a move for about a tenth of a millisecond, and a trip to the connection's thread and
    back cost more than that in CPU, and several milliseconds of waiting under load (each
    trip wakes the thread, waits for the interpreter lock, then wakes the loop again). What
    could make such a call wait is kept off it: the lock another process may hold is taken
    before (``SQLiteDatabase._begin``, which waits without blocking), and the WAL is copied
    into the file by the reader's thread (``SQLiteDatabase._committed``), not by a commit.
    The reader's queries still go to its thread: a leaderboard may read many rows.
    ``one`` is for queries of at most one row."""

    def __init__(self, db: aiosqlite.Connection, *, inline: bool) -> None:
        self.db = db
        self.inline = inline
        self._pending: list[_Statement] = []

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        self._pending.append(_Statement(sql, tuple(params)))

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        self._pending.append(_Statement(sql, [tuple(row) for row in rows], many=True))

    async def require(self, sql: str, params: Sequence[Any],
                      refusal: Callable[[], Exception]) -> None:
        self._pending.append(_Statement(sql, tuple(params), refusal=refusal))

    async def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        return next(iter(await self._trip(_Statement(sql, tuple(params)))), None)

    async def all(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return await self._trip(_Statement(sql, tuple(params)))

    async def commit(self) -> None:
        await self._trip(None, commit=True)

    async def _trip(self, query: _Statement | None, *, commit: bool = False) -> list[Row]:
        """Run the statements waiting, then ``query`` (its rows are returned), then the
        commit if asked, in one call: here, or in one trip to the connection's thread."""
        pending, self._pending = self._pending, []
        if query is not None:
            pending.append(query)
        if self.inline:
            return _run(self.db._conn, pending, commit)
        return await in_thread(self.db, lambda connection: _run(connection, pending, commit))


def _run(connection: sqlite3.Connection, statements: list[_Statement],
         commit: bool) -> list[Row]:
    """In the connection's thread: each statement in order; the last one's rows. A check
    that fails raises its refusal here, before anything after it runs."""
    rows: list[Row] = []
    for statement in statements:
        if statement.many:
            connection.executemany(statement.sql, statement.params).close()
            continue
        cursor = connection.execute(statement.sql, statement.params)
        rows = cursor.fetchall()
        cursor.close()
        if statement.refusal is not None and not (rows and rows[0][0]):
            raise statement.refusal()
    if commit:
        connection.commit()
    return rows


def open_finder(path: str) -> sqlite3.Connection:
    """A read-only connection for keyed reads, used on the event loop's thread (it has no
    thread of its own): it never waits for the file (``SQLiteDatabase._find``)."""
    connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        connection.row_factory = aiosqlite.Row
        connection.execute("PRAGMA busy_timeout = 0").close()
        connection.execute("PRAGMA query_only = ON").close()
    except BaseException:
        connection.close()
        raise
    return connection


async def waits_for_others(db: aiosqlite.Connection, seconds: float) -> None:
    """How long SQLite itself waits on ``db`` while another process writes to the file
    (its busy timeout; 0: not at all)."""
    await db.execute(f"PRAGMA busy_timeout = {int(seconds * 1000)}")


async def in_thread(db: aiosqlite.Connection,
                    work: Callable[[sqlite3.Connection], T]) -> T:
    """``work`` on ``db``'s connection, in one trip to its thread, in turn with the other
    requests to it. aiosqlite has no public call for several statements in one trip: this
    queues ``work`` the way its own calls queue theirs (``_execute``)."""
    result: T = await db._execute(lambda: work(db._conn))  # type: ignore[no-untyped-call]
    return result


class SQLiteDatabase:
    """An SQLite file: a writer connection (one transaction at a time, run on the event
    loop's thread) and a reader (in its own thread), which also copies the WAL into the
    file now and then."""

    dialect = "sqlite"

    def __init__(self, path: str, writer: aiosqlite.Connection,
                 reader: aiosqlite.Connection, finder: sqlite3.Connection | None = None
                 ) -> None:
        self.name = path
        self.writer = writer
        self.reader = reader
        self.finder = finder  # keyed reads, on the loop's thread (``open_finder``)
        self._write = asyncio.Lock()
        self._commits = 0  # since the last checkpoint began
        self._checkpoint: asyncio.Task[None] | None = None

    @classmethod
    async def open(cls, path: str, *, check: bool = True) -> SQLiteDatabase:
        writer = await connect(path, check=check)
        try:
            # The writer's commits never copy the WAL into the file (that waits for the
            # disk): the reader's thread does (``_committed``).
            await writer.execute("PRAGMA wal_autocheckpoint = 0")
            await waits_for_others(writer, 0)  # ``_begin`` waits instead
            reader = await connect(path, check=False)
            await reader.execute("PRAGMA query_only = ON")
            try:
                finder = await asyncio.to_thread(open_finder, path)
            except BaseException:
                await reader.close()
                raise
        except BaseException:
            await writer.close()
            raise
        return cls(path, writer, reader, finder)

    async def one(self, sql: str, params: Sequence[Any] = (), *, keyed: bool = False
                  ) -> Row | None:
        found = self._find(sql, params) if keyed else None
        if found is not None:
            return next(iter(found), None)
        return await _SQLiteTransaction(self.reader, inline=False).one(sql, params)

    async def all(self, sql: str, params: Sequence[Any] = (), *, keyed: bool = False
                  ) -> list[Row]:
        found = self._find(sql, params) if keyed else None
        if found is not None:
            return found
        return await _SQLiteTransaction(self.reader, inline=False).all(sql, params)

    def _find(self, sql: str, params: Sequence[Any]) -> list[Row] | None:
        """A keyed read's rows, read on the loop's thread: a few rows through an index take
        SQLite some microseconds, and a trip to the reader's thread and back costs a few
        tenths of a millisecond (waking it, the interpreter lock, waking the loop again).
        None if the file is busy (a checkpoint that must wait for no one): the reader's
        thread reads it instead, waiting as SQLite waits."""
        if self.finder is None:
            return None
        try:
            return _run(self.finder, [_Statement(sql, tuple(params))], False)
        except sqlite3.OperationalError as error:
            if primary_code(error) not in (SQLITE_BUSY, SQLITE_LOCKED):
                raise
            return None

    def transaction(self) -> AbstractAsyncContextManager[Transaction]:
        """``BEGIN IMMEDIATE`` … ``COMMIT``, or ``ROLLBACK`` on any error (``_transaction``)."""
        return self._transaction()

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[Transaction]:
        """``BEGIN IMMEDIATE`` … ``COMMIT``, or ``ROLLBACK`` on any error.

        If the disk refuses the writes (read-only, full, I/O error), nothing is kept and
        ``StorageUnavailable``, a polite refusal, is raised instead; the real error is logged.
        """
        async with self._write:
            try:
                await rollback_quietly(self.writer)  # in case an earlier rollback failed
                await self._begin()
                transaction = _SQLiteTransaction(self.writer, inline=True)
                try:
                    yield transaction
                    await transaction.commit()
                except BaseException:
                    await rollback_quietly(self.writer)
                    raise
            except sqlite3.IntegrityError as error:
                if "UNIQUE" in str(error) or "PRIMARY KEY" in str(error):
                    raise Duplicate(str(error)) from error
                raise
            except Exception as error:
                refusal = storage_refusal(error)
                if refusal is None:
                    raise
                raise refusal from error
        self._committed()

    async def write(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        """One statement, committed by itself; the first row it answers, if any."""
        async with self._transaction() as db:
            return await db.one(sql, params)

    async def _begin(self) -> None:
        """``BEGIN IMMEDIATE`` on the loop's thread. While another process writes to the
        file (``python -m bot sync``, say), SQLite would wait for it there, and every table
        with it: instead the writer's busy timeout is 0, and this waits without blocking,
        up to ``BUSY_SECONDS`` (then it raises SQLite's "database is locked", as a busy
        timeout would)."""
        connection: sqlite3.Connection = self.writer._conn
        loop = asyncio.get_running_loop()
        give_up = loop.time() + BUSY_SECONDS
        pause = BUSY_FIRST_PAUSE
        while True:
            try:
                connection.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as error:
                if primary_code(error) != SQLITE_BUSY or loop.time() + pause > give_up:
                    raise
            await asyncio.sleep(pause)
            pause = min(2 * pause, BUSY_LONGEST_PAUSE)

    def _committed(self) -> None:
        """Every ``CHECKPOINT_COMMITS`` commits, the reader's thread copies the WAL into the
        file (a passive checkpoint: it waits for no one, and the writer goes on meanwhile);
        SQLite's own would run in a commit, on the loop's thread, and wait for the disk."""
        self._commits += 1
        if self._commits < CHECKPOINT_COMMITS or \
                (self._checkpoint is not None and not self._checkpoint.done()):
            return
        self._commits = 0
        self._checkpoint = asyncio.get_running_loop().create_task(self._copy_wal())

    async def _copy_wal(self) -> None:
        try:
            await in_thread(self.reader, lambda connection: connection.execute(
                "PRAGMA wal_checkpoint(PASSIVE)").close())
        except Exception:  # only the WAL's size depends on it: the next one tries again
            log.warning("could not copy the WAL into the database file", exc_info=True)

    async def migrate(self) -> int:
        """The migrations, in the writer's thread (they may take a while), each waiting for
        another process's writes as SQLite waits (its busy timeout)."""
        async with self._write:
            await waits_for_others(self.writer, BUSY_SECONDS)
            try:
                return await migrate(self.writer)
            finally:
                await waits_for_others(self.writer, 0)

    async def schema_version(self) -> int:
        row = await self.one("PRAGMA user_version")
        return int(row[0]) if row else 0

    async def close(self) -> None:
        if self._checkpoint is not None:
            await asyncio.gather(self._checkpoint, return_exceptions=True)
        if self.finder is not None:
            self.finder.close()
        for db in (self.reader, self.writer):
            await db.close()
