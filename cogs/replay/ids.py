"""The replay buttons' custom ids: ``nlkr:<ref>:<step>:<act>``.

``ref`` names the replay (``h<hand id>`` for a stored hand, ``f<content hash>`` for an
uploaded file), so an old replay message's buttons always open their own hand; ``step`` is
the step the message shows, and the act says where to go from it (the jump menu's values are
steps). The format never changes: replay messages sent by any earlier version keep working.

>>> replay_id("h12", 40, Act.NEXT)
'nlkr:h12:40:next'
"""

from __future__ import annotations

import re
from enum import StrEnum

PREFIX = "nlkr"
REF = r"(?P<ref>h[0-9]{1,18}|f[0-9a-f]{32})"
STEP = r"(?P<step>[0-9]{1,6})"


class Act(StrEnum):
    FIRST = "first"
    PREV = "prev"
    NEXT = "next"
    LAST = "last"
    SHOW = "show"  # post this step in the channel
    JUMP = "jump"  # the menu: its value is the step
    OPEN = "open"  # the end-of-hand notice's Replay: opens the replay for whoever taps it


TEMPLATE = rf"{PREFIX}:{REF}:{STEP}:(?P<act>{'|'.join(a.value for a in Act)})"
# Anything else that starts like a replay id (forged, damaged or from a future version).
UNKNOWN = rf"(?!{TEMPLATE}$){PREFIX}:.{{0,95}}"


def replay_id(ref: str, step: int, act: Act) -> str:
    return f"{PREFIX}:{ref}:{step}:{act}"


def parse(match: re.Match[str]) -> tuple[str, int, Act]:
    return match["ref"], int(match["step"]), Act(match["act"])
