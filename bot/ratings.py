"""Ratings with uncertainty, from each hand's full finishing order (openskill, Plackett–Luce).

First out ranks best, the loser worst. A player is provisional until they have played
``PROVISIONAL_HANDS`` rated hands.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
PROVISIONAL_HANDS = 10


@dataclass(frozen=True)
class Rating:
    mu: float = MODEL.mu
    sigma: float = MODEL.sigma

    @property
    def ordinal(self) -> float:
        """A cautious single number (μ − 3σ), used to sort the leaderboard."""
        return self.mu - 3 * self.sigma

    def display(self) -> str:
        return f"{self.mu:.1f} ± {2 * self.sigma:.1f}"


def rate(order: Sequence[Rating]) -> list[Rating]:
    """New ratings for players listed in finishing order (first out … loser)."""
    teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in order]
    rated = MODEL.rate(teams, ranks=list(range(1, len(order) + 1)))
    return [Rating(team[0].mu, team[0].sigma) for team in rated]
