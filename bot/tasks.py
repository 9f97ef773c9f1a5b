"""Background work kept until it is done, and the back-off between tries of a failing step.

asyncio keeps only a weak reference to a task: one started and not kept may vanish before
it ends. ``Tasks`` keeps each until it is done, can tell when it is done, and cancels or
waits for the lot at shutdown. ``Scope`` is a lifetime: a TaskGroup kept open by a task of its
own, whose work ends with it; a scope whose life runs inside another's ends with that one, so
stopping the outermost stops everything under it, with no flag to check and no chain of
``close()`` calls to keep in order. Work that must not be cut short gets a grace first.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

log = logging.getLogger(__name__)

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


# Awaited when a scope's life is cancelled, before its work is.
Grace = Callable[[], Awaitable[None]]


class Scope:
    """A lifetime for background work: an ``asyncio.TaskGroup`` held open by ``life``, run as
    a task of its own (``begin``, ended by ``close``) or as work in an outer scope
    (``within``), whose end then ends it.

    Work started before the life began waits for it; work started once the scope is over is
    not run. A piece of work that fails is logged, and the rest go on (a TaskGroup would
    otherwise cancel them all). ``done`` is told whenever a piece of work has ended. A scope
    ends when ``end`` was called and its work has finished, or when its life is cancelled,
    which cancels its work and waits for it to stop."""

    def __init__(self, name: str, done: Callable[[], None] | None = None) -> None:
        self.name = name  # what its work is for, in the log
        self._done = done
        self._task: asyncio.Task[None] | None = None  # its life, when it runs as its own task
        self._group: asyncio.TaskGroup | None = None
        self._waiting: list[Coroutine[Any, Any, Any]] = []  # started before its life began
        self._running = 0
        self._ending = asyncio.Event()
        self._over = False
        self._outer: Scope | None = None  # the scope its life runs in (``within``)
        self._inner: set[Scope] = set()  # the scopes whose life runs in this one

    def __len__(self) -> int:
        """How much of its work has not ended yet (waiting for its life included)."""
        return self._running + len(self._waiting)

    @property
    def running(self) -> bool:
        """Whether its life has begun and not ended: work started now runs at once."""
        return self._group is not None and not self.over

    @property
    def over(self) -> bool:
        """Whether it has ended (or was asked to): nothing more runs in it."""
        return self._over or self._ending.is_set()

    async def life(self, grace: Grace | None = None) -> None:
        """The scope's life: it lasts until ``end`` (once its work has ended) or until it is
        cancelled. Cancelled, it first awaits ``grace`` (if given) while its work goes on:
        work that must not be cut short gets that long to end."""
        try:
            async with asyncio.TaskGroup() as group:
                self._group = group
                waiting, self._waiting = self._waiting, []
                for work in waiting:
                    self._run(group, work)
                try:
                    await self._ending.wait()
                except asyncio.CancelledError:
                    # The group now cancels its work and waits for it: work started
                    # meanwhile would escape that, so none starts any more.
                    self._over, self._group = True, None
                    if grace is not None:
                        try:
                            await grace()
                        except Exception:
                            log.exception("%s: its grace failed", self.name)
                    raise
        finally:
            self._over, self._group = True, None
            self._drop()
            if self._outer is not None:
                self._outer._inner.discard(self)

    def start(self, work: Coroutine[Any, Any, T]) -> asyncio.Task[None] | None:
        """Run ``work`` in the scope (None: its life has not begun yet, and it runs once
        it has; or the scope is over, and it never runs)."""
        if self.over:
            work.close()
            return None
        if self._group is None:
            self._waiting.append(work)
            return None
        return self._run(self._group, work)

    def within(self, outer: Scope, grace: Grace | None = None) -> None:
        """Run its life as work in ``outer``: it ends when that one does, even if its life
        had not begun by then (what waits for it is then dropped). ``grace``: as for
        ``life``."""
        if outer.over:
            self.end()
            return
        self._outer = outer
        outer._inner.add(self)
        outer.start(self.life(grace))

    def begin(self) -> None:
        """Run its life as a task of its own (once; a scope that is over stays over). For an
        outermost scope: one inside another is begun by ``within``."""
        if self._task is None and not self.over:
            self._task = asyncio.create_task(self.life(), name=self.name)

    async def close(self) -> None:
        """End it now (of a scope ``begin`` started): its work is cancelled and waited for,
        and what waits for its life never runs."""
        self.end()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    def end(self) -> None:
        """Let the scope's life end once its work has ended; nothing new starts in it (and
        what waits for a life that has not begun never runs)."""
        self._ending.set()
        if self._group is None and not self._over:  # its life has not begun
            self._drop()

    def _drop(self) -> None:
        """Its life will not run what waits for it: close that, and end the scopes inside
        it whose life has not begun (those that had have ended with it)."""
        for work in self._waiting:
            work.close()
        self._waiting.clear()
        for inner in list(self._inner):
            inner.end()

    def _run(self, group: asyncio.TaskGroup, work: Coroutine[Any, Any, Any]
             ) -> asyncio.Task[None]:
        self._running += 1
        task = group.create_task(self._guarded(work))
        task.add_done_callback(lambda _task: self._unstarted(work))
        return task

    def _unstarted(self, work: Coroutine[Any, Any, Any]) -> None:
        """A piece of work cancelled before it began (its scope ended right after it was
        started) never ran: it is closed, so nothing warns that it was never awaited, and
        it has ended."""
        if inspect.getcoroutinestate(work) == inspect.CORO_CREATED:
            work.close()
            self._ended()

    async def _guarded(self, work: Coroutine[Any, Any, Any]) -> None:
        try:
            await work
        except Exception:
            log.exception("%s: background work failed", self.name)
        finally:
            self._ended()

    def _ended(self) -> None:
        self._running -= 1
        if self._done is not None:
            self._done()
