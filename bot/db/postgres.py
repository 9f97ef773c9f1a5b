"""PostgreSQL through asyncpg: a connection pool, the start-up checks and the migrations.

The repository's SQL is written once, with ``?`` parameters; they become ``$1, $2 …`` here.
The schema version lives in a one-row table, ``schema_version`` (SQLite keeps it in
``PRAGMA user_version``). Where a connection, a login or a write is refused, the operator
gets one line saying which, and PostgreSQL's own words in brackets.
"""

from __future__ import annotations

import functools
import logging
import math
import re
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg

from bot.db.sqlite import DatabaseTooNew, DatabaseUnusable, migration_files
from bot.db.storage import Duplicate, Row, Transaction
from bot.errors import StorageUnavailable

log = logging.getLogger(__name__)

# Taken while migrating, so that processes starting together migrate one after the other.
MIGRATION_LOCK = 0x4E4C4B  # "NLK"
POOL_SIZE = 10  # connections of one process that is the whole bot
FEWEST_CONNECTIONS = 2  # a cluster's process keeps at least this many
# A server behind a firewall that drops packets never refuses: give up after this long.
CONNECT_SECONDS = 10.0


def public_url(url: str) -> str:
    """``url`` without its password: fit for a log line or an error message."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


@functools.lru_cache(maxsize=512)
def numbered(sql: str) -> str:
    """``?`` parameters as PostgreSQL's ``$1, $2 …`` (the bot's SQL has no ``?`` in text)."""
    count = 0

    def number(_: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return f"${count}"

    return re.sub(r"\?", number, sql)


# What a migration written for SQLite needs to run on PostgreSQL, when it has no
# ``NNNN-name.postgresql.sql`` variant: SQLite's INTEGER holds 64 bits and its REAL 8 bytes,
# and the version is recorded by the runner, inside the runner's own transaction.
_PORTABLE = (
    (re.compile(r"^\s*(BEGIN|COMMIT)\s*;\s*$", re.M | re.I), ""),
    (re.compile(r"^\s*PRAGMA\s+user_version\s*=\s*\d+\s*;\s*$", re.M | re.I), ""),
    (re.compile(r"\bINTEGER\b", re.I), "BIGINT"),
    (re.compile(r"\bREAL\b", re.I), "DOUBLE PRECISION"),
)


def postgresql_script(path: Path) -> str:
    """The SQL of migration ``path`` for PostgreSQL: its variant file if it has one."""
    variant = path.with_name(path.name.removesuffix(".sql") + ".postgresql.sql")
    if variant.is_file():
        return variant.read_text(encoding="utf-8")
    text = path.read_text(encoding="utf-8")
    for pattern, replacement in _PORTABLE:
        text = pattern.sub(replacement, text)
    return text


def is_storage_error(error: BaseException) -> bool:
    """The server is gone, full or read-only, rather than the SQL being wrong."""
    return isinstance(error, OSError | asyncpg.PostgresConnectionError
                      | asyncpg.InterfaceError | asyncpg.InsufficientResourcesError
                      | asyncpg.ReadOnlySQLTransactionError | asyncpg.CannotConnectNowError
                      | asyncpg.AdminShutdownError | TimeoutError)


class _PostgresTransaction:
    def __init__(self, conn: asyncpg.Connection) -> None:
        self.conn = conn

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        await self.conn.execute(numbered(sql), *params)

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        rows = list(rows)
        if rows:
            await self.conn.executemany(numbered(sql), rows)

    async def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        row: Row | None = await self.conn.fetchrow(numbered(sql), *params)
        return row

    async def all(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return list(await self.conn.fetch(numbered(sql), *params))

    async def require(self, sql: str, params: Sequence[Any],
                      refusal: Callable[[], Exception]) -> None:
        if not await self.conn.fetchval(numbered(sql), *params):
            raise refusal()


def pool_size(share: float = 1.0) -> int:
    """The most connections a process keeps open: its ``share`` of ``POOL_SIZE``. A cluster's
    processes share one server: each with a whole pool, two processes kept twice the
    backends for the same work, each backend with its own caches to warm (the catalogue's,
    the prepared statements'), and eight would come close to the server's default of 100
    connections."""
    return max(FEWEST_CONNECTIONS, math.ceil(POOL_SIZE * share))


async def keep_session(conn: asyncpg.Connection) -> None:
    """What a connection goes through as it returns to the pool, beyond asyncpg's own
    (a transaction left open is rolled back): nothing. asyncpg's default resets the session
    with one more query per use (advisory locks, cursors, LISTEN, settings), a round trip
    and the server's work for every read and every write; the bot leaves none of those
    behind (an advisory lock is held only by ``bot.cluster.identify``, which frees it or
    drops the connection)."""


class PostgresDatabase:
    """A PostgreSQL database through a pool of connections (READ COMMITTED)."""

    dialect = "postgresql"

    def __init__(self, url: str, pool: asyncpg.Pool) -> None:
        self.url = url
        self.name = public_url(url)
        self.pool = pool

    @classmethod
    async def open(cls, url: str, *, check: bool = True, share: float = 1.0
                   ) -> PostgresDatabase:
        """``share``: this process's part of the bot (a cluster's process: its shards'), and
        so of the connections it keeps (``pool_size``)."""
        name = public_url(url)
        try:
            pool = await asyncpg.create_pool(url, min_size=1, max_size=pool_size(share),
                                             timeout=CONNECT_SECONDS, reset=keep_session)
        except Exception as error:
            raise connect_refusal(url, error) from None
        database = cls(url, pool)
        if check:
            try:
                await database._check()
            except BaseException:
                await database.close()
                raise
        log.debug("connected to %s", name)
        return database

    async def _check(self) -> None:
        """Refuse a read-only server (a standby) and tables this role may not read and write
        (``has_table_privilege`` with several privileges would say whether *any* is held)."""
        async with self.pool.acquire() as conn:
            if await conn.fetchval("SHOW transaction_read_only") == "on":
                raise DatabaseUnusable(
                    f"can't open the database {self.name}: it is read-only (a standby "
                    "server?): point NLK_DATABASE at the primary")
            refused = await conn.fetchval(
                "SELECT string_agg(c.relname, ', ') FROM pg_class c JOIN pg_namespace n "
                "ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND "
                "c.relkind = 'r' AND NOT (has_table_privilege(c.oid, 'SELECT') AND "
                "has_table_privilege(c.oid, 'INSERT') AND has_table_privilege(c.oid, 'UPDATE') "
                "AND has_table_privilege(c.oid, 'DELETE'))")
            if refused:
                raise DatabaseUnusable(
                    f"can't open the database {self.name}: role {await _role(conn)} may not "
                    f"use its tables ({refused}): grant it SELECT, INSERT, UPDATE and DELETE "
                    "on them")

    async def one(self, sql: str, params: Sequence[Any] = (), *, keyed: bool = False
                  ) -> Row | None:
        async with self._reading():
            row: Row | None = await self.pool.fetchrow(numbered(sql), *params)
        return row

    async def all(self, sql: str, params: Sequence[Any] = (), *, keyed: bool = False
                  ) -> list[Row]:
        async with self._reading():
            return list(await self.pool.fetch(numbered(sql), *params))

    @asynccontextmanager
    async def _reading(self) -> AsyncIterator[None]:
        """A server that is gone (restarting, unreachable) is a polite refusal for reads too;
        the pool connects again by itself once it is back."""
        try:
            yield
        except Exception as error:
            if not is_storage_error(error):
                raise
            log.warning("the database refused a read, so the request was refused: %s", error)
            raise StorageUnavailable() from error

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Transaction]:
        """One transaction on one pooled connection: committed, or rolled back on any error.
        A server that refuses the write (gone, full, read-only) is a polite refusal."""
        async with self._writing(), self.pool.acquire() as conn, conn.transaction():
            yield _PostgresTransaction(conn)

    async def write(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        """One statement, committed by itself: one round trip to the server, where a
        transaction takes three (``BEGIN``, the statement, ``COMMIT``)."""
        async with self._writing():
            row: Row | None = await self.pool.fetchrow(numbered(sql), *params)
        return row

    @asynccontextmanager
    async def _writing(self) -> AsyncIterator[None]:
        """A duplicate key is ``Duplicate``; a server that refuses the write (gone, full,
        read-only) is a polite refusal."""
        try:
            yield
        except asyncpg.UniqueViolationError as error:
            raise Duplicate(str(error)) from error
        except Exception as error:
            if not is_storage_error(error):
                raise
            log.warning("the database refused a write, so the request was refused: %s", error)
            raise StorageUnavailable() from error

    async def schema_version(self) -> int:
        async with self.pool.acquire() as conn:
            return await _version(conn)

    async def migrate(self, folder: Path | None = None, *, upto: int | None = None) -> int:
        """Apply every migration newer than the database, each in one transaction with the
        new version; raises ``DatabaseTooNew`` or ``DatabaseUnusable`` like SQLite's."""
        files = migration_files(folder)
        latest = files[-1][0] if upto is None else upto
        async with self.pool.acquire() as conn:
            await migrate_connection(conn, self.name, files, latest)
        return latest

    async def close(self) -> None:
        await self.pool.close()


async def migrate_connection(conn: asyncpg.Connection, name: str,
                             files: list[tuple[int, Path]], latest: int) -> None:
    """Migrate through ``conn`` up to version ``latest``; inside a transaction already open
    on ``conn`` (copy-database), the migrations become part of it."""
    known = files[-1][0]
    try:
        current = await _version(conn)
        if current > known:
            raise DatabaseTooNew(
                f"The database is at schema version {current}, but this bot only knows up to "
                f"{known}. It was written by a newer version of the bot: upgrade the bot, or "
                "point NLK_DATABASE at another database.")
        for number, path in files:
            if number <= current or number > latest:
                continue
            async with conn.transaction():
                await conn.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
                if await _version(conn) >= number:
                    continue  # another process applied it while this one waited
                await conn.execute(postgresql_script(path))
                await conn.execute(
                    "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL); "
                    "DELETE FROM schema_version")
                await conn.execute("INSERT INTO schema_version (version) VALUES ($1)", number)
    except asyncpg.InsufficientPrivilegeError as error:
        raise DatabaseUnusable(
            f"can't open the database {name}: role {await _role(conn)} may not create tables "
            f"in schema {await conn.fetchval('SELECT current_schema()')}: grant it CREATE on "
            f"the schema, or migrate once as its owner (PostgreSQL: {one_line(error)})") from None


async def _version(conn: asyncpg.Connection) -> int:
    # A scan of the catalogue, not ``to_regclass``: a name lookup may answer from the
    # connection's cache, which can still say "no such table" after another process has
    # created it (two processes starting together would then both migrate).
    if not await conn.fetchval(
            "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = "
            "current_schema() AND tablename = 'schema_version')"):
        return 0
    return int(await conn.fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_version"))


async def _role(conn: asyncpg.Connection) -> str:
    return str(await conn.fetchval("SELECT current_user"))


def one_line(error: BaseException) -> str:
    """PostgreSQL's words (a message and its DETAIL lines) on one line."""
    return " ".join(str(error).split())


def connect_refusal(url: str, error: BaseException) -> DatabaseUnusable:
    """Why connecting to ``url`` failed, as the operator's one line."""
    parts = urlsplit(url)
    host = f"{parts.hostname or 'localhost'}:{parts.port or 5432}"
    database = parts.path.lstrip("/") or parts.username or "postgres"
    said = f"(PostgreSQL: {one_line(error)})"
    start = f"can't open the database {public_url(url)}:"
    if isinstance(error, asyncpg.InvalidAuthorizationSpecificationError):
        return DatabaseUnusable(
            f"{start} the server refused the login of role {parts.username or '(default)'}: "
            f"check the user name and password in NLK_DATABASE {said}")
    if isinstance(error, asyncpg.InvalidCatalogNameError):
        return DatabaseUnusable(
            f"{start} database {database} does not exist on {host}: create it "
            f"(createdb {database}) or fix the URL {said}")
    if isinstance(error, OSError | TimeoutError | asyncpg.CannotConnectNowError):
        return DatabaseUnusable(
            f"{start} can't connect to the server at {host}: is PostgreSQL running there, "
            f"and is the address right? {said}")
    return DatabaseUnusable(f"{start} {said}")
