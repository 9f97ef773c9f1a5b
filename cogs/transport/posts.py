"""Messages the bot posts in a channel outside any interaction, paced, and the refusals.

If Discord refuses a post (a permission was taken away under a running table), the channel
is remembered, so that the next person who uses the table there is told once what the bot
needs; a post that goes through again forgets it.
"""

from __future__ import annotations

import logging

import discord

from cogs.transport.mentions import only_user
from cogs.transport.pacer import Kind, Pacer

log = logging.getLogger(__name__)


class ChannelPosts:
    """Paced channel messages, and what Discord said when it last refused one per channel."""

    def __init__(self, client: discord.Client, pacer: Pacer) -> None:
        self.client = client
        self.pacer = pacer
        # channel id → (what Discord said when it refused a post, whether someone was told)
        self._denied: dict[int, tuple[str, bool]] = {}

    def tracked(self) -> int:
        return len(self._denied)

    async def post(self, channel_id: int, guild_id: int | None, content: str, *,
                   mention: int | None = None, view: discord.ui.View | None = None,
                   embed: discord.Embed | None = None, files: list[discord.File] | None = None
                   ) -> discord.Message | None:
        """A channel message outside any interaction, paced, mentioning ``mention`` only
        (with ``embed`` and ``files``, if given)."""
        mentions = only_user(mention)
        channel = self.client.get_partial_messageable(channel_id, guild_id=guild_id)
        try:
            async with self.pacer.use(channel_id, Kind.WRITE):
                message = await channel.send(content or None,
                                             view=view or discord.utils.MISSING,
                                             embed=embed or discord.utils.MISSING,
                                             files=files or discord.utils.MISSING,
                                             allowed_mentions=mentions)
        except discord.Forbidden as error:
            # Permissions changed under a running table: the next interaction there is told.
            self.refused(channel_id, error)
            log.warning("may not post to channel %s: %s", channel_id, error.text)
            return None
        except discord.HTTPException:
            log.warning("could not post to channel %s", channel_id, exc_info=True)
            return None
        self._denied.pop(channel_id, None)
        return message

    def refused(self, channel_id: int, error: discord.Forbidden) -> None:
        said, told = self._denied.get(channel_id, ("", False))
        self._denied[channel_id] = (error.text or said or "Missing Permissions", told)

    def forget(self, channel_id: int) -> None:
        """The channel's table closed: forget its refusals."""
        self._denied.pop(channel_id, None)

    def untold_refusal(self, channel_id: int | None) -> str | None:
        """What Discord said when it last refused a post in the channel, if nobody there
        was told yet; marks it told (each refusal is told once, until posting works again)."""
        if channel_id is None or channel_id not in self._denied:
            return None
        said, told = self._denied[channel_id]
        if told:
            return None
        self._denied[channel_id] = (said, True)
        return said
