"""The one family of errors the NLK rules raise; every one is a ``ValueError``."""

from __future__ import annotations


class NLKError(ValueError):
    """Base of every error raised by the rules package."""


class CardError(NLKError):
    """A card or suit written in a form NLK does not read (R1.3)."""


class DealError(NLKError):
    """A deck, position, player count or variant that cannot start a hand."""


class InputError(NLKError):
    """Something a player typed that is not a move NLK can read, such as ``give QQ 1``."""


class ReplayError(NLKError):
    """A replay that is not well-formed ``nlk-replay/1``."""


class Malformed(ReplayError):
    """A replay object that breaks one named check (``why``), ``details`` saying where."""

    def __init__(self, why: str, message: str, **details: int) -> None:
        super().__init__(message)
        self.why = why
        self.details = details


class IllegalAction(NLKError):
    """An action the rules do not allow now; ``rule`` names the rule, ``message`` says why."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{message} ({rule})")
        self.rule = rule
        self.message = message


class NotYourTurn(IllegalAction):
    """Someone other than the player to act tried to act."""


class HandOver(IllegalAction):
    """The hand has already ended."""


class WrongStep(IllegalAction):
    """An action that belongs to another step of the turn or to the other phase."""


class CardNotHeld(IllegalAction):
    """A card that is not the player's to give or play."""


class DoesNotFit(IllegalAction):
    """A give onto a stack where the card does not fit (R3.2)."""


class DoesNotBeat(IllegalAction):
    """A play that does not beat the top card of the trick (R4.2, R6.2)."""
