"""The ``heuristic`` level: fast rules of thumb, also the playout policy of ``strong``.

It reads a ``Game`` that holds only what the deciding seat knows (built from its view by
``knowledge.sample_game``, or a simulated game inside a search) and uses only the public
counts and the seat's own cards: the talon's order and other players' hands never matter.

Why these rules: every card pushed away in phase one is one fewer to shed. In phase two
high cards and trumps are what beats, so lead the weakest card and beat as cheaply as
possible. Two tempting alternatives are worse in play: leading a high card the next player
cannot beat hands them that card, and taking to save a trump costs two cards of tempo.
"""

from __future__ import annotations

import random

from rules.actions import Action
from rules.ai.knowledge import read, sample_game
from rules.cards import RANK, SUIT
from rules.engine import Game
from rules.phase import Phase
from rules.views import SeatView

# Past this many phase-two actions per card in the pack a hand is going round in circles
# (players can pass the same cards around forever), so a little randomness breaks the loop.
LOOP_STEPS_PER_CARD = 10
LOOP_NOISE = 0.2


def decide(game: Game) -> Action:
    """The heuristic's action for ``game.to_act``."""
    legal = game.legal_actions()
    if len(legal) == 1:
        return legal[0]
    if game.phase is Phase.COLLECT:
        return _give(game, legal)
    if game.trick:
        return legal[0]  # the cheapest beat: the engine lists in-suit beats first, lowest first
    trump = game.trump
    best = legal[0]
    best_key = 99
    for action in legal:  # lead the weakest card, keeping trumps and high cards for beating
        card = action[1]
        assert card is not None
        key = RANK[card] + (20 if SUIT[card] == trump else 0)
        if key < best_key:
            best, best_key = action, key
    return best


def _give(game: Game, legal: list[Action]) -> Action:
    """Give whenever a card fits (one card fewer to shed later), to the biggest stack:
    piling cards on one player makes them the likely loser instead of anyone else."""
    stacks = game.stacks
    best = legal[0]
    best_size = -1
    for action in legal[:-1]:
        to = action[2]
        assert to is not None
        if len(stacks[to]) > best_size:
            best, best_size = action, len(stacks[to])
    return best


def loop_noise(players: int, shed_steps: int) -> float:
    """How often to act at random after ``shed_steps`` phase-two actions."""
    return LOOP_NOISE if shed_steps > LOOP_STEPS_PER_CARD * 4 * (players + 4) else 0.0


def shed_steps(view: SeatView) -> int:
    """Phase-two actions so far, from the public history."""
    return sum(1 for event in view.history if event.act in ("play", "take"))


def in_loop(view: SeatView, rng: random.Random) -> bool:
    """Whether to break a possible loop with a random action now."""
    return view.phase != Phase.COLLECT and rng.random() < loop_noise(view.n, shed_steps(view))


def choose_heuristic(view: SeatView, rng: random.Random) -> Action:
    """The ``heuristic`` level's decision from one seat's view."""
    legal = view.legal
    if len(legal) == 1:
        return legal[0]
    return decide(sample_game(view, read(view), rng))
