"""IDENTIFY pacing for a sharded bot: one per 5 s per ``max_concurrency`` bucket.

Discord answers an IDENTIFY that comes sooner with op 9, and counts it against the bot's
1,000 a day. discord.py paces the shards of one process; the gate paces them across
restarts and processes: it keeps when each bucket last identified in the database
(``bot_state``), and one process at a time reads, waits out and writes that time, under a
lock per bucket. On PostgreSQL the lock is an advisory lock, so every process of a cluster
takes its turn; SQLite serves one process only, where an asyncio lock suffices.

The lock is held until the IDENTIFY has gone out (its READY came back), and the time noted
then: noted only before it goes out, a busy process that sends it a moment late would let
the next one identify too soon. It is also noted before, for a process that dies between.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from typing import Any

log = logging.getLogger(__name__)

# Discord's 5 s, and a margin (for a process that dies with its IDENTIFY sent, whose time
# was noted only just before it went out).
SPACING = 5.5
KEY = "identify:"  # bot_state key prefix: when a bucket last identified (unix time)
ADVISORY_LOCK = 0x4E4C49  # the advisory locks' first key ("NLI"); the second is the bucket

BucketLock = Callable[[int], AbstractAsyncContextManager[None]]


class IdentifyGate:
    """Waits until a shard may IDENTIFY, and notes that it does."""

    def __init__(self, read: Callable[[str], Awaitable[str | None]],
                 write: Callable[[str, str], Awaitable[None]], max_concurrency: int, *,
                 lock: BucketLock | None = None,
                 clock: Callable[[], float] = time.time, spacing: float = SPACING) -> None:
        self.read = read
        self.write = write
        self.max_concurrency = max(1, max_concurrency)
        self.clock = clock
        self.spacing = spacing
        self._local: dict[int, asyncio.Lock] = {}
        self.lock = lock or self._local_lock
        self._sent: dict[int, asyncio.Event] = {}  # shard → its READY came
        self._holding: set[asyncio.Task[None]] = set()

    @asynccontextmanager
    async def _local_lock(self, bucket: int) -> AsyncIterator[None]:
        async with self._local.setdefault(bucket, asyncio.Lock()):
            yield

    async def wait(self, shard_id: int) -> float:
        """Return once ``shard_id`` may IDENTIFY (now), having waited how many seconds. The
        bucket stays taken until :meth:`identified` (or ``spacing`` seconds pass)."""
        bucket = shard_id % self.max_concurrency
        key = f"{KEY}{bucket}"
        async with AsyncExitStack() as stack:
            await stack.enter_async_context(self.lock(bucket))
            delay = _number(await self.read(key)) + self.spacing - self.clock()
            if delay > self.spacing:
                delay = self.spacing  # a clock set back: wait once, not for ever
            if delay > 0:
                log.info("shard %d waits %.1f s to identify (bucket %d)", shard_id, delay,
                         bucket)
                await asyncio.sleep(delay)
            await self.write(key, repr(self.clock()))
            sent = self._sent[shard_id] = asyncio.Event()
            hold = asyncio.create_task(self._hold(key, sent, stack.pop_all()),
                                       name=f"nlk-identify-{shard_id}")
            self._holding.add(hold)
            hold.add_done_callback(self._holding.discard)
        return max(delay, 0.0)

    def identified(self, shard_id: int) -> None:
        """``shard_id``'s IDENTIFY was answered (READY): its bucket's time is noted now."""
        sent = self._sent.pop(shard_id, None)
        if sent is not None:
            sent.set()

    async def _hold(self, key: str, sent: asyncio.Event, lock: AsyncExitStack) -> None:
        async with lock:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(sent.wait(), self.spacing)
            await self.write(key, repr(self.clock()))

    async def close(self) -> None:
        """Free every bucket still held (a bot stopping before its READY came)."""
        for hold in list(self._holding):
            hold.cancel()
        await asyncio.gather(*self._holding, return_exceptions=True)


def _number(text: str | None) -> float:
    try:
        return float(text) if text is not None else 0.0
    except ValueError:
        return 0.0


def advisory_lock(pool: Any) -> BucketLock:
    """A PostgreSQL advisory lock per bucket, on a connection of ``pool`` (asyncpg): held by
    one process at a time, across the cluster, and freed by the server if the process dies.
    The pool hands connections back as they were left (no reset), so a connection that may
    still hold the lock (taking or freeing it failed, or was cancelled) is dropped: the
    server frees a closed session's locks."""

    @asynccontextmanager
    async def lock(bucket: int) -> AsyncIterator[None]:
        async with pool.acquire() as conn:
            try:
                await conn.execute("SELECT pg_advisory_lock($1, $2)", ADVISORY_LOCK, bucket)
            except BaseException:
                conn.terminate()
                raise
            try:
                yield
            finally:
                try:
                    await conn.execute("SELECT pg_advisory_unlock($1, $2)", ADVISORY_LOCK,
                                       bucket)
                except BaseException:
                    conn.terminate()
                    raise

    return lock
