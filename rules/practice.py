"""A practice hand (``/nlk practice``): you in seat 0 against 1–8 AI seats at a level you
pick, never rated. The hand is its seed and its moves; anything else is rebuilt by replaying
them through the engine, like a real table's.

Between two of your taps the AI seats move, and your collect moves that leave no choice
play themselves, as at a real table (nothing plays itself in the shed phase, where a move
made for you would tell what your hand lacks).

>>> hand = deal(3, "heuristic", "s1")
>>> hand, told = advance(hand)
>>> game = replay(hand)
>>> game.to_act, len(told) == len(hand.moves)
(0, True)
>>> hand, told = advance(play(hand, game.legal_actions()[0]))
>>> replay(hand).to_act == 0 or replay(hand).is_over
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from rules.actions import Action
from rules.ai import LEVELS, choose
from rules.engine import Game
from rules.errors import InputError
from rules.hint import Hint, suggest
from rules.phase import Phase
from rules.views import observe

PLAYER = 0  # the person practising
MIN_AI, MAX_AI = 1, 8
LEVEL = "heuristic"
# The strong AI thinks this long per move: a tap's answer plays every AI move up to the
# player's next turn, and Discord wants it within 3 s (eight strong seats: at most 0.15 s a
# tap over five hands; at 10 ms, up to 1.1 s).
AI_BUDGET_MS = 5


@dataclass(frozen=True)
class Practice:
    """A practice hand: how many seats (the player's included), the AI's level, the deal's
    seed, every move so far in order (each by the seat then to act), and the hints used."""

    players: int
    level: str
    seed: str
    moves: tuple[Action, ...] = ()
    hints: int = 0

    @property
    def names(self) -> tuple[str, ...]:
        """Seat 0 is "You"; the AI seats are named as at real tables ("AI 2 (strong)")."""
        return ("You", *(f"AI {i} ({self.level})" for i in range(1, self.players)))


def deal(players: int, level: str, seed: str) -> Practice:
    """A new practice hand, checked: 2–9 seats, a level of ``rules.ai``."""
    if not MIN_AI + 1 <= players <= MAX_AI + 1:
        raise InputError(f"a practice hand has 1 to 8 AI seats, not {players - 1}")
    if level not in LEVELS:
        raise InputError(f"unknown AI level {level!r}: use one of {', '.join(LEVELS)}")
    return Practice(players, level, seed)


def replay(hand: Practice, names: tuple[str, ...] | None = None) -> Game:
    """The hand's game now: its deal and every move, each checked by the engine."""
    game = Game.deal(hand.players, random.Random(hand.seed), names=names or hand.names)
    for action in hand.moves:
        game.apply(action)
    return game


def play(hand: Practice, action: Action, game: Game | None = None) -> Practice:
    """The player's move, refused by the engine (``IllegalAction``, with its rule) if the
    rules forbid it or it is not their turn. ``game``: the hand's game, if the caller has
    it (it is played on, unless refused); else the hand is replayed."""
    (replay(hand) if game is None else game).apply(action, PLAYER)
    return replace(hand, moves=(*hand.moves, action))


def advance(hand: Practice, game: Game | None = None
            ) -> tuple[Practice, tuple[tuple[int, Action], ...]]:
    """Play the AI seats, and the player's collect moves that leave no choice, up to the
    player's next choice or the end of the hand; returns the hand and those moves.
    ``game``: the hand's game, if the caller has it (it is played on to the hand
    returned); else the hand is replayed."""
    game = replay(hand) if game is None else game
    made: list[tuple[int, Action]] = []
    while not game.is_over and game.to_act is not None:
        seat = game.to_act
        legal = game.legal_actions()
        if seat == PLAYER:
            if game.phase is not Phase.COLLECT or len(legal) != 1:
                break
            action = legal[0]
        else:
            action = choose(observe(game, seat), hand.level,
                            seed=f"{hand.seed}:{len(hand.moves) + len(made)}",
                            budget_ms=AI_BUDGET_MS)
        game.apply(action, seat)
        made.append((seat, action))
    moves = (*hand.moves, *(action for _seat, action in made))
    return replace(hand, moves=moves), tuple(made)


@dataclass(frozen=True)
class Recent:
    """What a practice message tells above the table: the events since the player's last
    turn (from ``start``, an index of the hand's history: every AI seat's move since, and
    the player's own moves after them), and which events began a player's move that
    played itself (``forced``), so that it can say why."""

    start: int
    forced: frozenset[int]


def recent(hand: Practice) -> Recent:
    """The hand's ``Recent``, from the hand alone: a hint or a refused tap tells the same
    as the tap before it (issue 45: a hint wiped the AI seats' moves from the message)."""
    game = Game.deal(hand.players, random.Random(hand.seed), names=hand.names)
    firsts: list[int] = []
    forced: set[int] = set()
    for action in hand.moves:
        firsts.append(len(game.events))
        if game.to_act == PLAYER and game.phase is Phase.COLLECT \
                and len(game.legal_actions()) == 1:
            forced.add(len(game.events))
        game.apply(action)
    seats = [seat for seat, _action in game.actions]
    latest_ai = max((k for k, seat in enumerate(seats) if seat != PLAYER), default=None)
    if latest_ai is None:
        return Recent(firsts[0] if firsts else len(game.events), frozenset(forced))
    start = latest_ai
    while start > 0 and seats[start - 1] != PLAYER:
        start -= 1
    return Recent(firsts[start], frozenset(forced))


def suggestion(hand: Practice) -> Hint:
    """The Hint for the player at ``hand``, from the hand alone (it is replayed): a job
    small to send to another process."""
    return suggest(replay(hand), seed=len(hand.moves))


def hinted(hand: Practice) -> Practice:
    """The hand with one more hint used."""
    return replace(hand, hints=hand.hints + 1)


def text_of(moves: tuple[Action, ...]) -> str:
    """The moves as stored: rule-book notation, ``;`` between them.

    >>> text_of((Action.parse("draw"), Action.parse("give 9C 2")))
    'draw;give 9C 2'
    """
    return ";".join(str(action) for action in moves)


def moves_of(text: str) -> tuple[Action, ...]:
    """The moves ``text_of`` wrote."""
    return tuple(Action.parse(part) for part in text.split(";") if part)
