"""The ``random`` level: a uniformly random legal action, for tests and as a weak field."""

from __future__ import annotations

import random
from collections.abc import Sequence

from rules.actions import Action
from rules.views import SeatView


def choose_random(view: SeatView, rng: random.Random) -> Action:
    return pick(view.legal, rng)


def pick(legal: Sequence[Action], rng: random.Random) -> Action:
    """The random level needs nothing but the legal actions."""
    return legal[rng.randrange(len(legal))]
