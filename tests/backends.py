"""Both storage backends for the tests: an SQLite file, or a fresh PostgreSQL schema.

PostgreSQL cases run when ``NLK_TEST_POSTGRES`` names a server (``.ci/run`` sets it to
``postgresql://postgres@127.0.0.1:5432/test``); without it they are skipped, and pytest's
summary says why. Each test gets a schema of its own, chosen through ``search_path`` in the
URL, and dropped afterwards: far faster than creating a database per test, and the bot's SQL
never names a schema, so it cannot tell the difference.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

SERVER = os.environ.get("NLK_TEST_POSTGRES", "").strip()
SKIP_REASON = "NLK_TEST_POSTGRES is not set: no PostgreSQL server to test against"
BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.skipif(
    not SERVER, reason=SKIP_REASON))]


def needs_postgres() -> pytest.MarkDecorator:
    return pytest.mark.skipif(not SERVER, reason=SKIP_REASON)


def with_schema(url: str, schema: str) -> str:
    return f"{url}{'&' if '?' in url else '?'}search_path={schema}"


@contextlib.asynccontextmanager
async def postgres_schema(server: str = SERVER) -> AsyncIterator[tuple[str, str]]:
    """A fresh, empty schema on ``server``: ``(url, schema)``; dropped afterwards."""
    import asyncpg

    schema = f"nlk_test_{secrets.token_hex(6)}"
    admin = await asyncpg.connect(server)
    try:
        await admin.execute(f"CREATE SCHEMA {schema}")
        yield with_schema(server, schema), schema
    finally:
        await admin.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        await admin.close()


@contextlib.asynccontextmanager
async def database_target(kind: str, folder: Path) -> AsyncIterator[str]:
    """What ``NLK_DATABASE`` would hold for a new, empty database of ``kind``."""
    if kind == "sqlite":
        yield str(folder / "nlk.sqlite3")
        return
    async with postgres_schema() as (url, _):
        yield url
