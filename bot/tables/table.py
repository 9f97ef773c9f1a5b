"""A table's state and what one change did: the values the service hands out.

``Table`` is the database's truth rebuilt in memory; the service hands out snapshots of it
(``Table.snapshot``), which nobody changes. ``Change`` is a snapshot and what happened.
"""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass, field

from bot.db.records import By, Mark, SeatRecord, TableRecord, TableStatus
from bot.errors import BadSetting, NotAllowed, NotPlaying
from rules import Card, Game, SeatView, Variant, observe
from rules.ai.levels import AILevel
from rules.session import dealer_after_reseat

STAND_IN_LEVEL = AILevel.HEURISTIC
MISSES_BEFORE_AWAY = 2
MIN_TURN_SECONDS = 15
MAX_TURN_SECONDS = 3600

Seat = SeatRecord

_revisions = itertools.count(1)


def next_revision() -> int:
    """A revision newer than any this process gave before. A table reloaded from the
    database (another process played first, or a move that played itself was found stored
    already) then never looks older than the snapshots its owner has already shown.

    >>> next_revision() < next_revision()
    True
    """
    return next(_revisions)


def host_only(table: Table, user_id: int, what: str, *, moderator: bool = False) -> None:
    """Only the host (or, where ``moderator`` is given, a moderator) may do ``what``."""
    if user_id != table.host_id and not moderator:
        raise NotAllowed(what)


def check_end(table: Table, user_id: int, *, moderator: bool) -> None:
    """Refuse ``user_id`` ending ``table`` unless it is open and they host it (or can
    manage its channel): asked before the confirmation, and again when ending."""
    if not table.is_open:
        raise NotPlaying("ended")
    host_only(table, user_id, "end", moderator=moderator)


def check_timer(seconds: int) -> int:
    """A turn timer's seconds, if usable: 0 (none) or 15 to 3600."""
    if seconds != 0 and not MIN_TURN_SECONDS <= seconds <= MAX_TURN_SECONDS:
        raise BadSetting("timer", value=seconds, least=MIN_TURN_SECONDS)
    return seconds



@dataclass(frozen=True)
class Moment:
    """A table's hand number and game version (None: no game yet)."""

    hand: int
    version: int | None


@dataclass(frozen=True)
class Deal:
    """A hand's deal: its seats, dealer, seed and deck. A full lobby's first hand is dealt
    ahead (``Table.dealt``) for the Start to come: shown to nobody and written nowhere until
    the Start deals it (its picture is drawn meanwhile); other seats at the Start are dealt
    afresh."""

    seats: tuple[Seat, ...]
    dealer: int
    seed: str
    deck: tuple[Card, ...]


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
    next_seats: list[Seat] = field(default_factory=list)
    hand_id: int | None = None
    hand_number: int = 0
    seed: str | None = None
    seats: list[Seat] = field(default_factory=list)  # the current hand's, in seat order
    game: Game | None = None  # replaced, never changed in place, so snapshots stay true
    away: frozenset[int] = frozenset()  # seats the AI plays until "I'm back"
    missed: tuple[int, ...] = ()  # missed turns in a row, per seat
    stand_in: bool = False  # the AI kept a person's seat (away) in this hand: it is not rated
    turn_started: float = 0.0
    # Renewed on every change the table message shows, from one counter for the whole
    # process (``next_revision``).
    revision: int = field(default_factory=lambda: next_revision())
    # Moves their player did not choose, by the index of their event in the game's history:
    # "forced" (the only legal move, played by itself), "ai" or "stand-in".
    marks: dict[int, Mark] = field(default_factory=dict)
    lapsed: int | None = None  # the seat whose current turn a stand-in is playing
    # A table opened in the channel of one between hands closes it: each names the other
    # (kept for this run only: the messages that say so are drawn meanwhile).
    replaces: int | None = None
    replaced_by: int | None = None
    hints: bool = False  # the server allowed hints when this hand was dealt
    assisted: bool = False  # someone used a hint in this hand
    dealt: Deal | None = field(default=None, repr=False)  # kept for this run only
    # Views already drawn from ``game``, by seat (None: the public one): one change is drawn
    # for the table message, each open hand and the pings, all from the same snapshot.
    _views: dict[int | None, tuple[Game, int, SeatView]] = field(
        default_factory=dict, init=False, repr=False)

    @classmethod
    def from_record(cls, record: TableRecord) -> Table:
        return cls(id=record.id, guild_id=record.guild_id, channel_id=record.channel_id,
                   host_id=record.host_id, max_seats=record.max_seats, variant=record.variant,
                   status=record.status, message_id=record.message_id,
                   turn_seconds=record.turn_seconds)

    def snapshot(self) -> Table:
        """A copy that later changes leave alone (the game is never changed in place),
        without a deal made ahead (``Deal``: nobody is shown it before the Start)."""
        return dataclasses.replace(self, next_seats=list(self.next_seats), seats=list(self.seats),
                                   marks=dict(self.marks), dealt=None)

    @property
    def ready_deal(self) -> Deal | None:
        """The first hand dealt ahead (``dealt``), while the lobby's seats are still the
        ones it was dealt to; None: the Start deals afresh."""
        dealt = self.dealt
        return dealt if dealt is not None and list(dealt.seats) == self.next_seats else None

    @property
    def place(self) -> int:
        """Where the table is played, for its settings, language and boards: its server, or
        for a group DM or a DM (no server), the conversation itself."""
        return self.guild_id if self.guild_id is not None else self.channel_id

    @property
    def private(self) -> bool:
        """Played in a group DM or a DM, where the bot is not a member: it speaks there only
        through the tokens of the interactions it answers."""
        return self.guild_id is None

    def seat_of(self, user_id: int) -> int | None:
        """The user's seat in the current hand."""
        for i, seat in enumerate(self.seats):
            if seat.user_id == user_id:
                return i
        return None

    def in_next_hand(self, user_id: int) -> bool:
        return any(s.user_id == user_id for s in self.next_seats)

    def leaving(self, seat: int) -> bool:
        """Whether the current hand's ``seat`` is not in the next hand (it left, or was
        removed, during this hand: it plays on until the hand ends)."""
        return self.status is TableStatus.PLAYING and \
            not self.in_next_hand(self.seats[seat].user_id)

    def next_dealer(self) -> int | None:
        """The next hand's dealer, as a seat of ``next_seats``, once a hand is over: the loser
        (R5.1), or if the loser left, the next of the last hand's players still seated; None
        when none is (the dealer is then drawn as for a first hand, R2.1)."""
        outcome = self.game.outcome() if self.game is not None else None
        if outcome is None:
            return None
        return dealer_after_reseat(outcome.loser, [s.user_id for s in self.seats],
                                   [s.user_id for s in self.next_seats])

    def public_view(self) -> SeatView | None:
        """What anyone may see of the current hand."""
        return self._view(None) if self.game else None

    def view_of_user(self, user_id: int) -> SeatView | None:
        """The current hand as ``user_id`` may see it (a spectator's view if not seated)."""
        if self.game is None:
            return None
        return self._view(self.seat_of(user_id))

    def seat_view(self, seat: int) -> SeatView:
        return self._view(seat)

    def _view(self, seat: int | None) -> SeatView:
        game = self.game
        assert game is not None
        drawn = self._views.get(seat)
        if drawn is not None and drawn[0] is game and drawn[1] == game.version:
            return drawn[2]
        view = observe(game, seat)
        self._views[seat] = (game, game.version, view)
        return view

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

    def ai_to_act(self) -> AILevel | None:
        """The AI level that plays the seat to act now (an AI seat, or a seat that is away)."""
        game = self.game
        if game is None or game.to_act is None or self.status is not TableStatus.PLAYING:
            return None
        seat = self.seats[game.to_act]
        if seat.ai:
            return AILevel(seat.ai)
        return STAND_IN_LEVEL if game.to_act in self.away else None

    def moment(self) -> Moment:
        """Where the table is: its hand's number and its game's version (a question asked
        privately, such as End table's, carries it and is not answered once it moved on)."""
        return Moment(self.hand_number, self.game.version if self.game else None)

    def turn_key(self) -> tuple[int, int] | None:
        """The turn being played: the hand's number and the game version it began at
        (None: no turn). A turn is one seat's run of moves, however many it makes."""
        game = self.game
        if game is None or game.to_act is None or self.status is not TableStatus.PLAYING:
            return None
        start = game.version
        actions = game.actions
        while start > 0 and actions[start - 1][0] == game.to_act:
            start -= 1
        return self.hand_number, start

    def covered(self) -> bool:
        """A stand-in is playing the current turn for its person (their timer ran out)."""
        game = self.game
        return game is not None and game.to_act is not None and self.lapsed == game.to_act

    def deadline(self) -> float | None:
        """When the person to act runs out of time (None: no timer, or not a person's turn)."""
        if self.turn_seconds <= 0 or self.user_to_act() is None or self.ai_to_act():
            return None
        return self.turn_started + self.turn_seconds

    @property
    def is_open(self) -> bool:
        return self.status.is_open

    @property
    def closing_status(self) -> TableStatus:
        """What the table becomes if it closes now: cancelled before any hand, else ended."""
        return TableStatus.CANCELLED if self.status is TableStatus.LOBBY else TableStatus.ENDED




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
    replaced: Table | None = None  # the table between hands that a new one closed

    @property
    def revision(self) -> int:
        return self.table.revision

    @property
    def turn_moved(self) -> bool:
        """Someone else is to act now (or nobody)."""
        return self.after != self.before



@dataclass(frozen=True)
class AITurn:
    """What the clocks need to let the AI think about a seat's move."""

    table: Table
    seat: int
    version: int
    level: AILevel
    by: By

