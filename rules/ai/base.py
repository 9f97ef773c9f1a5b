"""Shared pieces of the AI players: seeding and the time budget."""

from __future__ import annotations

import random
import time

from rules.actions import Action
from rules.views import SeatView


def rng_for(view: SeatView, level: str, seed: int | str) -> random.Random:
    """A generator fixed by the seed and the decision point, so the same question gets the
    same answer while successive decisions of one hand still differ."""
    return seeded(level, seed, view.seat, view.version)


def seeded(level: str, seed: int | str, seat: int | None, version: int) -> random.Random:
    return random.Random(f"{level}:{seed}:{seat}:{version}")


def check_turn(view: SeatView) -> tuple[Action, ...]:
    """The legal actions, or a ``ValueError`` when the seat has nothing to decide."""
    if not view.my_turn or not view.legal:
        raise ValueError(f"seat {view.seat} is not to act in this view")
    return view.legal


class Budget:
    """A decision's allowance: a count of simulated engine steps (so that a seeded decision is
    reproducible) backed by a wall-clock stop (so that a slow machine still answers on time)."""

    __slots__ = ("deadline", "steps", "steps_left")

    def __init__(self, steps: int, seconds: float) -> None:
        self.steps = steps
        self.steps_left = steps
        self.deadline = time.perf_counter() + seconds

    def spend(self, steps: int) -> None:
        self.steps_left -= steps

    @property
    def exhausted(self) -> bool:
        return self.steps_left <= 0 or time.perf_counter() >= self.deadline
