"""The base of the repository's parts: a database, and its reads, transactions and locks."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any

from bot.db.storage import Database, Row, Transaction


class Queries:

    def __init__(self, db: Database) -> None:
        self.db = db

    def transaction(self) -> AbstractAsyncContextManager[Transaction]:
        """All or nothing: see ``Database.transaction``."""
        return self.db.transaction()

    async def _one(self, sql: str, params: Sequence[Any] = (), *, keyed: bool = False
                   ) -> Row | None:
        """A committed read's first row (``keyed``: see ``Database.one``)."""
        return await self.db.one(sql, params, keyed=keyed)

    async def _all(self, sql: str, params: Sequence[Any] = (), *, keyed: bool = False
                   ) -> list[Row]:
        return await self.db.all(sql, params, keyed=keyed)

    async def _lock(self, db: Transaction, sql: str, params: Sequence[Any]) -> None:
        """Take a row or advisory lock on PostgreSQL, where transactions run side by side;
        on SQLite, ``BEGIN IMMEDIATE`` already holds the one write lock."""
        if self.db.dialect == "postgresql":
            await db.execute(sql, params)

