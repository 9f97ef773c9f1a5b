"""Shared pytest fixtures."""

import pytest

from bot.database import connect, migrate
from bot.repository import Repository
from bot.tables import TableService
from tests.fakediscord.fixtures import fake_discord  # noqa: F401


@pytest.fixture
async def service(tmp_path):
    """A table service on a fresh, migrated database."""
    db = await connect(str(tmp_path / "nlk.sqlite3"))
    await migrate(db)
    yield TableService(Repository(db))
    await db.close()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests that run the bot against the fake Discord are slow: mark them ``e2e``, so
    ``pytest -m "not e2e"`` gives a fast loop (CI runs everything)."""
    for item in items:
        if "fake_discord" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.e2e)
