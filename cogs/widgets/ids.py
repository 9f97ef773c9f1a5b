"""Custom ids: ``nlk:<table>:<version>:<action>[.<arg>]``, so a click finds its table and state.

The version is the engine's count of applied actions (``-`` where the state does not matter);
a click made at an older version is refused, so a stale or doubled click applies once. The
format never changes: buttons on messages sent by any earlier version keep working. Each
family of actions has its own template (``template``), parsed once by its ``DynamicItem``
(``cogs/routes/families.py``).

>>> button_id(12, 40, Move.GIVE, "9D.3")
'nlk:12:40:give.9D.3'
>>> import re; re.fullmatch(template(Seating), button_id(12, None, Seating.JOIN))["action"]
'join'
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

BUTTON = "nlk"
SELECT = "nlks"
TABLE = r"(?P<table>[0-9]{1,20})"
VERSION = r"(?P<version>[0-9]{1,7}|-)"
ACTION = r"(?P<action>[a-z]{1,10})"
ARG = r"(?:\.(?P<arg>[0-9A-Z.]{1,20}))?"
MAX_ID = 2**63 - 1  # Discord snowflakes and SQLite integers stop here


class Move(StrEnum):
    """A move in the game (the button carries the version it was drawn at)."""

    DRAW = "draw"
    KEEP = "keep"
    GIVE = "give"  # arg: <card>.<seat>
    PLAY = "play"  # arg: <card>, or a select's <suit>
    TAKE = "take"


class Seating(StrEnum):
    """The lobby, the seats and the table itself."""

    JOIN = "join"
    LEAVE = "leave"
    START = "start"
    CANCEL = "cancel"
    NEXT = "next"
    END = "end"  # asks first, privately
    END_YES = "endyes"  # the answer: end it
    END_NO = "endno"  # the answer: keep it
    ADD_AI = "addai"  # arg: the AI level, in capitals
    REMOVE_AI = "removeai"
    BACK = "back"
    REMOVE = "remove"  # arg: the user id of the away seat


class Look(StrEnum):
    """Something to look at privately."""

    HAND = "hand"
    MOVES = "moves"  # arg: the page (none: the latest)
    FAIR = "fair"
    LEARN = "learn"  # the lobby's way to the lesson (``/nlk learn``), privately
    HINT = "hint"  # a hint on one's own turn, where the server allows hints
    TABLE = "table"  # a group DM's quiet table message brought up to date, in place


class Read(StrEnum):
    """A rule to read privately, cited by something said at the table: "📖 R3.3"."""

    RULE = "rule"  # arg: the rule (``R3.3``); anything else there is answered politely


class Page(StrEnum):
    """A page of the server's leaderboard (table 0)."""

    STATS = "stats"  # arg: the page


def template(actions: Iterable[StrEnum], prefix: str = BUTTON) -> str:
    """The custom ids of one family of actions."""
    names = "|".join(action.value for action in actions)
    return f"{prefix}:{TABLE}:{VERSION}:(?P<action>{names}){ARG}"


def rule_template() -> str:
    """The rule buttons' ids: ``nlk:<table>:-:rule.R3.3``. The arg takes anything up to the
    id's length, so a damaged or forged rule is still this family's, and told there is no
    such rule, rather than left unanswered."""
    return f"{BUTTON}:{TABLE}:{VERSION}:(?P<action>{Read.RULE})(?:\\.(?P<arg>.{{0,80}}))?"


def unknown_template(known: dict[str, Iterable[StrEnum]]) -> str:
    """Any NLK-shaped custom id that no family claims (by prefix), so it is refused politely
    rather than left unanswered."""
    claimed = "".join(
        f"(?!{prefix}:[^:]*:[^:]*:(?:{'|'.join(a.value for a in actions)})(?:\\.|$))"
        for prefix, actions in known.items())
    return f"{claimed}nlks?:{TABLE}:{VERSION}:{ACTION}{ARG}"


@dataclass(frozen=True)
class Target:
    """What a custom id points at, parsed once from its template's groups."""

    table_id: int
    version: int | None  # None: ``-``, the state does not matter
    arg: str

    @classmethod
    def of(cls, match: re.Match[str]) -> Target:
        version = match["version"]
        return cls(int(match["table"]), None if version == "-" else int(version),
                   match["arg"] or "")

    @property
    def valid(self) -> bool:
        return self.table_id <= MAX_ID


def rule_id(table: int, rule: str) -> str:
    """A "📖 R3.3" button's id, at ``table`` (its state does not matter).

    >>> rule_id(12, "R3.3")
    'nlk:12:-:rule.R3.3'
    """
    return button_id(table, None, Read.RULE, rule)


def button_id(table: int, version: int | None, action: StrEnum, arg: str = "") -> str:
    return _make(BUTTON, table, version, action, arg)


def select_id(table: int, version: int | None, action: StrEnum, arg: str = "") -> str:
    return _make(SELECT, table, version, action, arg)


def _make(prefix: str, table: int, version: int | None, action: StrEnum, arg: str) -> str:
    text = f"{prefix}:{table}:{'-' if version is None else version}:{action}"
    return f"{text}.{arg}" if arg else text
