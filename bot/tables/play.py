"""Play: moves checked, written, then applied; moves with no choice; the AI's turn."""

from __future__ import annotations

import secrets

from bot.db.records import By, Finish, HandState, Mark, TableStatus
from bot.db.repository import Outdated
from bot.errors import (
    AgainstTheRules,
    NotAllowed,
    NotAway,
    NotPlaying,
    NotSeated,
    Stale,
    WaitYourTurn,
)
from bot.tables.store import Behind, TableStore
from bot.tables.table import MISSES_BEFORE_AWAY, STAND_IN_LEVEL, AITurn, Change, Seat, Table
from rules import Action, Game, Phase


class Play(TableStore):
    """The moves of a hand."""

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
            raise Behind()
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
        mark = Mark.of(by, forced=forced)
        if mark is not None:
            table.marks = {**table.marks, len(game.events): mark}
        table.game = trial
        table.away, table.missed, table.stand_in, table.turn_started = frozenset(away), \
            tuple(missed), stand_in, started
        table.lapsed = lapsed
        if trial.is_over:
            table.status = TableStatus.OVER
        table.revision += 1

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

    async def ai_turn(self, table_id: int, *, stand_in: bool = False) -> AITurn | None:
        """The seat the AI should play now, or None (nobody, or a person's turn)."""
        async with self._locked(table_id, None) as table:
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
