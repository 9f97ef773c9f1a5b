"""Whose picture is drawn next: as many at a time as there are drawers (redraws in the
background one fewer), and a picture an answer waits for first."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

# A picture waiting in the background's line: whether an answer has come to wait for it
# since (``hurried``), its place in the line, and the future that gives it the turn.
_Waiting = tuple[Callable[[], bool] | None, int, asyncio.Future[bool]]


class Turns:
    """Whose picture is drawn next: ``slots`` at a time (one per drawing process; a drawing
    thread draws one at a time, as drawing holds a lock anyway), and a picture an answer waits
    for before any redraw in the background. Without this, a tap's answer could wait behind
    the open hands of every other table that just changed: the drawing processes' own queue
    is first come, first served, so nothing waits there; it waits here, in order.

    Two lines, so that handing a turn on costs the same however many wait (a burst of tables
    changing queues hundreds of redraws): the answers' (by their place, ``_urgent``) and the
    background's (``_background``). A redraw an answer comes to wait for moves to the first
    when it is told (``hurry``).

    With two drawers or more, the background holds one turn fewer than there are: one is
    always kept for answers. A drawing is never interrupted, so without that an answer's
    picture could wait for a redraw already being drawn on every drawer (measured at a human
    pace, 50 tables on two drawers: 12.8 ms at the 99th percentile). Redraws can wait: the
    table message's loop waits for its picture ``PAINT_WAIT``, and an open hand's redraw
    follows its answer anyway."""

    def __init__(self, slots: int = 1) -> None:
        self.slots = max(1, slots)
        # The turns the background may hold at once: one fewer, where there are two or more.
        self.background_slots = max(1, self.slots - 1)
        self._busy = 0  # turns held
        self._background_busy = 0  # of which by redraws in the background
        self._urgent: list[tuple[int, asyncio.Future[bool]]] = []  # a heap, by place
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
        urgent = urgent or (hurried is not None and hurried())  # (hurried before it queued)
        if self._busy >= self.slots or \
                (not urgent and self._background_busy >= self.background_slots):
            waiting: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
            if urgent:
                heapq.heappush(self._urgent, (next(self._count), waiting))
            else:
                self._background.append((hurried, next(self._count), waiting))
            try:
                # The turn is given as a redraw's (True) or as an answer's (False).
                background = await waiting
            except asyncio.CancelledError:
                if waiting.done() and not waiting.cancelled():
                    self._pass_on(waiting.result())  # given as it was cancelled: hand it on
                raise
        else:
            background = not urgent
            self._busy += 1
            self._background_busy += background
        try:
            yield
        finally:
            self._pass_on(background)

    def take_now(self) -> bool:
        """Take a turn for a picture an answer waits for, if one is free now (as ``turn``
        would, without waiting): True if taken; ``done`` hands it on."""
        if self._busy >= self.slots:
            return False
        self._busy += 1
        return True

    def done(self) -> None:
        """A turn taken with ``take_now`` is over."""
        self._pass_on(False)

    def hurry(self) -> None:
        """An answer has come to wait for a picture in the background's line: the ones
        whose ``hurried`` says so move to the answers' line, keeping their place (and draw
        at once if a turn is free: a redraw may wait while one is, kept for answers)."""
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
        while self._busy < self.slots and self._urgent:
            _place, future = heapq.heappop(self._urgent)
            if not future.done():
                future.set_result(False)
                self._busy += 1

    def _pass_on(self, background: bool) -> None:
        """A turn is over (a redraw's, if ``background``): the first waiting (answers first)
        takes it, a redraw only while the background holds fewer than its turns; or it is
        free."""
        self._busy -= 1
        self._background_busy -= background
        while self._urgent:
            _place, future = heapq.heappop(self._urgent)
            if not future.done():
                future.set_result(False)  # the turn is theirs
                self._busy += 1
                return
        while self._background and self._background_busy < self.background_slots:
            _hurried, _place, future = self._background.popleft()
            if not future.done():
                future.set_result(True)
                self._busy += 1
                self._background_busy += 1
                return
