"""Ratings with uncertainty, from each hand's full finishing order (openskill, Plackett–Luce).

First out ranks best, the loser worst. Ratings are kept per table size: a hand at four seats
moves only the four-seat ratings. A player is provisional at a size until they have played
``PROVISIONAL_HANDS`` rated hands there.

Players read one number, ``Rating.shown``: the cautious estimate μ − 3σ, which starts at 0
and grows as a player keeps finishing well and the estimate firms up; the leaderboard is
sorted by it, so a higher rating always means a higher rank.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
PROVISIONAL_HANDS = 10
TREND_HANDS = 20  # a trend compares the rating now with the one this many hands ago


@dataclass(frozen=True)
class Rating:
    mu: float = MODEL.mu
    sigma: float = MODEL.sigma

    @property
    def shown(self) -> float:
        """The rating players read and the leaderboard's order: the cautious μ − 3σ."""
        return self.mu - 3 * self.sigma


def rate(order: Sequence[Rating]) -> list[Rating]:
    """New ratings for players listed in finishing order (first out … loser)."""
    teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in order]
    rated = MODEL.rate(teams, ranks=list(range(1, len(order) + 1)))
    return [Rating(team[0].mu, team[0].sigma) for team in rated]


@dataclass(frozen=True)
class Placed:
    """One stored result: a player's finishing place in a rated hand."""

    hand_id: int
    guild_id: int
    user_id: int
    players: int
    place: int


@dataclass
class SizeRating:
    """A player's rating at one table size on one server, with its hands and losses."""

    rating: Rating
    hands: int = 0
    losses: int = 0


Key = tuple[int, int, int]  # (guild, players, user)


def rate_all(results: Iterable[Placed]) -> tuple[dict[Key, SizeRating],
                                                  dict[tuple[int, int], Rating]]:
    """Every per-size rating from the stored results, replayed hand by hand in the order
    the hands were played (by hand id), and the rating each result led to, by
    ``(hand_id, user_id)``: what the start-up step writes after migration 0006."""
    by_hand: dict[int, list[Placed]] = {}
    for result in results:
        by_hand.setdefault(result.hand_id, []).append(result)
    ratings: dict[Key, SizeRating] = {}
    after: dict[tuple[int, int], Rating] = {}
    for hand_id in sorted(by_hand):
        order = sorted(by_hand[hand_id], key=lambda r: r.place)
        keys = [(r.guild_id, r.players, r.user_id) for r in order]
        old = [ratings[k].rating if k in ratings else Rating() for k in keys]
        for result, key, new in zip(order, keys, rate(old), strict=True):
            kept = ratings.setdefault(key, SizeRating(new))
            kept.rating = new
            kept.hands += 1
            kept.losses += int(result.place == result.players)
            after[(hand_id, result.user_id)] = new
    return ratings, after
