"""The Hint: the move the strongest AI would make, and why, in one sentence built from the rules.

The move comes from ``rules.ai.choose`` at the ``strong`` level on the seat's own view, so a
hint sees exactly what the player sees. The reason is worked out from the move and the
position (what fits where, what beats what, what is trump, what is left in hand), never from
a sentence written for one deal, and names its rule so that it reads like ``/nlk rules`` and
the refusals. ``forced`` explains a move that plays itself: the only legal one.

>>> import random
>>> from rules.engine import Game
>>> game = Game.deal(4, random.Random(3))
>>> hint = suggest(game, budget_ms=5)
>>> hint.action in game.legal_actions(), hint.reason.rule.startswith("R")
(True, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rules.actions import Act, Action
from rules.ai import choose
from rules.cards import RANK, SUIT, Card
from rules.engine import Game
from rules.events import Event
from rules.i18n import DEFAULT, N_, card_text, shown_name, suit_name, translator
from rules.phase import Phase
from rules.views import observe

# A hint answers a click, under load, within 50 ms: the search gets 5 ms (its step cap, with
# the clock stopping it at 85%), which is the heuristic's move tested on a few sampled worlds;
# at 25 ms a hint took 95–143 ms at the 99th percentile under load (docs/figures.md).
HINT_BUDGET_MS = 5

# --- the reasons (msgids; the catalogue holds their translations) ---------------------------
GIVE_STACK = N_("Give {card} from your stack to {name}: it fits on their {top}, and every card "
                "you give away is one fewer to shed later.")
GIVE_DRAWN = N_("Give {card} to {name}: it fits on their {top}, so it is one card fewer for "
                "you, and you draw again.")
DRAW_NOW = N_("Draw: none of your stack's top cards is worth giving now, and drawing is "
              "compulsory.")
KEEP_CHOICE = N_("Keep {card}: giving it would only help the others; keeping it ends your "
                 "turn.")
BEAT_IN_SUIT = N_("Play {card}: it beats {top} in suit, and it is your cheapest card that "
                  "does.")
BEAT_HIGH = N_("Play {card}: it beats {top} in suit, and it is high enough to be hard to beat "
               "for the next player.")
TRUMP_NO_SUIT = N_("Play {card}: you have no higher {suit}, and a trump beats any card of "
                   "another suit.")
TRUMP_CHOICE = N_("Play {card}: a trump beats any card of another suit, and it keeps your "
                  "higher {suit} for later.")
TAKE_COSTLY = N_("Take the trick's lowest card ({bottom}): beating {top} would cost you a card "
                 "worth keeping for later.")
LEAD_WEAK = N_("Lead {card}: it is your weakest card; keep your trumps and high cards to beat "
               "with.")
LEAD_OTHER = N_("Lead {card}: the others will have to beat it, and you keep your best cards.")

# --- forced moves: you had nothing else that fits -------------------------------------------
FORCED_DRAW = N_("You had to draw: no top card of your stack fits on another stack, and "
                 "drawing is compulsory.")
FORCED_DRAW_AGAIN = N_("You had to draw again: you gave away the card you drew, and after "
                       "giving a drawn card you must draw again.")
FORCED_DRAW_EMPTY = N_("You had to draw: your stack is empty, so you had nothing to give, and "
                       "drawing is compulsory.")
FORCED_KEEP = N_("You had to keep {card}: it fits on no other player's stack.")
FORCED_TAKE = N_("You had to take the trick's lowest card ({bottom}): nothing in your hand "
                 "beats {top}.")
FORCED_PLAY = N_("You had to play {card}: it is the only card you hold.")


@dataclass(frozen=True)
class Reason:
    """A sentence's msgid, the rule it names, and its values: cards as cards, seats as
    numbers, a suit as its index; worded in a language only when shown."""

    text: str
    rule: str
    cards: tuple[tuple[str, Card], ...] = ()
    seat: int | None = None
    suit: int | None = None

    def words(self, names: tuple[str, ...] | list[str], lang: object = DEFAULT) -> str:
        """The sentence in ``lang``, with its rule number, like the refusals."""
        values: dict[str, str] = {key: card_text(card, lang) for key, card in self.cards}
        if self.seat is not None:
            values["name"] = shown_name(names[self.seat], lang)
        if self.suit is not None:
            values["suit"] = suit_name(self.suit, lang)
        return f"{translator(lang).gettext(self.text).format(**values)} ({self.rule})"


@dataclass(frozen=True)
class Hint:
    """The move to make and why."""

    action: Action
    reason: Reason


def suggest(game: Game, *, seed: int | str = 0, budget_ms: int = HINT_BUDGET_MS) -> Hint:
    """The hint for the seat to act: the strong AI's move, and its reason."""
    seat = game.to_act
    if seat is None:
        raise ValueError("nobody is to act: the hand is over (R4.9)")
    action = choose(observe(game, seat), "strong", seed=seed, budget_ms=budget_ms)
    return Hint(action, why(game, action))


def _top(stack: object) -> Card:
    cards = list(stack)  # type: ignore[call-overload]
    return Card(cards[-1])


def why(game: Game, action: Action) -> Reason:
    """Why ``action``, legal for the seat to act, is a good move here."""
    legal = game.legal_actions()
    if len(legal) == 1:
        return forced(game)
    seat = game.to_act
    assert seat is not None
    if game.phase is Phase.COLLECT:
        return _why_collect(game, seat, action)
    return _why_shed(game, seat, action, legal)


def _why_collect(game: Game, seat: int, action: Action) -> Reason:
    if action.act == Act.GIVE:
        assert action.card is not None and action.to is not None
        top = _top(game.stacks[action.to])
        text = GIVE_DRAWN if game.drawn is not None else GIVE_STACK
        return Reason(text, "R3.2", (("card", action.card), ("top", top)), seat=action.to)
    if action.act == Act.DRAW:
        return Reason(DRAW_NOW, "R3.3")
    assert game.drawn is not None
    return Reason(KEEP_CHOICE, "R3.3", (("card", Card(game.drawn)),))


def _why_shed(game: Game, seat: int, action: Action, legal: list[Action]) -> Reason:
    hand = game.stacks[seat]
    trump = game.trump
    if not game.trick:
        assert action.card is not None
        card = action.card
        weakest = min(hand, key=lambda c: RANK[c] + (20 if SUIT[c] == trump else 0))
        text = LEAD_WEAK if weakest == card else LEAD_OTHER
        return Reason(text, "R4.4", (("card", card),))
    top = Card(game.trick[-1])
    if action.act == Act.TAKE:
        return Reason(TAKE_COSTLY, "R4.5", (("bottom", Card(game.trick[0])), ("top", top)))
    assert action.card is not None
    card = action.card
    if SUIT[card] == SUIT[top]:
        cheapest = all(a.card is None or SUIT[a.card] != SUIT[top] or RANK[a.card] >= RANK[card]
                       for a in legal)
        return Reason(BEAT_IN_SUIT if cheapest else BEAT_HIGH, "R4.2",
                      (("card", card), ("top", top)))
    higher = any(SUIT[c] == SUIT[top] and RANK[c] > RANK[top] for c in hand)
    text = TRUMP_CHOICE if higher else TRUMP_NO_SUIT
    return Reason(text, "R4.2", (("card", card),), suit=SUIT[top])


def forced(game: Game) -> Reason:
    """Why the seat to act had only one move: "you had nothing else that fits"."""
    legal = game.legal_actions()
    if len(legal) != 1:
        raise ValueError("the move is not forced: there is a choice")
    action = legal[0]
    seat = game.to_act
    assert seat is not None
    if action.act == Act.DRAW:
        if game.has_drawn:  # a give of the drawn card: draw again (R3.3, step 3)
            return Reason(FORCED_DRAW_AGAIN, "R3.3")
        return Reason(FORCED_DRAW if game.stacks[seat] else FORCED_DRAW_EMPTY, "R3.3")
    if action.act == Act.KEEP:
        assert game.drawn is not None
        return Reason(FORCED_KEEP, "R3.3", (("card", Card(game.drawn)),))
    if action.act == Act.TAKE:
        trick = game.trick
        return Reason(FORCED_TAKE, "R4.5", (("bottom", Card(trick[0])), ("top", Card(trick[-1]))))
    # Take is always open on a trick, so a lone play is a lead with one card in hand
    assert action.card is not None and not game.trick
    return Reason(FORCED_PLAY, "R4.4", (("card", action.card),))


# --- the others' moves told as they happen, from what everyone can see ----------------------
TOLD_GIVE = N_("{name} gave {card} to {to}: it fits on their top card ({top}).")
TOLD_KEEP_FORCED = N_("{name} kept {card}: it fits on no other player's stack.")
TOLD_KEEP = N_("{name} kept {card}, which ended their turn.")
TOLD_DRAW = N_("{name} drew a card: every turn has a draw.")
TOLD_BEAT = N_("{name} beat {top} in suit with {card}.")
TOLD_TRUMP = N_("{name} trumped {top} with {card}: a trump beats any card of another suit.")
TOLD_TAKE = N_("{name} did not beat {top} and took the trick's lowest card ({bottom}).")
TOLD_LEAD = N_("{name} led {card}: any card may lead.")
TOLD_OUT = N_("{name} played their last card ({card}) and is out.")


@dataclass(frozen=True)
class Told:
    """Another seat's move in words: ``Reason``'s sentence with the mover's and the
    receiver's names (seats), built only from what everyone could see, so it never tells
    what is hidden in a hand."""

    reason: Reason
    mover: int
    to: int | None = None

    def words(self, names: tuple[str, ...] | list[str], lang: object = DEFAULT) -> str:
        values: dict[str, str] = {key: card_text(card, lang) for key, card in self.reason.cards}
        values["name"] = shown_name(names[self.mover], lang)
        if self.to is not None:
            values["to"] = shown_name(names[self.to], lang)
        sentence = translator(lang).gettext(self.reason.text).format(**values)
        return f"{sentence} ({self.reason.rule})"


def told(game: Game, action: Action) -> Told:
    """``action`` by the seat to act, about to be applied to ``game``, in words."""
    seat = game.to_act
    if seat is None:
        raise ValueError("nobody is to act: the hand is over (R4.9)")
    if action.act == Act.GIVE:
        assert action.card is not None and action.to is not None
        top = _top(game.stacks[action.to])
        reason = Reason(TOLD_GIVE, "R3.2", (("card", action.card), ("top", top)))
        return Told(reason, seat, action.to)
    if action.act == Act.DRAW:
        return Told(Reason(TOLD_DRAW, "R3.3"), seat)
    if action.act == Act.KEEP:
        assert game.drawn is not None
        forced_keep = len(game.legal_actions()) == 1
        text = TOLD_KEEP_FORCED if forced_keep else TOLD_KEEP
        return Told(Reason(text, "R3.3", (("card", Card(game.drawn)),)), seat)
    if action.act == Act.TAKE:
        trick = game.trick
        cards = (("top", Card(trick[-1])), ("bottom", Card(trick[0])))
        return Told(Reason(TOLD_TAKE, "R4.5", cards), seat)
    assert action.card is not None
    card = action.card
    if len(game.stacks[seat]) == 1:
        return Told(Reason(TOLD_OUT, "R4.8", (("card", card),)), seat)
    if not game.trick:
        return Told(Reason(TOLD_LEAD, "R4.4", (("card", card),)), seat)
    top = Card(game.trick[-1])
    text = TOLD_BEAT if SUIT[card] == SUIT[top] else TOLD_TRUMP
    return Told(Reason(text, "R4.2", (("card", card), ("top", top))), seat)


# --- a move that played itself at a real table, told to anyone reading the moves -----------
TOLD_FORCED_DRAW = N_("{name} had to draw: no top card of their stack fits on another stack, "
                      "and drawing is compulsory.")
TOLD_FORCED_DRAW_AGAIN = N_("{name} had to draw again: after giving away a drawn card, a player "
                            "must draw again.")
TOLD_FORCED_DRAW_EMPTY = N_("{name} had to draw: their stack is empty, so they had nothing to "
                            "give, and drawing is compulsory.")
TOLD_FORCED_KEEP = N_("{name} had to keep {card}: it fits on no other player's stack.")

# A forced draw's reason for its player, and told for the others, by the position it came
# from: at the start of a turn with nothing of the stack fitting, with an empty stack, or
# after a give of the drawn card.
_DRAWS = {FORCED_DRAW: TOLD_FORCED_DRAW, FORCED_DRAW_AGAIN: TOLD_FORCED_DRAW_AGAIN,
          FORCED_DRAW_EMPTY: TOLD_FORCED_DRAW_EMPTY}


def forced_event(history: Sequence[Event], at: int) -> tuple[Reason, Told] | None:
    """Why the move whose first event is ``history[at]``, one that played itself at a real
    table, had no choice, from the public events up to it: only collect moves play
    themselves there (a draw when nothing of the stack can be given, or again after a give
    of the drawn card; the keep of a drawn card that fits nowhere), and the events before
    it say which. The same reason as ``forced`` on the position before it, for its player
    ("You had to draw"), and told for the others ("ann had to draw"); None for a move that
    never plays itself.

    >>> cards = [Card.parse(c) for c in ("9H", "KS", "AS", "TC")]
    >>> history = [Event(0, "deal", cards[0]), Event(1, "deal", cards[1]),
    ...            Event(0, "draw", cards[2]), Event(0, "give", cards[2], 1),
    ...            Event(0, "draw", cards[3]), Event(0, "keep", cards[3])]
    >>> reason, told_ = forced_event(history, 4)
    >>> reason.words(["ann", "bob"]).startswith("You had to draw again: you gave away the card")
    True
    >>> told_.words(["ann", "bob"])
    'ann had to draw again: after giving away a drawn card, a player must draw again. (R3.3)'
    >>> forced_event(history, 5)[1].words(["ann", "bob"])
    "ann had to keep 10♣: it fits on no other player's stack. (R3.3)"
    """
    event = history[at]
    if event.act == Act.DRAW:
        text = _draw_reason(history, at)
        return (Reason(text, "R3.3"),
                Told(Reason(_DRAWS[text], "R3.3"), event.seat))
    if event.act == Act.KEEP:
        cards = (("card", Card(event.card)),)
        return (Reason(FORCED_KEEP, "R3.3", cards),
                Told(Reason(TOLD_FORCED_KEEP, "R3.3", cards), event.seat))
    return None


def _draw_reason(history: Sequence[Event], at: int) -> str:
    """Which forced draw ``history[at]`` was: the drawer's turn so far says whether they had
    drawn already (then they gave the drawn card away), else their stack's size whether it
    was empty."""
    seat = history[at].seat
    for event in reversed(history[:at]):
        if event.seat != seat or event.act in (Act.DEAL, Act.KEEP):
            break
        if event.act == Act.DRAW:
            return FORCED_DRAW_AGAIN
    size = 0
    for i, event in enumerate(history[:at]):
        if event.act in (Act.DEAL, Act.KEEP) and event.seat == seat:
            size += 1
        elif event.act == Act.GIVE:
            if event.to == seat:
                size += 1
            before = history[i - 1] if i else None
            drawn = before is not None and before.act == Act.DRAW and before.card == event.card
            if event.seat == seat and not drawn:  # a give from the stack
                size -= 1
    return FORCED_DRAW if size else FORCED_DRAW_EMPTY
