"""Coalescing: keep only the newest snapshot of each table, and one task per table that
brings what players see up to it.

A burst of moves at a table must not become a burst of Discord requests. Each change hands
its snapshot in with ``put``; an older snapshot never replaces a newer one (changes can be
handed in out of order), and a table's drain task is started only if none is running. The
drain (the owner's coroutine) reads ``latest`` as it goes, so whatever arrived while it was
waiting is drawn next, and intermediate states are skipped.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any, Generic, Protocol, TypeVar


class Snapshot(Protocol):
    @property
    def id(self) -> int: ...

    @property
    def revision(self) -> int: ...


S = TypeVar("S", bound=Snapshot)


class Coalescer(Generic[S]):
    """The newest snapshot per table id, and at most one running ``drain(table_id)`` each.

    ``drain`` returns when the table is up to date, or when it gives up. An exception it
    lets out is logged to ``logger`` (the owner's) and ends that task only: the next ``put``
    starts a fresh one; ``failed`` (if given) is told the table id, to drop what it holds for
    the table.
    """

    def __init__(self, drain: Callable[[int], Coroutine[Any, Any, None]],
                 logger: logging.Logger, *,
                 failed: Callable[[int], None] | None = None) -> None:
        self._drain = drain
        self._log = logger
        self._failed = failed
        self._latest: dict[int, S] = {}
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self.closed = False

    def tracked(self) -> int:
        """Tables with a snapshot or a task held."""
        return len(self._latest) + len(self._tasks)

    def latest(self, table_id: int) -> S | None:
        return self._latest.get(table_id)

    def keep(self, snapshot: S) -> None:
        """Remember ``snapshot`` unless a newer one is held (an equal revision replaces it:
        it may carry a detail the older object lacked, such as the message id)."""
        held = self._latest.get(snapshot.id)
        if held is None or held.revision <= snapshot.revision:
            self._latest[snapshot.id] = snapshot

    def put(self, snapshot: S) -> None:
        """Keep ``snapshot`` and make sure its table's drain is running."""
        if self.closed:
            return  # shutting down
        self.keep(snapshot)
        task = self._tasks.get(snapshot.id)
        if task is None or task.done():
            self._tasks[snapshot.id] = asyncio.create_task(self._run(snapshot.id))

    def discard(self, table_id: int) -> None:
        """Forget the table's snapshot (its running drain, if any, finds nothing to do)."""
        self._latest.pop(table_id, None)

    def cancel(self) -> list[asyncio.Task[None]]:
        """Stop taking snapshots and cancel every drain; returns the tasks to wait for."""
        self.closed = True
        tasks = [task for task in self._tasks.values() if not task.done()]
        for task in tasks:
            task.cancel()
        return tasks

    async def close(self) -> None:
        """Cancel every drain, wait until they have stopped, and free everything."""
        await asyncio.gather(*self.cancel(), return_exceptions=True)
        self._tasks.clear()
        self._latest.clear()

    async def _run(self, table_id: int) -> None:
        try:
            await self._drain(table_id)
        except asyncio.CancelledError:
            raise
        except Exception:
            self._log.exception("table %s: %s failed", table_id, self._drain.__qualname__)
            if self._failed is not None:
                self._failed(table_id)
        finally:
            if self._tasks.get(table_id) is asyncio.current_task():
                del self._tasks[table_id]
