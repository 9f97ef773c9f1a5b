"""Shared pytest fixtures."""

import pytest

from tests.fakediscord.fixtures import fake_discord  # noqa: F401


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests that run the bot against the fake Discord are slow: mark them ``e2e``, so
    ``pytest -m "not e2e"`` gives a fast loop (CI runs everything)."""
    for item in items:
        if "fake_discord" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.e2e)
