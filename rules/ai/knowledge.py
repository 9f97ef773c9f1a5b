"""What one seat knows, read from its view alone, and games consistent with it.

Phase-one stacks are face up and every card's route is in the public history, so a seat that
remembers knows every stack; the cards it has not seen are the talon (in some unknown order).
In phase two the plays and takes are public too, so after a normal deal every hand is known.
Only a hand started from a shed position leaves other hands partly unknown.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from rules.cards import SUITS, Card, pack
from rules.engine import Game
from rules.phase import Phase
from rules.views import SeatView


@dataclass(frozen=True, slots=True)
class Knowledge:
    """The table as ``seat`` can reconstruct it."""

    seat: int
    phase: Phase
    held: tuple[tuple[Card, ...], ...]  # known cards of each stack (bottom→top) or hand (sorted)
    unknown: tuple[int, ...]  # per seat, how many held cards are not known
    unseen: tuple[Card, ...]  # cards whose place is unknown: talon, unknown hands, out of play

    @property
    def complete(self) -> bool:
        """True when every hand or stack is known exactly."""
        return not any(self.unknown)


def read(view: SeatView) -> Knowledge:
    """Replay the public history of ``view`` (plus the seat's own cards)."""
    if view.seat is None:
        raise ValueError("a spectator's view has no seat to decide for")
    n = view.n
    held: list[list[Card]] = [[] for _ in range(n)]
    drawn: Card | None = None
    played: set[Card] = set()
    for seat, act, card, to in view.history:
        if act in ("deal", "keep"):
            held[seat].append(card)
            drawn = None
        elif act == "draw":
            drawn = card
        elif act == "give":
            if card == drawn:
                drawn = None
            elif held[seat] and held[seat][-1] == card:
                held[seat].pop()
            assert to is not None
            held[to].append(card)
        elif act == "play":
            hand = held[seat]
            if card in hand:  # after a shed position the card may not have been known
                hand.remove(card)
            played.add(card)
        else:  # take
            held[seat].append(card)
            played.discard(card)
    held[view.seat] = list(view.own)  # the seat's own cards are known whatever happened
    if view.phase != Phase.COLLECT:
        for hand in held:
            hand.sort()
    unknown = tuple(max(0, view.counts[s] - len(held[s])) for s in range(n))
    located = {c for hand in held for c in hand} | played
    if view.drawn is not None:
        located.add(view.drawn)
    return Knowledge(
        seat=view.seat,
        phase=view.phase,
        held=tuple(tuple(h) for h in held),
        unknown=unknown,
        unseen=tuple(c for c in pack(n) if c not in located),
    )


def sample_game(view: SeatView, know: Knowledge, rng: random.Random) -> Game:
    """A full game state consistent with everything ``view`` shows, hidden parts drawn at random.

    Its ``events`` and ``actions`` start empty: searches need the state, not the story.
    """
    n = view.n
    game = Game(n, view.variant, view.players)
    pool = list(know.unseen)
    rng.shuffle(pool)
    stacks = [list(h) for h in know.held]
    for s, missing in enumerate(know.unknown):
        if missing:
            stacks[s].extend(pool[-missing:])
            del pool[-missing:]
    game.dealer = view.dealer
    game.to_act = view.to_act
    game.drawn = view.drawn
    game.has_drawn = view.has_drawn
    game.trick = [card for _, card in view.trick]
    game.trick_seats = [seat for seat, _ in view.trick]
    game.trick_size = view.trick_size or 0
    if view.phase == Phase.COLLECT:
        game.phase = Phase.COLLECT
        game.stacks = stacks
        game.talon = pool[:view.talon]
        return game
    game.phase = Phase.SHED
    for hand in stacks:
        hand.sort()
    game.stacks = stacks
    assert view.trump is not None
    game.trump = SUITS.index(view.trump)
    game.out = list(view.out)
    for s in view.out:
        game.is_in[s] = False
    game.in_count = n - len(view.out)
    return game
