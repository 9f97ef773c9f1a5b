"""Tables that run themselves: AI moves, turn reminders, stand-ins and idle tables ending.

Scheduling and AI only, no Discord: what players see is the ``Notifier``'s business (the
cog implements it). Each playing table has one clock task. It is never cancelled while it
may be acting (a move cut between its commit and the cache update would desynchronise
them), except at shutdown; it is woken whenever the table changes, and works out again
what comes next.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from concurrent.futures import Executor
from dataclasses import dataclass
from enum import Enum
from typing import Protocol

from bot.errors import Refusal
from bot.ops.workers import off_loop
from bot.tables.service import AILevel, Change, Table, TableService
from bot.tasks import Scope, backoff
from rules.ai import DEFAULT_BUDGET_MS, choose

log = logging.getLogger(__name__)

REMINDER_SECONDS = 15.0
IDLE_CHECK_SECONDS = 60.0
SETTLE_SECONDS = 0.5  # before showing a table another process wrote, as stored then


class Step(Enum):
    """What a table's clock does next."""

    AI = "ai"  # an AI seat or an away seat plays
    STAND_IN = "stand-in"  # the AI plays (the rest of) a lapsed turn
    REMIND = "remind"  # the person to act is running out of time
    RENEW = "renew"  # the place can be reached again: its person's turn starts afresh


class Notifier(Protocol):
    """What the clocks tell the players' side."""

    async def table_changed(self, change: Change) -> None:
        """A move was made or the table closed without an interaction to answer."""

    async def table_reloaded(self, change: Change) -> None:
        """The table was loaded again from the database, which another process had moved
        on: what that process showed of it may be shown already."""

    async def remind(self, table: Table, user_id: int, deadline: float) -> None:
        """The player to act is running out of time."""

    def reaches(self, table: Table) -> bool:
        """Whether a move made now can be shown (a table in a group DM can show one only
        while someone's tap is recent): if not, the AI and stand-ins wait for the next."""


@dataclass
class _Clock:
    waiter: asyncio.Future[bool] | None = None  # set while the clock sleeps
    reminded: int = -1  # the engine version whose turn was already reminded
    failures: int = 0
    # The table could not be reached (a group DM nobody tapped in for 15 minutes): its
    # person's time stood still, and their turn starts afresh once someone taps.
    waited: bool = False

    def wake(self) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(True)

    async def sleep(self, delay: float | None) -> bool:
        """Sleep ``delay`` seconds (None: until woken); True if woken first."""
        loop = asyncio.get_running_loop()
        self.waiter = waiter = loop.create_future()

        def ring() -> None:
            if not waiter.done():
                waiter.set_result(False)

        timer = None if delay is None else loop.call_later(max(0.0, delay), ring)
        try:
            woken: bool = await waiter
            return woken
        finally:
            if timer is not None:
                timer.cancel()
            self.waiter = None


class Clocks:
    """The clocks of every open table. They tell ``notifier`` (given when they are made)
    what they did, and nothing else; their tasks live in one scope, within the bot's."""

    def __init__(self, service: TableService, notifier: Notifier, *, pool: Executor | None,
                 ai_delay: float, budget_ms: int | None, idle_seconds: float) -> None:
        self.service = service
        self.notifier = notifier
        self.pool = pool
        self.ai_delay = ai_delay
        self.budget_ms = budget_ms
        self.idle_seconds = idle_seconds
        self._clocks: dict[int, _Clock] = {}
        # Every task of theirs: a clock per playing table, the idle sweep, showing tables
        # another process changed. Its life runs within the bot's, and ends with it: no move
        # is made after that.
        self.scope = Scope("clocks")

    def poke(self, table: Table) -> None:
        """The table changed: start or wake its clock."""
        if self.scope.over or not table.is_open:
            clock = self._clocks.get(table.id)
            if clock is not None:
                clock.wake()  # it sees the table closed and stops
            return
        clock = self._clocks.get(table.id)
        if clock is None:
            clock = self._clocks[table.id] = _Clock()
            self.scope.start(self._run(table.id, clock))
        else:
            clock.wake()

    def resume(self, tables: list[Table]) -> None:
        """After a start: every open table's clock, the idle sweep, and the tables another
        process changed."""
        for table in tables:
            self.poke(table)
        self.scope.start(self._sweep_idle())
        self.scope.start(self._show_reloads())

    async def _show_reloads(self) -> None:
        """Each table loaded again from the database, which was ahead of this process's copy
        (another process changed it): have it shown and wake its clock (the request that
        found it was refused, so nothing else shows it)."""
        while True:
            for table in await self.service.store.reloads():
                self.scope.start(self._show(table.id))

    async def _show(self, table_id: int) -> None:
        # The other process may still be writing the table (a move and the forced moves
        # after it are stored one by one): show it once that settles, as stored then, so
        # this process's edit does not put back a state the other one has already passed.
        await asyncio.sleep(SETTLE_SECONDS)
        try:
            table = await self.service.store.reread(table_id)
            self.poke(table)
            await self.notifier.table_reloaded(Change(table, None, table.user_to_act()))
        except Refusal:
            return  # gone meanwhile
        except Exception:
            log.exception("table %s: could not show it as loaded again", table_id)

    async def _tell(self, change: Change) -> None:
        await self.notifier.table_changed(change)

    # --- one table's clock -----------------------------------------------------------------

    async def _run(self, table_id: int, clock: _Clock) -> None:
        try:
            while True:
                try:
                    table = await self.service.get(table_id)
                except Refusal:
                    return
                if not table.is_open or table.game is None or table.game.is_over:
                    return
                what, delay = self._next(table, clock)
                if await clock.sleep(None if what is None else delay) or what is None:
                    continue  # something changed first: think again
                try:
                    if what is Step.REMIND:
                        await self._remind(table, clock)
                    elif what is Step.RENEW:
                        change = await self.service.renew_turn(table_id)
                        if change is not None:
                            await self._tell(change)
                    else:
                        await self._ai_move(table_id, stand_in=what is Step.STAND_IN)
                    clock.failures = 0
                except asyncio.CancelledError:
                    raise
                except Exception:
                    # Report a persisting failure once, then back off rather than spin.
                    if clock.failures == 0:
                        log.exception("table %s: the %s step failed", table_id, what.value)
                    pause = backoff(clock.failures + 1)
                    clock.failures += 1
                    await clock.sleep(pause)
        finally:
            if self._clocks.get(table_id) is clock:
                del self._clocks[table_id]

    def _next(self, table: Table, clock: _Clock) -> tuple[Step | None, float]:
        """What the clock does next and in how many seconds (None: nothing until the table
        changes or someone taps: a move nobody could see waits for a tap)."""
        if not self.notifier.reaches(table):
            clock.waited = True  # nothing runs out while nobody can be shown it
            return None, 0.0
        if clock.waited:
            clock.waited = False
            if table.deadline() is not None:
                return Step.RENEW, 0.0
        if table.ai_to_act():
            return Step.AI, self.ai_delay
        game = table.game
        if game is not None and table.lapsed is not None and table.lapsed == game.to_act:
            return Step.STAND_IN, self.ai_delay  # the stand-in plays the rest of the turn
        deadline = table.deadline()
        if deadline is None:
            return None, 0.0
        now = self.service.clock()
        assert table.game is not None
        remind_at = deadline - min(REMINDER_SECONDS, table.turn_seconds / 3)
        if clock.reminded != table.game.version and now < deadline:
            return Step.REMIND, remind_at - now  # late (after a restart): remind at once
        return Step.STAND_IN, deadline - now

    async def _ai_move(self, table_id: int, *, stand_in: bool) -> None:
        """The AI plays the seat to act (an AI seat, an away seat, or a stand-in)."""
        turn = await self.service.ai_turn(table_id, stand_in=stand_in)
        if turn is None:
            return
        level = turn.level
        budget = self.budget_ms if level is AILevel.STRONG and self.budget_ms is not None else \
            DEFAULT_BUDGET_MS[level]
        decide = functools.partial(choose, turn.table.seat_view(turn.seat), level,
                                   seed=f"{turn.table.seed}:{turn.version}", budget_ms=budget)
        action = await off_loop(self.pool, decide)
        try:
            change = await self.service.act(table_id, turn.table.seats[turn.seat].user_id,
                                            turn.version, action, turn.by)
        except Refusal as refused:
            # The owner came back and acted, or the table moved on.
            log.debug("table %s: the AI's move was not applied: %s", table_id, refused)
            return
        await self._tell(change)

    async def _remind(self, table: Table, clock: _Clock) -> None:
        user = table.user_to_act()
        deadline = table.deadline()
        assert table.game is not None
        clock.reminded = table.game.version
        if user is None or deadline is None:
            return
        await self.notifier.remind(table, user, deadline)

    # --- idle tables -----------------------------------------------------------------------

    async def _sweep_idle(self) -> None:
        while True:
            await asyncio.sleep(IDLE_CHECK_SECONDS)
            try:
                await self.end_idle_tables()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("could not end idle tables")

    async def end_idle_tables(self) -> list[int]:
        """Close tables nobody touched for ``idle_seconds``; their results stay."""
        ended = []
        for change in await self.service.end_idle(self.idle_seconds):
            self.poke(change.table)
            await self._tell(change)
            ended.append(change.table.id)
        return ended
