"""``python -m rules arena``: measure one AI level against a field of another.

Every deal is played once with the measured player in each seat, so seat position and
deal luck cancel out; hands are spread over worker processes. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from rules.ai import DEFAULT_BUDGET_MS, LEVELS, choose
from rules.ai.base import seeded
from rules.ai.random_player import pick
from rules.cards import check_players
from rules.cli import add_deal_arguments, variant_of
from rules.engine import Game
from rules.variant import Variant
from rules.views import observe

# A guard against a hand that never ends; the AIs break loops long before this.
MAX_HAND_ACTIONS = 100_000


@dataclass(frozen=True, slots=True)
class Setup:
    """Everything a worker needs to play its share of hands."""

    players: int
    seed: str
    player: str
    field: str
    budget_ms: int | None
    variant: Variant
    field_budget_ms: int | None = None  # None: the same as budget_ms

    def budget_of(self, level: str, measured: bool) -> int:
        """The thinking time per decision of the measured seat or of a field seat."""
        budget = self.budget_ms if measured or self.field_budget_ms is None else \
            self.field_budget_ms
        return DEFAULT_BUDGET_MS[level] if budget is None else budget


def play_hand(setup: Setup, deal: int, seat: int) -> tuple[bool, list[float]]:
    """Play deal number ``deal`` with the measured player in ``seat``.

    Returns whether that seat lost, and its decision times in milliseconds (only decisions
    with a real choice: a single legal action is answered without thinking).
    """
    game = Game.deal(setup.players, random.Random(f"{setup.seed}:{deal}"),
                     variant=setup.variant)
    times: list[float] = []
    while not game.is_over:
        if game.version >= MAX_HAND_ACTIONS:
            raise RuntimeError(f"deal {deal} did not end in {MAX_HAND_ACTIONS} actions")
        s = game.to_act
        assert s is not None
        level = setup.player if s == seat else setup.field
        ai_seed = f"{setup.seed}:{deal}:{seat}:{s}"
        if level == "random" and s != seat:
            # What choose(view, "random") does, without building a view (and its history,
            # the slow part of long random hands) that the random level never reads.
            game.apply(pick(game.legal_actions(), seeded(level, ai_seed, s, game.version)), s)
            continue
        view = observe(game, s)
        budget = setup.budget_of(level, s == seat)
        if s == seat and len(view.legal) > 1:
            started = time.perf_counter()
            action = choose(view, level, seed=ai_seed, budget_ms=budget)
            times.append((time.perf_counter() - started) * 1000)
        else:
            action = choose(view, level, seed=ai_seed, budget_ms=budget)
        game.apply(action, s)
    return game.loser == seat, times


def _play_chunk(setup: Setup, tasks: list[tuple[int, int]]) -> tuple[int, list[float]]:
    losses = 0
    times: list[float] = []
    for deal, seat in tasks:
        lost, t = play_hand(setup, deal, seat)
        losses += lost
        times.extend(t)
    return losses, times


def _chunks(tasks: list[tuple[int, int]], size: int) -> Iterator[list[tuple[int, int]]]:
    for i in range(0, len(tasks), size):
        yield tasks[i:i + size]


def run_arena(setup: Setup, games: int, jobs: int = 1) -> dict[str, object]:
    """Play at least ``games`` hands (rounded up to whole deals, one per seat) and report."""
    n = setup.players
    deals = max(1, math.ceil(games / n))
    tasks = [(d, s) for d in range(deals) for s in range(n)]
    losses = 0
    times: list[float] = []
    if jobs <= 1:
        losses, times = _play_chunk(setup, tasks)
    else:
        # Small chunks keep both workers busy to the end; hand lengths vary a lot.
        size = max(1, len(tasks) // (jobs * 8))
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(_play_chunk, setup, chunk) for chunk in _chunks(tasks, size)]
            for future in futures:
                lost, t = future.result()
                losses += lost
                times.extend(t)
    played = len(tasks)
    times.sort()
    return {
        "players": n,
        "games": played,
        "player": setup.player,
        "field": setup.field,
        "budget_ms": setup.budget_of(setup.player, True),
        "field_budget_ms": setup.budget_of(setup.field, False),
        "losses": losses,
        "loss_rate": round(losses / played, 4),
        "ci95": [round(x, 4) for x in wilson(losses, played)],
        "chance": round(1 / n, 4),
        "decision_ms_p50": round(percentile(times, 0.50), 2),
        "decision_ms_p99": round(percentile(times, 0.99), 2),
    }


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval for ``k`` successes in ``n`` trials."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile(sorted_values: list[float], q: float) -> float:
    """The nearest-rank percentile of already sorted values (0 when there are none)."""
    if not sorted_values:
        return 0.0
    index = min(len(sorted_values) - 1, max(0, math.ceil(q * len(sorted_values)) - 1))
    return sorted_values[index]


def add_command(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("arena", help="measure an AI level against a field of another")
    add_deal_arguments(p, seed="0")
    p.add_argument("--games", type=int, default=60,
                   help="hands to play, rounded up to a multiple of --players")
    p.add_argument("--player", choices=LEVELS, default="strong", help="the level measured")
    p.add_argument("--field", choices=LEVELS, default="heuristic", help="everyone else")
    p.add_argument("--budget-ms", type=int, default=None,
                   help="thinking time per decision of the measured seat, and of the field "
                   "unless --field-budget-ms is given (default: each level's own)")
    p.add_argument("--field-budget-ms", type=int, default=None,
                   help="thinking time per decision of the field's seats")
    p.add_argument("--jobs", type=int, default=1, help="worker processes")
    p.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    check_players(args.players)
    budgets = (args.budget_ms, args.field_budget_ms)
    if args.games < 1 or args.jobs < 1 or any(b is not None and b < 0 for b in budgets):
        print("error: --games and --jobs must be at least 1, --budget-ms and "
              "--field-budget-ms at least 0", file=sys.stderr)
        return 2
    setup = Setup(args.players, str(args.seed), args.player, args.field, args.budget_ms,
                  variant_of(args), args.field_budget_ms)
    print(json.dumps(run_arena(setup, args.games, args.jobs)))
    return 0
