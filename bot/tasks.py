"""Background work kept until it is done, and the back-off between tries of a failing step.

asyncio keeps only a weak reference to a task: one started and not kept may vanish before
it ends. ``Tasks`` keeps each until it is done, can tell when it is done, and cancels or
waits for the lot at shutdown.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

RETRY_SECONDS = (1.0, 2.0, 5.0, 15.0, 60.0)  # after a failed step, then every minute


def backoff(failures: int) -> float:
    """How long to wait after ``failures`` failed tries in a row (at least one).

    >>> [backoff(n) for n in (1, 2, 5, 9)]
    [1.0, 2.0, 60.0, 60.0]
    """
    return RETRY_SECONDS[min(max(failures, 1), len(RETRY_SECONDS)) - 1]


class Tasks:
    """A set of running tasks; ``done`` (if given) is told when each one ends."""

    def __init__(self, done: Callable[[asyncio.Task[Any]], None] | None = None) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self._done = done

    def __len__(self) -> int:
        return len(self._tasks)

    def __iter__(self) -> Iterator[asyncio.Task[Any]]:
        return iter(list(self._tasks))

    def start(self, work: Awaitable[T]) -> asyncio.Task[T]:
        """Run ``work`` in the background, kept until it ends."""
        task: asyncio.Task[T] = asyncio.ensure_future(work)
        self.keep(task)
        return task

    def keep(self, task: asyncio.Task[Any]) -> None:
        """Keep a task started elsewhere until it ends."""
        self._tasks.add(task)
        task.add_done_callback(self._ended)

    def running(self) -> list[asyncio.Task[Any]]:
        return [task for task in self._tasks if not task.done()]

    async def wait(self, seconds: float) -> None:
        """Give the running tasks up to ``seconds`` to end."""
        running = self.running()
        if running:
            await asyncio.wait(running, timeout=seconds)

    async def cancel(self) -> None:
        """Cancel every running task and wait until they have stopped."""
        running = self.running()
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)

    def _ended(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if self._done is not None:
            self._done(task)
