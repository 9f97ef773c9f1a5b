"""PostgreSQL as deployed: the start-up checks of ``python -m bot``, one clear line each, and
``python -m bot copy-database`` moving an SQLite community over. Needs ``NLK_TEST_POSTGRES``."""

from __future__ import annotations

import random
import secrets
import sqlite3
import subprocess
import sys
from dataclasses import replace
from urllib.parse import urlsplit, urlunsplit

import asyncpg

from bot.db.connect import open_database
from bot.db.repository import Repository
from bot.tables.service import TableService
from rules import Variant, shuffled_deck
from rules.views import state_json
from tests.backends import SERVER, needs_postgres, postgres_schema, with_schema
from tests.bot.test_startup import ROOT, assert_one_clear_line, bot_env, run_bot

pytestmark = needs_postgres()


def server_with(**changes: str | int) -> str:
    """The test server's URL with another user, port or database."""
    parts = urlsplit(SERVER)
    user = changes.get("user", parts.username or "postgres")
    host = parts.hostname or "127.0.0.1"
    port = changes.get("port", parts.port or 5432)
    path = "/" + str(changes.get("database", parts.path.lstrip("/")))
    return urlunsplit(parts._replace(netloc=f"{user}@{host}:{port}", path=path))


def test_a_server_that_is_not_there_is_one_line(tmp_path):
    assert_one_clear_line(run_bot(server_with(port=1), tmp_path),
                          "can't connect to the server at 127.0.0.1:1", "is PostgreSQL running")


def test_a_refused_login_is_one_line(tmp_path):
    role = f"nlk_nobody_{secrets.token_hex(4)}"
    assert_one_clear_line(run_bot(server_with(user=role), tmp_path),
                          f"refused the login of role {role}", "does not exist")


def test_a_missing_database_is_one_line(tmp_path):
    name = f"nlk_missing_{secrets.token_hex(4)}"
    assert_one_clear_line(run_bot(server_with(database=name), tmp_path),
                          f"database {name} does not exist", f"createdb {name}")


async def test_a_role_that_may_not_create_tables_is_one_line(tmp_path):
    role = f"nlk_reader_{secrets.token_hex(4)}"
    admin = await asyncpg.connect(SERVER)
    try:
        await admin.execute(f"CREATE ROLE {role} LOGIN")
        async with postgres_schema() as (_, schema):
            await admin.execute(f"GRANT USAGE ON SCHEMA {schema} TO {role}")
            url = with_schema(server_with(user=role), schema)
            assert_one_clear_line(run_bot(url, tmp_path),
                                  f"role {role} may not create tables in schema {schema}",
                                  "grant it CREATE")
            # Migrated by the owner; the role may read and insert, but update and delete only
            # in one table.
            owner = await open_database(with_schema(SERVER, schema))
            await owner.migrate()
            await owner.close()
            await admin.execute(f"GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA {schema} TO {role}; "
                                f"GRANT INSERT, UPDATE, DELETE ON {schema}.tables TO {role}")
            assert_one_clear_line(run_bot(url, tmp_path),
                                  f"role {role} may not use its tables", "actions")
            await admin.execute(f"REVOKE ALL ON ALL TABLES IN SCHEMA {schema} FROM {role}")
            await admin.execute(f"REVOKE ALL ON SCHEMA {schema} FROM {role}")
    finally:
        await admin.execute(f"DROP ROLE IF EXISTS {role}")
        await admin.close()


async def test_a_schema_from_a_newer_bot_is_one_line(tmp_path):
    async with postgres_schema() as (url, schema):
        db = await open_database(url)
        latest = await db.migrate()
        await db.close()
        admin = await asyncpg.connect(SERVER)
        await admin.execute(f"UPDATE {schema}.schema_version SET version = {latest + 1}")
        await admin.close()
        code, stderr, seconds = run_bot(url, tmp_path)
        assert code == 1 and stderr.count("\n") == 1 and "Traceback" not in stderr, stderr
        assert stderr.startswith(f"error: The database is at schema version {latest + 1}, "
                                 f"but this bot only knows up to {latest}."), stderr


# --- copy-database -----------------------------------------------------------------------


async def play_out(service: TableService, table_id: int, rng: random.Random,
                   moves: int | None = None) -> None:
    """Tap legal moves for whoever is to act: to the end of the hand, or ``moves`` taps."""
    table = await service.get(table_id)
    while not table.game.is_over and (moves is None or moves > 0):
        game = table.game
        legal = game.legal_actions()
        table = (await service.act(table_id, table.seats[game.to_act].user_id, game.version,
                                   legal[rng.randrange(len(legal))])).table
        moves = None if moves is None else moves - 1


async def community(path: str) -> None:
    """A server's history: rated hands finished at two tables, one of them mid-hand now,
    a lobby, server settings and the bot's own state."""
    db = await open_database(path)
    await db.migrate()
    service = TableService(Repository(db))
    deals = random.Random(7)
    service.shuffle = lambda n, _seed: shuffled_deck(n, deals.random())
    rng = random.Random(8)
    for channel, people in ((100, 3), (101, 2)):
        table = (await service.create(1, channel, 10, "Ann", 6, Variant())).table
        for i in range(1, people):
            await service.join(table.id, 10 + i, f"P{i}")
        await service.start(table.id, 10)
        await play_out(service, table.id, rng)
        await service.next_hand(table.id, 10)
        if channel == 100:
            await play_out(service, table.id, rng)
            await service.next_hand(table.id, 10)
        await play_out(service, table.id, rng, moves=5)  # open, mid-hand
    await service.create(2, 200, 30, "Zed", 4, Variant())  # a lobby on another server
    repo = Repository(db)
    settings = repo.settings
    await settings.save_guild_settings(1, replace(await settings.guild_settings(1),
                                                  seasons="monthly"))
    await settings.set_state_value("command_tree:1", "abc")
    await repo.uploads.keep("ab" * 16, '{"players": 2}')  # a replay file opened in Discord
    await repo.seasons.podium_shown(1, 10, "202610")  # ann saw October's podium
    await db.close()


def copy_database(source: str, target: str) -> subprocess.CompletedProcess[str]:
    env = bot_env(source)
    del env["DISCORD_TOKEN"]  # copying needs no token
    return subprocess.run([sys.executable, "-m", "bot", "copy-database", source, target],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)


async def snapshot(target: str) -> tuple[list, list, list]:
    """What players would see: the leaderboards and every open table, resumed."""
    db = await open_database(target)
    try:
        await db.migrate()
        repo = Repository(db)
        boards = [await repo.ratings.leaderboard(guild, size, 50, 0) for guild in (1, 2)
                  for size in await repo.ratings.table_sizes(guild)]
        tables = await TableService(repo).open_tables()
        return boards, [(t.id, t.channel_id, t.status, [s.user_id for s in t.seats],
                         state_json(t.game) if t.game else None) for t in tables], \
            [await repo.settings.state_value("command_tree:1"),
             (await repo.settings.guild_settings(1)).seasons,
             await repo.uploads.body("ab" * 16),
             await repo.seasons.podium_shown(1, 10, "202610")]
    finally:
        await db.close()


async def test_copy_database_moves_everything_and_refuses_a_second_run(tmp_path):
    source = str(tmp_path / "nlk.sqlite3")
    await community(source)
    before = await snapshot(source)
    assert before[0][0] and len(before[1]) == 3  # ratings, and three open tables
    async with postgres_schema() as (url, schema):
        done = copy_database(source, url)
        assert done.returncode == 0, done.stderr
        summary = done.stdout.strip()
        assert "\n" not in summary and summary.startswith("copied "), summary
        assert "hands (each replayed)" in summary and url in summary
        assert "copying actions:" in done.stderr and "replaying" in done.stderr
        assert await snapshot(url) == before
        # A new table on the copy gets a fresh id: the id counters moved past the copied ids.
        db = await open_database(url)
        service = TableService(Repository(db))
        new = (await service.create(3, 300, 40, "Eve", 2, Variant())).table
        assert new.id > max(t[0] for t in before[1])
        await db.close()

        again = copy_database(source, url)
        assert again.returncode == 1 and "already holds tables" in again.stderr, again.stderr
        assert again.stderr.count("\n") == 1 and "Traceback" not in again.stderr


async def test_a_copy_that_fails_keeps_nothing(tmp_path):
    source = str(tmp_path / "nlk.sqlite3")
    await community(source)
    with sqlite3.connect(source) as raw:  # a seat at a table that does not exist
        raw.execute("INSERT INTO seats (table_id, user_id, name, joined) VALUES (999, 1, 'x', 0)")
    async with postgres_schema() as (url, schema):
        done = copy_database(source, url)
        assert done.returncode == 1, done.stdout
        assert done.stderr.splitlines()[-1].startswith("error: ") and "Traceback" not in \
            done.stderr and "nothing was copied" in done.stderr, done.stderr
        admin = await asyncpg.connect(SERVER)
        assert await admin.fetchval("SELECT COUNT(*) FROM pg_tables WHERE schemaname = $1",
                                    schema) == 0
        await admin.close()


async def test_a_pooled_connection_comes_back_as_it_was_left_without_a_reset_query():
    # asyncpg's default sends one more query each time a connection goes back to the pool
    # (unlocking, closing cursors, UNLISTEN, RESET ALL): a round trip for every read and
    # write. The bot leaves nothing to reset, so the pool sends nothing: what a session was
    # left with is still there on its next use.
    async with postgres_schema() as (url, _):
        db = await open_database(url, check=False)
        try:
            async with db.pool.acquire() as conn:
                await conn.execute("SET application_name = 'nlk-left'")
                first = conn.get_server_pid()
            async with db.pool.acquire() as conn:
                assert conn.get_server_pid() == first  # the pool's one connection
                assert await conn.fetchval("SHOW application_name") == "nlk-left"
        finally:
            await db.close()


async def test_a_clusters_process_keeps_its_share_of_the_connections():
    # Two processes of a cluster share one server: each keeps half the connections one
    # process would (not a whole pool each, every backend warming caches of its own).
    from bot.client import machine_share
    from bot.cluster.shards import Shards
    from bot.settings import Settings

    half = machine_share(Settings(token="x", database=SERVER, process=1,
                                  shards=Shards.parse("0/2")))
    whole = machine_share(Settings(token="x", database=SERVER, shards=Shards.parse("0/2")))
    assert (half, whole) == (0.5, 1.0)
    async with postgres_schema() as (url, _):
        for share, size in ((whole, 10), (half, 5), (1 / 8, 2)):
            db = await open_database(url, check=False, share=share)
            try:
                assert db.pool.get_max_size() == size
            finally:
                await db.close()
