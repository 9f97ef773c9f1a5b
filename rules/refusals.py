"""The engine's refusals in a player's language, for the terminal game and the bot alike.

The engine words each refusal in English, naming the card and the seat (``IllegalAction``):
replays print that sentence, and English players read it. Players of the other languages
read one sentence per rule instead, with the rule number kept, so a player can look the
rule up in the rule book; a rule without its own sentence falls back to the engine's.

>>> from rules.errors import DoesNotFit
>>> refused = DoesNotFit("R3.2", "You can't give 9♥ to Ann: nothing fits on an empty stack.")
>>> explain(refused, "en")
"You can't give 9♥ to Ann: nothing fits on an empty stack (R3.2)"
>>> explain(refused, "hu").endswith("(R3.2)")
True
"""

from __future__ import annotations

from .errors import IllegalAction
from .i18n import DEFAULT, N_, normalise, translator

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
