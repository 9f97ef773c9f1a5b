"""Answers first: while taps are being answered, the owners' loops hold their next step.

Every tap is answered by its handler (the message tapped, edited), and what else the change
calls for (the table message in its channel, the other open hands, the turn ping) follows in
the table's owner's loops. Both run on the one event loop. In a burst of taps (fifty tables
starting at once, or resuming after a pause) the loops' steps of the first changes were
interleaved with the answers to the later taps, each costing as much as an answer: the last
tap of the burst waited for all of them. Now a loop's next step waits while any tap is being
answered, for ``MOST`` seconds at most (so a steady stream of taps slows the loops, and never
stops them): the answers of a burst go out first, and what follows them catches up after.
A step held draws the newest snapshot when it goes, so under load a table message's edit
carries more changes at once (fewer pictures drawn). ``docs/figures.md`` has what it
measured at a human pace.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator

MOST = 0.05  # the longest a loop's step waits for the taps being answered


class AnswersFirst:
    """How many taps are being answered, and a wait for them to be.

    A loop's step asks (``turn``) several times an interaction, most often while a tap is
    being answered, so the wait is a future of its own and a timer, released together
    when the last answer is done: ``asyncio.wait_for`` on an event made a task, three
    futures and, on a timeout, a cancellation that took one more turn of the event loop,
    each time (half as much CPU again per wait)."""

    def __init__(self, most: float = MOST) -> None:
        self.most = most
        self._answering = 0
        self._waiting: set[asyncio.Future[None]] = set()

    @contextlib.contextmanager
    def answering(self) -> Iterator[None]:
        """Hold while a tap is being answered (its handler's work)."""
        self._answering += 1
        try:
            yield
        finally:
            self._answering -= 1
            if not self._answering:
                waiting, self._waiting = self._waiting, set()
                for waiter in waiting:
                    _release(waiter)

    async def turn(self) -> None:
        """Return once no tap is being answered, or after ``most`` seconds."""
        if not self._answering:
            return
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[None] = loop.create_future()
        self._waiting.add(waiter)
        timer = loop.call_later(self.most, _release, waiter)
        try:
            await waiter
        finally:
            timer.cancel()
            self._waiting.discard(waiter)


def _release(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)
