"""Why a move is refused, in words: the engine's English, and a player's own language.

``refusal`` stands outside the state, as ``observe`` does: the engine asks it only once it
knows an action is not legal (``Game.check``, ``Game.apply``). It words the refusal in
English, naming the card and the seat (``IllegalAction``): replays print that sentence, and
English players read it. Players of the other languages read one sentence per rule instead,
with the rule number kept, so a player can look the rule up in the rule book; a rule without
its own sentence falls back to the engine's. The terminal game and the bot share both.

>>> import random
>>> from rules.engine import Game
>>> from rules.actions import TAKE
>>> game = Game.deal(4, random.Random(7))
>>> refused = refusal(game, TAKE, game.to_act)
>>> refused.rule, refused.message[:40]
('R3.3', 'In the collect phase you give, draw or k')
>>> from rules.errors import DoesNotFit
>>> refused = DoesNotFit("R3.2", "You can't give 9♥ to Ann: nothing fits on an empty stack.")
>>> explain(refused, "en")
"You can't give 9♥ to Ann: nothing fits on an empty stack (R3.2)"
>>> explain(refused, "hu").endswith("(R3.2)")
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from rules.actions import Action
from rules.cards import RANK, SUIT, Card, lowest_rank
from rules.errors import (
    CardNotHeld,
    DoesNotBeat,
    DoesNotFit,
    HandOver,
    IllegalAction,
    NotYourTurn,
    WrongStep,
)
from rules.i18n import DEFAULT, N_, normalise, translator
from rules.phase import Phase
from rules.variant import Variant


class Game(Protocol):
    """What a refusal reads of the game (``rules.engine.Game`` has it): explaining needs
    the state, never the engine's moves."""

    @property
    def phase(self) -> Phase: ...
    @property
    def to_act(self) -> int | None: ...
    @property
    def n(self) -> int: ...
    @property
    def is_in(self) -> Sequence[bool]: ...
    @property
    def names(self) -> Sequence[str]: ...
    @property
    def drawn(self) -> Card | None: ...
    @property
    def has_drawn(self) -> bool: ...
    @property
    def stacks(self) -> Sequence[Sequence[Card]]: ...
    @property
    def trick(self) -> Sequence[Card]: ...
    @property
    def trump(self) -> int | None: ...
    @property
    def variant(self) -> Variant: ...


# --- the engine's English ------------------------------------------------------------------

def refusal(game: Game, action: Action, seat: int | None) -> IllegalAction:
    """Why ``action`` by ``seat``, known not to be legal now, is refused."""
    if game.phase is Phase.OVER:
        return HandOver("R4.9", "The hand is over: nobody can act any more.")
    if seat != game.to_act:
        rule = "R3.1" if game.phase is Phase.COLLECT else "R4.8" if (
            isinstance(seat, int) and 0 <= seat < game.n and not game.is_in[seat]
        ) else "R4.5"
        assert game.to_act is not None
        return NotYourTurn(rule, f"It is not your turn: it is {game.names[game.to_act]}'s.")
    try:
        act, card, to = action
    except (TypeError, ValueError):
        return WrongStep("R3.3", f"{action!r} is not an NLK action.")
    if game.phase is Phase.COLLECT:
        return _collect_refusal(game, act, card, to)
    return _shed_refusal(game, act, card)


def _collect_refusal(game: Game, act: str, card: Card | None, to: int | None
                     ) -> IllegalAction:
    s = game.to_act
    assert s is not None
    if act in ("play", "take"):
        return WrongStep("R3.3", "In the collect phase you give, draw or keep; playing and "
                         "taking come in the shed phase.")
    if act == "draw":
        return WrongStep("R3.3", f"You have drawn {_show(game.drawn)}: give it to a stack "
                         "where it fits, or keep it, before drawing again.")
    if act == "keep":
        return WrongStep("R3.3", "You have nothing to keep: draw a card first.")
    if act != "give" or not isinstance(card, Card):
        return WrongStep("R3.3", f"{act!r} is not an NLK action.")
    if game.drawn is None and game.has_drawn:
        return WrongStep("R3.3", "You gave your drawn card away, so you must draw again; "
                         "after the first draw you can't give from your stack.")
    own = game.drawn if game.drawn is not None else (
        game.stacks[s][-1] if game.stacks[s] else None)
    if card != own:
        if game.drawn is not None:
            why = f"after drawing you can only give the drawn card ({_show(own)})"
        elif own is None:
            why = "your stack is empty"
        else:
            why = f"before drawing you can only give your stack's top card ({_show(own)})"
        return CardNotHeld("R3.3", f"You can't give {card.display}: {why}.")
    if isinstance(to, bool) or not isinstance(to, int) or not 0 <= to < game.n:
        return DoesNotFit("R3.2", f"You can't give {card.display} to seat {to!r}: "
                          "there is no such seat.")
    if to == s:
        return DoesNotFit("R3.2", f"You can't give {card.display} to yourself: to put it "
                          "on your own stack, keep it.")
    name = game.names[to]
    target = game.stacks[to]
    if not target:
        return DoesNotFit("R3.2", f"You can't give {card.display} to {name}: nothing fits "
                          "on an empty stack.")
    low = lowest_rank(game.n)
    wrap = f" ({Card(low).display[:-1]}s fit on Aces)" if RANK[target[-1]] == 14 else ""
    return DoesNotFit("R3.2", f"You can't give {card.display} to {name}: a card must be "
                      f"exactly one rank above their top card ({target[-1].display}){wrap}.")


def _shed_refusal(game: Game, act: str, card: Card | None) -> IllegalAction:
    s = game.to_act
    assert s is not None and game.trump is not None
    if act in ("draw", "give", "keep"):
        return WrongStep("R4.5", "In the shed phase you play a card or take; drawing and "
                         "giving are over.")
    if act == "take":
        return WrongStep("R4.4", "There is nothing to take: you lead, so play any card.")
    if act != "play" or not isinstance(card, Card):
        return WrongStep("R4.5", f"{act!r} is not an NLK action.")
    if card not in game.stacks[s]:
        return CardNotHeld("R4.5", f"You can't play {card.display}: it is not in your hand.")
    top = game.trick[-1]
    trump = game.trump
    if (SUIT[card] == trump and SUIT[top] != trump and game.variant.must_beat_in_suit):
        better = [c for c in game.stacks[s] if SUIT[c] == SUIT[top] and RANK[c] > RANK[top]]
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


# --- in a player's language ---------------------------------------------------------------

# One sentence per rule number (``IllegalAction.rule``). The engine may refuse one rule in
# several ways (R3.3: drawing twice, keeping before drawing, giving a card not held), so
# each sentence says what the rule allows rather than what went wrong this time.
RULES: dict[str, str] = {
    "R3.1": N_("It's not your turn yet."),
    "R3.2": N_("That card doesn't fit there: a card goes on another player's stack only when "
               "it is exactly one rank above that stack's top card (the lowest rank fits on an "
               "Ace)."),
    "R3.3": N_("That isn't a move for this step of your turn: give your stack's top card where "
               "it fits, then draw; give the drawn card where it fits, or keep it."),
    "R4.2": N_("That card doesn't beat the top card of the trick: play a higher card of its "
               "suit or a trump, or take."),
    "R4.4": N_("There is nothing to take: you lead, so play any card."),
    "R4.5": N_("In the shed phase you play a card from your hand or take, on your turn."),
    "R4.8": N_("You're out: you have no cards left to play."),
    "R4.9": N_("The hand is over: nobody can act any more."),
    "R6.2": N_("At this table you must beat in suit when you can, so you may not trump this "
               "card."),
}
RULE = N_("{message} ({rule})")


def refusal_text(rule: str, message: str, lang: object = DEFAULT) -> str:
    """A refusal of ``rule`` (the engine's English ``message``) as a player of ``lang``
    reads it, ending with the rule number."""
    code = normalise(lang)
    _ = translator(code).gettext
    said = RULES.get(rule)
    text = _(said) if said is not None and code != DEFAULT else message
    # The rule number closes the sentence: "… keep it (R3.3)", not "… keep it. (R3.3)".
    return _(RULE).format(message=text.rstrip().rstrip("."), rule=rule)


def explain(error: IllegalAction, lang: object = DEFAULT) -> str:
    """``refusal_text`` of an engine refusal."""
    return refusal_text(error.rule, error.message, lang)
