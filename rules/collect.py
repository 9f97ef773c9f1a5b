"""Phase one of a hand, collecting (R3): what the player to act may do, and what each move does.

``Game`` holds the state and calls these when its phase is collect; they live apart from the
shed phase (R4) so that each module stays short enough to read in one go.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rules.actions import _GIVE, DRAW, KEEP, Action
from rules.cards import MAX_PLAYERS, MIN_PLAYERS, RANK, SUIT, Card, lowest_rank

if TYPE_CHECKING:
    from rules.engine import Game


def need_table(n: int) -> tuple[int, ...]:
    """For each card number, the rank a card must have to fit on it (R3.2)."""
    return _NEED[n]


def collect_legal(game: Game) -> list[Action]:
    """The gives that fit, then draw or keep, for ``game.to_act`` (R3.2, R3.3)."""
    s = game.to_act
    assert s is not None
    stacks = game.stacks
    card = game.drawn
    if card is None:
        mine = stacks[s]
        if game.has_drawn or not mine:
            return [DRAW]  # R3.3: stack gives only before the first draw
        card = mine[-1]
        tail = DRAW
    else:
        tail = KEEP
    rank = RANK[card]
    gives = _GIVE[card]
    need = game._need
    legal = []
    for t, st in enumerate(stacks):  # a loop: a comprehension is one more call on Python 3.11
        if st and need[st[-1]] == rank and t != s:
            legal.append(gives[t])
    legal.append(tail)
    return legal


def draw(game: Game, s: int) -> None:
    card = game.talon.pop()
    game.drawn = card
    game.has_drawn = True
    game.events.append((s, "draw", card, None))
    if not game.talon and game.variant.last_card == "keep":
        keep(game, s)  # R3.4: phase one ends as the last card is drawn; it is kept


def give(game: Game, s: int, card: Card, to: int) -> None:
    if game.drawn is None:
        game.stacks[s].pop()
    else:
        game.drawn = None
    game.stacks[to].append(card)
    game.events.append((s, "give", card, to))
    if not game.talon:
        game._begin_shed(s, SUIT[card])  # R6.1 free: the last card was given away


def keep(game: Game, s: int) -> None:
    card = game.drawn
    assert card is not None
    game.stacks[s].append(card)
    game.drawn = None
    game.events.append((s, "keep", card, None))
    if not game.talon:
        game._begin_shed(s, SUIT[card])
    else:
        game.to_act = (s + 1) % game.n
        game.has_drawn = False


# One table per player count, built once rather than at every deal.
_NEED = {n: tuple(lowest_rank(n) if (v & 15) == 14 else (v & 15) + 1 for v in range(64))
         for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)}
