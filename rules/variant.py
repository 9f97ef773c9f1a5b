"""The two rule variants of RULES.md §6."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rules.errors import DealError

LAST_CARD_VALUES = ("keep", "free")


@dataclass(frozen=True, slots=True)
class Variant:
    """``last_card`` (R6.1) and ``must_beat_in_suit`` (R6.2); the defaults are McLeod's."""

    last_card: str = "keep"
    must_beat_in_suit: bool = False

    def __post_init__(self) -> None:
        if self.last_card not in LAST_CARD_VALUES:
            raise DealError(f"last_card must be 'keep' or 'free', not {self.last_card!r} (R6.1)")
        if not isinstance(self.must_beat_in_suit, bool):
            raise DealError(
                f"must_beat_in_suit must be true or false, not {self.must_beat_in_suit!r} (R6.2)"
            )

    @classmethod
    def from_json(cls, obj: Any) -> Variant:
        """Read a replay's ``variant`` object; missing keys take their defaults."""
        if obj is None:
            return cls()
        if not isinstance(obj, dict):
            raise DealError(f"variant must be a JSON object, not {obj!r}")
        unknown = sorted(set(obj) - {"last_card", "must_beat_in_suit"})
        if unknown:
            raise DealError(f"unknown variant key {unknown[0]!r}: NLK knows last_card and "
                            "must_beat_in_suit")
        return cls(**obj)

    def to_json(self) -> dict[str, Any]:
        return {"last_card": self.last_card, "must_beat_in_suit": self.must_beat_in_suit}

    def describe(self) -> str:
        """The table's rules in one short line, for the terminal and the table message.

        >>> Variant().describe(), Variant("free", True).describe()
        ('last card kept; trumping always allowed', 'last card may be given; must beat in suit')
        """
        last = "last card kept" if self.last_card == "keep" else "last card may be given"
        beat = "must beat in suit" if self.must_beat_in_suit else "trumping always allowed"
        return f"{last}; {beat}"
