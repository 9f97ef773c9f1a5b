"""Tables, and the one place where a table changes: ``TableService``.

Every change goes through the service: it takes the table's lock, loads the table (from the
cache, or rebuilt from the database by replaying its hand), checks the request, writes it to
the database and only then updates the cached table, so a crash at any moment loses nothing.
Each change returns a ``Change``: a snapshot of the table afterwards and what happened (who
acts now and who acted before, whether the hand ended or the table closed). The cogs publish
from it and the clocks schedule from it; nothing else takes a table lock.

The model is in ``bot/tables/table.py``, the lock and cache in ``bot/tables/store.py``;
this module decides every change: the lobby, the seats, the table's life and the moves.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Awaitable, Callable, Iterable

from bot.cluster.shards import Shards
from bot.db.records import By, Finish, HandState, Mark, TableRecord, TableStatus
from bot.db.repository import Outdated, Repository
from bot.db.storage import Duplicate
from bot.errors import (
    AgainstTheRules,
    AlreadySeated,
    AlreadyStarted,
    BadSetting,
    HandNotOver,
    NoAIToRemove,
    NotAllowed,
    NotAway,
    NotEnded,
    NotPlaying,
    NotSeated,
    SeatStays,
    Stale,
    TableExists,
    TableFull,
    TooFewPlayers,
    WaitYourTurn,
)
from bot.tables.store import Behind, TableStore
from bot.tables.table import (
    MAX_TURN_SECONDS,
    MIN_TURN_SECONDS,
    MISSES_BEFORE_AWAY,
    STAND_IN_LEVEL,
    AITurn,
    Change,
    Deal,
    Moment,
    Seat,
    Table,
    check_end,
    check_timer,
    host_only,
    next_revision,
)
from rules import Action, Card, Game, Phase, Variant, shuffled_deck
from rules.ai.levels import AILevel
from rules.cards import MAX_PLAYERS, MIN_PLAYERS
from rules.i18n import stored_ai_name
from rules.session import first_dealer

__all__ = ["MAX_TURN_SECONDS", "MIN_TURN_SECONDS", "AILevel", "AITurn", "Change", "Foresee",
           "Seat", "Table", "TableService", "check_end", "check_timer"]

# Told a table as an action leaves it, while the action is being written (``act``).
Foresee = Callable[[Table], None]


class TableService:
    """Creates, loads and changes tables; raises a ``Refusal`` for anything not allowed.

    It holds the ``TableStore`` (the cache, the locks, the one way a table changes) and
    decides each change: the lobby, the seats, the table's life and the moves of a hand."""

    def __init__(self, repo: Repository) -> None:
        self.repo = repo
        self.store = TableStore(repo)
        # How a new hand is dealt; tests may swap these.
        self.shuffle: Callable[[int, str], list[Card]] = shuffled_deck
        self.choose_dealer: Callable[[int], int] = secrets.randbelow
        # A hand's secret seed: its deck and its AI players' and stand-ins' choices.
        self.new_seed: Callable[[], str] = lambda: secrets.token_hex(16)

    # --- what the store holds, read through the service ----------------------------------

    @property
    def clock(self) -> Callable[[], float]:
        """What time it is (tests move it)."""
        return self.store.clock

    @clock.setter
    def clock(self, clock: Callable[[], float]) -> None:
        self.store.clock = clock

    @property
    def shards(self) -> Shards:
        """The shards this process owns: it resumes, times and sweeps only their tables."""
        return self.store.shards

    @shards.setter
    def shards(self, shards: Shards) -> None:
        self.store.shards = shards

    @property
    def quarantined(self) -> list[tuple[TableRecord, str]]:
        return self.store.quarantined

    async def get(self, table_id: int, *, channel_id: int | None = None) -> Table:
        """A snapshot of the table (refused if it is not in ``channel_id``, when given)."""
        return await self.store.get(table_id, channel_id=channel_id)

    async def in_channel(self, channel_id: int) -> Table:
        return await self.store.in_channel(channel_id)

    async def open_tables(self) -> list[Table]:
        """Every open table this process owns, loaded; a move with no choice that a stopped
        process left unplayed (it stopped between a move and the moves that follow it by
        themselves) is played first, as it would have been, before anything is shown."""
        tables = await self.store.open_tables()
        for i, table in enumerate(tables):
            if self._forced(table) is not None:
                async with self.store.locked(table.id, None) as live:
                    await self._play_forced(live)
                tables[i] = await self.store.get(table.id)
        return tables

    async def owned(self, table_ids: Iterable[int]) -> set[int]:
        return await self.store.owned(table_ids)

    def cached(self) -> list[Table]:
        return self.store.cached()

    def tracked(self) -> int:
        return self.store.tracked()

    async def set_message(self, table_id: int, message_id: int) -> int | None:
        return await self.store.set_message(table_id, message_id)

    async def active_times(self) -> dict[int, float]:
        """When each open table last changed."""
        return await self.store.active_times()

    # --- the lobby, the seats and the table's life ---------------------------------------

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
        replaced = None
        if existing is not None and existing.status is TableStatus.OVER and bad is None:
            old = await self.get(existing.id)
            if old.seat_of(user_id) is not None or moderator:
                replaced = (await self.store.change(existing.id, None,
                                                    self._closer(TableStatus.ENDED))).table
                existing = None
        if existing is not None:  # said first: no setting matters in a channel that has one
            # Only a lobby can be cancelled; a table that has played is ended instead. Its
            # host is told what she can do, not to ask its host (issue 45).
            lobby = existing.status is TableStatus.LOBBY
            own = "_own" if existing.host_id == user_id else ""
            raise TableExists(existing.id, existing.message_id,
                              ("lobby" if lobby else "") + own)
        if bad is not None:
            raise bad
        try:
            table_id = await self.repo.create_table(guild_id, channel_id, user_id, name, seats,
                                                    variant, turn_seconds, self.clock())
        except Duplicate:
            raise TableExists(0, None) from None
        async with self.store.locked(table_id, None) as table:
            if replaced is not None:
                table.replaces = replaced.id
                replaced = dataclasses.replace(replaced, replaced_by=table_id,
                                               revision=next_revision())
            return Change(table.snapshot(), None, None, replaced=replaced)

    async def join(self, table_id: int, user_id: int, name: str, *,
                   channel_id: int | None = None) -> Change:
        """Take a seat: in the lobby, or between hands for the next hand (after the others)."""
        async def apply(table: Table) -> None:
            _between_hands(table, "join")
            if table.in_next_hand(user_id):
                raise AlreadySeated()
            await self._seat(table, Seat(user_id, name))
        return await self.store.change(table_id, channel_id, apply)

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
            # Stored in no language: each reader sees it named in theirs (shown_name).
            await self._seat(table, Seat(-ai_id, stored_ai_name(number, level), level))
        return await self.store.change(table_id, channel_id, apply)

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
            table.revision = next_revision()
        return await self.store.change(table_id, channel_id, apply)

    async def _seat(self, table: Table, seat: Seat) -> None:
        if len(table.next_seats) >= table.max_seats:
            raise TableFull(seats=table.max_seats)
        await self.repo.add_seat(table.id, seat.user_id, seat.name, seat.ai, self.clock())
        table.next_seats = [*table.next_seats, seat]
        table.revision = next_revision()

    async def deal_ahead(self, table_id: int, ahead: Foresee | None = None) -> None:
        """Once the lobby is full (the Start can only deal to these seats, unless someone
        leaves), choose the first hand's dealer, seed and deck now, as the Start would, and
        tell ``ahead`` the table as dealt: its picture is drawn before the host taps Start,
        whose answer then waits for no drawing. Nothing is written and nothing is shown; the
        Start deals it (``start``) if the seats are still these, else deals afresh. Asked
        once the tap that filled the lobby is answered: that answer waits for none of it."""
        async with self.store.locked(table_id, None) as table:
            seats = list(table.next_seats)
            if table.status is not TableStatus.LOBBY or len(seats) < table.max_seats or \
                    table.ready_deal is not None:
                return
            deal = self._new_deal(seats, first_dealer(len(seats), self.choose_dealer))
            table.dealt = deal
            if ahead is not None:
                ahead(self._ahead(self._dealt(table, deal, table.hand_number + 1)))

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
        return await self.store.change(table_id, channel_id, apply)

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
        return await self.store.change(table_id, channel_id, apply)

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
            await self.store.close(table, table.closing_status)
            return
        host = _next_person(table.next_seats, user_id) if user_id == table.host_id else None
        await self.repo.remove_seat(table.id, user_id, self.clock(), host_id=host)
        table.next_seats = rest
        if host is not None:
            table.host_id = host
        # Redrawn during a hand too: the seat is marked as leaving when the hand ends.
        table.revision = next_revision()

    async def start(self, table_id: int, user_id: int, *,
                    channel_id: int | None = None, foresee: Foresee | None = None) -> Change:
        """Deal the first hand; the first dealer is random (R2.1). ``foresee``: as for
        ``act``, told the table as dealt while the deal is written."""
        async def apply(table: Table) -> None:
            if table.status is not TableStatus.LOBBY:
                raise AlreadyStarted("start")
            host_only(table, user_id, "start")
            if len(table.next_seats) < MIN_PLAYERS:
                raise TooFewPlayers()
            seats = list(table.next_seats)
            deal = table.ready_deal or \
                self._new_deal(seats, first_dealer(len(seats), self.choose_dealer))
            await self._deal(table, deal, foresee)
        return await self.store.change(table_id, channel_id, apply)

    async def next_hand(self, table_id: int, user_id: int, *,
                        channel_id: int | None = None, foresee: Foresee | None = None
                        ) -> Change:
        """Deal to the seats as they are after joins and leaves, renumbered in seat order
        (R1.1): the loser deals (R5.1), or if the loser left, the next of the last hand's
        players still seated; if none is, the dealer is drawn as for a first hand (R2.1)."""
        async def apply(table: Table) -> None:
            if table.status is not TableStatus.OVER or table.game is None:
                raise HandNotOver()
            if not table.in_next_hand(user_id):
                # Told to join first only while there is a seat to join.
                full = len(table.next_seats) >= table.max_seats
                raise NotSeated("next_full" if full else "next")
            if len(table.next_seats) < MIN_PLAYERS:
                raise TooFewPlayers("next")
            seats = list(table.next_seats)
            dealer = table.next_dealer()
            if dealer is None:
                dealer = first_dealer(len(seats), self.choose_dealer)
            await self._deal(table, self._new_deal(seats, dealer), foresee)
        return await self.store.change(table_id, channel_id, apply)

    async def cancel(self, table_id: int, user_id: int, *,
                     channel_id: int | None = None) -> Change:
        async def apply(table: Table) -> None:
            if table.status is not TableStatus.LOBBY:
                raise AlreadyStarted("cancel")
            host_only(table, user_id, "cancel")
            await self.store.close(table, TableStatus.CANCELLED)
        return await self.store.change(table_id, channel_id, apply)

    async def end(self, table_id: int, user_id: int, *, moderator: bool,
                  channel_id: int | None = None, asked: Moment | None = None) -> Change:
        """Stop the table for good (host, or anyone who can manage the channel); ``asked``:
        only if the table is still where it was when the question was asked."""
        async def apply(table: Table) -> None:
            check_end(table, user_id, moderator=moderator)
            if asked is not None and asked != table.moment():
                # Said as what it is (not ended, and why), not as any out-of-date button.
                now = table.moment()
                raise NotEnded("new_hand" if now.hand != asked.hand else "", table=table.id,
                               number=now.hand)
            await self.store.close(table, table.closing_status)
        return await self.store.change(table_id, channel_id, apply)

    async def end_idle(self, idle_seconds: float) -> list[Change]:
        """Close this process's tables nobody touched for ``idle_seconds``; their results
        stay."""
        changes = []
        idle = await self.repo.idle_tables(self.clock() - idle_seconds)
        for table_id in sorted(await self.owned(idle)):
            async def apply(table: Table) -> None:
                if table.is_open:
                    await self.store.close(table, table.closing_status)
            change = await self.store.change(table_id, None, apply)
            if change.closed:
                changes.append(change)
        return changes

    def _closer(self, status: TableStatus) -> Callable[[Table], Awaitable[None]]:
        async def apply(table: Table) -> None:
            await self.store.close(table, status)
        return apply

    # --- the moves of a hand ----------------------------------------------------------


    async def act(self, table_id: int, user_id: int, version: int, action: Action,
                  by: By = By.PLAYER, *, channel_id: int | None = None,
                  foresee: Foresee | None = None) -> Change:
        """Apply an action: checked, then written, then shown (never the reverse).

        ``by`` is ``PLAYER`` for a person's tap, ``AI`` for an AI seat or an away seat, and
        ``STAND_IN`` for the AI taking one turn whose timer ran out. ``foresee`` is told
        the table as the action leaves it (and the moves that then play themselves) once
        the action is checked, while it is being written: the answer's pictures can be
        drawn meanwhile. It shows nothing; the change returned is what may be shown.
        """
        async def apply(table: Table) -> By:
            await self._act(table, user_id, version, action, by, foresee)
            return by
        return await self.store.change(table_id, channel_id, apply)

    async def _act(self, table: Table, user_id: int, version: int, action: Action,
                   by: By, foresee: Foresee | None = None) -> None:
        game = table.game
        if not table.is_open:
            raise NotPlaying("ended")
        if table.status is TableStatus.LOBBY or game is None:
            raise NotPlaying("lobby")
        if version > game.version:
            raise Behind()
        if game.is_over:
            raise NotPlaying("over")
        seat = table.seat_of(user_id)
        assert game.to_act is not None
        if seat is None:
            raise NotSeated(turn_of=table.seats[game.to_act].name)
        if seat != game.to_act:
            if version != game.version:
                # Controls drawn before a move made since (the tapper's turn there): out
                # of date, not someone else's turn.
                raise Stale()
            raise WaitYourTurn(name=table.seats[game.to_act].name)
        if by is By.PLAYER and seat in table.away:
            raise NotAllowed("away")
        if version != game.version:
            raise Stale()
        refusal = game.check(action, seat)
        if refusal is not None:
            raise AgainstTheRules(refusal.rule, refusal.message)
        await self._commit(table, seat, user_id, action, by, foresee=foresee)
        await self._play_forced(table)

    async def _play_forced(self, table: Table) -> None:
        """Phase-one moves with no choice play themselves, in the open: a draw when no stack
        give is possible, the keep of a drawn card that fits nowhere. Everything in phase
        one is public, so this tells nobody anything. Phase two is hidden (an instant take
        would tell everyone a hand has nothing that beats), so nothing plays itself there."""
        while (action := self._forced(table)) is not None:
            assert table.game is not None and table.game.to_act is not None
            seat = table.game.to_act
            try:
                await self._commit(table, seat, table.seats[seat].user_id, action,
                                   By.PLAYER, forced=True)
            except Outdated:
                # Another process played it already (a hand-over): the move asked for is
                # stored; the next change reloads the table from the database.
                self.store.forget(table.id)
                return

    def _ahead(self, table: Table) -> Table:
        """``table`` once the moves that play themselves after it are played (what a
        ``foresee`` is told: what the answer will show), written nowhere."""
        while (action := self._forced(table)) is not None:
            assert table.game is not None and table.game.to_act is not None
            game = table.game.copy()
            game.apply(action, game.to_act)
            table = dataclasses.replace(table, game=game)
        return table

    @staticmethod
    def _forced(table: Table) -> Action | None:
        """The move that plays itself now, if any (see ``_play_forced``)."""
        game = table.game
        if game is None or game.is_over or game.to_act is None or \
                game.phase is not Phase.COLLECT or table.ai_to_act():
            return None
        legal = game.legal_actions()
        return legal[0] if len(legal) == 1 else None

    async def _commit(self, table: Table, seat: int, user_id: int, action: Action, by: By,
                      *, forced: bool = False, foresee: Foresee | None = None) -> None:
        """Write the action, then apply it to the table (never the reverse); ``foresee``
        (see ``act``) is told the table as it will be while the action is written."""
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
            # stand-in then makes to finish it. A turn or two played for a late person
            # leaves the hand theirs, and rated (issue 45: seconds of one stand-in turn
            # voided a hand of people); once the AI keeps the seat (away), it is no longer
            # a hand of people, and it is not rated (``stand_in``).
            lapsed = seat
            missed[seat] += 1
            if missed[seat] >= MISSES_BEFORE_AWAY:
                away.add(seat)
                stand_in = True
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
            finished = Finish(outcome, rated, table.place, [s.user_id for s in table.seats],
                              [s.name for s in table.seats])
        if foresee is not None and not forced:
            foresee(self._ahead(dataclasses.replace(table, game=trial)))
        await self.repo.record_action(table.id, table.hand_id, version, seat, action, user_id,
                                      by, state, finished, now, forced=forced)
        mark = Mark.of(by, forced=forced)
        if mark is not None:
            table.marks = {**table.marks, len(game.events): mark}
        table.game = trial
        table.away, table.missed, table.stand_in, table.turn_started = frozenset(away), \
            tuple(missed), stand_in, started
        table.lapsed = lapsed
        if trial.is_over:
            table.status = TableStatus.OVER
        table.revision = next_revision()

    def _new_deal(self, seats: list[Seat], dealer: int) -> Deal:
        seed = self.new_seed()
        return Deal(tuple(seats), dealer, seed, tuple(self.shuffle(len(seats), seed)))

    @staticmethod
    def _dealt(table: Table, deal: Deal, number: int) -> Table:
        """``table`` as ``deal`` leaves it as its hand ``number``, written nowhere."""
        seats = list(deal.seats)
        game = Game.from_deck(list(deal.deck), deal.dealer, variant=table.variant,
                              names=[s.name for s in seats])
        return dataclasses.replace(
            table, status=TableStatus.PLAYING, game=game, seats=seats, hand_number=number,
            marks={}, away=frozenset(), missed=(0,) * len(seats), stand_in=False, dealt=None)

    async def _deal(self, table: Table, deal: Deal, foresee: Foresee | None = None) -> None:
        number = table.hand_number + 1
        dealt = self._dealt(table, deal, number)
        seats, game = dealt.seats, dealt.game
        assert game is not None
        now = self.clock()
        # The server's hints setting as the hand is dealt: changing it acts from the next hand.
        hints = (await self.repo.settings.guild_settings(table.guild_id)).hints
        if foresee is not None:
            foresee(self._ahead(dealt))
        hand_id = await self.repo.start_hand(
            table.id, number, deal.seed, [str(c) for c in deal.deck], deal.dealer,
            [s.user_id for s in seats], [s.name for s in seats], [s.ai for s in seats],
            table.variant, now, hints=hints)
        table.status = TableStatus.PLAYING
        table.hand_id, table.hand_number, table.seed, table.seats = \
            hand_id, number, deal.seed, seats
        table.dealt = None
        table.game = game
        table.away, table.missed, table.stand_in = frozenset(), (0,) * len(seats), False
        table.turn_started = now
        table.marks = {}
        table.hints, table.assisted = hints, False
        table.revision = next_revision()
        await self._play_forced(table)

    async def renew_turn(self, table_id: int) -> Change | None:
        """Start the person to act's time afresh (their place could not be reached while it
        ran: a group DM where nobody tapped); None if nobody's time runs."""
        async with self.store.locked(table_id, None) as table:
            if table.deadline() is None:
                return None
            table.turn_started = self.clock()
            table.revision = next_revision()
            user = table.user_to_act()
            return Change(table.snapshot(), user, user)

    async def ai_turn(self, table_id: int, *, stand_in: bool = False) -> AITurn | None:
        """The seat the AI should play now, or None (nobody, or a person's turn)."""
        async with self.store.locked(table_id, None) as table:
            game = table.game
            level = STAND_IN_LEVEL if stand_in else table.ai_to_act()
            if game is None or game.to_act is None or level is None or \
                    table.status is not TableStatus.PLAYING:
                return None
            seat = game.to_act
            by = By.AI if table.seats[seat].ai or seat in table.away else By.STAND_IN
            return AITurn(table.snapshot(), seat, game.version, level, by)

    async def assist(self, table_id: int, user_id: int, *,
                     channel_id: int | None = None) -> Change:
        """A player asks for a hint on their turn, where the server allows hints: the hand
        is marked assisted (once), and is rated like any other."""
        async def apply(table: Table) -> None:
            game = table.game
            if table.status is not TableStatus.PLAYING or game is None or game.is_over:
                raise NotPlaying("lobby" if table.status is TableStatus.LOBBY else "over")
            if not table.hints:
                raise NotAllowed("hints")
            seat = table.seat_of(user_id)
            if seat is None:
                raise NotSeated(turn_of=table.name_to_act())
            if seat != game.to_act:
                raise WaitYourTurn(name=table.name_to_act() or "")
            if not table.assisted:
                assert table.hand_id is not None
                await self.repo.mark_assisted(table.hand_id)
                table.assisted = True
        return await self.store.change(table_id, channel_id, apply)

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
            table.revision = next_revision()
        return await self.store.change(table_id, channel_id, apply)

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

