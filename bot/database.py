"""The SQLite connection and the forward-only migrations runner."""

from __future__ import annotations

import re
from pathlib import Path

import aiosqlite

MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"
_NAME = re.compile(r"^(\d{4})-[a-z0-9-]+\.sql$")


class DatabaseTooNew(Exception):
    """The database was written by a newer version of the bot than this one."""


def migration_files(folder: Path = MIGRATIONS) -> list[tuple[int, Path]]:
    """``(number, path)`` for every ``NNNN-name.sql``, in order; numbers must run 1, 2, …"""
    found = sorted((int(m.group(1)), p) for p in folder.iterdir()
                   if (m := _NAME.match(p.name)))
    for expected, (number, path) in enumerate(found, 1):
        if number != expected:
            raise RuntimeError(f"migration {path.name} is out of sequence (expected {expected})")
    return found


async def connect(path: str) -> aiosqlite.Connection:
    """Open the database in WAL mode with foreign keys on."""
    db = await aiosqlite.connect(path, isolation_level=None)
    db.row_factory = aiosqlite.Row
    await db.execute("PRAGMA journal_mode = WAL")
    await db.execute("PRAGMA synchronous = NORMAL")
    await db.execute("PRAGMA foreign_keys = ON")
    await db.execute("PRAGMA busy_timeout = 5000")
    return db


async def schema_version(db: aiosqlite.Connection) -> int:
    async with db.execute("PRAGMA user_version") as cursor:
        row = await cursor.fetchone()
    return int(row[0]) if row else 0


async def migrate(db: aiosqlite.Connection, folder: Path = MIGRATIONS) -> int:
    """Apply every migration newer than the database; each script is one transaction."""
    files = migration_files(folder)
    latest = files[-1][0] if files else 0
    current = await schema_version(db)
    if current > latest:
        raise DatabaseTooNew(
            f"The database is at schema version {current}, but this bot only knows up to "
            f"{latest}. It was written by a newer version of the bot: upgrade the bot, or point "
            "NLK_DATABASE at another file."
        )
    for number, path in files:
        if number <= current:
            continue
        # executescript() commits first; the script's own BEGIN/COMMIT keeps it atomic.
        await db.executescript(path.read_text(encoding="utf-8"))
        if await schema_version(db) != number:
            raise RuntimeError(f"migration {path.name} did not set user_version to {number}")
    return latest
