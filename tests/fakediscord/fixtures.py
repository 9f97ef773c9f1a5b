"""Pytest fixtures; import them into a conftest to use them."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.fakediscord.client import FakeDiscord


@pytest.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    """A running fake Discord, with in-process discord.py pointed at it."""
    async with FakeDiscord() as fake:
        with fake.patch_discord():
            yield fake
