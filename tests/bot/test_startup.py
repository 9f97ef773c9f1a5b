"""An unusable database or a broken install stops ``python -m bot`` at once, with one line.

Each case runs the bot as deployed, in its own process, with the Discord API on a closed
port: the database is opened and migrated before Discord is contacted, so the only thing the
bot may say is what is wrong with its files. Read-only and full disks are real: the bot runs
in its own user and mount namespaces (``unshare``) with a read-only bind mount or a full
tmpfs; where namespaces are not allowed, ``chmod`` stands in (not for root, who ignores it).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import random
import shlex
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bot.db.sqlite import (
    DatabaseUnusable,
    MigrationsBroken,
    _migrations_folder,
    connect,
    migrate,
    migration_files,
)

ROOT = Path(__file__).resolve().parents[2]
CLOSED_PORT_API = "http://127.0.0.1:9/api/v10"
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def bot_env(database: Path | str, **extra: str) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(ROOT),
            "DISCORD_TOKEN": "x", "NLK_DATABASE": str(database),
            "DISCORD_API_BASE": CLOSED_PORT_API, **extra}


def run_bot(database: Path | str, cwd: Path, *, setup: str | None = None,
            python: list[str] | None = None) -> tuple[int, str, float]:
    """Run the bot; ``setup`` is shell run first inside fresh user and mount namespaces."""
    command = python or [sys.executable, "-m", "bot"]
    if setup is not None:
        command = ["unshare", "--user", "--map-root-user", "--mount", "sh", "-ec",
                   f'{setup}\nexec "$@"', "sh", *command]
    started = time.monotonic()
    done = subprocess.run(command, cwd=cwd, env=bot_env(database), capture_output=True,
                          text=True, timeout=30)
    return done.returncode, done.stderr, time.monotonic() - started


def assert_one_clear_line(result: tuple[int, str, float], *words: str) -> None:
    code, stderr, seconds = result
    assert code == 1, stderr
    assert "Traceback" not in stderr, stderr
    assert stderr.count("\n") == 1, stderr
    assert stderr.startswith("error: can't open the database "), stderr
    for word in words:
        assert word in stderr, stderr
    assert "Discord" not in stderr, stderr
    # It stops at the database, before any attempt to reach Discord: a bot that went on to
    # connect (to a closed port here) would retry until ``run_bot``'s timeout. No tighter
    # bound: a start on a busy machine takes seconds of imports alone.
    assert seconds < 30, f"took {seconds:.1f} s"


@functools.cache
def namespaces_work() -> bool:
    """Can this machine give a process its own mounts (unprivileged user namespaces)?"""
    if shutil.which("unshare") is None:
        return False
    try:
        done = subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "sh", "-ec",
                               "d=$(mktemp -d); mount -t tmpfs -o size=64k tmpfs $d; "
                               "mount -o remount,ro $d; umount $d; rmdir $d"],
                              capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def read_only(target: Path) -> tuple[str | None, bool]:
    """``(setup, ok)``: make ``target`` (a file or a folder) refuse writes for the bot."""
    if namespaces_work():
        t = shlex.quote(str(target))
        return f"mount --bind {t} {t}; mount -o remount,bind,ro {t}", True
    if IS_ROOT:
        return None, False  # root writes through chmod: no honest way to refuse it here
    target.chmod(0o555 if target.is_dir() else 0o444)
    return None, True


def bot_database(path: Path, rows: int = 0) -> Path:
    """A database as the bot leaves it, plus ``rows`` rows of filler to spread over pages."""
    with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as raw:
        raw.execute("PRAGMA journal_mode = WAL")
        for _, script in migration_files():
            raw.executescript(script.read_text(encoding="utf-8"))
        if rows:
            raw.execute("CREATE TABLE filler (n INTEGER PRIMARY KEY, text TEXT)")
            raw.execute("BEGIN")
            raw.executemany("INSERT INTO filler (text) VALUES (?)",
                            [(f"row {n} " * 20,) for n in range(rows)])
            raw.execute("COMMIT")
    assert not Path(f"{path}-wal").exists()  # closed cleanly: everything is in the file
    return path


# --- the disk refuses ------------------------------------------------------------------------


@pytest.mark.e2e  # each starts the bot in its own process: seconds
def test_read_only_folder_and_no_database_yet(tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    setup, ok = read_only(folder)
    if not ok:
        pytest.skip("running as root without user namespaces: chmod can't stop root")
    try:
        result = run_bot(folder / "nlk.sqlite3", tmp_path, setup=setup)
    finally:
        folder.chmod(0o755)
    assert_one_clear_line(result, "read-only")
    assert not (folder / "nlk.sqlite3").exists()


@pytest.mark.e2e
def test_read_only_database_file(tmp_path):
    path = bot_database(tmp_path / "nlk.sqlite3")
    setup, ok = read_only(path)
    if not ok:
        pytest.skip("running as root without user namespaces: chmod can't stop root")
    try:
        result = run_bot(path, tmp_path, setup=setup)
    finally:
        path.chmod(0o644)
    # Reading works and the schema is current, so only a write finds this out.
    assert_one_clear_line(result, "read-only")


@pytest.mark.e2e
def test_full_disk_and_a_fresh_database(tmp_path):
    if not namespaces_work():
        pytest.skip("a full disk needs a tmpfs of our own (user and mount namespaces)")
    folder = tmp_path / "data"
    folder.mkdir()
    f = shlex.quote(str(folder))
    setup = (f"mount -t tmpfs -o size=64k tmpfs {f}; "
             f"dd if=/dev/zero of={f}/filler bs=4096 2>/dev/null || true")
    assert_one_clear_line(run_bot(folder / "nlk.sqlite3", tmp_path, setup=setup),
                          "the disk is full")


# --- the file is damaged ---------------------------------------------------------------------


@pytest.mark.e2e
def test_overwritten_header(tmp_path):
    path = bot_database(tmp_path / "nlk.sqlite3", rows=200)
    with path.open("r+b") as file:
        file.write(random.Random(1).randbytes(100))
    assert_one_clear_line(run_bot(path, tmp_path), "not an SQLite database", "damaged")


@pytest.mark.e2e
def test_truncated_file(tmp_path):
    path = bot_database(tmp_path / "nlk.sqlite3", rows=2000)
    size = path.stat().st_size
    with path.open("r+b") as file:
        file.truncate(size // 2)
    assert_one_clear_line(run_bot(path, tmp_path), "damaged")


@pytest.mark.e2e
def test_corrupted_page(tmp_path):
    """A damaged page that start-up would never read: only the quick check finds it."""
    path = bot_database(tmp_path / "nlk.sqlite3", rows=2000)
    with contextlib.closing(sqlite3.connect(path)) as raw:
        page_size = raw.execute("PRAGMA page_size").fetchone()[0]
        pages = raw.execute("PRAGMA page_count").fetchone()[0]
    with path.open("r+b") as file:
        file.seek(page_size * (pages - 3))
        file.write(random.Random(2).randbytes(page_size))
    assert_one_clear_line(run_bot(path, tmp_path), "damaged")


# --- the path is wrong -------------------------------------------------------------------------


@pytest.mark.e2e
def test_a_directory_as_the_database(tmp_path):
    (tmp_path / "nlk.sqlite3").mkdir()
    assert_one_clear_line(run_bot(tmp_path / "nlk.sqlite3", tmp_path), "is a directory")


@pytest.mark.e2e
def test_missing_folder(tmp_path):
    path = tmp_path / "nowhere" / "nlk.sqlite3"
    assert_one_clear_line(run_bot(path, tmp_path),
                          f"its folder {tmp_path / 'nowhere'} does not exist")
    assert not path.parent.exists()


# --- in process: the connection never outlives a failure ---------------------------------------


async def test_a_failed_connect_closes_its_connection(tmp_path):
    """aiosqlite's worker thread is not a daemon: left open, it keeps the process alive."""
    path = tmp_path / "garbage.sqlite3"
    path.write_bytes(random.Random(3).randbytes(8192))
    def workers() -> list[threading.Thread]:
        return [t for t in threading.enumerate()
                if "_connection_worker_thread" in t.name and t.is_alive()]

    before = workers()
    with pytest.raises(DatabaseUnusable, match="not an SQLite database"):
        await connect(str(path))
    for _ in range(100):
        if workers() == before:
            break
        await asyncio.sleep(0.02)
    assert workers() == before


async def test_a_healthy_database_still_opens_and_is_checked_quickly(tmp_path):
    path = bot_database(tmp_path / "nlk.sqlite3", rows=20000)
    started = time.monotonic()
    db = await connect(str(path))
    try:
        assert time.monotonic() - started < 2
        async with db.execute("SELECT count(*) FROM filler") as cursor:
            assert (await cursor.fetchone())[0] == 20000
    finally:
        await db.close()


# --- a broken install ----------------------------------------------------------------------------


async def test_missing_or_empty_migrations_folder_says_so(tmp_path):
    with pytest.raises(MigrationsBroken, match="is missing: reinstall the bot"):
        migration_files(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    db = await connect(str(tmp_path / "nlk.sqlite3"))
    try:
        with pytest.raises(MigrationsBroken, match="has no migrations: reinstall the bot"):
            await migrate(db, tmp_path / "empty")
    finally:
        await db.close()


@pytest.mark.e2e
@pytest.mark.parametrize("state", ["missing", "empty"])
def test_broken_migrations_folder_at_start(tmp_path, state):
    folder = tmp_path / "migrations"
    if state == "empty":
        folder.mkdir()
    # The installed bot, with its migrations folder moved away or emptied.
    program = ("import pathlib, sys\nimport bot.db.sqlite\n"
               "bot.db.sqlite.MIGRATIONS = pathlib.Path(sys.argv[1])\n"
               "from bot.__main__ import main\nsys.exit(main([]))\n")
    code, stderr, seconds = run_bot(tmp_path / "nlk.sqlite3", tmp_path,
                                    python=[sys.executable, "-c", program, str(folder)])
    assert code == 1 and stderr.count("\n") == 1, stderr
    assert stderr.startswith(f"error: the migrations folder {folder} ")
    assert ("is missing" if state == "missing" else "has no migrations") in stderr
    assert "reinstall the bot" in stderr
    assert "Discord" not in stderr and "newer version" not in stderr
    assert "Traceback" not in stderr
    assert not (tmp_path / "nlk.sqlite3").exists()  # a broken install creates nothing


def test_the_migrations_folder_named_is_where_the_install_keeps_it(tmp_path):
    """Issue 37: an install without its migrations named site-packages/migrations."""
    site = tmp_path / "site-packages"
    (site / "bot" / "db").mkdir(parents=True)
    assert _migrations_folder(site / "bot" / "db" / "sqlite.py") == site / "bot" / "migrations"
    checkout = tmp_path / "checkout"
    (checkout / "bot" / "db").mkdir(parents=True)
    (checkout / "pyproject.toml").write_text("", encoding="utf-8")
    assert _migrations_folder(checkout / "bot" / "db" / "sqlite.py") == checkout / "migrations"


@pytest.mark.e2e
def test_a_schema_version_reset_by_hand_is_one_line_and_changes_nothing(tmp_path):
    """Issue 37: a populated database whose PRAGMA user_version was set to 0 gave a raw
    traceback ("table tables already exists")."""
    path = bot_database(tmp_path / "nlk.sqlite3")
    with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as raw:
        raw.execute("PRAGMA user_version = 0")
        before = raw.execute("SELECT name FROM sqlite_master ORDER BY name").fetchall()
    code, stderr, _ = run_bot(path, tmp_path)
    assert code == 1 and stderr.count("\n") == 1, stderr
    assert stderr.startswith(f"error: can't bring the database {path} up to date: "
                             "migration 0001-create-tables.sql failed"), stderr
    assert "Traceback" not in stderr and "Discord" not in stderr
    with contextlib.closing(sqlite3.connect(path)) as raw:
        assert raw.execute("PRAGMA user_version").fetchone() == (0,)
        assert raw.execute("SELECT name FROM sqlite_master ORDER BY name").fetchall() == before
