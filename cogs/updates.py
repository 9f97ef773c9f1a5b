"""Keeping table messages current without tripping Discord's per-channel edit limit.

Most changes are shown by the interaction that caused them (``response.edit_message``). The
rest — a play made from someone's hand, a restart — ask for a coalesced edit: at most a few
edits per channel in any five seconds, each drawing the latest state, so a burst of moves
becomes one or two edits.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import defaultdict, deque
from typing import Any

import discord

from bot.tables import Table, TableService
from rules import Phase

from . import render
from .components import Buttons

log = logging.getLogger(__name__)

EDITS_PER_WINDOW = 4  # Discord allows about 5 per 5 s per channel; keep one spare
WINDOW = 5.0


class TableUpdater:
    """Coalesced edits of table messages, and the turn pings."""

    def __init__(self, client: discord.Client, service: TableService, *,
                 edits_per_window: int = EDITS_PER_WINDOW) -> None:
        self.client = client
        self.service = service
        self.edits_per_window = edits_per_window
        self._shown: dict[int, int] = {}
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._recent: defaultdict[int, deque[float]] = defaultdict(deque)
        self._pings: dict[int, int] = {}  # table id → message id of its live turn ping

    def shown(self, table: Table, revision: int) -> None:
        """The table message now shows ``revision`` (an interaction response drew it)."""
        self._shown[table.id] = max(self._shown.get(table.id, -1), revision)

    def request(self, table: Table) -> None:
        """Bring the table message up to date soon."""
        task = self._tasks.get(table.id)
        if task is None or task.done():
            self._tasks[table.id] = asyncio.create_task(self._run(table))

    async def close(self) -> None:
        for task in self._tasks.values():
            task.cancel()

    async def _run(self, table: Table) -> None:
        try:
            while self._shown.get(table.id, -1) < table.revision:
                await self._slot(table.channel_id)
                if self._shown.get(table.id, -1) >= table.revision:
                    break
                revision = table.revision
                await self._edit(table)
                self.shown(table, revision)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("could not update the message of table %s", table.id)

    async def _slot(self, channel_id: int) -> None:
        """Wait until another channel-message edit fits in the window."""
        recent = self._recent[channel_id]
        while True:
            now = time.monotonic()
            while recent and now - recent[0] > WINDOW:
                recent.popleft()
            if len(recent) < self.edits_per_window:
                recent.append(now)
                return
            await asyncio.sleep(WINDOW - (now - recent[0]) + 0.05)

    async def _edit(self, table: Table) -> None:
        embed = render.table_embed(table)
        view = render.table_view(table)
        channel = self.client.get_partial_messageable(table.channel_id,
                                                      guild_id=table.guild_id)
        if table.message_id is None:
            message = await channel.send(embed=embed, view=view)
            await self.service.set_message(table, message.id)
            return
        try:
            await channel.get_partial_message(table.message_id).edit(embed=embed, view=view)
        except discord.NotFound:
            await self._slot(table.channel_id)
            # Someone deleted the table message: post a fresh one so the table stays playable.
            message = await channel.send(embed=embed, view=view)
            await self.service.set_message(table, message.id)

    # --- messages in the channel ---------------------------------------------------------

    async def say(self, table: Table, content: str, *, mention: int | None = None,
                  view: discord.ui.View | None = None) -> discord.Message | None:
        """A channel message outside any interaction, within the channel's rate."""
        mentions = discord.AllowedMentions(everyone=False, roles=False, users=[
            discord.Object(mention)] if mention else False)
        await self._slot(table.channel_id)
        channel = self.client.get_partial_messageable(table.channel_id, guild_id=table.guild_id)
        try:
            return await channel.send(content, view=view or discord.utils.MISSING,
                                      allowed_mentions=mentions)
        except discord.HTTPException:
            log.warning("could not post to the channel of table %s", table.id, exc_info=True)
            return None

    async def ping(self, table: Table, interaction: discord.Interaction[Any] | None) -> None:
        """Tell the player to act, mentioning only them, with their cards one tap away."""
        user_id = table.user_to_act()
        view = table.public_view()
        if user_id is None or view is None:
            await self.clear_ping(table)
            return
        where = ("the buttons are on the table message" if view.phase == Phase.COLLECT
                 else "tap **My hand** to play")
        content = f"<@{user_id}> your turn at NLK table {table.id}: {where}."
        buttons = Buttons()
        label = "My stack" if view.phase == Phase.COLLECT else "My hand"
        buttons.add_item(render.NLKButton(render.button_id(table.id, None, "hand"), label,
                                          discord.ButtonStyle.primary))
        if interaction is not None:
            mentions = discord.AllowedMentions(everyone=False, roles=False,
                                               users=[discord.Object(user_id)])
            try:
                message: discord.Message | None = await interaction.followup.send(
                    content, view=buttons, allowed_mentions=mentions, wait=True)
            except discord.HTTPException:
                log.warning("could not ping at table %s", table.id, exc_info=True)
                message = None
        else:
            message = await self.say(table, content, mention=user_id, view=buttons)
        await self.clear_ping(table)
        if message is not None:
            self._pings[table.id] = message.id

    async def announce_end(self, table: Table, interaction: discord.Interaction[Any] | None
                           ) -> None:
        """Say who lost the hand (the table message shows it too)."""
        await self.clear_ping(table)
        view = table.public_view()
        if view is None or view.loser is None:
            return
        order = ", ".join(render.name(view.players[s]) for s in view.out)
        content = (f"Hand {table.hand_number} is over: **{render.name(view.players[view.loser])}"
                   f" loses** and deals next. Finishing order: {order}.")
        if interaction is not None:
            try:
                await interaction.followup.send(content,
                                                allowed_mentions=discord.AllowedMentions.none())
                return
            except discord.HTTPException:
                log.warning("could not announce through the interaction", exc_info=True)
        await self.say(table, content)

    async def clear_ping(self, table: Table) -> None:
        """Delete the table's previous turn ping, so the channel keeps one at most."""
        old = self._pings.pop(table.id, None)
        if old is None:
            return
        try:
            await self.client.http.delete_message(table.channel_id, old)
        except discord.HTTPException:
            log.debug("turn ping %s was already gone", old)
