"""Custom ids: ``nlk:<table>:<version>:<action>[.<arg>]``, so a click finds its table and state.

The version is the engine's count of applied actions (``-`` where the state does not matter);
a click made at an older version is refused, so a stale or doubled click applies once.

>>> button_id(12, 40, "give", "9D.3")
'nlk:12:40:give.9D.3'
>>> parse(button_id(12, None, "join"))
(12, None, 'join', '')
"""

from __future__ import annotations

import re

from bot.errors import InputError

BUTTON_TEMPLATE = (r"nlk:(?P<table>[0-9]{1,20}):(?P<version>[0-9]{1,7}|-):"
                   r"(?P<action>[a-z]{1,10})(?:\.(?P<arg>[0-9A-Z.]{1,20}))?")
SELECT_TEMPLATE = "nlks" + BUTTON_TEMPLATE[3:]
_ANY = re.compile(r"nlks?" + BUTTON_TEMPLATE[3:])


def button_id(table: int, version: int | None, action: str, arg: str = "") -> str:
    return _make("nlk", table, version, action, arg)


def select_id(table: int, version: int | None, action: str, arg: str = "") -> str:
    return _make("nlks", table, version, action, arg)


def _make(prefix: str, table: int, version: int | None, action: str, arg: str) -> str:
    text = f"{prefix}:{table}:{'-' if version is None else version}:{action}"
    return f"{text}.{arg}" if arg else text


MAX_ID = 2**63 - 1  # Discord snowflakes and SQLite integers stop here


def parse(custom_id: str) -> tuple[int, int | None, str, str]:
    """``(table, version, action, arg)``; raises ``InputError`` for anything else.

    >>> parse("nlk:99999999999999999999:-:join")
    Traceback (most recent call last):
    bot.errors.InputError: InputError(id)
    """
    match = _ANY.fullmatch(custom_id)
    if match is None or int(match["table"]) > MAX_ID:
        raise InputError("id")
    version = match["version"]
    return (int(match["table"]), None if version == "-" else int(version), match["action"],
            match["arg"] or "")
