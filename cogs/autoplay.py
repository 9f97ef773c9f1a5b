"""Tables that run themselves: AI moves, turn reminders, stand-ins and idle tables ending.

Each playing table has one clock task. It is never cancelled while it may be acting (a move
cut between its commit and the cache update would desynchronise them); instead it is woken
with an event whenever the table changes, and works out again what comes next.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from concurrent.futures import Executor
from dataclasses import dataclass

import discord

from bot.errors import Refusal
from bot.tables import STAND_IN_LEVEL, Table, TableService
from rules.ai import DEFAULT_BUDGET_MS, choose

from .updates import TableUpdater

log = logging.getLogger(__name__)

REMINDER_SECONDS = 15.0
IDLE_CHECK_SECONDS = 60.0


@dataclass
class _Clock:
    task: asyncio.Task[None] | None = None
    waiter: asyncio.Future[bool] | None = None  # set while the clock sleeps
    reminded: int = -1  # the engine version whose turn was already reminded

    def wake(self) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(True)

    async def sleep(self, delay: float | None) -> bool:
        """Sleep ``delay`` seconds (None: until woken); True if woken first."""
        loop = asyncio.get_running_loop()
        self.waiter = waiter = loop.create_future()
        timer = None if delay is None else loop.call_later(
            max(0.0, delay), lambda: waiter.done() or waiter.set_result(False))
        try:
            return await waiter
        finally:
            if timer is not None:
                timer.cancel()
            self.waiter = None


class Autoplay:
    """The clocks of every open table."""

    def __init__(self, client: discord.Client, service: TableService, updater: TableUpdater,
                 *, pool: Executor | None, ai_delay: float, budget_ms: int | None,
                 idle_seconds: float) -> None:
        self.client = client
        self.service = service
        self.updater = updater
        self.pool = pool
        self.ai_delay = ai_delay
        self.budget_ms = budget_ms
        self.idle_seconds = idle_seconds
        self._clocks: dict[int, _Clock] = {}
        self._idle_task: asyncio.Task[None] | None = None
        self.closed = False

    def poke(self, table: Table) -> None:
        """The table changed: start or wake its clock."""
        if self.closed:
            return
        clock = self._clocks.setdefault(table.id, _Clock())
        if clock.task is None or clock.task.done():
            clock.task = asyncio.create_task(self._run(table, clock))
        else:
            clock.wake()

    def start_idle_sweeps(self) -> None:
        if self._idle_task is None:
            self._idle_task = asyncio.create_task(self._sweep_idle())

    async def close(self) -> None:
        self.closed = True
        tasks = [c.task for c in self._clocks.values() if c.task] + (
            [self._idle_task] if self._idle_task else [])
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # --- one table's clock -----------------------------------------------------------------

    async def _run(self, table: Table, clock: _Clock) -> None:
        while table.is_open and table.status == "playing":
            what, delay = self._next(table, clock)
            if await clock.sleep(None if what is None else delay) or what is None:
                continue  # something changed first: think again
            try:
                if what == "remind":
                    await self._remind(table, clock)
                else:
                    await self._ai_move(table, stand_in=what == "stand-in")
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("table %s: the %s step failed", table.id, what)
                await asyncio.sleep(1.0)
        self._clocks.pop(table.id, None)

    def _next(self, table: Table, clock: _Clock) -> tuple[str | None, float]:
        """What the clock does next and in how many seconds."""
        if table.ai_to_act():
            return "ai", self.ai_delay
        deadline = table.deadline()
        if deadline is None:
            return None, 0.0
        now = self.service.clock()
        assert table.game is not None
        remind_at = deadline - min(REMINDER_SECONDS, table.turn_seconds / 3)
        if clock.reminded != table.game.version and now < deadline:
            return "remind", remind_at - now  # late (after a restart): remind at once
        return "stand-in", deadline - now

    async def _ai_move(self, table: Table, *, stand_in: bool) -> None:
        """The AI plays the seat to act (an AI seat, an away seat, or a stand-in)."""
        async with self.service.lock(table.id):
            game = table.game
            level = STAND_IN_LEVEL if stand_in else table.ai_to_act()
            if game is None or game.to_act is None or level is None or table.status != "playing":
                return
            seat, version = game.to_act, game.version
            view = table.seat_view(seat)
            before = table.user_to_act()
        budget = self.budget_ms if level == "strong" and self.budget_ms is not None else \
            DEFAULT_BUDGET_MS[level]
        decide = functools.partial(choose, view, level, seed=f"{table.seed}:{version}",
                                   budget_ms=budget)
        loop = asyncio.get_running_loop()
        action = await (loop.run_in_executor(self.pool, decide) if self.pool else
                        asyncio.to_thread(decide))
        by = "ai" if table.seats[seat].ai else "stand-in"
        async with self.service.lock(table.id):
            if table.game is None or table.game.version != version:
                return  # the owner came back and acted, or the table moved on
            try:
                await self.service.act(table, table.seats[seat].user_id, version, action, by)
            except Refusal as refused:
                log.warning("table %s: the AI's move was refused: %s", table.id, refused)
                return
        self.updater.request(table)
        await self.after_move(table, before)

    async def after_move(self, table: Table, before: int | None) -> None:
        """Ping the next person, or announce the end of the hand."""
        view = table.public_view()
        if view is not None and view.is_over:
            await self.updater.announce_end(table, None)
        elif table.ai_to_act() is None and table.user_to_act() not in (None, before):
            await self.updater.ping(table, None)

    async def _remind(self, table: Table, clock: _Clock) -> None:
        user = table.user_to_act()
        deadline = table.deadline()
        assert table.game is not None
        clock.reminded = table.game.version
        if user is None or deadline is None:
            return
        left = max(1, round(deadline - self.service.clock()))
        await self.updater.say(
            table, f"⏰ <@{user}> {left} s left on your turn at NLK table {table.id} — then a "
            "stand-in plays it for you.", mention=user)

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
        before = self.service.clock() - self.idle_seconds
        for row in await self.service.repo.idle_tables(before):
            async with self.service.lock(row["id"]):
                table = await self.service.get(row["id"])
                if not table.is_open:
                    continue
                await self.service.close(table, "cancelled" if table.status == "lobby"
                                         else "ended")
            await self.updater.clear_ping(table)
            self.updater.request(table)
            ended.append(table.id)
        return ended
