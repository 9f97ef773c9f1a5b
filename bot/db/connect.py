"""Opening ``NLK_DATABASE``: an SQLite file (the default) or a PostgreSQL server."""

from __future__ import annotations

from bot.db.postgres import PostgresDatabase
from bot.db.sqlite import SQLiteDatabase, migration_files
from bot.db.storage import Database, is_postgresql


async def open_database(target: str, *, check: bool = True, share: float = 1.0) -> Database:
    """Open ``NLK_DATABASE``: a ``postgresql://`` URL, else an SQLite file path.

    With ``check``, the same start-up checks as the bot's: raises ``DatabaseUnusable``
    (one line, for the operator) when the database can't be used.

    A broken install (its migrations folder missing or empty) raises ``MigrationsBroken``
    before anything is opened, so it never leaves a new, empty database file behind.

    ``share``: this process's part of the bot (see ``bot.client.machine_share``); a
    PostgreSQL pool keeps that part of its connections.
    """
    migration_files()
    if is_postgresql(target):
        return await PostgresDatabase.open(target, check=check, share=share)
    return await SQLiteDatabase.open(target, check=check)
