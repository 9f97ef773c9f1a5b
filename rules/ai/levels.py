"""The AI levels a table can seat, by the names its buttons and records use."""

from __future__ import annotations

from enum import StrEnum


class AILevel(StrEnum):
    """How an AI player plays (``rules.ai.choose``'s levels a table offers)."""

    HEURISTIC = "heuristic"
    STRONG = "strong"
