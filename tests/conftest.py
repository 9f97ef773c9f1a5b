"""Shared pytest fixtures."""

import pytest

from bot.repository import Repository
from bot.storage import open_database
from bot.tables import TableService
from tests.backends import BACKENDS, database_target
from tests.fakediscord.fixtures import fake_discord  # noqa: F401


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
