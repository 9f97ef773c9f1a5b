"""A hand's public record: what happened, and how the hand ended.

>>> Event(2, Act.GIVE, Card.parse("9H"), 0)
Event(seat=2, act=<Act.GIVE: 'give'>, card=Card.parse('9H'), to=0)
>>> Outcome(loser=1, order=(0, 2, 1)).loser
1
"""

from __future__ import annotations

from typing import NamedTuple

from rules.actions import Act
from rules.cards import Card


class Event(NamedTuple):
    """A public fact: who did what with which card (``deal``, ``draw``, ``give`` …)."""

    seat: int
    act: Act
    card: Card
    to: int | None = None


class Outcome(NamedTuple):
    """How a finished hand ended (R5.1)."""

    loser: int
    order: tuple[int, ...]  # first out … last out, then the loser
