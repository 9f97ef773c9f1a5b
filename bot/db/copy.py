"""``python -m bot copy-database nlk.sqlite3 postgresql://…``: move a community to PostgreSQL.

Everything is copied table by table, whatever the migrations created, in one transaction on
the target: the target's schema is built by the same migrations (up to the source's version),
every row is copied with its ids, the id counters are moved past them, and then the copy is
checked (the same row counts, and every stored hand read back equal and replayed) before it
is committed. Any failure leaves the target as it was; a target that already holds tables is
refused, so a second run changes nothing. Run it while the bot is stopped: the source is read
as one snapshot, and moves made after that would not be copied.
"""

from __future__ import annotations

import asyncio
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import aiosqlite
import asyncpg

from bot.db.postgres import one_line
from bot.db.records import StoredHand
from bot.db.repository import action_record, hand_record
from bot.db.sqlite import DatabaseUnusable, connect, migration_files, schema_version
from bot.db.storage import is_postgresql

# Table and column names come from the databases' own catalogues, not from anyone's input:
# they are quoted into the SQL below, as identifiers can't be parameters.
BATCH = 5000
DAMAGED = (ValueError, KeyError)  # what a stored hand that does not replay raises


class CopyRefused(Exception):
    """The copy was not made (nothing changed on the target); ``str()`` says why."""


async def copy_database(source: str, target: str, *, progress: TextIO = sys.stderr) -> str:
    """Copy the SQLite database ``source`` into the empty PostgreSQL ``target``; returns the
    one-line summary. Raises ``CopyRefused`` or ``DatabaseUnusable``."""
    from bot.db.postgres import PostgresDatabase, migrate_connection, public_url

    if is_postgresql(source) or not is_postgresql(target):
        raise CopyRefused("copy-database copies an SQLite file into a PostgreSQL database: "
                          "python -m bot copy-database nlk.sqlite3 postgresql://…")
    if not await asyncio.to_thread(Path(source).is_file):
        raise CopyRefused(f"there is no database file {source}")
    started = time.monotonic()

    def say(line: str) -> None:
        print(line, file=progress, flush=True)

    files = migration_files()
    lite = await connect(source)
    try:
        version = await schema_version(lite)
        if version == 0:
            raise CopyRefused(f"{source} holds no NLK tables (schema version 0)")
        if version > files[-1][0]:
            raise CopyRefused(f"{source} is at schema version {version}, newer than this bot "
                              f"({files[-1][0]}): upgrade the bot first")
        await lite.execute("BEGIN")  # one snapshot of the source for the whole copy
        pg = await PostgresDatabase.open(target, check=False)
        try:
            async with pg.pool.acquire() as conn:
                schema = await conn.fetchval("SELECT current_schema()")
                held = await conn.fetchval(
                    "SELECT string_agg(tablename, ', ' ORDER BY tablename) FROM pg_tables "
                    "WHERE schemaname = $1", schema)
                if held:
                    raise CopyRefused(
                        f"{public_url(target)} already holds tables ({held}): copy into an "
                        "empty database (or schema); nothing was changed")
                async with conn.transaction():
                    say(f"building the schema (version {version}) on {pg.name}")
                    await migrate_connection(conn, pg.name, files, version)
                    rows = await _copy_rows(lite, conn, schema, say)
                    await _reset_counters(conn, schema)
                    hands, damaged = await _verify(lite, conn, schema, rows, say)
        finally:
            await pg.close()
    finally:
        await lite.close()
    seconds = time.monotonic() - started
    note = f", {damaged} already damaged in the source" if damaged else ""
    return (f"copied {_count(len(rows), 'table')}, {_count(sum(rows.values()), 'row')} and "
            f"{_count(hands, 'hand')} (each replayed{note}) from {source} to "
            f"{public_url(target)} in {seconds:.1f} s")


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


async def _tables(lite: aiosqlite.Connection) -> list[str]:
    """The source's tables, each after the tables its foreign keys point to."""
    async with lite.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND "
                            "name NOT LIKE 'sqlite_%' ORDER BY name") as cursor:
        names = [str(row[0]) for row in await cursor.fetchall()]
    needs: dict[str, set[str]] = {}
    for name in names:
        async with lite.execute("SELECT * FROM pragma_foreign_key_list(?)", (name,)) as cursor:
            needs[name] = {str(row["table"]) for row in await cursor.fetchall()} - {name}
    ordered: list[str] = []
    while needs:
        ready = sorted(n for n, deps in needs.items() if deps <= set(ordered))
        if not ready:
            raise CopyRefused(f"the tables' foreign keys go round in a circle: {sorted(needs)}")
        ordered += ready
        for name in ready:
            del needs[name]
    return ordered


def _converter(data_type: str) -> Callable[[Any], Any]:
    """Turn an SQLite value into what the target column takes (SQLite's types are loose)."""
    if data_type in ("bigint", "integer", "smallint"):
        return int
    if data_type in ("double precision", "real", "numeric"):
        return float
    if data_type == "boolean":
        return bool
    return str


async def _copy_rows(lite: aiosqlite.Connection, conn: Any, schema: str,
                     say: Callable[[str], None]) -> dict[str, int]:
    copied: dict[str, int] = {}
    for table in await _tables(lite):
        types = {row["column_name"]: str(row["data_type"]) for row in await conn.fetch(
            "SELECT column_name, data_type FROM information_schema.columns "
            "WHERE table_schema = $1 AND table_name = $2", schema, table)}
        async with lite.execute("SELECT name FROM pragma_table_info(?)", (table,)) as cursor:
            columns = [str(row[0]) for row in await cursor.fetchall()]
        missing = [c for c in columns if c not in types]
        if missing:
            raise CopyRefused(f"the target's table {table} has no column {missing[0]}: the "
                              "migrations differ between the source and this bot")
        convert = [_converter(types[c]) for c in columns]
        async with lite.execute(f"SELECT COUNT(*) FROM \"{table}\"") as cursor:
            total = int((await cursor.fetchone() or [0])[0])
        say(f"copying {table}: {_count(total, 'row')}")
        done = 0
        quoted = ", ".join(f'"{c}"' for c in columns)
        async with lite.execute(f'SELECT {quoted} FROM "{table}"') as cursor:
            while batch := await cursor.fetchmany(BATCH):
                records = [tuple(None if v is None else f(v)
                                 for f, v in zip(convert, row, strict=True)) for row in batch]
                try:
                    await conn.copy_records_to_table(table, records=records, columns=columns,
                                                     schema_name=schema)
                except asyncpg.PostgresError as error:
                    raise CopyRefused(f"the target refused a row of table {table} "
                                      f"({one_line(error)}): "
                                      "nothing was copied") from None
                done += len(records)
                if total > BATCH:
                    say(f"  {table}: {done:,} / {total:,}")
        copied[table] = done
    return copied


async def _reset_counters(conn: Any, schema: str) -> None:
    """Ids were copied as they were: start each identity (or serial) counter after them."""
    for row in await conn.fetch(
            "SELECT table_name, column_name FROM information_schema.columns WHERE "
            "table_schema = $1 AND (is_identity = 'YES' OR column_default LIKE 'nextval(%')",
            schema):
        table, column = row["table_name"], row["column_name"]
        sequence = await conn.fetchval("SELECT pg_get_serial_sequence($1, $2)",
                                       f'"{schema}"."{table}"', column)
        top = await conn.fetchval(f'SELECT MAX("{column}") FROM "{schema}"."{table}"')
        await conn.execute("SELECT setval($1, $2, false)", sequence, int(top or 0) + 1)


async def _verify(lite: aiosqlite.Connection, conn: Any, schema: str, rows: dict[str, int],
                  say: Callable[[str], None]) -> tuple[int, int]:
    """The same row counts, and every hand read back equal and replayed: ``(hands, damaged)``
    where ``damaged`` hands do not replay in the source either (quarantined tables)."""
    for table, count in rows.items():
        there = await conn.fetchval(f'SELECT COUNT(*) FROM "{schema}"."{table}"')
        if there != count:
            raise CopyRefused(f"table {table} has {there} rows on the target, not {count}: "
                              "nothing was kept")
    if "hands" not in rows or "actions" not in rows:
        return 0, 0
    say(f"replaying {_count(rows['hands'], 'hand')} on the target")
    hands = damaged = 0
    for row in await conn.fetch(f'SELECT * FROM "{schema}".hands ORDER BY id'):
        actions = await conn.fetch(
            f'SELECT * FROM "{schema}".actions WHERE hand_id = $1 ORDER BY idx', row["id"])
        async with lite.execute("SELECT * FROM hands WHERE id = ?", (row["id"],)) as cursor:
            original = await cursor.fetchone()
        async with lite.execute("SELECT * FROM actions WHERE hand_id = ? ORDER BY idx",
                                (row["id"],)) as cursor:
            logged = await cursor.fetchall()
        assert original is not None
        copied = _stored(row, actions)
        if copied != _stored(original, logged):
            raise CopyRefused(f"hand {row['id']} reads back differently on the target: "
                              "nothing was kept")
        hands += 1
        try:
            if isinstance(copied, str):
                raise ValueError(copied)
            copied.replay_marked()[0]
        except DAMAGED:
            damaged += 1  # read back equal, so the source's hand is damaged the same way
    return hands, damaged


def _stored(hand: Any, actions: Any) -> StoredHand | str:
    """The hand as the bot reads it, or why it can't be read."""
    try:
        return StoredHand(hand_record(hand), [action_record(a) for a in actions])
    except (*DAMAGED, sqlite3.Error) as error:
        return f"{type(error).__name__}: {error}"


__all__ = ["CopyRefused", "DatabaseUnusable", "copy_database"]
