"""Tables, and the one place where a table changes: ``TableService``.

Every change goes through the service: it takes the table's lock, loads the table (from the
cache, or rebuilt from the database by replaying its hand), checks the request, writes it to
the database and only then updates the cached table, so a crash at any moment loses nothing.
Each change returns a ``Change``: a snapshot of the table afterwards and what happened (who
acts now and who acted before, whether the hand ended or the table closed). The cogs publish
from it and the clocks schedule from it; nothing else takes a table lock.

The model is in ``bot/table.py``, the lock and cache in ``bot/table_store.py``, moves in
``bot/play.py``; this module has the lobby, the seats and the table's life.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from bot.db.records import TableStatus
from bot.db.storage import Duplicate
from bot.errors import (
    AlreadySeated,
    AlreadyStarted,
    BadSetting,
    HandNotOver,
    NoAIToRemove,
    NotAllowed,
    NotAway,
    NotPlaying,
    NotSeated,
    SeatStays,
    TableExists,
    TableFull,
    TooFewPlayers,
)
from bot.tables.play import Play
from bot.tables.table import (
    MAX_TURN_SECONDS,
    MIN_TURN_SECONDS,
    AILevel,
    AITurn,
    Change,
    Seat,
    Table,
    check_end,
    check_timer,
    host_only,
)
from rules import Variant
from rules.cards import MAX_PLAYERS, MIN_PLAYERS
from rules.session import first_dealer

__all__ = ["MAX_TURN_SECONDS", "MIN_TURN_SECONDS", "AILevel", "AITurn", "Change", "Seat",
           "Table", "TableService", "check_end", "check_timer"]


class TableService(Play):
    """Creates, loads and changes tables; raises a ``Refusal`` for anything not allowed."""

    async def create(self, guild_id: int | None, channel_id: int, user_id: int, name: str,
                     seats: int, variant: Variant, turn_seconds: int = 90, *,
                     moderator: bool = False) -> Change:
        """Open a lobby in the channel with the user seated as host.

        A finished hand's table still open in the channel is closed first, but only by one
        of its players or a moderator: a passer-by must not end it under its players.
        """
        bad = None
        try:
            if not MIN_PLAYERS <= seats <= MAX_PLAYERS:
                raise BadSetting("seats", value=seats)
            check_timer(turn_seconds)
        except BadSetting as refusal:
            bad = refusal
        existing = await self.repo.open_table_in(channel_id)
        if existing is not None and existing.status is TableStatus.OVER and bad is None:
            old = await self.get(existing.id)
            if old.seat_of(user_id) is not None or moderator:
                await self._change(existing.id, None, self._closer(TableStatus.ENDED))
                existing = None
        if existing is not None:  # said first: no setting matters in a channel that has one
            raise TableExists(existing.id, existing.message_id)
        if bad is not None:
            raise bad
        try:
            table_id = await self.repo.create_table(guild_id, channel_id, user_id, name, seats,
                                                    variant, turn_seconds, self.clock())
        except Duplicate:
            raise TableExists(0, None) from None
        async with self._locked(table_id, None) as table:
            return Change(table.snapshot(), None, None)

    async def join(self, table_id: int, user_id: int, name: str, *,
                   channel_id: int | None = None) -> Change:
        """Take a seat: in the lobby, or between hands for the next hand (after the others)."""
        async def apply(table: Table) -> None:
            _between_hands(table, "join")
            if table.in_next_hand(user_id):
                raise AlreadySeated()
            await self._seat(table, Seat(user_id, name))
        return await self._change(table_id, channel_id, apply)

    async def add_ai(self, table_id: int, user_id: int, level: str, *, allowed: bool,
                     channel_id: int | None = None) -> Change:
        """The host fills a seat with an AI player, in the lobby or between hands."""
        async def apply(table: Table) -> None:
            _between_hands(table, "ai")
            host_only(table, user_id, "add_ai")
            if not allowed:
                raise NotAllowed("ai_off")
            if level not in set(AILevel):
                raise BadSetting("ai", value=level)
            number = 1 + sum(1 for s in table.next_seats if s.ai)
            # Never an id the last hand used: the next dealer is found by id (R5.1).
            ai_id = -min([0, *(s.user_id for s in [*table.next_seats, *table.seats])]) + 1
            await self._seat(table, Seat(-ai_id, f"AI {number} ({level})", level))
        return await self._change(table_id, channel_id, apply)

    async def remove_ai(self, table_id: int, user_id: int, *,
                        channel_id: int | None = None) -> Change:
        """The host frees the last AI seat, in the lobby or between hands."""
        async def apply(table: Table) -> None:
            _between_hands(table, "ai")
            host_only(table, user_id, "remove_ai")
            ai = [s for s in table.next_seats if s.ai]
            if not ai:
                raise NoAIToRemove()
            await self.repo.remove_seat(table.id, ai[-1].user_id, self.clock())
            table.next_seats = [s for s in table.next_seats if s is not ai[-1]]
            table.revision += 1
        return await self._change(table_id, channel_id, apply)

    async def _seat(self, table: Table, seat: Seat) -> None:
        if len(table.next_seats) >= table.max_seats:
            raise TableFull(seats=table.max_seats)
        await self.repo.add_seat(table.id, seat.user_id, seat.name, seat.ai, self.clock())
        table.next_seats = [*table.next_seats, seat]
        table.revision += 1

    async def leave(self, table_id: int, user_id: int, *,
                    channel_id: int | None = None) -> Change:
        """Leave the table: at once in the lobby or between hands; during a hand, after it
        (the hand keeps its seats to the end, so it stays valid). See ``_unseat``."""
        async def apply(table: Table) -> None:
            if not table.in_next_hand(user_id):
                leaving = table.status is TableStatus.PLAYING and \
                    table.seat_of(user_id) is not None
                raise NotSeated("leaving" if leaving else "")
            await self._unseat(table, user_id)
        return await self._change(table_id, channel_id, apply)

    async def remove(self, table_id: int, user_id: int, target_id: int, *, moderator: bool,
                     channel_id: int | None = None) -> Change:
        """The host or a moderator frees the seat of a person who is away (the AI plays it).

        Between hands it goes at once. During a hand the AI plays it to the end, so the hand
        stays whole and rated as it was, and it is not dealt into the next hand.
        """
        async def apply(table: Table) -> None:
            if not table.is_open:
                raise NotPlaying("ended")
            host_only(table, user_id, "remove", moderator=moderator)
            staying = next((s for s in table.next_seats if s.user_id == target_id), None)
            if staying is None:
                raise NotSeated("remove")
            if table.seat_of(target_id) not in table.away:
                raise NotAway("remove", name=staying.name)
            await self._unseat(table, target_id)
        return await self._change(table_id, channel_id, apply)

    async def _unseat(self, table: Table, user_id: int) -> None:
        """Free a seat for the next hand. Hosting passes to the next person in seat order
        (never an AI); a table left without people closes, except during a hand, which must
        finish: then the last person stays (the host, who can end the table)."""
        rest = [s for s in table.next_seats if s.user_id != user_id]
        if not any(not s.ai for s in rest):
            if table.status is TableStatus.PLAYING:
                raise SeatStays()
            await self.repo.remove_seat(table.id, user_id, self.clock())
            table.next_seats = rest
            await self._close(table, table.closing_status)
            return
        host = _next_person(table.next_seats, user_id) if user_id == table.host_id else None
        await self.repo.remove_seat(table.id, user_id, self.clock(), host_id=host)
        table.next_seats = rest
        if host is not None:
            table.host_id = host
        # Redrawn during a hand too: the seat is marked as leaving when the hand ends.
        table.revision += 1

    async def start(self, table_id: int, user_id: int, *,
                    channel_id: int | None = None) -> Change:
        """Deal the first hand; the first dealer is random (R2.1)."""
        async def apply(table: Table) -> None:
            if table.status is not TableStatus.LOBBY:
                raise AlreadyStarted("start")
            host_only(table, user_id, "start")
            if len(table.next_seats) < MIN_PLAYERS:
                raise TooFewPlayers()
            await self._deal(table, list(table.next_seats),
                             first_dealer(len(table.next_seats), self.choose_dealer))
        return await self._change(table_id, channel_id, apply)

    async def next_hand(self, table_id: int, user_id: int, *,
                        channel_id: int | None = None) -> Change:
        """Deal to the seats as they are after joins and leaves, renumbered in seat order
        (R1.1): the loser deals (R5.1), or if the loser left, the next of the last hand's
        players still seated; if none is, the dealer is drawn as for a first hand (R2.1)."""
        async def apply(table: Table) -> None:
            if table.status is not TableStatus.OVER or table.game is None:
                raise HandNotOver()
            if not table.in_next_hand(user_id):
                raise NotSeated("next")
            if len(table.next_seats) < MIN_PLAYERS:
                raise TooFewPlayers("next")
            seats = list(table.next_seats)
            dealer = table.next_dealer()
            if dealer is None:
                dealer = first_dealer(len(seats), self.choose_dealer)
            await self._deal(table, seats, dealer)
        return await self._change(table_id, channel_id, apply)

    async def cancel(self, table_id: int, user_id: int, *,
                     channel_id: int | None = None) -> Change:
        async def apply(table: Table) -> None:
            if table.status is not TableStatus.LOBBY:
                raise AlreadyStarted("cancel")
            host_only(table, user_id, "cancel")
            await self._close(table, TableStatus.CANCELLED)
        return await self._change(table_id, channel_id, apply)

    async def end(self, table_id: int, user_id: int, *, moderator: bool,
                  channel_id: int | None = None) -> Change:
        """Stop the table for good (host, or anyone who can manage the channel)."""
        async def apply(table: Table) -> None:
            check_end(table, user_id, moderator=moderator)
            await self._close(table, table.closing_status)
        return await self._change(table_id, channel_id, apply)

    async def end_idle(self, idle_seconds: float) -> list[Change]:
        """Close this process's tables nobody touched for ``idle_seconds``; their results
        stay."""
        changes = []
        idle = await self.repo.idle_tables(self.clock() - idle_seconds)
        for table_id in sorted(await self.owned(idle)):
            async def apply(table: Table) -> None:
                if table.is_open:
                    await self._close(table, table.closing_status)
            change = await self._change(table_id, None, apply)
            if change.closed:
                changes.append(change)
        return changes

    def _closer(self, status: TableStatus) -> Callable[[Table], Awaitable[None]]:
        async def apply(table: Table) -> None:
            await self._close(table, status)
        return apply


def _between_hands(table: Table, what: str) -> None:
    """Seats change in the lobby or between hands, never under a running hand."""
    if table.status not in (TableStatus.LOBBY, TableStatus.OVER):
        raise AlreadyStarted(what)



def _next_person(seats: list[Seat], leaving: int) -> int | None:
    """The first person after ``leaving`` in seat order, going round (an AI never hosts)."""
    at = next(i for i, s in enumerate(seats) if s.user_id == leaving)
    for step in range(1, len(seats)):
        seat = seats[(at + step) % len(seats)]
        if not seat.ai:
            return seat.user_id
    return None

