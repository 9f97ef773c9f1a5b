"""Actions a player can take, with a text form that round-trips.

>>> Action.parse("give 9d 1")
Action.parse('give 9D 1')
>>> str(Action.play(Card.parse("KS"))), Action.parse("take") is TAKE
('play KS', True)
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, NamedTuple

from rules.cards import Card, pack
from rules.errors import ReplayError


class Act(StrEnum):
    """What a move does (``Action.act``) or a public event tells (``Event.act``): those hold
    the plain string, which compares equal to its ``Act`` (``Act.PLAY == "play"``)."""

    DEAL = "deal"  # an event only: a card dealt
    DRAW = "draw"
    GIVE = "give"
    KEEP = "keep"
    PLAY = "play"
    TAKE = "take"


ACTS = ("draw", "give", "keep", "play", "take")


class Action(NamedTuple):
    """``draw``, ``give CARD TO``, ``keep``, ``play CARD`` or ``take`` (RULES.md §8)."""

    act: str  # an ``Act`` value, kept as a plain string: the engine compares it often
    card: Card | None = None
    to: int | None = None

    @staticmethod
    def give(card: Card, to: int) -> Action:
        """Give ``card`` to seat ``to``'s stack."""
        try:
            return _GIVE[card][to]
        except (KeyError, IndexError, TypeError):
            return Action("give", card, to)

    @staticmethod
    def play(card: Card) -> Action:
        """Play ``card`` to the trick."""
        return _PLAY[card]

    @staticmethod
    def parse(text: str) -> Action:
        """Read the text form, e.g. ``give 9D 1``."""
        parts = text.split() if isinstance(text, str) else []
        if not parts or parts[0].lower() not in ACTS:
            raise ReplayError(f"{text!r} is not an action: use draw, give CARD SEAT, keep, "
                              "play CARD or take")
        act = parts[0].lower()
        if act == "give" and len(parts) == 3 and parts[2].isdigit():
            return Action.give(Card.parse(parts[1]), int(parts[2]))
        if act == "play" and len(parts) == 2:
            return Action.play(Card.parse(parts[1]))
        if act in ("draw", "keep", "take") and len(parts) == 1:
            return _SIMPLE[act]
        raise ReplayError(f"{text!r} is not an action: use draw, give CARD SEAT, keep, "
                          "play CARD or take")

    @staticmethod
    def from_json(obj: Any) -> Action:
        """Read a replay action object (its ``seat`` is the caller's business)."""
        if not isinstance(obj, dict):
            raise ReplayError(f"an action must be a JSON object, not {obj!r}")
        act = obj.get("act")
        if act not in ACTS:
            raise ReplayError(f"unknown action {act!r}: use draw, give, keep, play or take")
        if act in ("give", "play"):
            if "card" not in obj:
                raise ReplayError(f"a {act} action needs a card")
            card = Card.parse(obj["card"])
            if act == "play":
                return Action.play(card)
            to = obj.get("to")
            if isinstance(to, bool) or not isinstance(to, int):
                raise ReplayError(f"a give action needs a seat number in 'to', not {to!r}")
            return Action.give(card, to)
        return _SIMPLE[act]

    def to_json(self) -> dict[str, Any]:
        """The replay form, without ``seat``."""
        out: dict[str, Any] = {"act": self.act}
        if self.card is not None:
            out["card"] = str(self.card)
        if self.to is not None:
            out["to"] = self.to
        return out

    def __str__(self) -> str:
        return " ".join(str(p) for p in self if p is not None)

    def __repr__(self) -> str:
        return f"Action.parse({str(self)!r})"


DRAW = Action("draw")
KEEP = Action("keep")
TAKE = Action("take")
_SIMPLE = {"draw": DRAW, "keep": KEEP, "take": TAKE}
# Shared instances, keyed by card, so the engine's legality check is mostly an identity test.
_ALL = pack(9)
_PLAY: dict[int, Action] = {c: Action("play", c) for c in _ALL}
_GIVE: dict[int, list[Action]] = {c: [Action("give", c, t) for t in range(9)] for c in _ALL}
