"""Tables: the bridge between Discord users and the engine, persisted as it happens.

Every change takes the table's lock, checks who may do what, writes to the database and only
then changes the cached state, so a crash at any moment loses nothing: the cache is rebuilt by
replaying the stored deal and actions.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import sqlite3
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

import aiosqlite

from rules import Action, Card, Game, IllegalAction, SeatView, Variant, observe, shuffled_deck
from rules.cards import MAX_PLAYERS, MIN_PLAYERS
from rules.session import dealer_after_reseat, first_dealer

from .errors import (
    Illegal,
    NoTable,
    NotAllowed,
    NotSeated,
    NotYourTurn,
    Stale,
    TableExists,
    WrongState,
)
from .repository import Finish, HandState, Repository

log = logging.getLogger(__name__)

AI_LEVELS = ("heuristic", "strong")
STAND_IN_LEVEL = "heuristic"
MISSES_BEFORE_AWAY = 2


@dataclass(frozen=True)
class Seat:
    user_id: int  # negative for AI seats
    name: str
    ai: str | None = None


@dataclass(eq=False)
class Table:
    """One table's cached state; the database is the truth."""

    id: int
    guild_id: int | None
    channel_id: int
    host_id: int
    max_seats: int
    variant: Variant
    status: str
    message_id: int | None
    turn_seconds: int = 90
    lobby: list[Seat] = field(default_factory=list)
    hand_id: int | None = None
    hand_number: int = 0
    seed: str | None = None
    seats: list[Seat] = field(default_factory=list)  # the current hand's, in seat order
    game: Game | None = None
    away: set[int] = field(default_factory=set)  # seats the AI plays until "I'm back"
    missed: list[int] = field(default_factory=list)  # missed turns in a row, per seat
    stand_in: bool = False  # a stand-in played this hand: it is not rated
    turn_started: float = 0.0
    revision: int = 0  # bumped on every change the table message shows

    def seat_of(self, user_id: int) -> int | None:
        """The user's seat in the current hand."""
        for i, seat in enumerate(self.seats):
            if seat.user_id == user_id:
                return i
        return None

    def in_lobby(self, user_id: int) -> bool:
        return any(s.user_id == user_id for s in self.lobby)

    def public_view(self) -> SeatView | None:
        """What anyone may see of the current hand."""
        return observe(self.game, None) if self.game else None

    def view_for(self, user_id: int) -> SeatView | None:
        """The current hand as ``user_id`` may see it (a spectator's view if not seated)."""
        if self.game is None:
            return None
        return observe(self.game, self.seat_of(user_id))

    def seat_view(self, seat: int) -> SeatView:
        assert self.game is not None
        return observe(self.game, seat)

    def user_to_act(self) -> int | None:
        game = self.game
        if game is None or game.to_act is None or self.status != "playing":
            return None
        return self.seats[game.to_act].user_id

    def ai_to_act(self) -> str | None:
        """The AI level that plays the seat to act now (an AI seat, or a seat that is away)."""
        game = self.game
        if game is None or game.to_act is None or self.status != "playing":
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
        return self.status in ("lobby", "playing", "over")

    def hand_state(self) -> HandState:
        return HandState(sorted(self.away), list(self.missed), self.stand_in, self.turn_started)


class TableService:
    """Creates, loads and changes tables; raises ``Refusal`` for anything not allowed."""

    def __init__(self, repo: Repository) -> None:
        self.repo = repo
        self._cache: dict[int, Table] = {}
        self._locks: defaultdict[int, asyncio.Lock] = defaultdict(asyncio.Lock)
        # How a new hand is dealt and what time it is; tests may swap these.
        self.shuffle: Callable[[int, str], list[Card]] = shuffled_deck
        self.choose_dealer: Callable[[int], int] = secrets.randbelow
        self.clock: Callable[[], float] = time.time

    def lock(self, table_id: int) -> asyncio.Lock:
        return self._locks[table_id]

    def cached(self) -> list[Table]:
        return list(self._cache.values())

    # --- loading ---------------------------------------------------------------------------

    async def get(self, table_id: int) -> Table:
        """The table, from the cache or rebuilt from the database."""
        table = self._cache.get(table_id)
        if table is not None:
            return table
        row = await self.repo.table(table_id)
        if row is None:
            raise NoTable("That table no longer exists.")
        table = await self._load(row)
        if table.is_open:
            self._cache[table_id] = table
        return table

    async def in_channel(self, channel_id: int) -> Table:
        """The channel's open table, or a ``NoTable`` refusal."""
        row = await self.repo.open_table_in(channel_id)
        if row is None:
            raise NoTable("There is no NLK table in this channel. Start one with `/nlk new`.")
        return await self.get(row["id"])

    async def open_tables(self) -> list[Table]:
        """Every open table, loaded (after a restart)."""
        return [await self.get(row["id"]) for row in await self.repo.open_tables()]

    async def _load(self, row: aiosqlite.Row) -> Table:
        table = Table(
            id=row["id"], guild_id=row["guild_id"], channel_id=row["channel_id"],
            host_id=row["host_id"], max_seats=row["max_seats"],
            variant=Variant(row["last_card"], bool(row["must_beat_in_suit"])),
            status=row["status"], message_id=row["message_id"],
            turn_seconds=row["turn_seconds"])
        table.lobby = [Seat(s["user_id"], s["name"], s["ai"])
                       for s in await self.repo.seats(table.id)]
        hand = await self.repo.last_hand(table.id) if table.status in ("playing", "over") \
            else None
        if hand is not None:
            players = json.loads(hand["players"])
            names = json.loads(hand["names"])
            ai = json.loads(hand["ai"]) or [None] * len(players)
            table.seats = [Seat(u, n, a) for u, n, a in zip(players, names, ai, strict=True)]
            table.hand_id = hand["id"]
            table.hand_number = hand["number"]
            table.seed = hand["seed"]
            table.away = set(json.loads(hand["away"]))
            table.missed = json.loads(hand["missed"]) or [0] * len(players)
            table.stand_in = bool(hand["stand_in"])
            table.turn_started = hand["turn_started"] or self.clock()
            variant = Variant(hand["last_card"], bool(hand["must_beat_in_suit"]))
            game = Game.from_deck(json.loads(hand["deck"]), hand["dealer"], variant=variant,
                                  names=names)
            for action_row in await self.repo.actions(hand["id"]):
                game.apply(stored_action(action_row), action_row["seat"])
            table.game = game
        return table

    def _forget(self, table: Table) -> None:
        self._cache.pop(table.id, None)

    # --- the lobby -------------------------------------------------------------------------

    async def create(self, guild_id: int | None, channel_id: int, user_id: int, name: str,
                     seats: int, variant: Variant, turn_seconds: int = 90) -> Table:
        """Open a lobby in the channel with the user seated as host."""
        if not MIN_PLAYERS <= seats <= MAX_PLAYERS:
            raise WrongState(f"A table has 2 to 9 seats, not {seats}.")
        existing = await self.repo.open_table_in(channel_id)
        if existing is not None and existing["status"] == "over":
            # A finished hand nobody closed should not block a new table.
            await self.close(await self.get(existing["id"]), "ended")
            existing = None
        if existing is not None:
            raise TableExists("This channel already has an NLK table. Join that one, or its "
                              "host can cancel it.", existing["id"], existing["message_id"])
        try:
            table_id = await self.repo.create_table(guild_id, channel_id, user_id, name, seats,
                                                    variant, turn_seconds, self.clock())
        except sqlite3.IntegrityError:
            raise TableExists("This channel already has an NLK table.", 0, None) from None
        return await self.get(table_id)

    async def set_message(self, table: Table, message_id: int) -> None:
        await self.repo.set_message(table.id, message_id)
        table.message_id = message_id

    async def join(self, table: Table, user_id: int, name: str) -> None:
        self._lobby_open(table)
        if table.in_lobby(user_id):
            raise WrongState("You're already seated at this table.")
        await self._seat(table, Seat(user_id, name))

    async def add_ai(self, table: Table, user_id: int, level: str, *, allowed: bool) -> None:
        """The host fills a seat with an AI player."""
        self._lobby_open(table)
        if user_id != table.host_id:
            raise NotAllowed("Only the host can add AI players.")
        if not allowed:
            raise NotAllowed("AI players are switched off on this server (`/nlk settings`).")
        if level not in AI_LEVELS:
            raise WrongState(f"Unknown AI level {level!r}.")
        number = 1 + sum(1 for s in table.lobby if s.ai)
        ai_id = -min([0, *(s.user_id for s in table.lobby)]) + 1
        await self._seat(table, Seat(-ai_id, f"AI {number} ({level})", level))

    async def remove_ai(self, table: Table, user_id: int) -> None:
        """The host frees the last AI seat."""
        self._lobby_open(table)
        if user_id != table.host_id:
            raise NotAllowed("Only the host can remove AI players.")
        ai = [s for s in table.lobby if s.ai]
        if not ai:
            raise WrongState("There is no AI player to remove.")
        await self.repo.remove_seat(table.id, ai[-1].user_id, self.clock())
        table.lobby.remove(ai[-1])
        table.revision += 1

    def _lobby_open(self, table: Table) -> None:
        if table.status != "lobby":
            raise WrongState("This table's hand has already started: watch, or join the "
                             "next table.")

    async def _seat(self, table: Table, seat: Seat) -> None:
        if len(table.lobby) >= table.max_seats:
            raise WrongState(f"This table is full ({table.max_seats} seats).")
        await self.repo.add_seat(table.id, seat.user_id, seat.name, seat.ai, self.clock())
        table.lobby.append(seat)
        table.revision += 1

    async def leave(self, table: Table, user_id: int) -> None:
        """Leave the lobby; the host's seat passes on, and a lobby without people closes."""
        if not table.in_lobby(user_id) and table.seat_of(user_id) is None:
            raise NotSeated("You're not seated at this table.")
        if table.status != "lobby":
            raise WrongState("The hand is under way, so your seat stays yours until it ends. "
                             "The host (or a moderator) can stop the table with `/nlk end`.")
        await self.repo.remove_seat(table.id, user_id, self.clock())
        table.lobby = [s for s in table.lobby if s.user_id != user_id]
        table.revision += 1
        people = [s for s in table.lobby if not s.ai]
        if not people:
            await self.close(table, "cancelled")
        elif user_id == table.host_id:
            table.host_id = people[0].user_id
            await self.repo.set_host(table.id, table.host_id)

    async def start(self, table: Table, user_id: int) -> None:
        """Deal the first hand; the first dealer is random (R2.1)."""
        if table.status != "lobby":
            raise WrongState("This table has already started.")
        if user_id != table.host_id:
            raise NotAllowed("Only the host can start the table.")
        if len(table.lobby) < MIN_PLAYERS:
            raise WrongState("NLK needs at least two players: wait for someone to join, or "
                             "add an AI player.")
        await self._deal(table, list(table.lobby),
                         first_dealer(len(table.lobby), self.choose_dealer))

    async def next_hand(self, table: Table, user_id: int) -> None:
        """Deal again at the same seats; the loser deals (R5.1)."""
        if table.status != "over" or table.game is None:
            raise WrongState("The current hand isn't over yet.")
        if table.seat_of(user_id) is None:
            raise NotSeated("Only the players at this table can deal the next hand.")
        outcome = table.game.outcome()
        assert outcome is not None
        seats = list(table.seats)  # who sits where next; the dealer rule copes if it changes
        dealer = dealer_after_reseat(outcome.loser, [s.user_id for s in table.seats],
                                     [s.user_id for s in seats])
        if dealer is None:
            dealer = first_dealer(len(seats), self.choose_dealer)
        await self._deal(table, seats, dealer)

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
        table.status = "playing"
        table.hand_id, table.hand_number, table.seed, table.seats = hand_id, number, seed, seats
        table.game = game
        table.away, table.missed, table.stand_in = set(), [0] * len(seats), False
        table.turn_started = now
        table.revision += 1

    async def cancel(self, table: Table, user_id: int) -> None:
        if table.status != "lobby":
            raise WrongState("The table has started: use `/nlk end` to stop it.")
        if user_id != table.host_id:
            raise NotAllowed("Only the host can cancel the table.")
        await self.close(table, "cancelled")

    async def end(self, table: Table, user_id: int, *, moderator: bool) -> None:
        """Stop the table for good (host, or anyone who can manage the channel)."""
        if not table.is_open:
            raise WrongState("This table has already ended.")
        if user_id != table.host_id and not moderator:
            raise NotAllowed("Only the host, or someone who can manage this channel, can end "
                             "the table.")
        await self.close(table, "ended" if table.status != "lobby" else "cancelled")

    async def close(self, table: Table, status: str) -> None:
        await self.repo.set_status(table.id, status, self.clock())
        table.status = status
        table.revision += 1
        self._forget(table)

    # --- play ------------------------------------------------------------------------------

    async def act(self, table: Table, user_id: int, version: int, action: Action,
                  by: str = "player") -> None:
        """Apply an action: checked, then written, then shown (never the reverse).

        ``by`` is ``player`` for a person's tap, ``ai`` for an AI seat or an away seat, and
        ``stand-in`` for the AI taking one turn whose timer ran out.
        """
        game = table.game
        if not table.is_open:
            raise WrongState("This table has ended.")
        if table.status == "lobby" or game is None:
            raise WrongState("The hand hasn't started yet.")
        if game.is_over:
            raise WrongState("This hand is over.")
        seat = table.seat_of(user_id)
        assert game.to_act is not None
        if seat is None:
            raise NotSeated(f"You're not playing at this table. It's "
                            f"{table.seats[game.to_act].name}'s turn.")
        if seat != game.to_act:
            raise NotYourTurn(f"It's {table.seats[game.to_act].name}'s turn.")
        if by == "player" and seat in table.away:
            raise NotAllowed("An AI is playing your seat while you're away: tap **I'm back** "
                             "on the table message first.")
        if version != game.version:
            raise Stale("That button is out of date: the table has moved on, so nothing "
                        "changed. Use the buttons as they are now.")
        if action not in game.legal_actions():
            try:
                game.apply(action, seat)
            except IllegalAction as refused:
                raise Illegal(str(refused)) from None
            raise AssertionError("an unlisted action was applied")  # pragma: no cover
        assert table.hand_id is not None
        trial = game.copy()
        trial.apply(action, seat)
        now = self.clock()
        away, missed, stand_in = set(table.away), list(table.missed), table.stand_in
        if by == "player":
            missed[seat] = 0
        elif by == "stand-in":
            stand_in = True
            missed[seat] += 1
            if missed[seat] >= MISSES_BEFORE_AWAY:
                away.add(seat)
        state = HandState(sorted(away), missed, stand_in, now)
        outcome = trial.outcome()
        finished = None
        if outcome is not None:
            rated = not stand_in and not any(s.ai for s in table.seats)
            finished = Finish(outcome, rated, table.guild_id, [s.user_id for s in table.seats],
                              [s.name for s in table.seats])
        await self.repo.record_action(table.id, table.hand_id, version, seat, action, user_id,
                                      by, state, finished, now)
        table.game = trial
        table.away, table.missed, table.stand_in, table.turn_started = away, missed, \
            stand_in, now
        if trial.is_over:
            table.status = "over"
        table.revision += 1

    async def back(self, table: Table, user_id: int) -> None:
        """The owner of an away seat takes it back from the AI."""
        seat = table.seat_of(user_id)
        if seat is None:
            raise NotSeated("You're not playing at this table.")
        if seat not in table.away:
            raise WrongState("You're not away: your seat is yours.")
        assert table.hand_id is not None
        table.away.discard(seat)
        table.missed[seat] = 0
        table.turn_started = self.clock()
        await self.repo.set_hand_state(table.id, table.hand_id, table.hand_state(),
                                       table.turn_started)
        table.revision += 1


def stored_action(row: aiosqlite.Row) -> Action:
    """An action as the ``actions`` table stores it."""
    return Action.from_json({"act": row["act"], "card": row["card"], "to": row["target"]})
