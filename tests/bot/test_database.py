"""Migrations: numbered, atomic, versioned in PRAGMA user_version; newer databases refused."""

import aiosqlite
import pytest

from bot.db.sqlite import DatabaseTooNew, connect, migrate, migration_files, schema_version


async def test_migrations_bring_a_new_database_to_the_latest_version(tmp_path):
    db = await connect(str(tmp_path / "nlk.sqlite3"))
    try:
        latest = await migrate(db)
        assert latest == migration_files()[-1][0]
        assert await schema_version(db) == latest
        async with db.execute("PRAGMA journal_mode") as cur:
            assert (await cur.fetchone())[0] == "wal"
        assert await migrate(db) == latest  # a second run changes nothing
    finally:
        await db.close()


async def test_every_migration_starts_with_a_reason_and_is_one_transaction():
    for _, path in migration_files():
        text = path.read_text()
        assert text.startswith("-- Reason:")
        assert "BEGIN;" in text and text.rstrip().endswith("COMMIT;")


async def test_a_database_newer_than_the_code_is_refused(tmp_path):
    path = str(tmp_path / "nlk.sqlite3")
    async with aiosqlite.connect(path) as raw:
        await raw.execute("PRAGMA user_version = 999")
        await raw.commit()
    db = await connect(path)
    try:
        with pytest.raises(DatabaseTooNew, match="newer version of the bot"):
            await migrate(db)
    finally:
        await db.close()


async def test_a_failing_migration_leaves_nothing_behind(tmp_path):
    folder = tmp_path / "migrations"
    folder.mkdir()
    (folder / "0001-good.sql").write_text(
        "-- Reason: test\nBEGIN;\nCREATE TABLE a (x);\nPRAGMA user_version = 1;\nCOMMIT;\n")
    (folder / "0002-bad.sql").write_text(
        "-- Reason: test\nBEGIN;\nCREATE TABLE b (x);\nINSERT INTO nowhere VALUES (1);\n"
        "PRAGMA user_version = 2;\nCOMMIT;\n")
    db = await connect(str(tmp_path / "x.sqlite3"))
    try:
        with pytest.raises(Exception, match="nowhere"):
            await migrate(db, folder)
        await db.execute("ROLLBACK") if db.in_transaction else None
        assert await schema_version(db) == 1
        async with db.execute("SELECT name FROM sqlite_master WHERE name = 'b'") as cur:
            assert await cur.fetchone() is None
    finally:
        await db.close()
