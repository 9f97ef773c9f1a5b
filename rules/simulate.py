"""Random legal play, many hands in a row: the engine's speed benchmark."""

from __future__ import annotations

import random
import time
from typing import Any

from rules.engine import Game
from rules.variant import Variant


def simulate(players: int, games: int, seed: object, variant: Variant | None = None
             ) -> dict[str, Any]:
    """Play ``games`` complete hands choosing uniformly among the legal actions."""
    rng = random.Random(seed)  # type: ignore[arg-type]
    pick = rng.random
    losses = [0] * players
    actions = 0
    started = time.perf_counter()
    for _ in range(games):
        game = Game.deal(players, rng, variant=variant)
        legal_actions = game.legal_actions
        advance = game._advance  # the action comes from legal_actions: no need to check it
        while game.loser is None:
            legal = legal_actions()
            advance(legal[int(pick() * len(legal))])
        actions += game.version
        losses[game.loser] += 1
    seconds = time.perf_counter() - started
    return {
        "players": players,
        "games": games,
        "actions": actions,
        "seconds": round(seconds, 3),
        "games_per_second": round(games / seconds, 1) if seconds else None,
        "actions_per_second": round(actions / seconds) if seconds else None,
        "losses": losses,
    }
