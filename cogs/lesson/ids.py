"""The lesson's custom ids: ``nlkl:<lesson>:<step>:<act>``.

``lesson`` names the deal (``rules.lesson.LESSON``), ``step`` the step the message shows, and
the act is a move (``draw``, ``keep``, ``take``, ``give.KS.1``, ``play.8C``), a way around the
lesson (``skip`` to the shed phase, ``back`` to the collect phase, ``again`` from the start),
or a rule to read (``rule.R3.3``).
The format never changes, so a lesson message from any earlier version keeps working.

>>> lesson_id("1", 3, "give.9C.2")
'nlkl:1:3:give.9C.2'
"""

from __future__ import annotations

import re
from enum import StrEnum

from rules.actions import Act, Action
from rules.cards import Card
from rules.errors import NLKError

PREFIX = "nlkl"
CARD = r"[AKQJT98765432][SHDC]"
MOVES = rf"draw|keep|take|give\.{CARD}\.[0-8]|play\.{CARD}"


class Way(StrEnum):
    """A way around the lesson rather than a move."""

    SKIP = "skip"  # to the shed phase
    BACK = "back"  # to the collect phase
    AGAIN = "again"  # from the start


WAYS = tuple(Way)
RULE = r"rule\.R[1-6]\.[0-9]"  # a "📖 R3.3" button: the rule, privately (issue 45)
TEMPLATE = (rf"{PREFIX}:(?P<lesson>[0-9a-z]{{1,8}}):(?P<step>[0-9]{{1,3}}):"
            rf"(?P<act>{MOVES}|{'|'.join(WAYS)}|{RULE})")
# Anything else that starts like a lesson id (damaged, forged, or from a future version).
UNKNOWN = rf"(?!{TEMPLATE}$){PREFIX}:.{{0,95}}"


def lesson_id(lesson: str, step: int, act: str) -> str:
    return f"{PREFIX}:{lesson}:{step}:{act}"


def act_of(action: Action) -> str:
    """A move as the last part of its id."""
    if action.act == Act.GIVE:
        return f"{Act.GIVE}.{action.card}.{action.to}"
    if action.act == Act.PLAY:
        return f"{Act.PLAY}.{action.card}"
    return str(action.act)


def way_of(act: str) -> Way | None:
    """The way around the lesson an id's act names, or None for a move."""
    return Way(act) if act in WAYS else None


def action_of(act: str) -> Action | None:
    """The move an id's act names, or None for a way around the lesson."""
    if act in WAYS:
        return None
    kind, *rest = act.split(".")
    try:
        if kind == Act.GIVE:
            return Action.give(Card.parse(rest[0]), int(rest[1]))
        if kind == Act.PLAY:
            return Action.play(Card.parse(rest[0]))
        return Action.parse(act)
    except (NLKError, IndexError, ValueError):
        return None


def parse(match: re.Match[str]) -> tuple[str, int, str]:
    return match["lesson"], int(match["step"]), match["act"]
