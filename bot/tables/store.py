"""The one way in: every change to a table goes through ``TableStore.change``.

It takes the table's lock, loads the table (from the cache, or rebuilt from the database by
replaying its hand), lets the caller check and write the change (database first) and returns
a ``Change``. Nothing else takes a table lock.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from bot.cluster.shards import Shards
from bot.db.records import ActionRecord, By, TableRecord, TableStatus
from bot.db.repository import Outdated, Repository
from bot.errors import NoTable, PlayedElsewhere, Stale, WrongChannel
from bot.tables.table import Change, Seat, Table, next_revision
from rules import NLKError

log = logging.getLogger(__name__)

# What a damaged stored hand raises while it is rebuilt: the rules refuse an action
# (rules.NLKError is a ValueError), or a row does not decode (bad JSON, enum or key).
DAMAGED = (NLKError, ValueError, KeyError)



@dataclass(eq=False)
class _TableLock:
    """A table's lock and how many changes hold it or wait for it, so that the lock of a
    closed table is freed once nobody needs it."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0



class Behind(Exception):
    """The request was made for a newer state than this process has cached."""


class TableStore:
    """The cache of open tables, their locks, and the way every change is made."""

    def __init__(self, repo: Repository) -> None:
        self.repo = repo
        self._cache: dict[int, Table] = {}
        self._locks: dict[int, _TableLock] = {}
        # What time it is; tests may swap it.
        self.clock: Callable[[], float] = time.time
        # The shards this process owns (all by default): it resumes, times and sweeps only
        # their servers' tables.
        self.shards = Shards(0, 0, 1)
        # Tables stopped by ``open_tables`` because their hand did not rebuild, with why.
        self.quarantined: list[tuple[TableRecord, str]] = []
        # Each table loaded again because its cached copy was found behind the database
        # (another process wrote it), the newest by table, until someone takes them
        # (``reloads``): what Discord shows was drawn from the old copy, and may name the
        # wrong person to act, who could then never move it on. No change of this process
        # carries the table loaded (the request is refused), so nothing else would show it.
        self._reloaded: dict[int, Table] = {}
        self._reloading = asyncio.Event()
        # Cached copies dropped as behind the database: the reload is shown if it differs.
        self._behind: dict[int, Table] = {}

    async def get(self, table_id: int, *, channel_id: int | None = None) -> Table:
        """A snapshot of the table (refused if it is not in ``channel_id``, when given)."""
        async with self.locked(table_id, channel_id) as table:
            return table.snapshot()

    async def in_channel(self, channel_id: int) -> Table:
        """A snapshot of the channel's open table, or a ``NoTable`` refusal."""
        record = await self.repo.open_table_in(channel_id)
        if record is None:
            raise NoTable("here")
        return await self.get(record.id)

    async def open_tables(self) -> list[Table]:
        """Every open table of this process's servers, loaded (after a restart), each on its
        own: a table whose hand does not rebuild is quarantined (ended, with the reason
        kept) and the others load."""
        tables = []
        for record in await self.repo.open_tables():
            if not self.shards.owns_guild(record.guild_id):
                continue
            try:
                tables.append(await self.get(record.id))
            except DAMAGED as exc:
                reason = " ".join(f"{type(exc).__name__}: {exc}".split())
                await self.repo.quarantine_table(record.id, reason, self.clock())
                log.error("table %d quarantined: its hand does not rebuild: %s",
                          record.id, reason)
                self.quarantined.append((dataclasses.replace(
                    record, status=TableStatus.ENDED, quarantined=reason), reason))
        return tables

    async def owned(self, table_ids: Iterable[int]) -> set[int]:
        """Which of ``table_ids`` belong to this process's servers (a table that is gone
        belongs to nobody)."""
        ids = set(table_ids)
        if self.shards.everything:
            return ids
        owned = set()
        for table_id in ids:
            cached = self._cache.get(table_id)
            record = cached if cached is not None else await self.repo.table(table_id)
            if record is not None and self.shards.owns_guild(record.guild_id):
                owned.add(table_id)
        return owned

    def forget(self, table_id: int) -> None:
        """Drop the cached table, found behind the database: the next use loads it from
        the database, and has it shown (``reloads``)."""
        dropped = self._cache.pop(table_id, None)
        if dropped is not None:
            self._behind[table_id] = dropped

    async def reread(self, table_id: int) -> Table:
        """A snapshot of the table as the database holds it now, loaded again (another
        process may have written it since it was cached)."""
        async with self.locked(table_id, None) as table:
            if self._cache.get(table_id) is table:
                del self._cache[table_id]
                self._behind.pop(table_id, None)
                table = await self.load(table_id)
            return table.snapshot()

    def cached(self) -> list[Table]:
        return [table.snapshot() for table in self._cache.values()]

    def tracked(self) -> int:
        """How many tables the service holds state for (they are freed when they close)."""
        return len(self._cache) + len(self._locks)

    @asynccontextmanager
    async def locked(self, table_id: int, channel_id: int | None
                        ) -> AsyncIterator[Table]:
        """Lock the table and load it; the caller changes it (database first)."""
        entry = self._locks.get(table_id)
        if entry is None:
            entry = self._locks[table_id] = _TableLock()
        entry.users += 1
        try:
            async with entry.lock:
                table = await self.load(table_id)
                if channel_id is not None and table.channel_id != channel_id:
                    raise WrongChannel()
                yield table
        finally:
            entry.users -= 1
            if entry.users == 0 and table_id not in self._cache:
                del self._locks[table_id]  # closed or never open, and nobody waits: free it

    async def change(self, table_id: int, channel_id: int | None,
                      apply: Callable[[Table], Awaitable[By | None]]) -> Change:
        async with self.locked(table_id, channel_id) as table:
            try:
                return await self._applied(table, apply)
            except Outdated:
                # The database holds a change this request did not know of: another process
                # played first (two sessions during a hand-over may both get one click).
                # Nothing was written; load what the database holds (and show it).
                self.forget(table_id)
                await self.load(table_id)
                raise PlayedElsewhere() from None
            except Behind:
                # A button from a state this process has not seen: its cache is behind the
                # database. Load what the database holds (and show it) and judge the
                # request again.
                self.forget(table_id)
                table = await self.load(table_id)
                try:
                    return await self._applied(table, apply)
                except (Outdated, Behind):
                    self.forget(table_id)
                    await self.load(table_id)
                    raise Stale() from None

    async def _applied(self, table: Table, apply: Callable[[Table], Awaitable[By | None]]
                       ) -> Change:
        before, status = table.user_to_act(), table.status
        phase = table.game.phase if table.game else None
        by = await apply(table)
        return Change(
            table.snapshot(), before, table.user_to_act(), by,
            hand_over=status is TableStatus.PLAYING and table.status is TableStatus.OVER,
            closed=status.is_open and not table.is_open,
            phase_changed=table.game is not None and table.game.phase != phase)

    async def load(self, table_id: int) -> Table:
        table = self._cache.get(table_id)
        if table is not None:
            return table
        record = await self.repo.table(table_id)
        if record is None or record.quarantined is not None:
            raise NoTable("gone")
        table = Table.from_record(record)
        table.next_seats = await self.repo.seats(table.id)
        stored = await self.repo.last_hand(table.id) \
            if table.status in (TableStatus.PLAYING, TableStatus.OVER, TableStatus.ENDED) \
            else None
        if stored is not None:
            hand = stored.hand
            table.seats = [Seat(u, n, a) for u, n, a in
                           zip(hand.players, hand.names, hand.ai, strict=True)]
            table.hand_id, table.hand_number, table.seed = hand.id, hand.number, hand.seed
            table.hints, table.assisted = hand.hints, hand.assisted
            if hand.state is not None:
                table.away = frozenset(hand.state.away)
                table.missed = tuple(hand.state.missed)
                table.stand_in = hand.state.stand_in
            else:
                table.missed = (0,) * len(hand.players)
            # The clock restarts on resume: time while the bot was down is nobody's fault.
            table.turn_started = self.clock()
            table.game, table.marks = stored.replay_marked()
            table.lapsed = _lapsed(stored.actions, table.game.to_act)
        if table.is_open:
            self._cache[table_id] = table
        dropped = self._behind.pop(table_id, None)
        if dropped is not None and _shown_of(dropped) != _shown_of(table):
            self._reloaded[table_id] = table.snapshot()
            self._reloading.set()
        return table

    async def reloads(self) -> list[Table]:
        """The tables loaded again since the last call, because the database was ahead of
        this process's copy and held something they show: waits for the next if none."""
        await self._reloading.wait()
        self._reloading.clear()
        reloaded, self._reloaded = list(self._reloaded.values()), {}
        return reloaded

    async def close(self, table: Table, status: TableStatus) -> None:
        await self.repo.set_status(table.id, status, self.clock())
        table.status = status
        table.revision = next_revision()
        self._cache.pop(table.id, None)

    async def set_message(self, table_id: int, message_id: int) -> int | None:
        """Remember the table message (posted, or posted again); returns the one it
        replaces, so whoever re-posted it can retire the old one."""
        async with self.locked(table_id, None) as table:
            old = table.message_id
            await self.repo.set_message(table.id, message_id)
            table.message_id = message_id
            return old if old != message_id else None

    async def active_times(self) -> dict[int, float]:
        """When each open table last changed."""
        return await self.repo.active_times()


def _shown_of(table: Table) -> tuple[object, ...]:
    """What of a table its messages show and another process may have changed: a reload
    that changes none of it (a button from an older hand judged again) is not shown."""
    return (table.status, table.moment(), table.message_id, table.host_id, table.away,
            tuple(table.next_seats), tuple(table.seats))


def _lapsed(actions: Sequence[ActionRecord], to_act: int | None) -> int | None:
    """The seat whose current turn a stand-in is playing, read from the action log: a
    restart in the middle of a lapsed turn lets the stand-in finish it."""
    for record in reversed(actions):
        if record.seat != to_act:
            return None
        if record.by is By.STAND_IN:
            return to_act
    return None
