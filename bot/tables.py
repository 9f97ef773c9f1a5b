"""Tables, and the one place where a table changes.

Every change goes through ``TableService``: it takes the table's lock, loads the table (from
the cache, or rebuilt from the database by replaying its hand), checks the request, writes it
to the database and only then updates the cached table, so a crash at any moment loses
nothing. Each change returns a ``Change``: a snapshot of the table afterwards and what
happened (who acts now and who acted before, whether the hand ended or the table closed).
The cogs render from it and the clocks schedule from it; nothing else takes a table lock.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from rules import Action, Card, Game, NLKError, Phase, SeatView, Variant, observe, shuffled_deck
from rules.cards import MAX_PLAYERS, MIN_PLAYERS
from rules.session import dealer_after_reseat, first_dealer

from .errors import (
    AgainstTheRules,
    AlreadySeated,
    AlreadyStarted,
    BadSetting,
    HandNotOver,
    NoAIToRemove,
    NoTable,
    NotAllowed,
    NotAway,
    NotPlaying,
    NotSeated,
    SeatStays,
    Stale,
    TableExists,
    TableFull,
    TooFewPlayers,
    WaitYourTurn,
    WrongChannel,
)
from .records import By, Finish, HandState, SeatRecord, TableRecord, TableStatus
from .repository import Outdated, Repository
from .storage import Duplicate

log = logging.getLogger(__name__)

AI_LEVELS = ("heuristic", "strong")
STAND_IN_LEVEL = "heuristic"
MISSES_BEFORE_AWAY = 2
MIN_TURN_SECONDS = 15
MAX_TURN_SECONDS = 3600

Seat = SeatRecord
# What a damaged stored hand raises while it is rebuilt: the rules refuse an action
# (rules.NLKError is a ValueError), or a row does not decode (bad JSON, enum or key).
DAMAGED = (NLKError, ValueError, KeyError)


def check_end(table: Table, user_id: int, *, moderator: bool) -> None:
    """Refuse ``user_id`` ending ``table`` unless it is open and they host it (or can
    manage its channel): asked before the confirmation, and again when ending."""
    if not table.is_open:
        raise NotPlaying("ended")
    if user_id != table.host_id and not moderator:
        raise NotAllowed("end")


def check_timer(seconds: int) -> int:
    """A turn timer's seconds, if usable: 0 (none) or 15 to 3600."""
    if seconds != 0 and not MIN_TURN_SECONDS <= seconds <= MAX_TURN_SECONDS:
        raise BadSetting("timer", value=seconds, least=MIN_TURN_SECONDS)
    return seconds


@dataclass(eq=False)
class Table:
    """One table's state; the database is the truth, and this is rebuilt from it."""

    id: int
    guild_id: int | None
    channel_id: int
    host_id: int
    max_seats: int
    variant: Variant
    status: TableStatus
    message_id: int | None
    turn_seconds: int = 90
    # The next hand's seats in seat order: the lobby's before the first hand; between hands
    # and during one, the seats as people join and leave (a running hand keeps ``seats``).
    lobby: list[Seat] = field(default_factory=list)
    hand_id: int | None = None
    hand_number: int = 0
    seed: str | None = None
    seats: list[Seat] = field(default_factory=list)  # the current hand's, in seat order
    game: Game | None = None  # replaced, never changed in place, so snapshots stay true
    away: frozenset[int] = frozenset()  # seats the AI plays until "I'm back"
    missed: tuple[int, ...] = ()  # missed turns in a row, per seat
    stand_in: bool = False  # a stand-in played this hand: it is not rated
    turn_started: float = 0.0
    revision: int = 0  # bumped on every change the table message shows
    # Moves their player did not choose, by the index of their event in the game's history:
    # "forced" (the only legal move, played by itself), "ai" or "stand-in".
    marks: dict[int, str] = field(default_factory=dict)
    lapsed: int | None = None  # the seat whose current turn a stand-in is playing

    @classmethod
    def from_record(cls, record: TableRecord) -> Table:
        return cls(id=record.id, guild_id=record.guild_id, channel_id=record.channel_id,
                   host_id=record.host_id, max_seats=record.max_seats, variant=record.variant,
                   status=record.status, message_id=record.message_id,
                   turn_seconds=record.turn_seconds)

    def snapshot(self) -> Table:
        """A copy that later changes leave alone (the game is never changed in place)."""
        return dataclasses.replace(self, lobby=list(self.lobby), seats=list(self.seats),
                                   marks=dict(self.marks))

    def seat_of(self, user_id: int) -> int | None:
        """The user's seat in the current hand."""
        for i, seat in enumerate(self.seats):
            if seat.user_id == user_id:
                return i
        return None

    def in_lobby(self, user_id: int) -> bool:
        return any(s.user_id == user_id for s in self.lobby)

    def leaving(self, seat: int) -> bool:
        """Whether the current hand's ``seat`` is not in the next hand (it left, or was
        removed, during this hand: it plays on until the hand ends)."""
        return self.status is TableStatus.PLAYING and not self.in_lobby(self.seats[seat].user_id)

    def next_dealer(self) -> int | None:
        """The next hand's dealer, as a seat of ``lobby``, once a hand is over: the loser
        (R5.1), or if the loser left, the next of the last hand's players still seated; None
        when none is (the dealer is then drawn as for a first hand, R2.1)."""
        outcome = self.game.outcome() if self.game is not None else None
        if outcome is None:
            return None
        return dealer_after_reseat(outcome.loser, [s.user_id for s in self.seats],
                                   [s.user_id for s in self.lobby])

    def public_view(self) -> SeatView | None:
        """What anyone may see of the current hand."""
        return observe(self.game, None) if self.game else None

    def view_of_user(self, user_id: int) -> SeatView | None:
        """The current hand as ``user_id`` may see it (a spectator's view if not seated)."""
        if self.game is None:
            return None
        return observe(self.game, self.seat_of(user_id))

    def seat_view(self, seat: int) -> SeatView:
        assert self.game is not None
        return observe(self.game, seat)

    def name_to_act(self) -> str | None:
        game = self.game
        if game is None or game.to_act is None or self.status is not TableStatus.PLAYING:
            return None
        return self.seats[game.to_act].name

    def user_to_act(self) -> int | None:
        game = self.game
        if game is None or game.to_act is None or self.status is not TableStatus.PLAYING:
            return None
        return self.seats[game.to_act].user_id

    def ai_to_act(self) -> str | None:
        """The AI level that plays the seat to act now (an AI seat, or a seat that is away)."""
        game = self.game
        if game is None or game.to_act is None or self.status is not TableStatus.PLAYING:
            return None
        seat = self.seats[game.to_act]
        if seat.ai:
            return seat.ai
        return STAND_IN_LEVEL if game.to_act in self.away else None

    def deadline(self) -> float | None:
        """When the person to act runs out of time (None: no timer, or not a person's turn)."""
        if self.turn_seconds <= 0 or self.user_to_act() is None or self.ai_to_act():
            return None
        return self.turn_started + self.turn_seconds

    @property
    def is_open(self) -> bool:
        return self.status.is_open

    def hand_state(self) -> HandState:
        return HandState(sorted(self.away), list(self.missed), self.stand_in, self.turn_started)


@dataclass(frozen=True)
class Change:
    """What one change did: the table afterwards (render from it) and what happened."""

    table: Table
    before: int | None  # the user who was to act before (None: nobody)
    after: int | None  # the user to act now
    by: By | None = None  # who made the move, if this was a move
    hand_over: bool = False  # this change ended the hand
    closed: bool = False  # this change closed the table
    phase_changed: bool = False  # the hand moved from collect to shed (or ended)

    @property
    def revision(self) -> int:
        return self.table.revision

    @property
    def turn_moved(self) -> bool:
        """Someone else is to act now (or nobody)."""
        return self.after != self.before


@dataclass(eq=False)
class _TableLock:
    """A table's lock and how many changes hold it or wait for it, so that the lock of a
    closed table is freed once nobody needs it."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0


class _Behind(Exception):
    """The request was made for a newer state than this process has cached."""


@dataclass(frozen=True)
class AITurn:
    """What the clocks need to let the AI think about a seat's move."""

    table: Table
    seat: int
    version: int
    level: str
    by: By


class TableService:
    """Creates, loads and changes tables; raises a ``Refusal`` for anything not allowed."""

    def __init__(self, repo: Repository) -> None:
        self.repo = repo
        self._cache: dict[int, Table] = {}
        self._locks: dict[int, _TableLock] = {}
        # How a new hand is dealt and what time it is; tests may swap these.
        self.shuffle: Callable[[int, str], list[Card]] = shuffled_deck
        self.choose_dealer: Callable[[int], int] = secrets.randbelow
        self.clock: Callable[[], float] = time.time
        # Tables stopped by ``open_tables`` because their hand did not rebuild, with why.
        self.quarantined: list[tuple[TableRecord, str]] = []

    # --- reading ---------------------------------------------------------------------------

    async def get(self, table_id: int, *, channel_id: int | None = None) -> Table:
        """A snapshot of the table (refused if it is not in ``channel_id``, when given)."""
        async with self._changing(table_id, channel_id) as table:
            return table.snapshot()

    async def in_channel(self, channel_id: int) -> Table:
        """A snapshot of the channel's open table, or a ``NoTable`` refusal."""
        record = await self.repo.open_table_in(channel_id)
        if record is None:
            raise NoTable("here")
        return await self.get(record.id)

    async def open_tables(self) -> list[Table]:
        """Every open table, loaded (after a restart), each on its own: a table whose hand
        does not rebuild is quarantined (ended, with the reason kept) and the others load."""
        tables = []
        for record in await self.repo.open_tables():
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

    def cached(self) -> list[Table]:
        return [table.snapshot() for table in self._cache.values()]

    def tracked(self) -> int:
        """How many tables the service holds state for (they are freed when they close)."""
        return len(self._cache) + len(self._locks)

    # --- the one way in --------------------------------------------------------------------

    @asynccontextmanager
    async def _changing(self, table_id: int, channel_id: int | None
                        ) -> AsyncIterator[Table]:
        """Lock the table and load it; the caller changes it (database first)."""
        entry = self._locks.get(table_id)
        if entry is None:
            entry = self._locks[table_id] = _TableLock()
        entry.users += 1
        try:
            async with entry.lock:
                table = await self._load(table_id)
                if channel_id is not None and table.channel_id != channel_id:
                    raise WrongChannel()
                yield table
        finally:
            entry.users -= 1
            if entry.users == 0 and table_id not in self._cache:
                del self._locks[table_id]  # closed or never open, and nobody waits: free it

    async def _change(self, table_id: int, channel_id: int | None,
                      apply: Callable[[Table], Awaitable[By | None]]) -> Change:
        async with self._changing(table_id, channel_id) as table:
            try:
                return await self._applied(table, apply)
            except Outdated:
                # The database holds a change this request did not know of: another process
                # played first (two sessions during a hand-over may both get one click).
                # Nothing was written; load what the database holds for the next request.
                self._cache.pop(table_id, None)
                await self._load(table_id)
                raise Stale() from None
            except _Behind:
                # A button from a state this process has not seen: its cache is behind the
                # database. Load what the database holds and judge the request again.
                self._cache.pop(table_id, None)
                table = await self._load(table_id)
                try:
                    return await self._applied(table, apply)
                except (Outdated, _Behind):
                    self._cache.pop(table_id, None)
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

    async def _load(self, table_id: int) -> Table:
        table = self._cache.get(table_id)
        if table is not None:
            return table
        record = await self.repo.table(table_id)
        if record is None or record.quarantined is not None:
            raise NoTable("gone")
        table = Table.from_record(record)
        table.lobby = await self.repo.seats(table.id)
        stored = await self.repo.last_hand(table.id) \
            if table.status in (TableStatus.PLAYING, TableStatus.OVER, TableStatus.ENDED) \
            else None
        if stored is not None:
            hand = stored.hand
            table.seats = [Seat(u, n, a) for u, n, a in
                           zip(hand.players, hand.names, hand.ai, strict=True)]
            table.hand_id, table.hand_number, table.seed = hand.id, hand.number, hand.seed
            if hand.state is not None:
                table.away = frozenset(hand.state.away)
                table.missed = tuple(hand.state.missed)
                table.stand_in = hand.state.stand_in
            else:
                table.missed = (0,) * len(hand.players)
            # The clock restarts on resume: time while the bot was down is nobody's fault.
            table.turn_started = self.clock()
            table.game, table.marks = stored.replay_marked()
        if table.is_open:
            self._cache[table_id] = table
        return table

    # --- the lobby -------------------------------------------------------------------------

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
        async with self._changing(table_id, None) as table:
            return Change(table.snapshot(), None, None)

    async def set_message(self, table_id: int, message_id: int) -> int | None:
        """Remember the table message (posted, or posted again); returns the one it
        replaces, so whoever re-posted it can retire the old one."""
        async with self._changing(table_id, None) as table:
            old = table.message_id
            await self.repo.set_message(table.id, message_id)
            table.message_id = message_id
            return old if old != message_id else None

    async def shown_records(self, prefix: str) -> tuple[dict[int, str], dict[int, float]]:
        """What each table message last showed, as the updater recorded it (kept under
        ``prefix`` + table id), and when each open table last changed."""
        values = await self.repo.state_values(prefix)
        shown = {int(k[len(prefix):]): v for k, v in values.items()
                 if k[len(prefix):].isdigit()}
        return shown, await self.repo.active_times()

    async def remembered(self, prefix: str) -> dict[str, str]:
        """The bot's own notes kept under ``prefix`` (such as turn pings not yet deleted)."""
        return await self.repo.state_values(prefix)

    async def remember(self, values: dict[str, str | None]) -> None:
        """Keep (None: forget) the bot's own notes, by key."""
        await self.repo.set_state_values(values)

    async def record_shown(self, prefix: str, shown: dict[int, str | None]) -> None:
        """Record (None: forget) what table messages show, by table id."""
        await self.repo.set_state_values({f"{prefix}{k}": v for k, v in shown.items()})

    async def join(self, table_id: int, user_id: int, name: str, *,
                   channel_id: int | None = None) -> Change:
        """Take a seat: in the lobby, or between hands for the next hand (after the others)."""
        async def apply(table: Table) -> None:
            _between_hands(table, "join")
            if table.in_lobby(user_id):
                raise AlreadySeated()
            await self._seat(table, Seat(user_id, name))
        return await self._change(table_id, channel_id, apply)

    async def add_ai(self, table_id: int, user_id: int, level: str, *, allowed: bool,
                     channel_id: int | None = None) -> Change:
        """The host fills a seat with an AI player, in the lobby or between hands."""
        async def apply(table: Table) -> None:
            _between_hands(table, "ai")
            if user_id != table.host_id:
                raise NotAllowed("add_ai")
            if not allowed:
                raise NotAllowed("ai_off")
            if level not in AI_LEVELS:
                raise BadSetting("ai", value=level)
            number = 1 + sum(1 for s in table.lobby if s.ai)
            # Never an id the last hand used: the next dealer is found by id (R5.1).
            ai_id = -min([0, *(s.user_id for s in [*table.lobby, *table.seats])]) + 1
            await self._seat(table, Seat(-ai_id, f"AI {number} ({level})", level))
        return await self._change(table_id, channel_id, apply)

    async def remove_ai(self, table_id: int, user_id: int, *,
                        channel_id: int | None = None) -> Change:
        """The host frees the last AI seat, in the lobby or between hands."""
        async def apply(table: Table) -> None:
            _between_hands(table, "ai")
            if user_id != table.host_id:
                raise NotAllowed("remove_ai")
            ai = [s for s in table.lobby if s.ai]
            if not ai:
                raise NoAIToRemove()
            await self.repo.remove_seat(table.id, ai[-1].user_id, self.clock())
            table.lobby = [s for s in table.lobby if s is not ai[-1]]
            table.revision += 1
        return await self._change(table_id, channel_id, apply)

    async def _seat(self, table: Table, seat: Seat) -> None:
        if len(table.lobby) >= table.max_seats:
            raise TableFull(seats=table.max_seats)
        await self.repo.add_seat(table.id, seat.user_id, seat.name, seat.ai, self.clock())
        table.lobby = [*table.lobby, seat]
        table.revision += 1

    async def leave(self, table_id: int, user_id: int, *,
                    channel_id: int | None = None) -> Change:
        """Leave the table: at once in the lobby or between hands; during a hand, after it
        (the hand keeps its seats to the end, so it stays valid). See ``_unseat``."""
        async def apply(table: Table) -> None:
            if not table.in_lobby(user_id):
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
            if user_id != table.host_id and not moderator:
                raise NotAllowed("remove")
            staying = next((s for s in table.lobby if s.user_id == target_id), None)
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
        rest = [s for s in table.lobby if s.user_id != user_id]
        if not any(not s.ai for s in rest):
            if table.status is TableStatus.PLAYING:
                raise SeatStays()
            await self.repo.remove_seat(table.id, user_id, self.clock())
            table.lobby = rest
            await self._close(table, TableStatus.CANCELLED if table.status is TableStatus.LOBBY
                              else TableStatus.ENDED)
            return
        host = _next_person(table.lobby, user_id) if user_id == table.host_id else None
        await self.repo.remove_seat(table.id, user_id, self.clock(), host_id=host)
        table.lobby = rest
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
            if user_id != table.host_id:
                raise NotAllowed("start")
            if len(table.lobby) < MIN_PLAYERS:
                raise TooFewPlayers()
            await self._deal(table, list(table.lobby),
                             first_dealer(len(table.lobby), self.choose_dealer))
        return await self._change(table_id, channel_id, apply)

    async def next_hand(self, table_id: int, user_id: int, *,
                        channel_id: int | None = None) -> Change:
        """Deal to the seats as they are after joins and leaves, renumbered in seat order
        (R1.1): the loser deals (R5.1), or if the loser left, the next of the last hand's
        players still seated; if none is, the dealer is drawn as for a first hand (R2.1)."""
        async def apply(table: Table) -> None:
            if table.status is not TableStatus.OVER or table.game is None:
                raise HandNotOver()
            if not table.in_lobby(user_id):
                raise NotSeated("next")
            if len(table.lobby) < MIN_PLAYERS:
                raise TooFewPlayers("next")
            seats = list(table.lobby)
            dealer = table.next_dealer()
            if dealer is None:
                dealer = first_dealer(len(seats), self.choose_dealer)
            await self._deal(table, seats, dealer)
        return await self._change(table_id, channel_id, apply)

    async def _deal(self, table: Table, seats: list[Seat], dealer: int) -> None:
        seed = secrets.token_hex(16)
        number = table.hand_number + 1
        names = [s.name for s in seats]
        deck = self.shuffle(len(seats), seed)
        game = Game.from_deck(deck, dealer, variant=table.variant, names=names)
        now = self.clock()
        hand_id = await self.repo.start_hand(
            table.id, number, seed, [str(c) for c in deck], dealer,
            [s.user_id for s in seats], names, [s.ai for s in seats], table.variant, now)
        table.status = TableStatus.PLAYING
        table.hand_id, table.hand_number, table.seed, table.seats = hand_id, number, seed, seats
        table.game = game
        table.away, table.missed, table.stand_in = frozenset(), (0,) * len(seats), False
        table.turn_started = now
        table.marks = {}
        table.revision += 1
        await self._play_forced(table)

    async def cancel(self, table_id: int, user_id: int, *,
                     channel_id: int | None = None) -> Change:
        async def apply(table: Table) -> None:
            if table.status is not TableStatus.LOBBY:
                raise AlreadyStarted("cancel")
            if user_id != table.host_id:
                raise NotAllowed("cancel")
            await self._close(table, TableStatus.CANCELLED)
        return await self._change(table_id, channel_id, apply)

    async def end(self, table_id: int, user_id: int, *, moderator: bool,
                  channel_id: int | None = None) -> Change:
        """Stop the table for good (host, or anyone who can manage the channel)."""
        async def apply(table: Table) -> None:
            check_end(table, user_id, moderator=moderator)
            await self._close(table, TableStatus.ENDED if table.status is not TableStatus.LOBBY
                              else TableStatus.CANCELLED)
        return await self._change(table_id, channel_id, apply)

    async def end_idle(self, idle_seconds: float) -> list[Change]:
        """Close tables nobody touched for ``idle_seconds``; their results stay."""
        changes = []
        for table_id in await self.repo.idle_tables(self.clock() - idle_seconds):
            async def apply(table: Table) -> None:
                if table.is_open:
                    await self._close(table, TableStatus.CANCELLED
                                      if table.status is TableStatus.LOBBY
                                      else TableStatus.ENDED)
            change = await self._change(table_id, None, apply)
            if change.closed:
                changes.append(change)
        return changes

    def _closer(self, status: TableStatus) -> Callable[[Table], Awaitable[None]]:
        async def apply(table: Table) -> None:
            await self._close(table, status)
        return apply

    async def _close(self, table: Table, status: TableStatus) -> None:
        await self.repo.set_status(table.id, status, self.clock())
        table.status = status
        table.revision += 1
        self._cache.pop(table.id, None)

    # --- play ------------------------------------------------------------------------------

    async def act(self, table_id: int, user_id: int, version: int, action: Action,
                  by: By = By.PLAYER, *, channel_id: int | None = None) -> Change:
        """Apply an action: checked, then written, then shown (never the reverse).

        ``by`` is ``PLAYER`` for a person's tap, ``AI`` for an AI seat or an away seat, and
        ``STAND_IN`` for the AI taking one turn whose timer ran out.
        """
        async def apply(table: Table) -> By:
            await self._act(table, user_id, version, action, by)
            return by
        return await self._change(table_id, channel_id, apply)

    async def _act(self, table: Table, user_id: int, version: int, action: Action,
                   by: By) -> None:
        game = table.game
        if not table.is_open:
            raise NotPlaying("ended")
        if table.status is TableStatus.LOBBY or game is None:
            raise NotPlaying("lobby")
        if version > game.version:
            raise _Behind()
        if game.is_over:
            raise NotPlaying("over")
        seat = table.seat_of(user_id)
        assert game.to_act is not None
        if seat is None:
            raise NotSeated(turn_of=table.seats[game.to_act].name)
        if seat != game.to_act:
            raise WaitYourTurn(name=table.seats[game.to_act].name)
        if by is By.PLAYER and seat in table.away:
            raise NotAllowed("away")
        if version != game.version:
            raise Stale()
        refusal = game.check(action, seat)
        if refusal is not None:
            raise AgainstTheRules(refusal.rule, refusal.message)
        await self._commit(table, seat, user_id, action, by)
        await self._play_forced(table)

    async def _play_forced(self, table: Table) -> None:
        """Phase-one moves with no choice play themselves, in the open: a draw when no stack
        give is possible, the keep of a drawn card that fits nowhere. Everything in phase
        one is public, so this tells nobody anything. Phase two is hidden (an instant take
        would tell everyone a hand has nothing that beats), so nothing plays itself there."""
        while True:
            game = table.game
            if game is None or game.is_over or game.to_act is None or \
                    game.phase is not Phase.COLLECT or table.ai_to_act():
                return
            legal = game.legal_actions()
            if len(legal) != 1:
                return
            seat = game.to_act
            try:
                await self._commit(table, seat, table.seats[seat].user_id, legal[0],
                                   By.PLAYER, forced=True)
            except Outdated:
                # Another process played it already (a hand-over): the move asked for is
                # stored; the next change reloads the table from the database.
                self._cache.pop(table.id, None)
                return

    async def _commit(self, table: Table, seat: int, user_id: int, action: Action, by: By,
                      *, forced: bool = False) -> None:
        """Write the action, then apply it to the table (never the reverse)."""
        game = table.game
        assert game is not None and table.hand_id is not None
        version = game.version
        trial = game.copy()
        trial.apply(action, seat)
        now = self.clock()
        away, missed, stand_in = set(table.away), list(table.missed), table.stand_in
        lapsed = table.lapsed
        if by is By.PLAYER and not forced:
            missed[seat] = 0
        elif by is By.STAND_IN and lapsed != seat:
            # The timer is per turn: a lapse is one missed turn, however many moves the
            # stand-in then makes to finish it.
            stand_in, lapsed = True, seat
            missed[seat] += 1
            if missed[seat] >= MISSES_BEFORE_AWAY:
                away.add(seat)
        turn_moved = trial.to_act != seat
        if turn_moved:
            lapsed = None
        # The clock runs per turn: it starts again only when someone else is to act.
        started = now if turn_moved else table.turn_started
        state = HandState(sorted(away), missed, stand_in, started)
        outcome = trial.outcome()
        finished = None
        if outcome is not None:
            rated = not stand_in and not any(s.ai for s in table.seats)
            finished = Finish(outcome, rated, table.guild_id, [s.user_id for s in table.seats],
                              [s.name for s in table.seats])
        await self.repo.record_action(table.id, table.hand_id, version, seat, action, user_id,
                                      by, state, finished, now, forced=forced)
        mark = "forced" if forced else None if by is By.PLAYER else str(by)
        if mark is not None:
            table.marks = {**table.marks, len(game.events): mark}
        table.game = trial
        table.away, table.missed, table.stand_in, table.turn_started = frozenset(away), \
            tuple(missed), stand_in, started
        table.lapsed = lapsed
        if trial.is_over:
            table.status = TableStatus.OVER
        table.revision += 1

    async def ai_turn(self, table_id: int, *, stand_in: bool = False) -> AITurn | None:
        """The seat the AI should play now, or None (nobody, or a person's turn)."""
        async with self._changing(table_id, None) as table:
            game = table.game
            level = STAND_IN_LEVEL if stand_in else table.ai_to_act()
            if game is None or game.to_act is None or level is None or \
                    table.status is not TableStatus.PLAYING:
                return None
            seat = game.to_act
            by = By.AI if table.seats[seat].ai or seat in table.away else By.STAND_IN
            return AITurn(table.snapshot(), seat, game.version, level, by)

    async def back(self, table_id: int, user_id: int, *,
                   channel_id: int | None = None) -> Change:
        """The owner of an away seat takes it back from the AI."""
        async def apply(table: Table) -> None:
            seat = table.seat_of(user_id)
            if seat is None:
                raise NotSeated()
            if seat not in table.away:
                raise NotAway()
            assert table.hand_id is not None
            missed = list(table.missed)
            missed[seat] = 0
            now = self.clock()
            state = HandState(sorted(table.away - {seat}), missed, table.stand_in, now)
            await self.repo.set_hand_state(table.id, table.hand_id, state, now)
            table.away, table.missed, table.turn_started = table.away - {seat}, tuple(missed), now
            table.revision += 1
        return await self._change(table_id, channel_id, apply)


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
