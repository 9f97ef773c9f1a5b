"""One interface to the two storage backends: an SQLite file (the default) or PostgreSQL.

``NLK_DATABASE`` is a file path or a ``postgresql://`` URL; ``open_database`` opens either,
checked, and returns a ``Database``. The repository speaks to nothing else: reads see only
committed data, and every write happens inside ``transaction()``, all or nothing.

On SQLite the writes go through one connection, one transaction at a time, and the reads
through others: in WAL mode a reader sees the last commit, never a transaction still open
on the writer (which may yet be rolled back).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol


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

    async def require(self, sql: str, params: Sequence[Any],
                      refusal: Callable[[], Exception]) -> None:
        """Raise ``refusal()``, and roll back, unless the query ``sql`` answers a row whose
        first value is true. (It may be checked only with the next statement that is read,
        or at the commit: nothing between may depend on it but the transaction's own
        writes, which the refusal rolls back.)"""
        ...


class Database(Protocol):
    """A storage backend: committed reads, all-or-nothing write transactions, migrations."""

    dialect: str  # "sqlite" or "postgresql"
    name: str  # the path or URL, without a password: for logs and error lines

    async def one(self, sql: str, params: Sequence[Any] = (), *, keyed: bool = False
                  ) -> Row | None:
        """The first row of a committed read. ``keyed``: a few rows found through a key
        (a table by id, its seats, a setting), which SQLite answers at once on the event
        loop's thread rather than in a trip to its reader's thread."""

    async def all(self, sql: str, params: Sequence[Any] = (), *, keyed: bool = False
                  ) -> list[Row]:
        """Every row of a committed read (``keyed``: as for ``one``)."""

    def transaction(self) -> AbstractAsyncContextManager[Transaction]: ...

    async def write(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        """One statement, committed by itself (all or nothing, as any statement); the first
        row it answers, if any."""

    async def migrate(self) -> int: ...

    async def schema_version(self) -> int: ...

    async def close(self) -> None: ...


def is_postgresql(target: str) -> bool:
    return target.startswith(("postgresql://", "postgres://"))
