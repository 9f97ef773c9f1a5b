"""A series of hands at one table: the loser deals the next (R5.1, R2.1)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from .engine import Game, Outcome
from .variant import Variant


def next_dealer(previous: Outcome | None, players: int, rng: random.Random) -> int:
    """The first hand's dealer is random (R2.1); afterwards the loser deals (R5.1)."""
    if previous is None:
        return rng.randrange(players)
    return previous.loser


class Session:
    """Hands dealt one after another at the same seats."""

    def __init__(self, players: int, rng: random.Random, *, variant: Variant | None = None,
                 names: Sequence[str] | None = None) -> None:
        self.players = players
        self.rng = rng
        self.variant = variant
        self.names = names
        self.hands: list[Game] = []

    def next_hand(self) -> Game:
        """Deal a new hand; the previous one must be over."""
        previous = self.hands[-1].outcome() if self.hands else None
        if self.hands and previous is None:
            raise ValueError("the current hand is not over yet (R5.1)")
        dealer = next_dealer(previous, self.players, self.rng)
        game = Game.deal(self.players, self.rng, dealer=dealer, variant=self.variant,
                         names=self.names)
        self.hands.append(game)
        return game
