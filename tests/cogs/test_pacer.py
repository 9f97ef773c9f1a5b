"""The channel budget's room: waited for before what to send is made ready, never taken."""

import asyncio
import time

from cogs.transport import pacer
from cogs.transport.pacer import Kind, Pacer


async def test_room_takes_no_place_in_the_channels_budget(monkeypatch):
    """Room for one request is there as often as it is asked for: asking takes nothing,
    and the request made after it is let through at once."""
    monkeypatch.setattr(pacer, "WINDOW", 60.0)  # a place taken would not come back in time
    paced = Pacer(per_channel=2)
    await asyncio.wait_for(paced.room(1, Kind.WRITE), 5)  # a channel never used
    async with paced.use(1, Kind.WRITE):
        pass  # one place left
    for _ in range(3):
        await asyncio.wait_for(paced.room(1, Kind.WRITE), 5)
    async with asyncio.timeout(5):
        async with paced.use(1, Kind.WRITE):
            pass


async def test_room_comes_once_the_windows_oldest_request_leaves_it(monkeypatch):
    """A channel whose budget is spent has room once its oldest request is out of the
    window, and not before."""
    monkeypatch.setattr(pacer, "WINDOW", 0.5)
    paced = Pacer(per_channel=2)
    for _ in range(2):
        async with paced.use(1, Kind.WRITE):
            pass
    spent = time.monotonic()
    await asyncio.wait_for(paced.room(1, Kind.WRITE), 5)
    assert time.monotonic() - spent >= 0.45  # a slow machine only waits longer
