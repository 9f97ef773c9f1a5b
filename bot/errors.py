"""Polite refusals: each message is shown to the user as it is, and nothing has changed."""

from __future__ import annotations


class Refusal(Exception):
    """A request the bot turns down; ``str()`` is the sentence the user sees."""


class NoTable(Refusal):
    """There is no open table where the user asked."""


class TableExists(Refusal):
    """The channel already has an open table."""

    def __init__(self, message: str, table_id: int, message_id: int | None) -> None:
        super().__init__(message)
        self.table_id = table_id
        self.message_id = message_id


class NotSeated(Refusal):
    """The user has no seat at this table."""


class NotAllowed(Refusal):
    """Only the host (or a moderator) may do this."""


class WrongState(Refusal):
    """The table is not in the state this needs (lobby, playing, over)."""


class NotYourTurn(Refusal):
    """Someone else is to act."""


class Stale(Refusal):
    """The button was made for an earlier state of the table."""


class Illegal(Refusal):
    """The rules do not allow that action now; the sentence cites the rule."""


class StorageUnavailable(Refusal):
    """The database refused a write (read-only or full disk, I/O error); nothing was kept."""

    def __init__(self, message: str = ("The bot can't save moves right now (its disk refuses "
                                       "writes), so nothing changed. Please try again in a "
                                       "while.")) -> None:
        super().__init__(message)
