"""One hand of NLK as a state machine: deal (R2), collect (R3), shed (R4).

>>> import random
>>> game = Game.deal(4, random.Random(7))
>>> str(game.phase), len(game.legal_actions()) > 0, game.version
('collect', True, 0)
>>> while not game.is_over:
...     game.apply(game.legal_actions()[-1])
>>> game.outcome().loser in range(4)
True
"""

from __future__ import annotations

import random
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from typing import Any

from rules.actions import _GIVE, _PLAY, DRAW, KEEP, TAKE, Action
from rules.cards import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    RANK,
    SUIT,
    SUITS,
    TEXT,
    Card,
    check_players,
    lowest_rank,
    pack,
)
from rules.deal import check_cards, check_seat, players_for
from rules.errors import DealError, IllegalAction
from rules.events import Event, Outcome
from rules.explain import refusal
from rules.phase import COLLECT, OVER, SHED, Phase
from rules.variant import Variant

__all__ = ["Event", "Game", "Outcome"]


class Game:
    """The full state of one hand: the deal plus every action applied to it."""

    __slots__ = (
        "_after", "_legal", "_named", "_need", "_plays", "actions", "dealer", "drawn", "events",
        "has_drawn", "in_count", "is_in", "loser", "n", "names", "out", "phase", "stacks", "start",
        "talon", "to_act", "trick", "trick_seats", "trick_size", "trump", "variant",
    )

    def __init__(self, n: int, variant: Variant | None = None,
                 names: Sequence[str] | None = None) -> None:
        self.n = check_players(n)
        self.variant = variant or Variant()
        if names is None:
            names = [f"Seat {i}" for i in range(n)]
        if len(names) != n:
            raise DealError(f"{len(names)} names for {n} players")
        self.names: tuple[str, ...] = tuple(names)
        self._need = _NEED[n]  # for each card, the rank that fits on it (R3.2)
        self.phase: Phase = COLLECT
        self.dealer: int | None = None
        self.to_act: int | None = None
        self.stacks: list[list[Card]] = [[] for _ in range(n)]  # hands in phase two
        self.talon: list[Card] = []  # bottom first, so drawing is pop()
        self.drawn: Card | None = None
        self.has_drawn = False
        self.trump: int | None = None
        self.trick: list[Card] = []
        self.trick_seats: list[int] = []
        self.trick_size = 0
        self.is_in = [True] * n
        self.in_count = n
        self.out: list[int] = []
        self.loser: int | None = None
        self.actions: list[tuple[int, Action]] = []
        self.events: list[tuple[int, str, Card, int | None]] = []  # see Event
        self._named: list[Event] = []  # the events as Events, extended as views ask for them
        self.start: dict[str, Any] = {}
        self._legal: list[Action] | None = None
        # In the shed phase, each hand's play actions in the hand's order, so a seat's legal
        # plays are slices of it; built when first asked for (see ``legal_actions``).
        self._plays: list[list[Action]] | None = None
        # For each seat, the next seat still in (R4.8), so that passing the turn is a lookup;
        # built from ``is_in`` when first needed and dropped whenever a player goes out.
        self._after: list[int] | None = None

    # --- starting a hand -------------------------------------------------------------------

    @classmethod
    def deal(cls, players: int, rng: random.Random, *, dealer: int | None = None,
             variant: Variant | None = None, names: Sequence[str] | None = None) -> Game:
        """Shuffle with ``rng`` and deal; a missing dealer is drawn from ``rng`` (R2.1)."""
        deck = list(pack(players))
        rng.shuffle(deck)
        if dealer is None:
            dealer = rng.randrange(players)
        return cls.from_deck(deck, dealer, variant=variant, names=names)

    @classmethod
    def from_deck(cls, deck: Iterable[Card | str], dealer: int, *,
                  variant: Variant | None = None, names: Sequence[str] | None = None,
                  players: int | None = None) -> Game:
        """Deal ``deck`` (top first): one card to each seat from ``dealer + 1`` (R2.2)."""
        cards = [c if isinstance(c, Card) else Card.parse(c) for c in deck]
        n = players if players is not None else len(names) if names else players_for(cards)
        game = cls(n, variant, names)
        check_cards(cards, n, whole_pack=True)
        game.dealer = check_seat(dealer, n, "the dealer")
        for i in range(n):
            seat = (dealer + 1 + i) % n
            game.stacks[seat].append(cards[i])
            game.events.append((seat, "deal", cards[i], None))
        game.talon = cards[:n - 1:-1]
        game.to_act = (dealer + 1) % n
        game.start = {"dealer": dealer, "deck": [TEXT[c] for c in cards]}
        return game

    @classmethod
    def from_collect_position(cls, stacks: Sequence[Sequence[Card]], talon: Sequence[Card],
                              to_act: int, *, variant: Variant | None = None,
                              names: Sequence[str] | None = None) -> Game:
        """Start of ``to_act``'s collect turn, nothing drawn yet (RULES.md §8)."""
        n = len(stacks)
        game = cls(n, variant, names)
        check_cards([c for s in stacks for c in s] + list(talon), n, whole_pack=False)
        if not talon:
            raise DealError("a collect position needs at least one talon card")
        game.to_act = check_seat(to_act, n, "to_act")
        for seat, stack in enumerate(stacks):
            game.stacks[seat] = list(stack)
            game.events.extend((seat, "deal", c, None) for c in stack)
        game.talon = list(reversed(talon))
        game.start = {"position": {
            "phase": Phase.COLLECT, "stacks": [[str(c) for c in s] for s in stacks],
            "talon": [str(c) for c in talon], "to_act": to_act}}
        return game

    @classmethod
    def from_shed_position(cls, hands: Sequence[Sequence[Card]], trump: int, to_act: int, *,
                           variant: Variant | None = None,
                           names: Sequence[str] | None = None) -> Game:
        """A fresh trick to be led by ``to_act`` (RULES.md §8); empty hands are out (R4.1)."""
        n = len(hands)
        game = cls(n, variant, names)
        check_cards([c for h in hands for c in h], n, whole_pack=False)
        if not any(hands):
            raise DealError("a shed position needs at least one player holding cards")
        if isinstance(trump, bool) or not isinstance(trump, int) or not 0 <= trump < 4:
            raise DealError(f"trump must be a suit, not {trump!r}")
        check_seat(to_act, n, "to_act")
        game.stacks = [list(h) for h in hands]
        game.start = {"position": {
            "phase": Phase.SHED, "hands": [[str(c) for c in h] for h in hands],
            "trump": SUITS[trump], "to_act": to_act}}
        game._begin_shed(to_act, trump)
        return game

    # --- the state-machine surface ---------------------------------------------------------

    @property
    def version(self) -> int:
        """How many actions have been applied; the bot refuses clicks made at another one."""
        return len(self.actions)

    @property
    def is_over(self) -> bool:
        return self.phase is OVER

    def outcome(self) -> Outcome | None:
        """The loser and the full finishing order, once the hand is over (R4.9, R5.1)."""
        if self.loser is None:
            return None
        return Outcome(self.loser, (*self.out, self.loser))

    def legal_actions(self) -> list[Action]:
        """Every action open to ``to_act``, in a stable order. Do not modify the list.

        The shed phase's plays are worked out here rather than in a helper, as that phase is
        most of a hand's moves.
        """
        legal = self._legal
        if legal is not None:
            return legal
        if self.phase is not SHED:
            legal = self._legal = self._collect_legal() if self.phase is COLLECT else []
            return legal
        s = self.to_act
        assert s is not None
        all_plays = self._plays
        if all_plays is None:
            all_plays = self._plays = [[_PLAY[c] for c in h] for h in self.stacks]
        plays = all_plays[s]
        trick = self.trick
        if not trick:
            legal = self._legal = plays[:]  # R4.4: any card leads
            return legal
        hand = self.stacks[s]
        top = trick[-1]
        suit = top >> 4
        trump = self.trump
        assert trump is not None
        # Hands are sorted, so the cards of one suit above a card are one slice (R4.2).
        lo = bisect_right(hand, top)
        hi = bisect_left(hand, (suit + 1) << 4, lo)
        legal = plays[lo:hi]
        if suit != trump and not (legal and self.variant.must_beat_in_suit):
            tlo = bisect_left(hand, trump << 4)
            legal += plays[tlo:bisect_left(hand, (trump + 1) << 4, tlo)]
        legal.append(TAKE)
        self._legal = legal
        return legal

    def check(self, action: Action, seat: int | None = None) -> IllegalAction | None:
        """Why ``action`` by ``seat`` (default: ``to_act``) is refused, or None if it is legal.

        Only looks, never changes the game, as python-chess's ``is_legal`` beside ``push``.
        The refusal names the rule and says why in words a player understands:

        >>> import random
        >>> from rules.actions import DRAW, TAKE
        >>> game = Game.deal(4, random.Random(7))
        >>> game.check(DRAW) is None, game.check(TAKE).rule, game.version
        (True, 'R3.3', 0)
        """
        legal = self._legal
        if legal is None:
            legal = self.legal_actions()
        if (seat is None or seat == self.to_act) and action in legal:
            return None
        return refusal(self, action, self.to_act if seat is None else seat)

    def apply(self, action: Action, seat: int | None = None) -> None:
        """Apply ``action`` for ``to_act`` (or check that ``seat`` is to act first).

        Anything ``check`` refuses is raised as that ``IllegalAction``, and the state is left
        exactly as it was.
        """
        # ``check`` inlined: this is the engine's innermost public call.
        legal = self._legal
        if legal is None:
            legal = self.legal_actions()
        s = self.to_act
        if action not in legal or (seat is not None and seat != s):
            raise refusal(self, action, s if seat is None else seat)
        self._advance(action)

    def _advance(self, action: Action) -> None:
        """Apply ``action``, known to be one of ``legal_actions()``, without checking it again.

        For callers that picked it from that list themselves, such as ``simulate``.
        """
        s = self.to_act
        assert s is not None
        self._legal = None
        self.actions.append((s, action))
        act = action[0]
        if act == "play":
            self._play(s, action[1])  # type: ignore[arg-type]
        elif act == "take":
            self._take(s)
        elif act == "draw":
            self._draw(s)
        elif act == "give":
            self._give(s, action[1], action[2])  # type: ignore[arg-type]
        else:
            self._keep(s)

    def history(self) -> tuple[Event, ...]:
        """Every public event so far, oldest first (each made into an ``Event`` once)."""
        named, events = self._named, self.events
        if len(named) < len(events):
            named.extend(map(Event._make, events[len(named):]))
        return tuple(named)

    def copy(self) -> Game:
        """An independent copy, for search."""
        g = Game.__new__(Game)
        for name in ("n", "variant", "names", "_need", "phase", "dealer", "to_act", "drawn",
                     "has_drawn", "trump", "trick_size", "in_count", "loser", "start"):
            setattr(g, name, getattr(self, name))
        for name in ("talon", "trick", "trick_seats", "is_in", "out", "actions", "events"):
            setattr(g, name, list(getattr(self, name)))
        g.stacks = [list(s) for s in self.stacks]
        g._named = list(self._named)  # Events are immutable, and the copy's events start alike
        g._legal = self._legal
        g._after = self._after  # never changed in place, so it can be shared
        g._plays = None if self._plays is None else [list(p) for p in self._plays]
        return g

    # --- phase one, collecting (R3) ---------------------------------------------------------

    def _collect_legal(self) -> list[Action]:
        """The gives that fit, then draw or keep, for the seat to act (R3.2, R3.3)."""
        s = self.to_act
        assert s is not None
        stacks = self.stacks
        card = self.drawn
        if card is None:
            mine = stacks[s]
            if self.has_drawn or not mine:
                return [DRAW]  # R3.3: stack gives only before the first draw
            card = mine[-1]
            tail = DRAW
        else:
            tail = KEEP
        rank = RANK[card]
        gives = _GIVE[card]
        need = self._need
        legal = []
        for t, st in enumerate(stacks):  # a loop: a comprehension is one more call on 3.11
            if st and need[st[-1]] == rank and t != s:
                legal.append(gives[t])
        legal.append(tail)
        return legal

    def _draw(self, s: int) -> None:
        card = self.talon.pop()
        self.drawn = card
        self.has_drawn = True
        self.events.append((s, "draw", card, None))
        if not self.talon and self.variant.last_card == "keep":
            self._keep(s)  # R3.4: phase one ends as the last card is drawn; it is kept

    def _give(self, s: int, card: Card, to: int) -> None:
        if self.drawn is None:
            self.stacks[s].pop()
        else:
            self.drawn = None
        self.stacks[to].append(card)
        self.events.append((s, "give", card, to))
        if not self.talon:
            self._begin_shed(s, SUIT[card])  # R6.1 free: the last card was given away

    def _keep(self, s: int) -> None:
        card = self.drawn
        assert card is not None
        self.stacks[s].append(card)
        self.drawn = None
        self.events.append((s, "keep", card, None))
        if not self.talon:
            self._begin_shed(s, SUIT[card])
        else:
            self.to_act = (s + 1) % self.n
            self.has_drawn = False

    # --- phase two, shedding (R4) ----------------------------------------------------------

    def _begin_shed(self, leader: int, trump: int) -> None:
        """R3.4, R4.1: stacks become hands; empty-handed players are out at once."""
        self.phase = SHED
        self.trump = trump
        self.drawn = None
        self.has_drawn = False
        n = self.n
        for hand in self.stacks:
            hand.sort()
        for i in range(n):
            seat = (leader + i) % n
            if not self.stacks[seat]:
                self.is_in[seat] = False
                self.out.append(seat)
        self._after = None
        self.in_count = n - len(self.out)
        if self.in_count <= 1:
            self._finish()
        else:
            self.to_act = leader if self.is_in[leader] else self._next_in(leader)

    def _play(self, s: int, card: Card) -> None:
        hand = self.stacks[s]
        i = bisect_left(hand, card)
        del hand[i]
        del self._plays[s][i]  # type: ignore[index]
        trick = self.trick
        if not trick:
            self.trick_size = self.in_count  # R4.3: size fixed when the trick is led
        trick.append(card)
        self.trick_seats.append(s)
        self.events.append((s, "play", card, None))
        if not hand:  # R4.8
            self.is_in[s] = False
            self.out.append(s)
            self.in_count -= 1
            self._after = None
        full = len(trick) == self.trick_size
        if full:  # R4.6
            trick.clear()
            self.trick_seats.clear()
            self.trick_size = 0
        if self.in_count == 1:  # R4.9: even in the middle of a trick, which stays as it lay
            self._finish()
        elif full and self.is_in[s]:
            self.to_act = s
        else:
            self.to_act = (self._after or self._seats_after())[s]

    def _take(self, s: int) -> None:
        card = self.trick.pop(0)  # R4.5: the bottom, lowest card
        self.trick_seats.pop(0)
        hand = self.stacks[s]
        i = bisect_right(hand, card)
        hand.insert(i, card)
        self._plays[s].insert(i, _PLAY[card])  # type: ignore[index]
        self.events.append((s, "take", card, None))
        if not self.trick:
            self.trick_size = 0  # R4.7: the next player in leads
        self.to_act = (self._after or self._seats_after())[s]

    def _next_in(self, s: int) -> int:
        """The seat after ``s`` still in; ``_play`` and ``_take`` inline this lookup."""
        return (self._after or self._seats_after())[s]

    def _seats_after(self) -> list[int]:
        """Build ``_after``: for each seat, the first seat after it (round the table) still in."""
        is_in = self.is_in
        n = self.n
        after = []
        for s in range(n):
            i = (s + 1) % n
            while not is_in[i] and i != s:
                i = (i + 1) % n
            after.append(i)
        self._after = after
        return after

    def _finish(self) -> None:
        self.phase = OVER
        self.loser = next((i for i in range(self.n) if self.is_in[i]), None)
        self.to_act = None


# For each player count, the rank that fits on each card (R3.2): built once, not at each deal.
_NEED = {n: tuple(lowest_rank(n) if (v & 15) == 14 else (v & 15) + 1 for v in range(64))
         for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)}
