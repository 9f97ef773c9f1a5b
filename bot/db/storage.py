"""One interface to the two storage backends: an SQLite file (the default) or PostgreSQL.

``NLK_DATABASE`` is a file path or a ``postgresql://`` URL; ``open_database`` opens either,
checked, and returns a ``Database``. The repository speaks to nothing else: reads see only
committed data, and every write happens inside ``transaction()``, all or nothing.

On SQLite the writes go through one connection, one transaction at a time, and the reads
through a second connection: in WAL mode a reader sees the last commit, never a transaction
still open on the writer (which may yet be rolled back).
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Protocol

import aiosqlite

from bot.db.sqlite import connect, migrate, rollback_quietly, storage_refusal


class Row(Protocol):
    """A result row: by column name or position (``aiosqlite.Row``, ``asyncpg.Record``)."""

    def __getitem__(self, key: str | int, /) -> Any: ...


class Duplicate(Exception):
    """A write would repeat a unique key (a second open table in a channel, an action index
    already taken): nothing of its transaction was kept."""


class Transaction(Protocol):
    """What a write transaction offers; SQL uses ``?`` parameters on every backend."""

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> None: ...

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None: ...

    async def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None: ...

    async def all(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...


class Database(Protocol):
    """A storage backend: committed reads, all-or-nothing write transactions, migrations."""

    dialect: str  # "sqlite" or "postgresql"
    name: str  # the path or URL, without a password: for logs and error lines

    async def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None: ...

    async def all(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...

    def transaction(self) -> AbstractAsyncContextManager[Transaction]: ...

    async def migrate(self) -> int: ...

    async def schema_version(self) -> int: ...

    async def close(self) -> None: ...


def is_postgresql(target: str) -> bool:
    return target.startswith(("postgresql://", "postgres://"))


async def open_database(target: str, *, check: bool = True) -> Database:
    """Open ``NLK_DATABASE``: a ``postgresql://`` URL, else an SQLite file path.

    With ``check``, the same start-up checks as the bot's: raises ``DatabaseUnusable``
    (one line, for the operator) when the database can't be used.
    """
    if is_postgresql(target):
        from bot.db.postgres import PostgresDatabase  # asyncpg is only needed for PostgreSQL

        return await PostgresDatabase.open(target, check=check)
    return await SQLiteDatabase.open(target, check=check)


class _SQLiteTransaction:
    """Statements on one connection. Each is one trip to the connection's thread (a cursor
    opened, fetched and closed there): a move's transaction makes several, and every trip
    costs a thread hand-over both ways. ``one`` is for queries of at most one row."""

    def __init__(self, db: aiosqlite.Connection) -> None:
        self.db = db

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        await self.db.execute_fetchall(sql, params)

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        await (await self.db.executemany(sql, rows)).close()

    async def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        rows = await self.db.execute_fetchall(sql, params)
        return next(iter(rows), None)

    async def all(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return list(await self.db.execute_fetchall(sql, params))


class SQLiteDatabase:
    """An SQLite file: a writer connection (one transaction at a time) and a reader."""

    dialect = "sqlite"

    def __init__(self, path: str, writer: aiosqlite.Connection,
                 reader: aiosqlite.Connection) -> None:
        self.name = path
        self.writer = writer
        self.reader = reader
        self._write = asyncio.Lock()

    @classmethod
    async def open(cls, path: str, *, check: bool = True) -> SQLiteDatabase:
        writer = await connect(path, check=check)
        try:
            reader = await connect(path, check=False)
            await reader.execute("PRAGMA query_only = ON")
        except BaseException:
            await writer.close()
            raise
        return cls(path, writer, reader)

    async def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        return await _SQLiteTransaction(self.reader).one(sql, params)

    async def all(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return await _SQLiteTransaction(self.reader).all(sql, params)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Transaction]:
        """``BEGIN IMMEDIATE`` … ``COMMIT``, or ``ROLLBACK`` on any error.

        If the disk refuses the writes (read-only, full, I/O error), nothing is kept and
        ``StorageUnavailable``, a polite refusal, is raised instead; the real error is logged.
        """
        async with self._write:
            try:
                await rollback_quietly(self.writer)  # in case an earlier rollback failed
                await self.writer.execute_fetchall("BEGIN IMMEDIATE")
                try:
                    yield _SQLiteTransaction(self.writer)
                    await self.writer.commit()
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

    async def migrate(self) -> int:
        async with self._write:
            return await migrate(self.writer)

    async def schema_version(self) -> int:
        row = await self.one("PRAGMA user_version")
        return int(row[0]) if row else 0

    async def close(self) -> None:
        for db in (self.reader, self.writer):
            await db.close()
