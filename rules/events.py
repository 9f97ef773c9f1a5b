"""A hand's public record: what happened, and how the hand ended.

>>> from rules.actions import Act
>>> event = Event(2, "give", Card.parse("9H"), 0)
>>> event.act == Act.GIVE, event
(True, Event(seat=2, act='give', card=Card.parse('9H'), to=0))
>>> Outcome(loser=1, order=(0, 2, 1)).loser
1
"""

from __future__ import annotations

from typing import NamedTuple

from rules.cards import Card


class Event(NamedTuple):
    """A public fact: who did what with which card (``deal``, ``draw``, ``give`` …)."""

    seat: int
    act: str  # an ``Act`` value
    card: Card
    to: int | None = None


class Outcome(NamedTuple):
    """How a finished hand ended (R5.1)."""

    loser: int
    order: tuple[int, ...]  # first out … last out, then the loser
