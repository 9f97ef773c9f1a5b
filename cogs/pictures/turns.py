"""Whose picture is drawn next: as many at a time as there are drawers, and a picture an
answer waits for first."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

# A waiting picture: whether an answer waits for it, or since when it does (``hurried``),
# its place in the line, and the future that gives it the turn.
_Waiting = tuple[bool, Callable[[], bool] | None, int, asyncio.Future[None]]


class Turns:
    """Whose picture is drawn next: ``slots`` at a time (one per drawing process; a drawing
    thread draws one at a time, as drawing holds a lock anyway), and a picture an answer waits
    for before any redraw in the background. Without this, a tap's answer could wait behind
    the open hands of every other table that just changed: the drawing processes' own queue
    is first come, first served, so nothing waits there; it waits here, in order."""

    def __init__(self, slots: int = 1) -> None:
        self.slots = max(1, slots)
        self._busy = 0  # turns held
        self._waiting: list[_Waiting] = []
        self._count = itertools.count()

    @property
    def waiting(self) -> int:
        """Pictures waiting for a turn (those given up on included, until skipped)."""
        return len(self._waiting)

    @asynccontextmanager
    async def turn(self, urgent: bool, hurried: Callable[[], bool] | None = None
                   ) -> AsyncIterator[None]:
        """Hold one of the turns; ``hurried``, asked while this waits: whether an answer
        has come to wait for it since (it then goes as an urgent one)."""
        if self._busy >= self.slots:
            waiting = asyncio.get_running_loop().create_future()
            self._waiting.append((urgent, hurried, next(self._count), waiting))
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

    def _pass_on(self) -> None:
        """A turn is over: the first waiting (urgent ones first) takes it, or it is free."""
        self._waiting = [w for w in self._waiting if not w[3].done()]
        if not self._waiting:
            self._busy -= 1
            return
        first = min(self._waiting, key=lambda w: (not (w[0] or (w[1] is not None and w[1]())),
                                                  w[2]))
        self._waiting.remove(first)
        first[3].set_result(None)  # the turn is theirs: as many are held as before
