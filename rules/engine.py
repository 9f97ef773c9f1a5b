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
from typing import Any, NamedTuple

from .actions import _GIVE, _PLAY, DRAW, KEEP, TAKE, Action
from .cards import RANK, SUIT, SUITS, Card, check_players, lowest_rank, pack
from .errors import (
    CardNotHeld,
    DealError,
    DoesNotBeat,
    DoesNotFit,
    HandOver,
    IllegalAction,
    NotYourTurn,
    WrongStep,
)
from .phase import Phase
from .variant import Variant

# The members as plain module names: on Python 3.11 ``Phase.SHED`` is a descriptor call on
# every lookup (about 15 times a global's cost), and the engine asks once or twice per action.
COLLECT, SHED, OVER = Phase.COLLECT, Phase.SHED, Phase.OVER


class Event(NamedTuple):
    """A public fact: who did what with which card (``deal``, ``draw``, ``give`` …)."""

    seat: int
    act: str
    card: Card
    to: int | None = None


class Outcome(NamedTuple):
    """How a finished hand ended (R5.1)."""

    loser: int
    order: tuple[int, ...]  # first out … last out, then the loser


def _need_table(n: int) -> list[int]:
    """For each card number, the rank a card must have to fit on it (R3.2)."""
    low = lowest_rank(n)
    return [low if (v & 15) == 14 else (v & 15) + 1 for v in range(64)]


class Game:
    """The full state of one hand: the deal plus every action applied to it."""

    __slots__ = (
        "_legal", "_named", "_need", "_plays", "actions", "dealer", "drawn", "events", "has_drawn",
        "in_count", "is_in", "loser", "n", "names", "out", "phase", "stacks", "start", "talon",
        "to_act", "trick", "trick_seats", "trick_size", "trump", "variant",
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
        self._need = _need_table(n)
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
        # plays are slices of it; built when first asked for (see ``_shed_legal``).
        self._plays: list[list[Action]] | None = None

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
        n = players if players is not None else len(names) if names else _players_for(cards)
        game = cls(n, variant, names)
        _check_cards(cards, n, whole_pack=True)
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < n:
            raise DealError(f"the dealer must be a seat from 0 to {n - 1}, not {dealer!r}")
        game.dealer = dealer
        for i in range(n):
            seat = (dealer + 1 + i) % n
            game.stacks[seat].append(cards[i])
            game.events.append((seat, "deal", cards[i], None))
        game.talon = cards[:n - 1:-1]
        game.to_act = (dealer + 1) % n
        game.start = {"dealer": dealer, "deck": [str(c) for c in cards]}
        return game

    @classmethod
    def from_collect_position(cls, stacks: Sequence[Sequence[Card]], talon: Sequence[Card],
                              to_act: int, *, variant: Variant | None = None,
                              names: Sequence[str] | None = None) -> Game:
        """Start of ``to_act``'s collect turn, nothing drawn yet (RULES.md §8)."""
        n = len(stacks)
        game = cls(n, variant, names)
        _check_cards([c for s in stacks for c in s] + list(talon), n, whole_pack=False)
        if not talon:
            raise DealError("a collect position needs at least one talon card")
        game.to_act = _check_seat(to_act, n, "to_act")
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
        _check_cards([c for h in hands for c in h], n, whole_pack=False)
        if not any(hands):
            raise DealError("a shed position needs at least one player holding cards")
        if isinstance(trump, bool) or not isinstance(trump, int) or not 0 <= trump < 4:
            raise DealError(f"trump must be a suit, not {trump!r}")
        _check_seat(to_act, n, "to_act")
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
        """Every action open to ``to_act``, in a stable order. Do not modify the list."""
        legal = self._legal
        if legal is None:
            phase = self.phase
            legal = self._legal = self._shed_legal() if phase is SHED else \
                self._collect_legal() if phase is COLLECT else []
        return legal

    def check(self, action: Action, seat: int | None = None) -> IllegalAction | None:
        """Why ``action`` by ``seat`` (default: ``to_act``) is refused, or None if it is legal.

        Only looks, never changes the game, as python-chess's ``is_legal`` beside ``push``.
        The refusal names the rule and says why in words a player understands:

        >>> import random
        >>> game = Game.deal(4, random.Random(7))
        >>> game.check(DRAW) is None, game.check(TAKE).rule, game.version
        (True, 'R3.3', 0)
        """
        legal = self._legal
        if legal is None:
            legal = self.legal_actions()
        if (seat is None or seat == self.to_act) and action in legal:
            return None
        return self._refusal(action, self.to_act if seat is None else seat)

    def apply(self, action: Action, seat: int | None = None) -> None:
        """Apply ``action`` for ``to_act`` (or check that ``seat`` is to act first).

        Anything ``check`` refuses is raised as that ``IllegalAction``, and the state is left
        exactly as it was.
        """
        # ``check`` inlined: this is the engine's innermost call.
        legal = self._legal
        if legal is None:
            legal = self.legal_actions()
        s = self.to_act
        if action not in legal or (seat is not None and seat != s):
            raise self._refusal(action, s if seat is None else seat)
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
        g.stacks = [list(s) for s in self.stacks]
        g.talon = list(self.talon)
        g.trick = list(self.trick)
        g.trick_seats = list(self.trick_seats)
        g.is_in = list(self.is_in)
        g.out = list(self.out)
        g.actions = list(self.actions)
        g.events = list(self.events)
        g._named = []
        g._legal = self._legal
        g._plays = None if self._plays is None else [list(p) for p in self._plays]
        return g

    # --- phase one (R3) --------------------------------------------------------------------

    def _collect_legal(self) -> list[Action]:
        s = self.to_act
        assert s is not None
        stacks = self.stacks
        need = self._need
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
        legal = [gives[t] for t, st in enumerate(stacks)
                 if t != s and st and need[st[-1]] == rank]
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

    # --- phase two (R4) --------------------------------------------------------------------

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
        self.in_count = n - len(self.out)
        if self.in_count <= 1:
            self._finish()
        else:
            self.to_act = leader if self.is_in[leader] else self._next_in(leader)

    def _shed_legal(self) -> list[Action]:
        s = self.to_act
        assert s is not None
        all_plays = self._plays
        if all_plays is None:
            all_plays = self._plays = [[_PLAY[c] for c in h] for h in self.stacks]
        plays = all_plays[s]
        trick = self.trick
        if not trick:
            return plays[:]  # R4.4: any card leads
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
        return legal

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
        full = len(trick) == self.trick_size
        if full:  # R4.6
            trick.clear()
            self.trick_seats.clear()
            self.trick_size = 0
        if self.in_count == 1:  # R4.9: even in the middle of a trick, which stays as it lay
            self._finish()
        elif full:
            self.to_act = s if self.is_in[s] else self._next_in(s)
        else:
            self.to_act = self._next_in(s)

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
        self.to_act = self._next_in(s)

    def _next_in(self, s: int) -> int:
        is_in = self.is_in
        n = self.n
        i = s + 1
        while True:
            if i == n:
                i = 0
            if is_in[i]:
                return i
            i += 1

    def _finish(self) -> None:
        self.phase = OVER
        self.loser = next((i for i in range(self.n) if self.is_in[i]), None)
        self.to_act = None

    # --- refusals --------------------------------------------------------------------------

    def _refusal(self, action: Action, seat: int | None) -> IllegalAction:
        """Why ``action`` by ``seat``, known not to be legal now, is refused."""
        if self.phase is OVER:
            return HandOver("R4.9", "The hand is over: nobody can act any more.")
        if seat != self.to_act:
            rule = "R3.1" if self.phase is COLLECT else "R4.8" if (
                isinstance(seat, int) and 0 <= seat < self.n and not self.is_in[seat]
            ) else "R4.5"
            assert self.to_act is not None
            return NotYourTurn(rule, f"It is not your turn: it is {self.names[self.to_act]}'s.")
        try:
            act, card, to = action
        except (TypeError, ValueError):
            return WrongStep("R3.3", f"{action!r} is not an NLK action.")
        if self.phase is COLLECT:
            return self._collect_refusal(act, card, to)
        return self._shed_refusal(act, card)

    def _collect_refusal(self, act: str, card: Card | None, to: int | None) -> IllegalAction:
        s = self.to_act
        assert s is not None
        if act in ("play", "take"):
            return WrongStep("R3.3", "In the collect phase you give, draw or keep; playing and "
                             "taking come in the shed phase.")
        if act == "draw":
            return WrongStep("R3.3", f"You have drawn {_show(self.drawn)}: give it to a stack "
                             "where it fits, or keep it, before drawing again.")
        if act == "keep":
            return WrongStep("R3.3", "You have nothing to keep: draw a card first.")
        if act != "give" or not isinstance(card, Card):
            return WrongStep("R3.3", f"{act!r} is not an NLK action.")
        if self.drawn is None and self.has_drawn:
            return WrongStep("R3.3", "You gave your drawn card away, so you must draw again; "
                             "after the first draw you can't give from your stack.")
        own = self.drawn if self.drawn is not None else (
            self.stacks[s][-1] if self.stacks[s] else None)
        if card != own:
            if self.drawn is not None:
                why = f"after drawing you can only give the drawn card ({_show(own)})"
            elif own is None:
                why = "your stack is empty"
            else:
                why = f"before drawing you can only give your stack's top card ({_show(own)})"
            return CardNotHeld("R3.3", f"You can't give {card.display}: {why}.")
        if isinstance(to, bool) or not isinstance(to, int) or not 0 <= to < self.n:
            return DoesNotFit("R3.2", f"You can't give {card.display} to seat {to!r}: "
                              "there is no such seat.")
        if to == s:
            return DoesNotFit("R3.2", f"You can't give {card.display} to yourself: to put it "
                              "on your own stack, keep it.")
        name = self.names[to]
        target = self.stacks[to]
        if not target:
            return DoesNotFit("R3.2", f"You can't give {card.display} to {name}: nothing fits "
                              "on an empty stack.")
        low = lowest_rank(self.n)
        wrap = f" ({Card(low).display[:-1]}s fit on Aces)" if RANK[target[-1]] == 14 else ""
        return DoesNotFit("R3.2", f"You can't give {card.display} to {name}: a card must be "
                          f"exactly one rank above their top card ({target[-1].display}){wrap}.")

    def _shed_refusal(self, act: str, card: Card | None) -> IllegalAction:
        s = self.to_act
        assert s is not None and self.trump is not None
        if act in ("draw", "give", "keep"):
            return WrongStep("R4.5", "In the shed phase you play a card or take; drawing and "
                             "giving are over.")
        if act == "take":
            return WrongStep("R4.4", "There is nothing to take: you lead, so play any card.")
        if act != "play" or not isinstance(card, Card):
            return WrongStep("R4.5", f"{act!r} is not an NLK action.")
        if card not in self.stacks[s]:
            return CardNotHeld("R4.5", f"You can't play {card.display}: it is not in your hand.")
        top = self.trick[-1]
        trump = self.trump
        if (SUIT[card] == trump and SUIT[top] != trump and self.variant.must_beat_in_suit):
            better = [c for c in self.stacks[s] if SUIT[c] == SUIT[top] and RANK[c] > RANK[top]]
            if better:
                return DoesNotBeat("R6.2", f"You can't trump {top.display} with {card.display}: "
                                   f"at this table you must beat in suit when you can "
                                   f"({_show(better[0])} would).")
        suit_name = ("a higher trump" if SUIT[top] == trump
                     else f"a higher {_SUIT_WORD[SUIT[top]]} or a trump")
        return DoesNotBeat("R4.2", f"{card.display} doesn't beat {top.display}: play "
                           f"{suit_name}, or take.")


_SUIT_WORD = ("spade", "heart", "diamond", "club")


def _show(card: Card | None) -> str:
    return card.display if card is not None else "nothing"


def _players_for(cards: Sequence[Card]) -> int:
    """The player count whose pack has as many cards as ``cards`` (R1.2)."""
    count = len(cards)
    if count % 4 or not 24 <= count <= 52:
        raise DealError(f"a deck of {count} cards is no NLK pack: packs have 24 (two "
                        "players) to 52 (nine) cards (R1.2)")
    return count // 4 - 4


def _check_cards(cards: Sequence[Card], n: int, *, whole_pack: bool) -> None:
    """Distinct cards of the pack for ``n`` players — all of them when ``whole_pack`` (R1.2)."""
    allowed = set(pack(n))
    seen: set[Card] = set()
    for c in cards:
        if c in seen:
            raise DealError(f"{c.display} appears twice: every card is in the pack once (R1.2)")
        if c not in allowed:
            raise DealError(f"{c.display} is not in the pack for {n} players, which runs "
                            f"from Aces down to {Card(lowest_rank(n)).display[:-1]}s (R1.2)")
        seen.add(c)
    if whole_pack and len(seen) != len(allowed):
        missing = sorted(allowed - seen)
        raise DealError(f"the deck is missing {len(missing)} card(s) of the {n}-player pack, "
                        f"such as {missing[0].display} (R1.2)")


def _check_seat(seat: object, n: int, what: str) -> int:
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
        raise DealError(f"{what} must be a seat from 0 to {n - 1}, not {seat!r}")
    return seat
