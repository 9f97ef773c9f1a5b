"""Each live table's owner, and the one registry of owners.

A ``LiveTable`` holds what Discord shows for a table while it runs, each thing with the
version it was drawn from: the table message (``shown_revision``), the turn ping
(``Ping.want``) and each open hand (``OpenHand.revision``), the newest snapshot seen, and one
task per kind that brings what is shown up to that snapshot (``edits``, ``pinging``,
``redraws``), plus its short background work. The drivers that draw and send
(``TableMessages``, ``Pings``, ``OpenHands``) report what they showed through its methods;
nobody else writes its fields. Stale is found by comparing versions, not by flags.

``LiveTables`` creates an owner on a table's first use and drops it once the table is closed
and its last edit, ping deletion and hand redraw are done; ``close`` stops everything at
shutdown. So "nothing leaks" reads: no owner for a closed table.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import discord

from bot.tables.service import Table
from bot.tasks import Tasks
from cogs.client import Interaction
from cogs.live.coalesce import Coalescer
from rules.i18n import Lang

log = logging.getLogger(__name__)

Drain = Callable[[int], Coroutine[Any, Any, None]]


TOKEN_SECONDS = 14 * 60  # an interaction's token lasts 15 minutes; stop a minute early


@dataclass(frozen=True)
class PingWant:
    """What a turn ping shows: whose turn, which turn, the version its buttons were drawn
    at, the deadline it counts down to, and whether it is a reminder."""

    user_id: int
    hand: int
    turn: int  # the game version the turn began at
    version: int
    deadline: float | None
    reminder: bool
    shed: bool = False  # phase two's ping: **My hand** instead of moves


@dataclass
class Ping:
    """A table's live turn ping and what it shows (``want`` None: it says "Done.", or it
    is not known)."""

    message: discord.Message | discord.Object  # an Object: posted before a restart
    want: PingWant | None
    sent: float = field(default_factory=time.monotonic)  # when its token (if any) was new

    def fresh(self) -> bool:
        """Whether the token that posted it can still edit and delete it."""
        return time.monotonic() - self.sent < TOKEN_SECONDS


@dataclass
class OpenHand:
    """One player's open hand: the interaction that can edit it, and what it shows."""

    interaction: Interaction
    since: float  # when that interaction arrived (its token's age counts from then)
    revision: int  # the table revision the hand was last drawn from
    looks: Any  # what the hand shows, less its footer; None: unsure
    letters: Lang | None = None  # the table's language, whose letters its cards show
    pending: bool = False  # an edit through its token is on its way

    def drawn(self, revision: int, looks: Any) -> None:
        """It now shows ``revision``, looking like ``looks``."""
        self.revision, self.looks = revision, looks

    def unsure(self) -> None:
        """What it shows is not known (its picture came late): redraw it."""
        self.revision, self.looks = -1, None

    @contextmanager
    def redrawing(self) -> Iterator[None]:
        """While an edit through its token is on its way."""
        self.pending = True
        try:
            yield
        finally:
            self.pending = False


@dataclass(frozen=True)
class Drawing:
    """A table message as it was sent: the fingerprint of what was shown is taken from
    this, never from drawing it again."""

    embed: discord.Embed
    view: discord.ui.View


class LiveTable:
    """The owner of one running table's state on the Discord side."""

    def __init__(self, table_id: int, channel_id: int, *, edit: Drain, redraw: Drain,
                 ping: Drain, settle: Callable[[LiveTable], None]) -> None:
        self.id = table_id
        self.channel_id = channel_id
        self.closed = False  # the table is closed: let go once the last work is done
        # The table message: the revision it shows, the newest snapshot to show and the one
        # task that edits it (paced), and why it must be drawn though its state is shown.
        self.shown_revision = -1
        self.edits: Coalescer[Table] = Coalescer(edit, log)
        self.restyle = False  # draw it though its state is shown (language, late picture)
        self.gone = False  # the message was found deleted: post it anew
        self.checked_at = -float("inf")  # when the message was last looked for
        # The live turn ping, the turn the clock reminded its person of, and the newest
        # snapshot the ping task brings it to.
        self.ping: Ping | None = None
        self.reminded: tuple[int, int] | None = None
        self.newest: Table | None = None  # the newest snapshot seen: what all should show
        self.pinging: Coalescer[Table] = Coalescer(ping, log)
        # The newest interaction answered at the table, and when it came: a change made
        # without one (an AI's move) posts its turn ping through this one's token.
        self.recent: tuple[Interaction, float] | None = None
        # Open hands by user id; one lock per hand, so a redraw and a tap's answer never
        # cross; the newest snapshot to redraw them from and the one task doing it.
        self.hands: dict[int, OpenHand] = {}
        self.hand_locks: dict[int, asyncio.Lock] = {}
        self.redraws: Coalescer[Table] = Coalescer(redraw, log, failed=self._drop_hands)
        self.tasks = Tasks(done=self._done)  # deletes, checks and other short work
        self._settle = settle

    def borrow(self, now: float, max_age: float) -> tuple[Interaction, float] | None:
        """The newest interaction at the table, while it is at most ``max_age`` seconds old."""
        if self.recent is not None and now - self.recent[1] > max_age:
            self.recent = None
        return self.recent

    # --- what the table message shows (``TableMessages`` reports, the owner records) --------

    def message_shows(self, revision: int) -> None:
        """The table message now shows ``revision`` (or something newer already)."""
        self.shown_revision = max(self.shown_revision, revision)

    def message_posted(self, revision: int) -> None:
        """The table message was posted afresh, showing ``revision``."""
        self.gone = False
        self.shown_revision = revision

    def message_gone(self) -> None:
        """The table message was found deleted: post it anew, whatever it showed."""
        self.gone = True
        self.shown_revision = -1

    def message_drawn_in_current_style(self) -> None:
        """A drawing in the server's language and style now is on its way."""
        self.restyle = False

    def message_restyled(self) -> None:
        """The server's language or style changed: draw the message again."""
        self.restyle = True

    def may_check_message(self, now: float, every: float) -> bool:
        """Whether to look for a deleted table message now (at most once ``every`` s)."""
        if now - self.checked_at < every:
            return False
        self.checked_at = now
        return True

    # --- the ping (``Pings`` reports, the owner records) ---------------------------------------

    def saw(self, table: Table) -> Table:
        """Keep ``table`` if it is the newest snapshot seen; returns the newest. (Changes are
        reported out of order: a tap's answer may land after a later change was shown.)"""
        if self.newest is None or table.revision >= self.newest.revision:
            self.newest = table
        return self.newest

    def show_ping(self, ping: Ping | None) -> None:
        """``ping`` is now the table's live ping (None: none)."""
        self.ping = ping

    def remind_of(self, turn: tuple[int, int]) -> None:
        """The clock reminded the person to act of ``turn``."""
        self.reminded = turn

    # --- open hands (``OpenHands`` reports, the owner records) ---------------------------------

    def follow_hand(self, user_id: int, hand: OpenHand) -> None:
        self.hands[user_id] = hand

    def drop_hand(self, user_id: int, hand: OpenHand) -> None:
        """Stop following ``user_id``'s hand, if ``hand`` is still the one followed."""
        if self.hands.get(user_id) is hand:
            del self.hands[user_id]

    def drop_stale_hands(self, now: float, lifetime: float) -> None:
        """Stop following hands whose token is about to lapse."""
        for user_id in [u for u, h in self.hands.items() if now - h.since > lifetime]:
            del self.hands[user_id]

    def hand_lock(self, user_id: int) -> asyncio.Lock:
        """The lock that keeps a redraw of ``user_id``'s hand and a tap's answer apart."""
        return self.hand_locks.setdefault(user_id, asyncio.Lock())

    def free_hand_lock(self, user_id: int) -> None:
        """Drop a lock nobody holds for a hand no longer followed."""
        lock = self.hand_locks.get(user_id)
        if lock is None or lock.locked() or user_id in self.hands:
            return
        del self.hand_locks[user_id]
        self.settle()

    # --- interactions at the table -------------------------------------------------------------

    def heard(self, interaction: Interaction) -> None:
        """``interaction`` was answered at the table: pings may go through its token."""
        if interaction.response.is_done() and interaction.channel_id == self.channel_id:
            self.recent = (interaction, time.monotonic())

    def forget_interaction(self, interaction: Interaction) -> None:
        """Discord refused ``interaction``'s token: pings no longer go through it."""
        if self.recent is not None and self.recent[0] is interaction:
            self.recent = None

    def background(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Run ``work`` as this table's own background task."""
        return self.tasks.start(work)

    def _done(self, _task: asyncio.Task[None]) -> None:
        self.settle()

    def _drop_hands(self, _table_id: int) -> None:
        self.forget_hands()

    def forget_hands(self) -> None:
        """Stop following the open hands."""
        self.hands.clear()
        self.hand_locks = {u: lock for u, lock in self.hand_locks.items() if lock.locked()}
        self.redraws.discard(self.id)
        self.settle()

    def settle(self) -> None:
        """Tell the registry to let go of a closed table with nothing left to do."""
        self._settle(self)

    def idle(self) -> bool:
        """Nothing on its way: no edit, hand redraw, open hand or background task."""
        return self.edits.latest(self.id) is None and self.redraws.latest(self.id) is None \
            and self.pinging.latest(self.id) is None and self.ping is None \
            and not self.hands and not self.tasks and not self.hand_locks

    async def close(self) -> None:
        """Stop every task this table holds and free its state (shutting down)."""
        await self.tasks.cancel()
        await self.edits.close()
        await self.redraws.close()
        await self.pinging.close()
        self.hands.clear()
        self.hand_locks.clear()


class LiveTables:
    """The registry: one ``LiveTable`` per running table."""

    def __init__(self, *, edit: Drain, redraw: Drain, ping: Drain,
                 released: Callable[[LiveTable], None]) -> None:
        self._tables: dict[int, LiveTable] = {}
        self._edit = edit
        self._redraw = redraw
        self._ping = ping
        self._released = released

    def __len__(self) -> int:
        return len(self._tables)

    def __iter__(self) -> Any:
        return iter(list(self._tables.values()))

    def get(self, table_id: int) -> LiveTable | None:
        return self._tables.get(table_id)

    def of(self, table: Table) -> LiveTable:
        """The table's owner, made on first use (a closed table's too: its last edit and
        ping deletion are still to come)."""
        live = self._tables.get(table.id)
        if live is None:
            live = self._tables[table.id] = LiveTable(
                table.id, table.channel_id, edit=self._edit, redraw=self._redraw,
                ping=self._ping, settle=self._settle)
        if not table.is_open:
            live.closed = True
        return live

    def _settle(self, live: LiveTable) -> None:
        if live.closed and live.idle() and self._tables.get(live.id) is live:
            del self._tables[live.id]
            self._released(live)

    async def close(self) -> None:
        """Close every owner (shutting down)."""
        tables = list(self._tables.values())
        await asyncio.gather(*(live.close() for live in tables), return_exceptions=True)
        self._tables.clear()
