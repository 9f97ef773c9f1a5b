"""The practice's custom ids: ``nlkp:<hand>:<version>:<act>``.

``hand`` is the player's practice hand number (a button of an earlier hand is not played on
a later one), ``version`` the number of moves the message was drawn after, and the act is a
move (as in the lesson's ids: ``draw``, ``keep``, ``take``, ``give.KS.1``, ``play.8C``), a
card picked from a menu (``pick0`` … ``pick3``, the move in the menu's value), ``hint``,
``again``, ``moves`` (the whole log, privately), or a rule to read (``rule.R4.2``).
The format never changes, so a practice message from any earlier version keeps working.

>>> practice_id(2, 14, "hint")
'nlkp:2:14:hint'
"""

from __future__ import annotations

import re
from enum import StrEnum

from cogs.lesson.ids import MOVES, RULE

PREFIX = "nlkp"


class Way(StrEnum):
    """A practice button that is not a move."""

    HINT = "hint"
    AGAIN = "again"  # another hand
    MOVES = "moves"  # the hand's whole log, privately


WAYS = tuple(Way)
PICK = "pick[0-3]"  # one menu per row, each id unique in its message
TEMPLATE = (rf"{PREFIX}:(?P<hand>[0-9]{{1,9}}):(?P<version>[0-9]{{1,6}}):"
            rf"(?P<act>{MOVES}|{'|'.join(WAYS)}|{PICK}|{RULE})")
# Anything else that starts like a practice id (damaged, forged, or from a future version).
UNKNOWN = rf"(?!{TEMPLATE}$){PREFIX}:.{{0,95}}"


def practice_id(hand: int, version: int, act: str) -> str:
    return f"{PREFIX}:{hand}:{version}:{act}"


def parse(match: re.Match[str]) -> tuple[int, int, str]:
    return int(match["hand"]), int(match["version"]), match["act"]
