"""Polite refusals: a request the bot turns down, and nothing has changed.

Every refusal is one precise class carrying the facts a reply needs (a name, a number, a
rule), never a sentence: the cogs turn them into sentences through one table
(``cogs/answers/replies.py``), so the wording lives in one place and can be translated.
The engine's own refusals (``rules.IllegalAction``) reach players as ``AgainstTheRules``,
keeping their rule number.
"""

from __future__ import annotations

from typing import Any


class Refusal(Exception):
    """Base of every request the bot turns down; ``reason`` picks a wording, ``details``
    fill it in."""

    def __init__(self, reason: str = "", **details: Any) -> None:
        # A fact that is missing (nobody is to act, say) is left out, never kept as None:
        # a sentence is then chosen that does not need it, so no refusal can be worded with
        # a hole where a name should be.
        details = {k: v for k, v in details.items() if v is not None}
        super().__init__(reason, details)
        self.reason = reason
        self.details = details

    def __str__(self) -> str:
        facts = ", ".join(f"{k}={v!r}" for k, v in self.details.items())
        return f"{type(self).__name__}({self.reason}{'; ' if facts else ''}{facts})"


class InputError(Refusal):
    """A malformed button id, option or command context (forged, or from an old bot)."""


class NoTable(Refusal):
    """There is no open table where the user asked (``reason``: here, gone, export)."""


class TableExists(Refusal):
    """The channel already has an open table (``table_id``, ``message_id``; ``reason``
    lobby: it is waiting for players, so its host can still cancel it)."""

    def __init__(self, table_id: int, message_id: int | None, reason: str = "") -> None:
        super().__init__(reason, table_id=table_id, message_id=message_id)
        self.table_id = table_id
        self.message_id = message_id


class NotSeated(Refusal):
    """The user has no seat at this table (``turn_of``: who is to act, if anyone; ``reason``
    leaving: their seat goes when this hand ends; remove: ``name`` is not seated; next,
    next_full: only the next hand's players deal it, and its seats are all taken or not)."""

    def __init__(self, reason: str = "", *, turn_of: str | None = None) -> None:
        super().__init__(reason, turn_of=turn_of)


class NotAllowed(Refusal):
    """Only the host, a moderator or the seat's owner may do this (``reason`` says what)."""


class TableFull(Refusal):
    """Every seat is taken (``seats``)."""

    def __init__(self, *, seats: int) -> None:
        super().__init__("", seats=seats)


class AlreadySeated(Refusal):
    """The user is already seated at this table."""


class AlreadyStarted(Refusal):
    """A hand is under way, or the table has started (``reason``: join, start, cancel, ai)."""


class TooFewPlayers(Refusal):
    """A hand needs at least two players (``reason`` next: for the next hand)."""


class NoAIToRemove(Refusal):
    """There is no AI seat to free."""


class SeatStays(Refusal):
    """The last person staying cannot leave (or be removed from) a running hand: it must
    finish, and nobody would be left to deal the next; ending the table is the way out."""


class HandNotOver(Refusal):
    """The next hand can only be dealt once this one is over."""


class HandInPlay(Refusal):
    """Hand ``number`` of ``table`` is still being played: its export would reveal the
    hidden hands."""

    def __init__(self, number: int, table: int) -> None:
        super().__init__("", number=number, table=table)


class NoSuchHand(Refusal):
    """No hand of this channel answers to ``hand``, as typed."""

    def __init__(self, hand: str) -> None:
        super().__init__("", hand=hand)


class NotPlaying(Refusal):
    """The table is not in a hand (``reason``: lobby, over, ended)."""


class NotAway(Refusal):
    """The seat is not being played by the AI (``reason`` remove: ``name``'s seat, which
    therefore cannot be removed)."""

    def __init__(self, reason: str = "", *, name: str | None = None) -> None:
        if reason == "remove" and name is None:
            reason = ""  # the sentence that names nobody
        super().__init__(reason, name=name)


class BadSetting(Refusal):
    """A table or server setting out of range (``reason``: seats, timer, ai, language;
    ``value``)."""

    def __init__(self, reason: str, *, value: object, **details: Any) -> None:
        super().__init__(reason, value=value, **details)


class WaitYourTurn(Refusal):
    """Someone else is to act (``name``)."""

    def __init__(self, *, name: str) -> None:
        super().__init__("", name=name)


class Stale(Refusal):
    """The button was made for an earlier state of the table."""


class PlayedElsewhere(Stale):
    """The database holds a change this process did not know of: another process played
    first (in a hand-over both processes get the tap, and the other one played it)."""


class NotEnded(Stale):
    """A confirmed End table whose table moved on since it was asked: it was not ended
    (``table``; ``number``, the hand now; ``reason`` new_hand: a hand started meanwhile)."""

    def __init__(self, reason: str = "", *, table: int, number: int) -> None:
        super().__init__(reason, table=table, number=number)


class WrongChannel(Refusal):
    """A click or command about a table that lives in another channel."""


class AgainstTheRules(Refusal):
    """The rules do not allow that action now (``rule`` such as R3.2, ``message``)."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__("", rule=rule, message=message)
        self.rule = rule
        self.message = message


class StorageUnavailable(Refusal):
    """The database refuses writes (disk full or read-only): nothing was saved."""


class BotLacksPermissions(Refusal):
    """The bot cannot post in this channel (``missing``: the permissions it lacks)."""

    def __init__(self, *, missing: str) -> None:
        super().__init__("", missing=missing)
