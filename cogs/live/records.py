"""What the tables' messages show, written down as it happens, so that a start after a stop
(clean or not) converges from there: a turn ping to delete or keep, an open hand to go on
redrawing through its token.

The records are the bot's own state on the Discord side (one per table and kind,
``live:<kind>:<table>``), not the game's: the owner's kinds write them, start-up reads them
back. Writes go in the background, in
order, batched: whatever is noted while one batch is being written goes in the next, and each
batch waits a moment for more (a transaction per batch, not per record: at a human pace, a
record an interaction would cost more than the rest of its bookkeeping). A record a restart
can't do without (a ping posted, a hand opened) is asked for at once: its batch does not
wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Protocol

log = logging.getLogger(__name__)


class StateStore(Protocol):
    """Where the bot keeps its own state (``bot_state``): values by key."""

    async def state_values(self, prefix: str) -> dict[str, str]: ...

    async def set_state_values(self, values: dict[str, str | None]) -> None: ...


BATCH_SECONDS = 1.0  # a batch of records waits this long for more before it is written


class Notes:
    """Records by key (None: forget it), written down in the background, in batches
    ``delay`` seconds apart at most."""

    def __init__(self, store: StateStore, delay: float = BATCH_SECONDS) -> None:
        self.store = store
        self.delay = delay
        self._writes: dict[str, str | None] = {}
        self._writer: asyncio.Task[None] | None = None
        self._stopping = False
        self._now = asyncio.Event()  # set at shutdown: write without waiting

    def note(self, key: str, value: str | None, *, now: bool = False) -> None:
        """Write down ``value`` under ``key`` (None: forget it) soon, after what came
        before; with ``now``, in a batch that does not wait for more (a record a restart
        can't do without, such as a message posted that it must delete)."""
        self._writes[key] = value
        if now:
            self._now.set()
        if not self._stopping and (self._writer is None or self._writer.done()):
            self._writer = asyncio.create_task(self._write())

    def pending(self, key: str) -> bool:
        """Whether a write of ``key`` is still on its way."""
        return key in self._writes

    async def read(self, prefix: str) -> dict[str, str]:
        """The records under ``prefix`` as the last write left them."""
        return await self.store.state_values(prefix)

    async def read_one(self, key: str) -> str | None:
        """The record ``key`` as the last write left it (None: none)."""
        return (await self.read(key)).get(key)

    async def close(self) -> None:
        """Write down what is left (after the owners have stopped)."""
        self._stopping = True
        self._now.set()  # a batch waiting for more is written at once
        if self._writer is not None:
            await asyncio.gather(self._writer, return_exceptions=True)
        await self._write()

    async def _write(self) -> None:
        while self._writes:
            # Each batch waits for more, unless a record asked for ``now`` (before it, or
            # while the last batch was being written): the records noted during a batch
            # written at once go in the next batch when it is due, not alone at once.
            if not self._now.is_set():
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self.delay):
                        await self._now.wait()
            if not self._writes:
                return
            # Whatever asked for ``now`` goes in this batch: a record noted from here on
            # waits for the next batch as usual, unless it asks for ``now`` itself.
            if not self._stopping:
                self._now.clear()
            batch, self._writes = self._writes, {}
            try:
                await self.store.set_state_values(batch)
            except Exception:
                # Only a restart needs them: it then converges from less (a ping left in
                # the channel, a hand that waits for its owner's next tap).
                log.warning("could not write down what the messages show", exc_info=True)
