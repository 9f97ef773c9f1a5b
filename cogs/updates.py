"""What players see happen: table messages kept current, turn pings, the end of a hand.

This is the cog's side of ``bot.clocks.Notifier``, and the one place that decides, after any
change, whether to ping the next player or announce the end of the hand.

Most changes are shown by the interaction that caused them (``response.edit_message``). The
rest — a play made from someone's hand, a restart — ask for a coalesced edit: at most a few
edits per channel in any five seconds, each drawing the latest state, so a burst of moves
becomes one or two edits.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import discord

from bot.tables import Change, Table, TableService

from . import render
from .hands import OpenHands

log = logging.getLogger(__name__)

EDITS_PER_WINDOW = 4  # Discord allows about 5 per 5 s per channel; keep one spare
DELETES_PER_WINDOW = 4  # deletes have a per-channel bucket of their own
GLOBAL_PER_SECOND = 40  # Discord allows 50 requests a second per bot; keep some spare
WINDOW = 5.0


class TableUpdater:
    """Coalesced edits of table messages, and the turn pings."""

    def __init__(self, client: discord.Client, service: TableService, *,
                 edits_per_window: int = EDITS_PER_WINDOW) -> None:
        self.client = client
        self.service = service
        self.edits_per_window = edits_per_window
        self._latest: dict[int, Table] = {}  # table id → newest snapshot not yet shown
        self._shown: dict[int, int] = {}
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self.pacer = Pacer(edits_per_window)
        self._pings: dict[int, _Ping] = {}  # table id → its live turn ping
        self._deletes: set[asyncio.Task[None]] = set()
        self.hands = OpenHands()  # players' open hands, redrawn after each change
        self.closed = False

    def tracked(self) -> int:
        """How many tables and channels the updater holds state for (freed when done)."""
        return len(self._latest) + len(self._shown) + len(self._tasks) + len(self._pings) + \
            self.pacer.tracked() + self.hands.tracked()

    def shown(self, table: Table, revision: int) -> None:
        """The table message now shows ``revision`` (an interaction response drew it)."""
        self._shown[table.id] = max(self._shown.get(table.id, -1), revision)
        latest = self._latest.get(table.id)
        if latest is not None and latest.revision <= revision:
            del self._latest[table.id]
        self._forget_if_closed(table)

    def request(self, table: Table) -> None:
        """Bring the table message up to date soon."""
        if self.closed:
            return  # shutting down: the next start redraws what is out of date
        latest = self._latest.get(table.id)
        if latest is None or latest.revision <= table.revision:
            self._latest[table.id] = table
        task = self._tasks.get(table.id)
        if task is None or task.done():
            self._tasks[table.id] = asyncio.create_task(self._run(table.id))

    async def close(self) -> None:
        """Cancel the pending edits and wait until they have stopped."""
        self.closed = True
        tasks = [task for task in [*self._tasks.values(), *self._deletes] if not task.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._tasks.clear()
        await self.hands.close()

    # --- the bot's clocks tell us -----------------------------------------------------------

    async def table_changed(self, change: Change) -> None:
        """A change made without an interaction (an AI move, a stand-in, the idle sweep)."""
        self.request(change.table)
        await self.after(change, None)

    async def remind(self, table: Table, user_id: int, deadline: float) -> None:
        """A reminder replaces the turn ping (one live ping per table), with the controls."""
        content, buttons = render.ping_message(table, user_id, deadline=deadline,
                                               reminder=True)
        self._swap_ping(table, await self.say(table, content, mention=user_id, view=buttons))

    async def after(self, change: Change, interaction: discord.Interaction[Any] | None
                    ) -> None:
        """Ping whoever must act now, or announce the end of the hand, or clear the ping."""
        table = change.table
        self.hands.changed(table)
        actor = interaction.user.id if interaction is not None else None
        if change.hand_over:
            await self.announce_end(table, interaction)
        elif not table.is_open or table.status == "lobby":
            await self.clear_ping(table)
        elif change.after is not None and table.ai_to_act() is None and (
                (change.turn_moved and change.after != actor) or change.phase_changed):
            await self.ping(table, interaction)
        elif change.turn_moved:
            await self.clear_ping(table)  # the turn ended: its ping or reminder goes

    # --- the table message -----------------------------------------------------------------

    async def _run(self, table_id: int) -> None:
        try:
            while True:
                table = self._latest.get(table_id)
                if table is None or self._shown.get(table_id, -1) >= table.revision:
                    break
                await self._slot(table.channel_id)
                table = self._latest.get(table_id)
                if table is None or self._shown.get(table_id, -1) >= table.revision:
                    break
                await self._edit(table)
                self.shown(table, table.revision)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("could not update the message of table %s", table_id)
        finally:
            if self._tasks.get(table_id) is asyncio.current_task():
                del self._tasks[table_id]

    def _forget_if_closed(self, table: Table) -> None:
        if not table.is_open and table.id not in self._latest:
            self._shown.pop(table.id, None)
            self.pacer.prune()

    async def _slot(self, channel_id: int, kind: str = "write") -> None:
        """Wait until another channel request fits Discord's limits."""
        await self.pacer.slot(channel_id, kind)

    async def _edit(self, table: Table) -> None:
        embed = render.table_embed(table)
        view = render.table_view(table)
        channel = self.client.get_partial_messageable(table.channel_id,
                                                      guild_id=table.guild_id)
        if table.message_id is None:
            message = await channel.send(embed=embed, view=view)
            await self.service.set_message(table.id, message.id)
            table.message_id = message.id
            return
        try:
            await channel.get_partial_message(table.message_id).edit(embed=embed, view=view)
        except discord.NotFound:
            await self._slot(table.channel_id)
            # Someone deleted the table message: post a fresh one so the table stays playable.
            message = await channel.send(embed=embed, view=view)
            await self.service.set_message(table.id, message.id)
            table.message_id = message.id

    # --- messages in the channel ---------------------------------------------------------

    async def say(self, table: Table, content: str, *, mention: int | None = None,
                  view: discord.ui.View | None = None) -> discord.Message | None:
        """A message in the table's channel outside any interaction."""
        return await self.post(table.channel_id, table.guild_id, content, mention=mention,
                               view=view)

    async def post(self, channel_id: int, guild_id: int | None, content: str, *,
                   mention: int | None = None, view: discord.ui.View | None = None
                   ) -> discord.Message | None:
        """A channel message outside any interaction, paced, mentioning ``mention`` only."""
        mentions = discord.AllowedMentions(everyone=False, roles=False, users=[
            discord.Object(mention)] if mention else False)
        await self._slot(channel_id)
        channel = self.client.get_partial_messageable(channel_id, guild_id=guild_id)
        try:
            return await channel.send(content, view=view or discord.utils.MISSING,
                                      allowed_mentions=mentions)
        except discord.HTTPException:
            log.warning("could not post to channel %s", channel_id, exc_info=True)
            return None

    async def ping(self, table: Table, interaction: discord.Interaction[Any] | None) -> None:
        """Tell the player to act, mentioning only them, with their turn's controls."""
        user_id = table.user_to_act()
        if user_id is None or table.public_view() is None:
            await self.clear_ping(table)
            return
        content, buttons = render.ping_message(table, user_id)
        message: discord.Message | None = None
        if interaction is not None:
            mentions = discord.AllowedMentions(everyone=False, roles=False,
                                               users=[discord.Object(user_id)])
            try:
                message = await interaction.followup.send(
                    content, view=buttons, allowed_mentions=mentions, wait=True)
            except discord.HTTPException:
                log.warning("could not ping at table %s", table.id, exc_info=True)
        if message is None:
            message = await self.say(table, content, mention=user_id, view=buttons)
        self._swap_ping(table, message)

    async def announce_end(self, table: Table, interaction: discord.Interaction[Any] | None
                           ) -> None:
        """Say who lost the hand (the table message shows it too)."""
        await self.clear_ping(table)
        view = table.public_view()
        if view is None or view.loser is None:
            return
        order = ", ".join(render.safe_name(view.players[s]) for s in view.out)
        content = (f"Hand {table.hand_number} is over: **"
                   f"{render.safe_name(view.players[view.loser])}"
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
        """Delete the table's live turn ping, so the channel keeps one at most."""
        self._swap_ping(table, None)

    def _swap_ping(self, table: Table, message: discord.Message | None) -> None:
        """Make ``message`` the table's live ping (None: no ping) and delete the one it
        replaces. Pings can finish sending out of order: the newest revision wins."""
        current = self._pings.get(table.id)
        if current is not None and current.revision > table.revision:
            stale = _Ping(table.revision, message) if message is not None else None
        else:
            # No ping: keep the revision it was cleared at, so that a ping for an earlier
            # turn that lands late (a paced post) is known to be stale and deleted.
            self._pings[table.id] = _Ping(table.revision, message)
            stale = current
        if not table.is_open and message is None:
            self._pings.pop(table.id, None)
        if stale is not None and stale.message is not None:
            task = asyncio.create_task(self._delete(table.channel_id, stale))
            self._deletes.add(task)
            task.add_done_callback(self._deletes.discard)

    async def _delete(self, channel_id: int, ping: _Ping) -> None:
        """Delete an old ping: through its interaction's webhook while the token lasts (no
        channel budget), else as a paced channel request."""
        assert ping.message is not None
        try:
            if isinstance(ping.message, discord.WebhookMessage) and \
                    time.monotonic() - ping.sent < TOKEN_SECONDS:
                await ping.message.delete()
                return
            await self._slot(channel_id, "delete")
            await self.client.http.delete_message(channel_id, ping.message.id)
        except discord.HTTPException:
            log.debug("turn ping %s was already gone", ping.message.id)


TOKEN_SECONDS = 14 * 60  # an interaction's token lasts 15 minutes


@dataclass
class _Ping:
    revision: int
    message: discord.Message | None
    sent: float = field(default_factory=time.monotonic)


class Pacer:
    """Discord's limits for requests outside interactions, kept before Discord enforces them.

    About 50 requests a second per bot, and per channel about 5 message posts or edits, and
    separately 5 deletes, in any 5 seconds. Interaction responses and follow-ups are not
    counted (Discord does not count them either).
    """

    def __init__(self, per_channel: int = EDITS_PER_WINDOW, per_second: int = GLOBAL_PER_SECOND
                 ) -> None:
        self.per_channel = per_channel
        self.per_second = per_second
        self._channels: dict[tuple[int, str], deque[float]] = {}
        self._global: deque[float] = deque()

    def tracked(self) -> int:
        return len(self._channels)

    async def slot(self, channel_id: int, kind: str) -> None:
        """Wait until one more ``kind`` request ("write" or "delete") fits in the channel's
        window and in the bot's global second."""
        key = (channel_id, kind)
        while True:
            now = time.monotonic()
            recent = self._channels.setdefault(key, deque())
            _expire(recent, now, WINDOW)
            _expire(self._global, now, 1.0)
            wait = 0.0
            limit = self.per_channel if kind == "write" else DELETES_PER_WINDOW
            if len(recent) >= limit:
                wait = WINDOW - (now - recent[0]) + 0.05
            if len(self._global) >= self.per_second:
                wait = max(wait, 1.0 - (now - self._global[0]) + 0.01)
            if wait <= 0:
                recent.append(now)
                self._global.append(now)
                return
            await asyncio.sleep(wait)

    def prune(self) -> None:
        """Forget channels with nothing in their window."""
        now = time.monotonic()
        for key in [k for k, q in self._channels.items() if not q or now - q[-1] > WINDOW]:
            del self._channels[key]


def _expire(recent: deque[float], now: float, window: float) -> None:
    while recent and now - recent[0] > window:
        recent.popleft()
