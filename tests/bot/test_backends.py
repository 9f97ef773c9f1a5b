"""What both storage backends promise: reads see only committed data, and the database
itself applies a table's move once, even when two processes are given the same click."""

import asyncio
import random

import asyncpg
import pytest

from bot.db.connect import open_database
from bot.db.records import By, HandState
from bot.db.repository import Outdated, Repository
from bot.db.storage import Duplicate
from bot.errors import Stale
from bot.tables.service import TableService
from rules import Action, Variant, shuffled_deck
from rules.views import state_json
from tests.backends import needs_postgres, postgres_schema


class RolledBack(Exception):
    """What a disk refusal mid-move looks like to the transaction: it is rolled back."""


async def test_a_read_during_a_write_transaction_never_sees_its_rows_rolled_back(database):
    repo = Repository(database)
    written, release = asyncio.Event(), asyncio.Event()

    async def move_that_fails() -> None:
        async with repo.transaction() as db:
            await db.execute("INSERT INTO bot_state (key, value) VALUES (?, ?)", ("k", "new"))
            written.set()
            await release.wait()
            raise RolledBack()

    task = asyncio.create_task(move_that_fails())
    await asyncio.wait_for(written.wait(), 5)
    # Another coroutine reads while the transaction is open: only committed data.
    assert await asyncio.wait_for(repo.settings.state_value("k"), 5) is None
    assert await repo.settings.state_values("") == {}
    release.set()
    with pytest.raises(RolledBack):
        await task
    assert await repo.settings.state_value("k") is None
    await repo.settings.set_state_value("k", "kept")  # and what is committed, a read sees at once
    assert await repo.settings.state_value("k") == "kept"


async def test_state_values_are_kept_changed_and_forgotten_in_one_write(database):
    settings = Repository(database).settings
    await settings.set_state_values({"live:a:1": "one", "live:b:1": "two", "other": "x"})
    await settings.set_state_values({"live:a:1": "uno", "live:b:1": None, "live:c:1": "3"})
    assert await settings.state_values("live:") == {"live:a:1": "uno", "live:c:1": "3"}
    await settings.set_state_values({"live:a:1": None, "live:c:1": None})  # forgets only
    await settings.set_state_values({})
    assert await settings.state_values("") == {"other": "x"}


async def test_a_statement_written_alone_is_all_or_nothing(database):
    await database.write("INSERT INTO bot_state (key, value) VALUES (?, ?)", ("k", "first"))
    with pytest.raises(Duplicate):  # the second row would be written, the first refused
        await database.write("INSERT INTO bot_state (key, value) VALUES (?, ?), (?, ?)",
                             ("j", "second", "k", "again"))
    assert await Repository(database).settings.state_values("") == {"k": "first"}


async def test_a_move_not_next_in_the_log_writes_nothing_of_it(database):
    repo = Repository(database)
    table_id = await repo.create_table(1, 100, 10, "Ann", 2, Variant(), 60, 5.0)
    hand_id = await repo.start_hand(table_id, 1, "seed", [str(c) for c in shuffled_deck(2, 0.5)],
                                    0, [10, 11], ["Ann", "Bob"], [None, None], Variant(), 6.0)
    draw = Action.from_json({"act": "draw", "card": None, "to": None})
    await repo.record_action(table_id, hand_id, 0, 0, draw, 10, By.PLAYER,
                             HandState([], [0, 0], False, 7.0), None, 7.0)
    for index in (0, 2):  # taken already; past the next
        with pytest.raises(Outdated):
            await repo.record_action(table_id, hand_id, index, 1, draw, 11, By.STAND_IN,
                                     HandState([1], [0, 1], True, 9.0), None, 9.0)
    stored = await repo.last_hand(table_id)
    assert [(a.seat, a.by) for a in stored.actions] == [(0, By.PLAYER)]
    assert stored.hand.state == HandState([], [0, 0], False, 7.0)
    assert (await repo.active_times())[table_id] == 7.0


async def two_processes(database_url: str) -> tuple[TableService, TableService, int]:
    """Two services, each on its own connection(s) to one database, like two processes
    during a hand-over; a two-seat table dealt by the first and loaded by both."""
    services = []
    for _ in range(2):
        db = await open_database(database_url)
        await db.migrate()  # the first creates the schema; the second finds it done
        service = TableService(Repository(db))
        deals = random.Random(4)
        service.shuffle = lambda n, _seed, deals=deals: shuffled_deck(n, deals.random())
        services.append(service)
    first, second = services
    table = (await first.create(1, 100, 10, "Ann", 2, Variant())).table
    await first.join(table.id, 11, "Bob")
    await first.start(table.id, 10)
    await second.get(table.id)  # the second caches it too
    return first, second, table.id


async def close(*services: TableService) -> None:
    for service in services:
        await service.repo.db.close()


def click(table):  # the move the player to act taps
    game = table.game
    return table.seats[game.to_act].user_id, game.version, game.legal_actions()[0]


async def test_the_same_click_in_two_processes_is_applied_once(database_url):
    first, second, table_id = await two_processes(database_url)
    try:
        user, version, action = click(await first.get(table_id))
        played = await first.act(table_id, user, version, action)
        with pytest.raises(Stale):  # "out of date: the table has moved on", nothing changed
            await second.act(table_id, user, version, action)
        stored = await first.repo.last_hand(table_id)
        assert len(stored.actions) == played.table.game.version  # each move once
        # The second reloaded what the database holds, and takes the next click.
        assert state_json((await second.get(table_id)).game) == state_json(played.table.game)
        user, version, action = click(played.table)
        after = await second.act(table_id, user, version, action)
        assert after.table.game.version > version
        # ... and the first, now behind, takes the click after that one (newer than its cache).
        user, version, action = click(after.table)
        assert (await first.act(table_id, user, version, action)).table.game.version > version
        assert len((await first.repo.last_hand(table_id)).actions) == \
            (await first.get(table_id)).game.version
    finally:
        await close(first, second)


async def test_the_same_click_at_the_same_moment_is_applied_once(database_url):
    first, second, table_id = await two_processes(database_url)
    try:
        user, version, action = click(await first.get(table_id))
        results = await asyncio.gather(first.act(table_id, user, version, action),
                                       second.act(table_id, user, version, action),
                                       return_exceptions=True)
        refused = [r for r in results if isinstance(r, BaseException)]
        assert len(refused) == 1 and isinstance(refused[0], Stale), results
        stored = await first.repo.last_hand(table_id)
        assert [a.action for a in stored.actions[version:version + 1]] == [action]
        fresh = TableService(Repository(first.repo.db))
        assert (await fresh.get(table_id)).game.version == len(stored.actions)
    finally:
        await close(first, second)


async def test_migrations_run_once_and_the_version_is_kept(database):
    latest = await database.schema_version()
    assert latest >= 5
    assert await database.migrate() == latest  # a second run changes nothing
    assert await database.schema_version() == latest


@needs_postgres()
async def test_postgresql_runs_portable_migrations_and_prefers_a_variant(tmp_path):
    from bot.db.postgres import PostgresDatabase

    (tmp_path / "0001-a.sql").write_text(
        "-- Reason: test\nBEGIN;\nCREATE TABLE a (id INTEGER, at REAL);\n"
        "PRAGMA user_version = 1;\nCOMMIT;\n")
    (tmp_path / "0002-b.sql").write_text(
        "-- Reason: test\nBEGIN;\nCREATE TABLE b (x) WITHOUT ROWID;\nPRAGMA user_version = 2;\n"
        "COMMIT;\n")
    (tmp_path / "0002-b.postgresql.sql").write_text("-- Reason: test\nCREATE TABLE b (x TEXT);\n")
    (tmp_path / "0003-c.sql").write_text(
        "-- Reason: test\nBEGIN;\nCREATE TABLE c (x INTEGER);\nINSERT INTO nowhere VALUES (1);\n"
        "PRAGMA user_version = 3;\nCOMMIT;\n")
    async with postgres_schema() as (url, schema):
        db = await PostgresDatabase.open(url)
        try:
            with pytest.raises(asyncpg.UndefinedTableError):
                await db.migrate(tmp_path)
            assert await db.schema_version() == 2  # 0003 failed whole: no table c
            types = {(r["table_name"], r["column_name"]): r["data_type"] for r in await db.all(
                "SELECT table_name, column_name, data_type FROM information_schema.columns "
                "WHERE table_schema = ?", (schema,))}
            assert types == {("a", "id"): "bigint", ("a", "at"): "double precision",
                             ("b", "x"): "text", ("schema_version", "version"): "integer"}
        finally:
            await db.close()
