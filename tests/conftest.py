"""Shared pytest fixtures."""

import random

import pytest

from bot.db.connect import open_database
from bot.db.repository import Repository
from bot.tables.service import TableService
from tests.backends import BACKENDS, database_target
from tests.fakediscord.fixtures import fake_discord  # noqa: F401
from tests.nlk_driver import Driver, running_bot


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests that run the bot against the fake Discord are slow: mark them ``e2e``, so
    ``pytest -m "not e2e"`` gives a fast loop (CI runs everything)."""
    for item in items:
        if "fake_discord" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(params=BACKENDS)
async def database_url(request, tmp_path):
    """``NLK_DATABASE`` for an empty database: an SQLite file, then a PostgreSQL schema."""
    async with database_target(request.param, tmp_path) as target:
        yield target


@pytest.fixture
async def database(database_url):
    """An open, migrated database on each backend."""
    db = await open_database(database_url)
    try:
        await db.migrate()
        yield db
    finally:
        await db.close()


@pytest.fixture
async def service(database):
    """The table service over each backend (see ``database``)."""
    return TableService(Repository(database))


@pytest.fixture
async def nlk(fake_discord, tmp_path):  # noqa: F811 (the fixture, by name)
    """The bot on a new SQLite file against the fake Discord: ``(fake, bot, driver, path)``;
    the fake must end clean (no refused request, no 429)."""
    path = tmp_path / "nlk.sqlite3"
    async with running_bot(fake_discord, path) as bot:
        yield fake_discord, bot, Driver(fake_discord, random.Random(4)), path
    fake_discord.assert_clean()
