"""A replay as steps to look at: the hand after each action, and where its phases and tricks
begin, for stepping through a finished hand (the bot's ``/nlk replay``).

Step 0 is the deal; step ``k`` is the hand after its first ``k`` actions. A replay's actions
stop at the first refused one (as ``Replay.run`` does), so every step is a legal state.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.engine import Game
from rules.errors import IllegalAction
from rules.events import Event
from rules.phase import Phase
from rules.replay import Replay


@dataclass(frozen=True)
class Landmarks:
    """What one pass over the hand finds: how many steps it has, where the shed phase
    starts (None: it never did) and the step before each trick's lead."""

    last: int  # the last step (the number of actions that apply)
    shed: int | None
    tricks: tuple[int, ...]


def landmarks(replay: Replay) -> Landmarks:
    """The hand's steps, its shed phase and its tricks, from one run through it."""
    game = replay.new_game()
    shed: int | None = None
    tricks: list[int] = []
    applied = 0
    for step in range(len(replay.actions) + 1):
        if game.phase is Phase.SHED:
            if shed is None:
                shed = step
            if not game.trick:  # a trick is led from here (R4.4, R4.7)
                tricks.append(step)
        if step == len(replay.actions):
            break
        seat, action = replay.actions[step]
        try:
            game.apply(action, seat)
        except IllegalAction:
            break
        applied += 1
    return Landmarks(applied, shed, tuple(tricks))


@dataclass(frozen=True)
class Step:
    """The hand at one step, and the action that led to it with the events it made."""

    number: int
    game: Game
    mover: int | None  # who made the step's action (None at the deal)
    events: tuple[Event, ...]  # what that action did in public (the deal, at step 0)


def step_of(replay: Replay, number: int) -> Step:
    """The hand after ``number`` actions (clamped to the steps that exist)."""
    game = replay.new_game()
    number = max(0, number)
    before = 0
    mover: int | None = None
    for index, (seat, action) in enumerate(replay.actions[:number]):
        before = len(game.events)
        mover = game.to_act
        try:
            game.apply(action, seat)
        except IllegalAction:
            number = index
            break
    else:
        number = min(number, len(replay.actions))
    if number == 0:
        return Step(0, game, None, game.history())
    return Step(number, game, mover, game.history()[before:])
