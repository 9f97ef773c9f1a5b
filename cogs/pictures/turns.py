"""Whose picture is drawn next: as many at a time as there are drawers, and a picture an
answer waits for first."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

# A picture waiting in the background's line: whether an answer has come to wait for it
# since (``hurried``), its place in the line, and the future that gives it the turn.
_Waiting = tuple[Callable[[], bool] | None, int, asyncio.Future[None]]


class Turns:
    """Whose picture is drawn next: ``slots`` at a time (one per drawing process; a drawing
    thread draws one at a time, as drawing holds a lock anyway), and a picture an answer waits
    for before any redraw in the background. Without this, a tap's answer could wait behind
    the open hands of every other table that just changed: the drawing processes' own queue
    is first come, first served, so nothing waits there; it waits here, in order.

    Two lines, so that handing a turn on costs the same however many wait (a burst of tables
    changing queues hundreds of redraws): the answers' (by their place, ``_urgent``) and the
    background's (``_background``). A redraw an answer comes to wait for moves to the first
    when it is told (``hurry``)."""

    def __init__(self, slots: int = 1) -> None:
        self.slots = max(1, slots)
        self._busy = 0  # turns held
        self._urgent: list[tuple[int, asyncio.Future[None]]] = []  # a heap, by place
        self._background: deque[_Waiting] = deque()
        self._count = itertools.count()

    @property
    def waiting(self) -> int:
        """Pictures waiting for a turn (those given up on included, until skipped)."""
        return len(self._urgent) + len(self._background)

    @asynccontextmanager
    async def turn(self, urgent: bool, hurried: Callable[[], bool] | None = None
                   ) -> AsyncIterator[None]:
        """Hold one of the turns; ``hurried``, asked when told to (``hurry``): whether an
        answer has come to wait for it since (it then goes as an urgent one)."""
        if self._busy >= self.slots:
            waiting = asyncio.get_running_loop().create_future()
            if urgent or (hurried is not None and hurried()):  # (hurried before it queued)
                heapq.heappush(self._urgent, (next(self._count), waiting))
            else:
                self._background.append((hurried, next(self._count), waiting))
            try:
                await waiting
            except asyncio.CancelledError:
                if waiting.done() and not waiting.cancelled():
                    self._pass_on()  # given the turn as it was cancelled: hand it on
                raise
        else:
            self._busy += 1
        try:
            yield
        finally:
            self._pass_on()

    def hurry(self) -> None:
        """An answer has come to wait for a picture in the background's line: the ones
        whose ``hurried`` says so move to the answers' line, keeping their place."""
        staying: deque[_Waiting] = deque()
        for waiting in self._background:
            hurried, place, future = waiting
            if future.done():
                continue
            if hurried is not None and hurried():
                heapq.heappush(self._urgent, (place, future))
            else:
                staying.append(waiting)
        self._background = staying

    def _pass_on(self) -> None:
        """A turn is over: the first waiting (answers first) takes it, or it is free."""
        while self._urgent:
            _place, future = heapq.heappop(self._urgent)
            if not future.done():
                future.set_result(None)  # the turn is theirs: as many are held as before
                return
        while self._background:
            _hurried, _place, future = self._background.popleft()
            if not future.done():
                future.set_result(None)
                return
        self._busy -= 1
