"""What one seat may see of a hand — and what anyone may see.

Phase-one stacks are face up, so every card's route is public; a phase-two hand is seen
only by its owner, and the talon's order by nobody. Cogs and AI players read these views,
never the ``Game`` itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.actions import Action
from rules.cards import SUITS, Card
from rules.engine import Game
from rules.events import Event
from rules.phase import Phase
from rules.variant import Variant


@dataclass(frozen=True, slots=True)
class SeatView:
    """A hand seen from ``seat`` (``None``: a spectator, who holds nothing)."""

    seat: int | None
    players: tuple[str, ...]
    variant: Variant
    phase: Phase
    version: int
    dealer: int | None
    to_act: int | None
    talon: int  # cards left, never their order
    drawn: Card | None
    has_drawn: bool
    trump: str | None
    tops: tuple[Card | None, ...]  # stack tops in phase one; None afterwards
    counts: tuple[int, ...]  # stack sizes in phase one, hand sizes afterwards
    own: tuple[Card, ...]  # this seat's stack (bottom→top) or hand (sorted)
    trick: tuple[tuple[int, Card], ...]  # (seat, card), bottom→top
    trick_size: int | None
    out: tuple[int, ...]
    loser: int | None
    history: tuple[Event, ...]
    legal: tuple[Action, ...]  # this seat's legal actions when it is to act

    @property
    def n(self) -> int:
        return len(self.players)

    @property
    def my_turn(self) -> bool:
        return self.seat is not None and self.seat == self.to_act

    @property
    def is_over(self) -> bool:
        return self.loser is not None or self.phase == Phase.OVER

    def name(self, seat: int) -> str:
        return self.players[seat]


def observe(game: Game, seat: int | None) -> SeatView:
    """What ``seat`` may see; ``None`` gives the public view (spectators, table message).

    The observer stands outside the state, as OpenSpiel's ``Observer.set_from(state, player)``
    does, so the engine never needs to know how it is seen.
    """
    collect = game.phase is Phase.COLLECT
    own: tuple[Card, ...] = ()
    if seat is not None:
        own = tuple(game.stacks[seat])
    return SeatView(
        seat=seat,
        players=game.names,
        variant=game.variant,
        phase=game.phase,
        version=game.version,
        dealer=game.dealer,
        to_act=game.to_act,
        talon=len(game.talon),
        drawn=game.drawn,
        has_drawn=game.has_drawn,
        trump=SUITS[game.trump] if game.trump is not None else None,
        tops=tuple(s[-1] if s and collect else None for s in game.stacks),
        counts=tuple(len(s) for s in game.stacks),
        own=own,
        trick=tuple(zip(game.trick_seats, game.trick, strict=True)),
        trick_size=game.trick_size or None,
        out=tuple(game.out),
        loser=game.loser,
        history=game.history(),
        legal=tuple(game.legal_actions()) if seat is not None and seat == game.to_act else (),
    )


def state_json(game: Game) -> dict[str, object]:
    """The whole state as ``python -m rules replay`` prints it (RULES.md §8); not for players."""
    return {
        "phase": game.phase,
        "to_act": game.to_act,
        "drawn": str(game.drawn) if game.drawn is not None else None,
        "talon": len(game.talon),
        "trump": SUITS[game.trump] if game.trump is not None else None,
        "cards": [[str(c) for c in s] for s in game.stacks],
        "trick": [str(c) for c in game.trick],
        "trick_size": game.trick_size or None,
        "out": list(game.out),
        "loser": game.loser,
        "applied": game.version,
        "legal": [a.to_json() for a in game.legal_actions()],
        "error": None,
    }


__all__ = ["SeatView", "observe", "state_json"]
