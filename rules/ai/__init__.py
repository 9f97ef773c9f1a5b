"""AI players that fill empty seats: ``random``, ``heuristic`` and ``strong``.

``choose`` decides from one seat's view alone — everything public plus the seat's own cards —
so an AI sees exactly what a human in its seat would. It is a pure function of picklable
arguments, safe to run in a process pool away from the bot's event loop.
"""

from __future__ import annotations

from rules.actions import Action
from rules.ai.base import check_turn, rng_for
from rules.ai.heuristic import choose_heuristic, in_loop
from rules.ai.random_player import choose_random
from rules.ai.strong import choose_strong
from rules.views import SeatView

LEVELS = ("random", "heuristic", "strong")
DEFAULT_BUDGET_MS = {"random": 0, "heuristic": 50, "strong": 1000}


def choose(view: SeatView, level: str, *, seed: int | str, budget_ms: int | None = None
           ) -> Action:
    """The action ``level`` takes for ``view.seat``, which must be to act.

    The same view, level, seed and budget give the same action. ``strong`` turns its budget
    into a cap of ``budget_ms * 250`` simulated steps, backed by a wall-clock stop at 85% of
    the budget; only when the clock stops it first (a busy machine) may the answer differ.
    """
    check_turn(view)
    if level not in LEVELS:
        raise ValueError(f"unknown AI level {level!r}: use one of {', '.join(LEVELS)}")
    rng = rng_for(view, level, seed)
    if level == "random" or in_loop(view, rng):
        # Deterministic players can pass the same cards round forever in phase two; a hand
        # that has run far longer than usual gets the occasional random action to end it.
        return choose_random(view, rng)
    if level == "heuristic":
        return choose_heuristic(view, rng)
    budget = DEFAULT_BUDGET_MS[level] if budget_ms is None else budget_ms
    return choose_strong(view, rng, budget)


__all__ = ["DEFAULT_BUDGET_MS", "LEVELS", "choose"]
