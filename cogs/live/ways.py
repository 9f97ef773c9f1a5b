"""Ways of sending: how a live table's messages reach Discord, behind one interface.

A kind of message renders a ``Spec`` and sends it through its table's ``Way``; it never asks
where the table is. There are two ways, chosen once per table (``Publisher._way``):

- ``ChannelWay``: a bot in a server posts, edits and deletes in the channel, paced to the
  channel's limits (``Pacer``); it reaches every message it posted.
- ``TokenWay``: in a group DM or a DM the bot is not a member and speaks only through the
  tokens of the interactions it answered (``Tokens``): it edits a message through the
  freshest token that made or answered it, and posts as a follow-up of a token with
  follow-ups to spare. With no such token it raises ``Wait``: the next tap brings one.

Messages posted beside the table message (a turn ping, an end-of-hand notice) go through
the way's ``borrowing`` one: in a server, ``BorrowingWay`` posts them as follow-ups of the
newest tap while its token is fresh, sparing the channel's budget (a ping is posted and
deleted at every turn), and through the channel otherwise; a ``TokenWay`` borrows already.

A tap's own answer is the third way, one shot, used by the kind that answers it (it needs
the interaction itself: ``interaction.response``).

A refused token is an expected end, not an error: it is logged on one line and never used
again. A message found deleted raises ``Gone``.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any, Protocol

import discord

from cogs.live.tokens import FOLLOWUP_LIMIT, FOLLOWUPS, TOKEN_SECONDS, Held, Tokens
from cogs.transport.answered import Answered
from cogs.transport.mentions import only_user
from cogs.transport.pacer import Kind, Pacer
from cogs.transport.posts import ChannelPosts
from cogs.transport.raw import (
    TokenMessage,
    edit_in_channel,
    edit_through_token,
    post_through_token,
)

log = logging.getLogger(__name__)

# A server's messages posted beside the table message go through the newest tap's token
# while it is at most this old, so that they can still be edited and deleted through it.
BORROW_SECONDS = 10 * 60
MISSING_ACCESS = 50001  # Discord's code: the bot is not in the channel


class Wait(Exception):
    """A message can't be reached now (refused, or no token to send through): the kind's
    loop stops until the next snapshot or token arrives."""


class Refused(Exception):
    """Discord refused the token a request went through: it is not used again, and the
    request may be tried at once through another (or the message posted afresh)."""


class Gone(Exception):
    """The message was deleted (someone removed it): post it afresh."""


@dataclass
class Spec:
    """A message as a kind renders it. ``files`` are its attachments: on an edit they
    replace the ones it has, unless ``keep_files`` (then it keeps them, and ``files`` is
    ignored)."""

    content: str | None = None
    embed: discord.Embed | None = None
    view: discord.ui.View | None = None
    files: list[discord.File] = field(default_factory=list)
    keep_files: bool = False
    mention: int | None = None  # the one user it may notify
    # Told as soon as Discord answered the request that sends it: discord.py may then still
    # wait out a rate limit before returning it (``cogs.transport.answered``).
    answered: Answered | None = None

    def sent(self) -> dict[str, Any]:
        """Keyword arguments for posting it."""
        fields: dict[str, Any] = {"allowed_mentions": only_user(self.mention)}
        if self.content is not None:
            fields["content"] = self.content
        if self.embed is not None:
            fields["embed"] = self.embed
        if self.view is not None:
            fields["view"] = self.view
        if self.files:
            fields["files"] = self.files
        return fields

    def edited(self) -> dict[str, Any]:
        """Keyword arguments for editing a message into it. A message that mentions its
        person names them again: Discord reads an edit's mentions afresh, and one that
        named nobody would no longer show as mentioning them (an edit notifies nobody)."""
        fields: dict[str, Any] = {"content": self.content, "embed": self.embed,
                                  "view": self.view}
        if self.mention is not None:
            fields["allowed_mentions"] = only_user(self.mention)
        if not self.keep_files:
            fields["attachments"] = self.files
        if self.answered is not None:
            fields["answered"] = self.answered
        return fields


Refusal = Callable[[Held, discord.HTTPException], None]


async def follow_up(tokens: Tokens, held: Held, spec: Spec, refused: Refusal
                    ) -> TokenMessage | None:
    """Post ``spec`` as a follow-up of ``held``'s interaction, reading only the new message's
    id from Discord's answer. None: Discord refused it; a token that spent its follow-ups can
    still edit, any other refusal is ``refused``'s to handle, and the files are rewound, to be
    sent again another way."""
    try:
        message = await post_through_token(held.interaction, **spec.sent())
    except discord.HTTPException as error:
        if error.code == FOLLOWUP_LIMIT:
            held.followups = FOLLOWUPS  # spent: it can still edit
        else:
            refused(held, error)
        for file in spec.files:
            file.reset()  # sent once already: send it from the start again
        return None
    tokens.sent(held, message.id)
    return message


class Way(Protocol):
    """How a table's messages reach Discord."""

    def reaches(self, message_id: int, within: float = 0.0) -> bool:
        """Whether it can edit and delete ``message_id`` now (and ``within`` seconds from
        now)."""
        ...

    def posts(self, within: float = 0.0) -> bool:
        """Whether it can post now (and ``within`` seconds from now)."""
        ...

    def lapses(self) -> float | None:
        """When it stops reaching the place unless a tap renews it (None: never)."""
        ...

    def turn(self) -> AbstractAsyncContextManager[None]:
        """Hold around one post or edit: its turn within Discord's limits (a server's
        channel is paced; tokens are not). Draw what to send inside it, so that it is the
        newest state when it goes."""
        ...

    async def room(self) -> None:
        """Wait until a ``turn`` would come at once (a server's channel has room in its
        budget), without taking it: what to send is made ready meanwhile, not while the
        turn is held, nor long before it goes."""
        ...

    async def post(self, spec: Spec) -> int:
        """Post ``spec``; its message's id. Raises ``Wait`` if it can't now, ``Refused`` if
        the token it went through was refused."""
        ...

    async def edit(self, message_id: int, spec: Spec) -> None:
        """Edit ``message_id`` into ``spec``. Raises ``Gone`` if it was deleted, ``Wait``
        if it can't be reached now, ``Refused`` if the token it went through was refused."""
        ...

    async def delete(self, message_id: int) -> None:
        """Delete ``message_id`` if it can be reached (one gone already is fine, and so is
        one nothing will ever reach again). Raises ``HTTPException`` if it may still be
        there."""
        ...

    def keeps_copies(self) -> bool:
        """Whether older copies of the table message can stay where nothing deletes them
        (a group DM's, once the tokens that reached them lapsed): a tap on one then makes
        that copy the table message, and the other goes."""
        ...

    def borrowing(self, tokens: Tokens, clock: Callable[[], float]) -> Way:
        """The way for messages posted beside the table message (a turn ping, a notice):
        ``tokens`` are the table's, their ages counted on ``clock``."""
        ...

    async def exists(self, message_id: int) -> bool:
        """Whether ``message_id`` is still there (True where that can't be told: a group
        DM's messages can't be looked at, nor a channel's without Read Message History)."""
        ...

    async def history(self, limit: int, *, before: int | None = None
                      ) -> list[dict[str, Any]] | None:
        """Up to ``limit`` of the place's messages as Discord gives them, newest first
        (before a message id, else the newest); None where they can't be read (a
        group DM's, a channel's without Read Message History, or Discord refused)."""
        ...


class ChannelWay:
    """A server's table: the bot's own channel access, paced."""

    def __init__(self, client: discord.Client, pacer: Pacer, posts: ChannelPosts,
                 channel_id: int, guild_id: int | None) -> None:
        self.client = client
        self.pacer = pacer
        self.channel_posts = posts  # where refusals are kept, to be told at the next tap
        self.channel_id = channel_id
        self.guild_id = guild_id

    def reaches(self, message_id: int, within: float = 0.0) -> bool:
        return True

    def posts(self, within: float = 0.0) -> bool:
        return True

    def lapses(self) -> float | None:
        return None

    def turn(self) -> AbstractAsyncContextManager[None]:
        return self.pacer.use(self.channel_id, Kind.WRITE)

    async def room(self) -> None:
        await self.pacer.room(self.channel_id, Kind.WRITE)

    def keeps_copies(self) -> bool:
        return False  # the bot deletes its own messages in its channels at any time

    async def post(self, spec: Spec) -> int:
        channel = self.client.get_partial_messageable(self.channel_id, guild_id=self.guild_id)
        try:
            message = await channel.send(**spec.sent())
        except discord.Forbidden as error:
            self.channel_posts.refused(self.channel_id, error)  # told at the next tap
            raise
        return message.id

    async def edit(self, message_id: int, spec: Spec) -> None:
        try:
            # Nothing of Discord's answer is read: the edit went through, or it raises.
            await edit_in_channel(self.client, self.channel_id, message_id, **spec.edited())
        except discord.NotFound:
            raise Gone() from None
        except discord.Forbidden as error:
            self.channel_posts.refused(self.channel_id, error)
            raise

    async def delete(self, message_id: int) -> None:
        try:
            async with self.pacer.use(self.channel_id, Kind.DELETE):
                await self.client.http.delete_message(self.channel_id, message_id)
        except discord.NotFound:
            log.debug("message %s was already gone", message_id)
        except discord.Forbidden as error:
            if error.code != MISSING_ACCESS:
                raise
            # The bot left the channel: nothing can delete it any more.
            log.info("could not delete message %s: the bot can't reach its channel",
                     message_id)

    def borrowing(self, tokens: Tokens, clock: Callable[[], float]) -> Way:
        return BorrowingWay(self, tokens, clock)

    async def exists(self, message_id: int) -> bool:
        try:
            async with self.pacer.use(self.channel_id, Kind.READ):
                await self.client.http.get_message(self.channel_id, message_id)
        except discord.NotFound:
            return False
        except discord.HTTPException:
            log.debug("can't tell whether message %s exists", message_id)
        return True

    async def history(self, limit: int, *, before: int | None = None
                      ) -> list[dict[str, Any]] | None:
        # Not asked where the bot is known to lack Read Message History (Discord would
        # count the refusal as an invalid request); a channel or thread not known here is.
        channel: Any = self.client.get_channel(self.channel_id)
        guild = getattr(channel, "guild", None)
        if guild is not None and not channel.permissions_for(guild.me).read_message_history:
            return None
        try:
            async with self.pacer.use(self.channel_id, Kind.READ):
                found: list[Any] = await self.client.http.logs_from(
                    self.channel_id, limit, before=before)
                return found
        except discord.HTTPException:
            log.info("could not read channel %s's history", self.channel_id)
            return None


class BorrowingWay:
    """A server's messages beside the table message: posted as a follow-up of the newest
    tap while its token is at most ``BORROW_SECONDS`` old (no channel budget), else in the
    channel, paced. A message posted through a token is edited and deleted through it while
    the token lasts, and through the channel after."""

    def __init__(self, channel: ChannelWay, tokens: Tokens, clock: Callable[[], float]
                 ) -> None:
        self.channel = channel
        self.tokens = tokens
        self.clock = clock
        # The messages it posted through a token: the token, and when its interaction came.
        self._made: dict[int, tuple[TokenMessage, float]] = {}

    # It reaches what the channel reaches (every message, always): a token only spares it.
    def reaches(self, message_id: int, within: float = 0.0) -> bool:
        return self.channel.reaches(message_id, within)

    def posts(self, within: float = 0.0) -> bool:
        return self.channel.posts(within)

    def lapses(self) -> float | None:
        return self.channel.lapses()

    def turn(self) -> AbstractAsyncContextManager[None]:
        return nullcontext()  # what goes through the channel takes its turn there

    async def room(self) -> None:
        pass

    def keeps_copies(self) -> bool:
        return self.channel.keeps_copies()

    def borrowing(self, tokens: Tokens, clock: Callable[[], float]) -> Way:
        return self

    async def exists(self, message_id: int) -> bool:
        return await self.channel.exists(message_id)

    async def history(self, limit: int, *, before: int | None = None
                      ) -> list[dict[str, Any]] | None:
        return await self.channel.history(limit, before=before)

    async def post(self, spec: Spec) -> int:
        held = self.tokens.sender(self.clock(), BORROW_SECONDS)
        message = None if held is None else \
            await follow_up(self.tokens, held, spec, self._refused)
        if held is None or message is None:
            async with self.channel.turn():
                return await self.channel.post(spec)
        self._forget_lapsed()
        self._made[message.id] = (message, held.since)
        return message.id

    def _refused(self, held: Held, error: discord.HTTPException) -> None:
        """Discord refused ``held``'s token: nothing more goes through it (the message goes
        in the channel)."""
        log.info("could not post through a token (%s %s); posting in the channel",
                 error.status, error.code)
        self.tokens.forget(held.interaction)

    def _through(self, message_id: int) -> TokenMessage | None:
        """The token that posted ``message_id``, while it lasts."""
        made = self._made.get(message_id)
        if made is None or self.clock() - made[1] >= TOKEN_SECONDS:
            return None
        return made[0]

    def _forget_lapsed(self) -> None:
        now = self.clock()
        for message_id in [m for m, (_, since) in self._made.items()
                           if now - since >= TOKEN_SECONDS]:
            del self._made[message_id]

    async def edit(self, message_id: int, spec: Spec) -> None:
        through = self._through(message_id)
        if through is None:
            async with self.channel.turn():
                await self.channel.edit(message_id, spec)
            return
        try:
            await through.edit(self.channel.client, **spec.edited())
        except discord.NotFound:
            raise Gone() from None

    async def delete(self, message_id: int) -> None:
        through = self._through(message_id)
        if through is None:
            await self.channel.delete(message_id)
            return
        try:
            await through.delete(self.channel.client)
        except discord.NotFound:
            log.debug("message %s was already gone", message_id)
        self._made.pop(message_id, None)


class TokenWay:
    """A group DM's or a DM's table: the tokens of the interactions answered there
    (``clock``: the time their ages are counted in)."""

    def __init__(self, table_id: int, tokens: Tokens, clock: Callable[[], float]) -> None:
        self.table_id = table_id
        self.tokens = tokens
        self.clock = clock

    def reaches(self, message_id: int, within: float = 0.0) -> bool:
        return self._editor(message_id, within) is not None

    def posts(self, within: float = 0.0) -> bool:
        return self.tokens.sender(self.clock() + within) is not None

    def lapses(self) -> float | None:
        until = self.tokens.until()
        return until if until is not None else -math.inf  # no token: it reaches nothing

    def turn(self) -> AbstractAsyncContextManager[None]:
        return nullcontext()  # Discord does not count interaction webhooks per channel

    async def room(self) -> None:
        pass

    def keeps_copies(self) -> bool:
        return True  # a copy whose tokens lapsed stays until a tap on it brings one

    def borrowing(self, tokens: Tokens, clock: Callable[[], float]) -> Way:
        return self  # every message goes through a token already

    async def exists(self, message_id: int) -> bool:
        return True  # (a group DM's messages can't be looked at)

    async def history(self, limit: int, *, before: int | None = None
                      ) -> list[dict[str, Any]] | None:
        return None  # (a group DM's messages can't be looked at)

    def _editor(self, message_id: int, within: float = 0.0) -> Held | None:
        return self.tokens.editor(message_id, self.clock() + within)

    async def post(self, spec: Spec) -> int:
        sender = self.tokens.sender(self.clock())
        if sender is None:
            raise Wait()  # nobody tapped for 15 minutes: the next tap brings a token
        message = await follow_up(self.tokens, sender, spec, self._refused)
        if message is None:
            raise Refused()
        return message.id

    async def edit(self, message_id: int, spec: Spec) -> None:
        held = self._editor(message_id)
        if held is None:
            raise Wait()
        interaction = held.interaction
        try:
            # Nothing of Discord's answer is read: the edit went through, or it raises.
            await edit_through_token(
                interaction.client, interaction.application_id, interaction.token,
                "@original" if held.original == message_id else message_id, **spec.edited())
        except discord.NotFound:
            raise Gone() from None
        except discord.HTTPException as error:
            self._refused(held, error)
            raise Refused() from None

    async def delete(self, message_id: int) -> None:
        held = self._editor(message_id)
        if held is None:
            return  # nothing reaches it any more: it stays (a tap on it makes it current)
        try:
            if held.original == message_id:
                await held.interaction.delete_original_response()
            else:
                await held.interaction.followup.delete_message(message_id)
        except discord.NotFound:
            log.debug("message %s was already gone", message_id)
        except discord.HTTPException as error:
            self._refused(held, error)

    def _refused(self, held: Held, error: discord.HTTPException) -> None:
        """Discord refused ``held``'s token (it lapsed sooner than the bot could know, or
        was revoked): an expected end, one line, and nothing more goes through it."""
        log.info("table %s: a token was refused (%s %s); not used again", self.table_id,
                 error.status, error.code)
        self.tokens.forget(held.interaction)
