"""Whose picture is drawn next: one at a time, and a picture an answer waits for first."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class Turns:
    """Whose picture is drawn next: one at a time (drawing holds a lock anyway), and a
    picture an answer waits for before any redraw in the background. Without this, a tap's
    answer could wait behind the open hands of every other table that just changed."""

    def __init__(self) -> None:
        self._busy = False
        self._waiting: list[tuple[int, int, asyncio.Future[None]]] = []
        self._count = itertools.count()

    @asynccontextmanager
    async def turn(self, urgent: bool) -> AsyncIterator[None]:
        if self._busy:
            waiting = asyncio.get_running_loop().create_future()
            heapq.heappush(self._waiting, (0 if urgent else 1, next(self._count), waiting))
            try:
                await waiting
            except asyncio.CancelledError:
                if waiting.done() and not waiting.cancelled():
                    self._pass_on()  # given the turn as it was cancelled: hand it on
                raise
        else:
            self._busy = True
        try:
            yield
        finally:
            self._pass_on()

    def _pass_on(self) -> None:
        while self._waiting:
            _, _, waiting = heapq.heappop(self._waiting)
            if not waiting.done():
                waiting.set_result(None)  # still busy: the turn is theirs
                return
        self._busy = False
