"""The lesson's custom ids: ``nlkl:<lesson>:<step>:<act>``.

``lesson`` names the deal (``rules.lesson.LESSON``), ``step`` the step the message shows, and
the act is a move (``draw``, ``keep``, ``take``, ``give.KS.1``, ``play.8C``) or a way around the
lesson (``skip`` to the shed phase, ``back`` to the collect phase, ``again`` from the start).
The format never changes, so a lesson message from any earlier version keeps working.

>>> lesson_id("1", 3, "give.9C.2")
'nlkl:1:3:give.9C.2'
"""

from __future__ import annotations

import re

from rules.actions import TAKE, Action
from rules.cards import Card
from rules.errors import NLKError

PREFIX = "nlkl"
CARD = r"[AKQJT98765432][SHDC]"
MOVES = rf"draw|keep|take|give\.{CARD}\.[0-8]|play\.{CARD}"
WAYS = ("skip", "back", "again")
TEMPLATE = (rf"{PREFIX}:(?P<lesson>[0-9a-z]{{1,8}}):(?P<step>[0-9]{{1,3}}):"
            rf"(?P<act>{MOVES}|{'|'.join(WAYS)})")
# Anything else that starts like a lesson id (damaged, forged, or from a future version).
UNKNOWN = rf"(?!{TEMPLATE}$){PREFIX}:.{{0,95}}"


def lesson_id(lesson: str, step: int, act: str) -> str:
    return f"{PREFIX}:{lesson}:{step}:{act}"


def act_of(action: Action) -> str:
    """A move as the last part of its id."""
    if action.act == "give":
        return f"give.{action.card}.{action.to}"
    if action.act == "play":
        return f"play.{action.card}"
    return action.act


def action_of(act: str) -> Action | None:
    """The move an id's act names, or None for a way around the lesson."""
    if act in WAYS:
        return None
    parts = act.split(".")
    try:
        if parts[0] == "give":
            return Action.give(Card.parse(parts[1]), int(parts[2]))
        if parts[0] == "play":
            return Action.play(Card.parse(parts[1]))
        return TAKE if act == "take" else Action.parse(act)
    except (NLKError, IndexError, ValueError):
        return None


def parse(match: re.Match[str]) -> tuple[str, int, str]:
    return match["lesson"], int(match["step"]), match["act"]
