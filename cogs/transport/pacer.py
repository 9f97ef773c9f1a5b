"""Discord's limits for requests outside interactions, kept before Discord enforces them.

About 50 requests a second per bot, and per channel about 5 message posts or edits, and
separately 5 deletes, in any 5 seconds. Interaction responses and follow-ups are not counted
(Discord does not count them either).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import deque
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager, suppress
from enum import StrEnum

# Discord allows about 5 message posts or edits per 5 s per channel, and 5 deletes in a bucket
# of their own. The whole budget is used: the Pacer counts a request from the moment it is let
# through until 5 s after its answer, which covers the moment Discord counted it, however late
# it arrived, so no spare is needed for timing (at 1 move a second every edit counts).
EDITS_PER_WINDOW = 5
DELETES_PER_WINDOW = 5
DISCORD_PER_SECOND = 50  # what Discord allows a bot, across all its processes
GLOBAL_PER_SECOND = 40  # what the bot paces itself to: some spare for what is not paced
# What a start sends before anything is paced (logging in, the gateway, the application,
# the commands' check and sync): about a dozen requests in its first second.
STARTING_REQUESTS = 15
WINDOW = 5.0


class Kind(StrEnum):
    """What a channel request does; posts and edits share a bucket, deletes have their own."""

    WRITE = "write"
    DELETE = "delete"
    READ = "read"


class Pacer:
    """Per-channel and global buckets of recent requests.

    A request counts from the moment it is let through until its answer is back, and then in
    its window from the moment the answer came: Discord counts a request when it arrives,
    which is somewhere in between. Counting from the grant alone is not enough when the bot
    is busy: requests granted early in one second can arrive late and meet the next second's.
    """

    def __init__(self, per_channel: int = EDITS_PER_WINDOW, per_second: int = GLOBAL_PER_SECOND
                 ) -> None:
        self.per_channel = per_channel
        self.per_second = per_second
        self._channels: dict[tuple[int, Kind], _Bucket] = {}
        self._global = _Bucket(per_second, 1.0)

    def tracked(self) -> int:
        return len(self._channels)

    @asynccontextmanager
    async def use(self, channel_id: int, kind: Kind) -> AsyncIterator[None]:
        """Make one ``kind`` request inside this block, when it fits Discord's limits."""
        channel = self._channel(channel_id, kind)
        await channel.take()
        try:
            await self._global.take()
        except BaseException:
            channel.done()
            raise
        try:
            yield
        finally:
            channel.done()
            self._global.done()

    def _channel(self, channel_id: int, kind: Kind) -> _Bucket:
        """The channel's bucket of ``kind`` requests, made on first use."""
        channel = self._channels.get((channel_id, kind))
        if channel is None:
            channel = self._channels[(channel_id, kind)] = self._bucket(kind)
        return channel

    def _bucket(self, kind: Kind) -> _Bucket:
        """A channel's bucket of ``kind`` requests. Its posts and edits are spread: at a
        move a second the budget is always spent, and a window's places come free in the
        pattern they were taken in; two edits a fraction of a second apart were followed
        by nearly two seconds of none, the table message meanwhile naming a player whose
        turn had passed."""
        if kind is Kind.WRITE:
            return _Bucket(self.per_channel, WINDOW, spread=True)
        return _Bucket(DELETES_PER_WINDOW, WINDOW)

    async def room(self, channel_id: int, kind: Kind) -> None:
        """Wait until a ``kind`` request in the channel would be let through at once, without
        taking its place: what to send can then be made ready (its picture drawn) before
        ``use``, rather than while a place is held, or drawn long before it goes."""
        channel = self._channels.get((channel_id, kind))
        if channel is not None:
            await channel.room()

    def spend(self, channel_ids: Iterable[int]) -> None:
        """Count the channels' message budgets as used up from now, for one window: a
        process that stopped just before this one started may have used them, and Discord
        still counts its requests (sending at once would earn 429s)."""
        for channel_id in channel_ids:
            for kind in (Kind.WRITE, Kind.DELETE):
                self._channel(channel_id, kind).fill()

    async def let_pass(self, leave: int = DISCORD_PER_SECOND - STARTING_REQUESTS) -> None:
        """At shutdown: wait (a second at most) until no more than ``leave`` of this
        process's requests are in Discord's global window. A start right after this stop
        sends its first requests unpaced, and Discord counts them with this process's last
        second: after a flat-out burst (the end of a hand) they would meet a 429."""
        await self._global.drain(leave)

    def prune(self) -> None:
        """Forget channels with nothing in their window."""
        for key in [k for k, bucket in self._channels.items() if bucket.idle()]:
            del self._channels[key]


class _Bucket:
    """At most ``limit`` requests in flight or answered within the last ``window`` seconds.
    Waiters queue first come, first served; only the first one watches the clock.

    ``spread``: the request that takes the window's last place goes no sooner than
    ``window / limit`` after the one before it. Below the last place nothing changes (a
    move after a quiet while goes at once); with the budget always spent, the requests
    settle to one every ``window / limit``, as many as before, evenly."""

    def __init__(self, limit: int, window: float, *, spread: bool = False) -> None:
        self.limit = limit
        self.window = window
        self.spacing = window / limit if spread else 0.0
        self.recent: deque[float] = deque()  # when answers came back, oldest first
        self.busy = 0  # requests let through whose answer has not come back
        self.granted = -math.inf  # when the last request was let through
        self._queue = asyncio.Lock()
        self._freed = asyncio.Event()

    def _wait(self, now: float) -> float | None:
        """None: a request may go now; else how long at most before it may (an answer
        coming back may free a place sooner)."""
        _expire(self.recent, now, self.window)
        used = len(self.recent) + self.busy
        if used < self.limit - 1:
            return None
        if used == self.limit - 1:
            early = self.spacing - (now - self.granted)
            return None if early <= 0 else early
        return self.window - (now - self.recent[0]) + 0.01 if self.recent else self.window

    async def take(self) -> None:
        async with self._queue:
            while True:
                now = time.monotonic()
                wait = self._wait(now)
                if wait is None:
                    self.busy += 1
                    self.granted = now
                    return
                self._freed.clear()
                with suppress(TimeoutError):
                    async with asyncio.timeout(wait):  # (``wait_for`` makes a task a wait)
                        await self._freed.wait()

    async def room(self) -> None:
        """Wait until a ``take`` would not wait (nobody queued before it, a place free)."""
        while True:
            wait = self._wait(time.monotonic())
            if wait is None and not self._queue.locked():
                return
            self._freed.clear()
            with suppress(TimeoutError):
                # (Woken by a request's answer; a window at most, whoever waits before it.)
                async with asyncio.timeout(self.window if wait is None else wait):
                    await self._freed.wait()

    def done(self) -> None:
        self.busy -= 1
        self.recent.append(time.monotonic())
        self._freed.set()

    def fill(self) -> None:
        """Count the whole budget as used now, for a whole window from now (what it counted
        before would end sooner)."""
        now = time.monotonic()
        self.recent.clear()
        self.recent.extend([now] * max(0, self.limit - self.busy))

    async def drain(self, leave: int) -> None:
        """Wait (a window at most) until no more than ``leave`` requests are in the window."""
        while True:
            now = time.monotonic()
            _expire(self.recent, now, self.window)
            over = len(self.recent) - leave
            if over <= 0:
                return
            await asyncio.sleep(self.window - (now - self.recent[over - 1]) + 0.01)

    def idle(self) -> bool:
        _expire(self.recent, time.monotonic(), self.window)
        return not self.recent and not self.busy and not self._queue.locked()


def _expire(recent: deque[float], now: float, window: float) -> None:
    while recent and now - recent[0] > window:
        recent.popleft()
