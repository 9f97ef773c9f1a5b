"""The channel budget's room: waited for before what to send is made ready, never taken."""

import asyncio
import time

from cogs.transport import pacer
from cogs.transport.pacer import Kind, Pacer


async def test_room_takes_no_place_in_the_channels_budget(monkeypatch):
    """Room for one request is there as often as it is asked for: asking takes nothing,
    and the request made after it is let through at once."""
    monkeypatch.setattr(pacer, "WINDOW", 60.0)  # a place taken would not come back in time
    paced = Pacer(per_channel=3)
    await asyncio.wait_for(paced.room(1, Kind.WRITE), 5)  # a channel never used
    async with paced.use(1, Kind.WRITE):
        pass  # two places left (the last one is spread: below)
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
    async with paced.use(1, Kind.WRITE):
        pass
    oldest = time.monotonic()
    async with paced.use(1, Kind.WRITE):
        pass
    await asyncio.wait_for(paced.room(1, Kind.WRITE), 5)
    assert time.monotonic() - oldest >= 0.45  # a slow machine only waits longer


async def test_the_request_that_fills_a_channels_window_goes_its_share_of_it_after_the_last(
        monkeypatch):
    """A post or edit that takes the window's last place goes no sooner than window / limit
    after the one before: with the budget always spent (a move a second), edits settle
    to one every second rather than two together and then nearly two seconds of none."""
    monkeypatch.setattr(pacer, "WINDOW", 1.0)
    paced = Pacer(per_channel=2)
    async with paced.use(1, Kind.WRITE):
        first = time.monotonic()
    async with paced.use(1, Kind.WRITE):
        assert time.monotonic() - first >= 0.45  # a slow machine only waits longer


async def test_below_the_last_place_and_for_deletes_nothing_is_spread(monkeypatch):
    """A request with more than one place left goes at once, and deletes are not spread."""
    monkeypatch.setattr(pacer, "WINDOW", 60.0)  # spread, a place would wait 12 s or more
    paced = Pacer(per_channel=5)
    async with asyncio.timeout(5):
        for _ in range(4):
            async with paced.use(1, Kind.WRITE):
                pass
        for _ in range(5):
            async with paced.use(1, Kind.DELETE):
                pass
