"""The ``strong`` level: determinized Monte Carlo search with heuristic playouts.

Each iteration draws one *world* — a full game consistent with the seat's view (a talon
order in phase one; in phase two hands are known after a normal deal) — then tries every
legal action in it and plays the hand out with the (slightly randomized) heuristic for all
seats. All actions share the world and the random stream (common random numbers), so their
comparison is sharp even with few iterations. The action that loses least often wins.
"""

from __future__ import annotations

import random

from rules.actions import Action
from rules.ai.base import Budget
from rules.ai.heuristic import decide, loop_noise, shed_steps
from rules.ai.knowledge import read, sample_game
from rules.engine import Game
from rules.views import SeatView

# Simulated engine steps per millisecond of budget. The search simulates about 500 steps per
# millisecond on one idle core, so the step cap (reproducible) normally ends the search at
# about half the budget, and the clock (not reproducible) only on a busy or slow machine.
STEPS_PER_MS = 250
# The wall-clock stop, as a share of the budget: setup and the last playout come on top.
TIME_SHARE = 0.85
# How often a simulated player departs from the heuristic: models opponents who are not
# exactly the heuristic, and keeps the search from trusting one brittle line of play.
NOISE = 0.05
# A playout this long is going in circles: score it by the cards still held.
MAX_PLAYOUT_STEPS = 4000


def choose_strong(view: SeatView, rng: random.Random, budget_ms: int) -> Action:
    """The ``strong`` level's decision from one seat's view."""
    if len(view.legal) == 1:
        return view.legal[0]
    return search(view, rng, Budget(max(1, budget_ms) * STEPS_PER_MS,
                                    budget_ms / 1000 * TIME_SHARE))


def search(view: SeatView, rng: random.Random, budget: Budget) -> Action:
    """The legal action that loses least often over sampled worlds, within ``budget``.

    The heuristic's own choice is tried first, so that even a budget too small for one
    whole world returns the rule of thumb, and the search only overrides it on evidence.
    """
    me = view.seat
    assert me is not None
    know = read(view)
    first = sample_game(view, know, random.Random(rng.getrandbits(64)))
    fallback = decide(first)
    actions = [fallback, *(a for a in view.legal if a != fallback)]
    steps0 = shed_steps(view)
    losses = [0.0] * len(actions)
    worlds = 0
    while worlds == 0 or not budget.exhausted:
        world_seed = rng.getrandbits(64)
        root = first if worlds == 0 else sample_game(view, know, random.Random(world_seed))
        results = []
        for action in actions:
            game = root.copy()
            game.apply(action)
            results.append(_playout(game, me, random.Random(world_seed), steps0, budget))
            if budget.exhausted:
                break
        if len(results) < len(actions) and worlds > 0:
            break  # an unfinished world would compare actions on different footing
        for i, r in enumerate(results):
            losses[i] += r
        worlds += 1
        if len(results) < len(actions):
            del actions[len(results):]  # out of time in the first world: judge what was tried
            break
    best = min(losses[:len(actions)])
    return actions[losses.index(best)]  # the first of equals, so the heuristic's on a tie


def _playout(game: Game, me: int, rng: random.Random, steps0: int, budget: Budget) -> float:
    """Play to the end with the noisy heuristic; 1.0 when ``me`` loses."""
    steps = 0
    shed = steps0
    noise = NOISE
    # Every action below is one of legal_actions() (the heuristic picks from that list too),
    # so it is applied without checking it a second time.
    apply = game._advance
    legal_actions = game.legal_actions
    pick = rng.random
    while game.loser is None:
        legal = legal_actions()
        if len(legal) == 1:
            action = legal[0]
        elif pick() < noise:
            action = legal[int(pick() * len(legal))]
        else:
            action = decide(game)
        apply(action)
        steps += 1
        if game.trump is not None:
            shed += 1
            if shed & 63 == 0:
                noise = max(NOISE, loop_noise(game.n, shed))
        if steps >= MAX_PLAYOUT_STEPS:
            budget.spend(steps)
            return _by_cards(game, me)
    budget.spend(steps)
    return 1.0 if game.loser == me else 0.0


def _by_cards(game: Game, me: int) -> float:
    """A share of the loss by hand size, for a playout cut short."""
    most = max(len(h) for h in game.stacks)
    holders = [s for s, h in enumerate(game.stacks) if len(h) == most]
    return 1.0 / len(holders) if me in holders else 0.0
