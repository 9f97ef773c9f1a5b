"""The interaction tokens a live table holds: a way of sending that needs no channel access.

Every interaction the bot answers brings a token that, for 15 minutes, can send follow-ups
and edit or delete the messages that interaction made: its answer (``@original``: the message
a tap edited, or the message a command posted) and its follow-ups. In a server the bot also
has the channel, and a token only spares its budget (a turn ping goes as a follow-up of the
newest tap). In a group DM or a DM, where the bot is not a member, tokens are the only way:
each kind of message sends through the freshest token that can reach its message, or posts
it afresh through a token with follow-ups to spare, and waits (``Wait``) when none is left.

A user-installed app gets at most 5 follow-ups per interaction: ``Held.followups`` counts
them, and a token that spent its budget only edits.

>>> tokens = Tokens()
>>> tokens.until() is None  # no token: a group DM's table reaches nobody
True
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cogs.client import Interaction

TOKEN_SECONDS = 14 * 60  # an interaction's token lasts 15 minutes; stop a minute early
FOLLOWUPS = 5  # follow-ups Discord allows an interaction no server installation authorises
FOLLOWUP_LIMIT = 40094  # Discord's code: the interaction spent its follow-ups
KEEP = 8  # tokens held per table: the freshest (older ones can still edit what they made)


@dataclass(eq=False)
class Held:
    """One answered interaction at the table: its token, when it came, and what it made."""

    interaction: Interaction
    since: float  # when it came (``time.monotonic``)
    original: int | None = None  # the id of its answer's message (edited as @original)
    made: set[int] = field(default_factory=set)  # the follow-ups it posted
    followups: int = 0  # follow-ups it sent

    def fresh(self, now: float) -> bool:
        return now - self.since < TOKEN_SECONDS

    def capped(self) -> bool:
        """Whether Discord caps its follow-ups (no server installation authorises it)."""
        return not self.interaction.is_guild_integration()

    def can_post(self) -> bool:
        return not self.capped() or self.followups < FOLLOWUPS

    def touches(self, message_id: int) -> bool:
        return message_id == self.original or message_id in self.made


class Tokens:
    """A table's freshest tokens, oldest first: ``keep`` of them, and besides those the
    ones that made a message (they are the only ones that can edit it)."""

    def __init__(self, keep: int = KEEP, *, makers: bool = True) -> None:
        self.keep = keep
        # Whether to hold, beyond ``keep``, the tokens that made a message (a group DM's
        # only way to edit it; a server's table has its channel, and holds just one).
        self.makers = makers
        self._held: list[Held] = []

    def heard(self, interaction: Interaction, now: float,
              original: int | None = None) -> Held:
        """``interaction`` was answered (``original``: the id of the message its answer
        is, if known): hold its token."""
        for held in self._held:
            if held.interaction is interaction:
                if original is not None:
                    held.original = original
                return held
        held = Held(interaction, now, original)
        self._held = [h for h in self._held if h.fresh(now)] + [held]
        if len(self._held) > self.keep:
            older, newest = self._held[:-self.keep], self._held[-self.keep:]
            self._held = ([h for h in older if h.made or h.original][-self.keep:]
                          if self.makers else []) + newest
        return held

    def drop(self, now: float) -> None:
        """Let go of the tokens that expired."""
        self._held = [held for held in self._held if held.fresh(now)]

    def forget(self, interaction: Interaction) -> None:
        """Discord refused ``interaction``'s token: nothing more goes through it."""
        self._held = [held for held in self._held if held.interaction is not interaction]

    def until(self) -> float | None:
        """When the freshest token expires (None: none held)."""
        return self._held[-1].since + TOKEN_SECONDS if self._held else None

    def editor(self, message_id: int, now: float) -> Held | None:
        """The freshest live token that can edit or delete ``message_id``."""
        for held in reversed(self._held):
            if held.fresh(now) and held.touches(message_id):
                return held
        return None

    def sender(self, now: float, max_age: float = TOKEN_SECONDS) -> Held | None:
        """The freshest token at most ``max_age`` seconds old with a follow-up to spare."""
        for held in reversed(self._held):
            if now - held.since < min(max_age, TOKEN_SECONDS) and held.can_post():
                return held
        return None

    def sent(self, held: Held, message_id: int) -> None:
        """``held`` posted follow-up ``message_id``."""
        held.followups += 1
        held.made.add(message_id)

    def newest(self) -> Held | None:
        """The token heard last (None: none held)."""
        return self._held[-1] if self._held else None

    def __len__(self) -> int:
        return len(self._held)
