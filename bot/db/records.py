"""What the database holds, as typed values: the repository returns these, never rows."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from bot.guilds.ratings import Rating
from rules import Action, Game, Outcome, Variant
from rules.replay import Replay


class TableStatus(StrEnum):
    """lobby → playing → over (a hand finished) → playing … → ended; or cancelled."""

    LOBBY = "lobby"
    PLAYING = "playing"
    OVER = "over"
    ENDED = "ended"
    CANCELLED = "cancelled"

    @property
    def is_open(self) -> bool:
        return self in OPEN


OPEN = (TableStatus.LOBBY, TableStatus.PLAYING, TableStatus.OVER)


class By(StrEnum):
    """Who made a move for a seat."""

    PLAYER = "player"  # the person, by a tap
    AI = "ai"  # an AI seat, or the AI keeping an away person's seat
    STAND_IN = "stand-in"  # the AI playing one turn whose timer ran out


class Mark(StrEnum):
    """How a move its player did not choose is marked in the log."""

    FORCED = "forced"  # the only legal move: it played itself
    AI = "ai"  # an AI seat, or the AI keeping an away person's seat
    STAND_IN = "stand-in"  # the AI playing one turn whose timer ran out

    @classmethod
    def of(cls, by: By, *, forced: bool) -> Mark | None:
        """The mark of a move made ``by`` (None: the player chose it)."""
        if forced:
            return cls.FORCED
        return None if by is By.PLAYER else cls(by.value)


@dataclass(frozen=True)
class TableRecord:
    id: int
    guild_id: int | None
    channel_id: int
    host_id: int
    max_seats: int
    variant: Variant
    status: TableStatus
    message_id: int | None
    turn_seconds: int
    quarantined: str | None = None  # why it was stopped at start-up (its hand did not replay)


@dataclass(frozen=True)
class SeatRecord:
    user_id: int  # negative for AI seats
    name: str
    ai: str | None = None


@dataclass(frozen=True)
class HandState:
    """What changes on a hand besides its action log: who the AI plays for, the clock."""

    away: list[int]
    missed: list[int]
    stand_in: bool
    turn_started: float


@dataclass(frozen=True)
class HandRecord:
    """One dealt hand: the deal, its seats, and the state around its action log."""

    id: int
    table_id: int
    number: int
    seed: str
    deck: list[str]
    dealer: int
    players: list[int]
    names: list[str]
    ai: list[str | None]
    variant: Variant
    state: HandState | None  # None: the clock was never started (an old row)
    loser: int | None
    finished: bool
    hints: bool = False  # hints were allowed when it was dealt (the server's setting then)
    assisted: bool = False  # someone used a hint in it


@dataclass(frozen=True)
class ActionRecord:
    seat: int
    action: Action
    by: By
    forced: bool = False  # the only legal move: it played itself


@dataclass(frozen=True)
class StoredHand:
    """A hand and its action log, as stored: replay it to rebuild the game."""

    hand: HandRecord
    actions: list[ActionRecord]

    def replay(self) -> Replay:
        """The hand as an ``nlk-replay/1`` replay."""
        return Replay(tuple(self.hand.names), self.hand.variant,
                      {"dealer": self.hand.dealer, "deck": list(self.hand.deck)},
                      tuple((a.seat, a.action) for a in self.actions))

    def replay_marked(self) -> tuple[Game, dict[int, Mark]]:
        """The game, and how each move not chosen by its player is marked in the log: the
        index of its event in ``Game.history()`` → ``forced``, ``ai`` or ``stand-in``."""
        game = self.replay().new_game()
        marks: dict[int, Mark] = {}
        for record in self.actions:
            before = len(game.events)
            game.apply(record.action, record.seat)
            mark = Mark.of(record.by, forced=record.forced)
            if mark is not None:
                marks[before] = mark
        return game, marks


@dataclass(frozen=True)
class Finish:
    """A finished hand's result, and whether it counts towards ratings."""

    outcome: Outcome
    rated: bool
    guild_id: int | None  # the place: its server, or the group DM or DM it was played in
    players: list[int]
    names: list[str]


@dataclass(frozen=True)
class GuildSettings:
    seats: int = 6
    last_card: str = "keep"
    must_beat_in_suit: bool = False
    turn_seconds: int = 90
    allow_ai: bool = True
    language: str | None = None  # "en", "hu" or "fr"; None: the server's own locale
    pictures: str | None = None  # "on", "four-colour" or "off"; None: on
    seasons: str | None = None  # "monthly" or "quarterly"; None: off (all-time boards only)
    hints: bool = False  # a Hint button on players' hands at real tables


@dataclass(frozen=True)
class RatingRecord:
    user_id: int
    name: str
    mu: float
    sigma: float
    hands: int
    losses: int
    chance_losses: float  # the losses expected by luck alone at the tables played


@dataclass(frozen=True)
class SizeRecord:
    """One player's rating, rank, hands and losses at one table size."""

    players: int
    hands: int
    losses: int
    rating: Rating = field(default_factory=Rating)
    rank: int = 0  # 1: the best rating at this size on the server
    ranked: int = 0  # how many players have a rating at this size
    before: Rating | None = None  # the rating TREND_HANDS hands ago; None: a new player's
