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
import hashlib
import json
import logging
import time
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

import discord

from bot.clocks import RETRY_SECONDS
from bot.tables import Change, Table, TableService
from rules.i18n import DEFAULT, Lang, translator

from . import render
from .coalesce import Coalescer
from .hands import OpenHands
from .pictures import Attached, Picture, Pictures, send_files
from .translator import Languages

log = logging.getLogger(__name__)

# Discord allows about 5 message posts or edits per 5 s per channel, and 5 deletes in a bucket
# of their own. The whole budget is used: the Pacer counts a request from the moment it is let
# through until 5 s after its answer, which covers the moment Discord counted it, however late
# it arrived, so no spare is needed for timing (at 1 move a second every edit counts).
EDITS_PER_WINDOW = 5
DELETES_PER_WINDOW = 5
GLOBAL_PER_SECOND = 40  # Discord allows 50 requests a second per bot; keep some spare
WINDOW = 5.0
CHECK_SECONDS = 30.0  # look for a deleted table message at most this often per table
RECORD_SECONDS = 2.0  # what table messages show is written down in batches this often
HISTORY = 50  # recent channel messages searched for a table message posted before a crash
HISTORY_MAX = 100  # the most messages Discord returns for one history request
SHOWN = "shown:"  # bot_state key prefix: what a table's message last showed, and when
PING = "ping:"  # bot_state key prefix of a turn ping not yet deleted: ping:<table>:<message>
CLOSED_TRIES = 3  # a closed table's last edit is tried this often, then given up
PING_GRACE = 2.0  # at shutdown, pings being deleted get this long to go
READY_SECONDS = 30.0  # a restart waits this long at most for the servers' locales


class TableUpdater:
    """Coalesced edits of table messages, and the turn pings."""

    def __init__(self, client: discord.Client, service: TableService, *,
                 edits_per_window: int = EDITS_PER_WINDOW,
                 languages: Languages | None = None,
                 pictures: Pictures | None = None) -> None:
        self.client = client
        self.service = service
        # Everything the updater posts is public: it speaks each server's language.
        self.languages = languages or Languages(None, client)
        self.edits_per_window = edits_per_window
        # The newest snapshot of each table not yet shown, and one editing task per table.
        self._edits: Coalescer[Table] = Coalescer(self._run, log)
        self._shown: dict[int, int] = {}
        self.pacer = Pacer(edits_per_window)
        self._pings: dict[int, _Ping] = {}  # table id → its live turn ping
        # Pings posted and not yet deleted are written down (bot_state key → value, None to
        # forget), so that a restart deletes those whose turn is over.
        self._ping_writes: dict[str, str | None] = {}
        self._ping_writer: asyncio.Task[None] | None = None
        self._ping_deletes: set[asyncio.Task[None]] = set()  # (also in ``_deletes``)
        self._deletes: set[asyncio.Task[None]] = set()  # and other short background work
        # shown, not yet written down: when, and in which language (None: the server's now)
        self._drawn: dict[int, tuple[Table, float, Lang | None]] = {}
        self._restyle: set[int] = set()  # tables to redraw though their state is shown
        self._recorder: asyncio.Task[None] | None = None
        self._checked: dict[int, float] = {}  # table id → when its message was last looked for
        self._gone: set[int] = set()  # tables whose message was found deleted: post anew
        # channel id → (what Discord said when it refused a post, whether someone was told)
        self._denied: dict[int, tuple[str, bool]] = {}
        # Card pictures (the servers' and players' styles come from the languages' store).
        self.pictures = pictures or Pictures(languages.servers if languages else None)
        self.attached = Attached()  # the picture each table message carries now
        self.hands = OpenHands(self.pictures)  # players' open hands, redrawn after each change
        self.closed = False

    def tracked(self) -> int:
        """How many tables and channels the updater holds state for (freed when done)."""
        return self._edits.tracked() + len(self._shown) + len(self._pings) + \
            len(self._checked) + len(self._gone) + len(self._denied) + self.pacer.tracked() + \
            self.hands.tracked() + len(self._restyle) + len(self.attached)

    def shown(self, table: Table, revision: int, lang: Lang | None = None) -> None:
        """The table message now shows ``revision`` (an interaction response drew it, in
        ``lang``: the server's language, looked up when written down if not given)."""
        if revision >= self._shown.get(table.id, -1):
            self._remember(table, lang)
        self._shown[table.id] = max(self._shown.get(table.id, -1), revision)
        latest = self._edits.latest(table.id)
        if latest is not None and latest.revision <= revision and table.id not in self._restyle:
            self._edits.discard(table.id)
        self._forget_if_closed(table)

    def request(self, table: Table) -> None:
        """Bring the table message up to date soon."""
        if self.closed:
            return  # shutting down: the next start redraws what is out of date
        self._edits.put(table)

    def relanguage(self, guild_id: int) -> int:
        """The server's language changed: redraw each of its open table messages in it,
        paced like any edit (their state is already shown, so ``request`` alone would
        not). Returns how many tables are redrawn."""
        tables = [table for table in self.service.cached()
                  if table.guild_id == guild_id and table.is_open and table.message_id]
        for table in tables:
            self._restyle.add(table.id)
            self.request(table)
        return len(tables)

    async def close(self) -> None:
        """Cancel the pending edits and wait until they have stopped; then write down what
        the table messages show, so the next start redraws only what is out of date."""
        self.closed = True
        # Let the pings being deleted go first: one cancelled after Discord deleted it
        # would stay written down, and the next start would delete it a second time.
        pings = [task for task in self._ping_deletes if not task.done()]
        if pings:
            await asyncio.wait(pings, timeout=PING_GRACE)
        tasks = [task for task in [*self._edits.cancel(), *self._deletes, self._recorder]
                 if task is not None and not task.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self._edits.close()
        await self.hands.close()
        self._recorder = None
        await self._record()
        if self._ping_writer is not None:
            await asyncio.gather(self._ping_writer, return_exceptions=True)
        await self._write_pings()

    # --- after a restart -------------------------------------------------------------------

    async def resume(self, tables: list[Table]) -> None:
        """Redraw the table messages that are out of date, and only those: a restart with
        hundreds of open tables must not spend Discord's request budget on no-op edits.
        A table with no recorded message first looks for one posted just before a crash."""
        try:
            shown, active = await self.service.shown_records(SHOWN)
        except Exception:
            log.warning("could not read what the table messages show", exc_info=True)
            shown, active = {}, {}
        # Read before waiting: players may already be playing meanwhile, and what this run
        # posts and deletes is its own business, not the last run's.
        pings = await self._remembered_pings()
        open_ids = {table.id for table in tables}
        if tables:
            await self._servers_known()
            tables = await self._current_tables(tables)
        closed: dict[int, str | None] = {
            table_id: None for table_id in shown if table_id not in open_ids}
        if closed:
            try:
                await self.service.record_shown(SHOWN, closed)
            except Exception:
                log.warning("could not forget closed tables' messages", exc_info=True)
        self._resume_pings(tables, pings)
        for table in tables:
            if table.message_id is None:
                self._background(self._adopt(table))
            elif _unchanged(shown.get(table.id), table, active.get(table.id, 0.0),
                            await self.languages.public(table.guild_id)):
                self._shown.setdefault(table.id, table.revision)
            else:
                self.request(table)

    async def _current_tables(self, tables: list[Table]) -> list[Table]:
        """The open tables as they are now (a move may have been played while waiting)."""
        current = []
        for table in tables:
            try:
                table = await self.service.get(table.id)
            except Exception:
                log.debug("table %s: kept as it was at start-up", table.id, exc_info=True)
            if table.is_open:
                current.append(table)
        return current

    async def _servers_known(self) -> None:
        """Wait, a while at most, until the gateway has said each server's locale: a message
        drawn in a server's own language is only current if it is still that language."""
        with suppress(RuntimeError, asyncio.TimeoutError):  # RuntimeError: never logged in
            await asyncio.wait_for(self.client.wait_until_ready(), READY_SECONDS)

    async def _adopt(self, table: Table) -> None:
        """A table with no recorded message: the bot may have been stopped between posting
        it and recording its id. Adopt the newest such message among the channel's recent
        ones (retiring any older copy) rather than post a second; without Read Message
        History the channel looks empty, and a fresh one is posted."""
        found: list[int] = []
        me = self.client.user.id if self.client.user else None
        try:
            async with self.pacer.use(table.channel_id, "read"):
                history = await self.client.http.logs_from(table.channel_id, HISTORY)
            for message in history:
                if int(message["author"]["id"]) == me and message.get("embeds") and \
                        _carries(message, table.id):
                    found.append(int(message["id"]))
        except discord.HTTPException:
            log.info("table %s: could not read channel %s's history", table.id,
                     table.channel_id)
        if found:
            found.sort()
            await self.service.set_message(table.id, found[-1])
            log.info("table %s: adopted message %s", table.id, found[-1])
            for extra in found[:-1]:
                await self._retire(table.channel_id, extra)
            table = await self.service.get(table.id)
        self.request(table)

    # --- a table message someone deleted ---------------------------------------------------

    def check(self, table: Table) -> None:
        """The table was used without its message being drawn (``/nlk hand``, a button on a
        ping or a hand): look, at most every ``CHECK_SECONDS``, whether the message still
        exists, and post it again if someone deleted it."""
        if self.closed or not table.is_open or table.message_id is None:
            return
        now = time.monotonic()
        if now - self._checked.get(table.id, -CHECK_SECONDS) < CHECK_SECONDS:
            return
        self._checked[table.id] = now
        self._background(self._check(table.id))

    async def exists(self, table: Table) -> bool:
        """Whether the table message is still there (True when the bot can't tell: it
        needs Read Message History to look)."""
        if table.message_id is None:
            return False
        try:
            async with self.pacer.use(table.channel_id, "read"):
                await self.client.http.get_message(table.channel_id, table.message_id)
        except discord.NotFound:
            return False
        except discord.HTTPException:
            log.debug("table %s: can't tell whether its message exists", table.id)
        return True

    async def _check(self, table_id: int) -> None:
        try:
            table = await self.service.get(table_id)
            if not await self.exists(table):
                log.info("table %s: its message %s was deleted; posting it again",
                         table.id, table.message_id)
                self.repost(table)
        except Exception:
            log.warning("table %s: could not check its message", table_id, exc_info=True)

    def repost(self, table: Table) -> None:
        """The table message is gone: post the table again soon (paced)."""
        self._gone.add(table.id)
        self._shown.pop(table.id, None)
        self.attached.unknown(table.id)
        self.request(table)

    def replaced(self, table: Table, revision: int, old_message_id: int | None,
                 lang: Lang | None = None) -> None:
        """An interaction posted the table message afresh (``revision`` shows in it, in
        ``lang``): the old one, if any, is deleted so only one carries the table's buttons."""
        self._gone.discard(table.id)
        self._shown[table.id] = revision  # the new message shows this, whatever the old did
        self._remember(table, lang)
        if old_message_id is not None:
            self._background(self._retire(table.channel_id, old_message_id))

    async def _retire(self, channel_id: int, message_id: int) -> None:
        try:
            async with self.pacer.use(channel_id, "delete"):
                await self.client.http.delete_message(channel_id, message_id)
        except discord.HTTPException:
            log.debug("old table message %s was already gone", message_id)

    def _background(self, work: Any) -> None:
        task = asyncio.create_task(work)
        self._deletes.add(task)
        task.add_done_callback(self._deletes.discard)

    # --- what the table messages show, written down ----------------------------------------

    def _remember(self, table: Table, lang: Lang | None = None) -> None:
        """The table message now shows ``table`` in ``lang``: write it down soon (in a
        batch)."""
        self._drawn[table.id] = (table, self.service.clock(), lang)
        if self._recorder is None and not self.closed:
            self._recorder = asyncio.create_task(self._record_soon())

    async def _record_soon(self) -> None:
        await asyncio.sleep(RECORD_SECONDS)
        self._recorder = None
        await self._record()

    async def _record(self) -> None:
        drawn, self._drawn = self._drawn, {}
        if not drawn:
            return
        try:
            values: dict[int, str | None] = {}
            for table_id, (table, at, lang) in drawn.items():
                if lang is None:
                    lang = await self.languages.public(table.guild_id)
                values[table_id] = f"{shown_digest(table, lang)} {at!r}" if table.is_open \
                    else None
            await self.service.record_shown(SHOWN, values)
        except Exception:
            # Nothing is lost but a skipped redraw: the next start redraws these tables.
            log.warning("could not write down what the table messages show", exc_info=True)

    # --- posting was refused ---------------------------------------------------------------

    def _refused(self, channel_id: int, error: discord.Forbidden) -> None:
        said, told = self._denied.get(channel_id, ("", False))
        self._denied[channel_id] = (error.text or said or "Missing Permissions", told)

    def _allowed(self, channel_id: int) -> None:
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

    # --- the bot's clocks tell us -----------------------------------------------------------

    async def table_changed(self, change: Change) -> None:
        """A change made without an interaction (an AI move, a stand-in, the idle sweep)."""
        self.request(change.table)
        await self.after(change, None)

    async def remind(self, table: Table, user_id: int, deadline: float) -> None:
        """A reminder replaces the turn ping (one live ping per table), with the controls."""
        lang = await self.languages.public(table.guild_id)
        content, buttons = render.ping_message(table, user_id, deadline=deadline,
                                               reminder=True, lang=lang)
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
        """Edit (or post) the table message until it shows the newest snapshot, pacing each
        request and retrying a failure; the coalescer starts it and logs what escapes."""
        failures = 0
        while True:
            table = self._edits.latest(table_id)
            if table is None or self._current(table_id, table.revision):
                break
            try:
                async with self.pacer.use(table.channel_id, "write"):
                    latest = self._edits.latest(table_id)
                    if latest is None or self._current(table_id, latest.revision):
                        break
                    table = latest
                    lang = await self._edit(table)
            except asyncio.CancelledError:
                raise
            except _Gone:
                continue  # someone deleted the message: the next turn posts it again
            except Exception as error:
                # Report a persisting failure once, then back off and try again: the
                # message must not stay stale until the next change. A closed table's
                # last edit gets a few tries only.
                if isinstance(error, discord.Forbidden):
                    self._refused(table.channel_id, error)
                if failures == 0:
                    log.warning("could not update the message of table %s; retrying",
                                table_id, exc_info=True)
                failures += 1
                if not table.is_open and failures >= CLOSED_TRIES:
                    log.warning("table %s closed: its message was left as it was",
                                table_id)
                    self._edits.discard(table_id)
                    self._forget_if_closed(table)
                    break
                await asyncio.sleep(RETRY_SECONDS[min(failures - 1,
                                                      len(RETRY_SECONDS) - 1)])
                continue
            if failures:
                log.info("table %s: its message is up to date again after %d failed "
                         "tries", table_id, failures)
                failures = 0
            self.shown(table, table.revision, lang)

    def _current(self, table_id: int, revision: int) -> bool:
        """Whether the table message shows ``revision`` as it should be drawn now."""
        return table_id not in self._restyle and self._shown.get(table_id, -1) >= revision

    def _forget_if_closed(self, table: Table) -> None:
        if not table.is_open and self._edits.latest(table.id) is None:
            self._restyle.discard(table.id)
            self._shown.pop(table.id, None)
            self._checked.pop(table.id, None)
            self._gone.discard(table.id)
            self._denied.pop(table.channel_id, None)
            self.attached.forget(table.id)
            self.pacer.prune()

    async def _slot(self, channel_id: int, kind: str = "write") -> None:
        """Wait until another channel request fits Discord's limits."""
        await self.pacer.slot(channel_id, kind)

    async def _edit(self, table: Table) -> Lang:
        """Draw the table message in the server's language now; returns that language."""
        self._restyle.discard(table.id)  # a change of language from here on draws again
        lang = await self.languages.public(table.guild_id)
        embed = render.table_embed(table, lang)
        view = render.table_view(table, lang)
        picture = await self.table_picture(table, lang)
        channel = self.client.get_partial_messageable(table.channel_id,
                                                      guild_id=table.guild_id)
        if table.message_id is None or table.id in self._gone:
            message = await channel.send(embed=embed, view=view, **send_files(embed, picture))
            self.attached.sent(table.id, picture)
            await self.service.set_message(table.id, message.id)
            table.message_id = message.id
            self._gone.discard(table.id)
            return lang
        try:
            # An unchanged picture sends no file: the message keeps the one it has.
            await channel.get_partial_message(table.message_id).edit(
                embed=embed, view=view, **self.attached.edit(table.id, embed, picture))
            self.attached.sent(table.id, picture)
        except discord.NotFound:
            # Someone deleted the table message: post a fresh one so the table stays playable.
            self._gone.add(table.id)
            raise _Gone() from None
        return lang

    async def table_picture(self, table: Table, lang: Lang) -> Picture | None:
        """The table message's picture in its server's style (None: text only)."""
        return await self.pictures.public(table, lang)

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
        channel = self.client.get_partial_messageable(channel_id, guild_id=guild_id)
        try:
            async with self.pacer.use(channel_id, "write"):
                message = await channel.send(content, view=view or discord.utils.MISSING,
                                             allowed_mentions=mentions)
        except discord.Forbidden as error:
            # Permissions changed under a running table: the next interaction there is told.
            self._refused(channel_id, error)
            log.warning("may not post to channel %s: %s", channel_id, error.text)
            return None
        except discord.HTTPException:
            log.warning("could not post to channel %s", channel_id, exc_info=True)
            return None
        self._allowed(channel_id)
        return message

    async def ping(self, table: Table, interaction: discord.Interaction[Any] | None) -> None:
        """Tell the player to act, mentioning only them, with their turn's controls."""
        user_id = table.user_to_act()
        if user_id is None or table.public_view() is None:
            await self.clear_ping(table)
            return
        lang = await self.languages.public(table.guild_id, interaction)
        content, buttons = render.ping_message(table, user_id, lang=lang)
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
        lang = await self.languages.public(table.guild_id, interaction)
        _ = translator(lang).gettext
        # The next hand's seats are those still seated: people who left during the hand
        # are gone, and if the loser is one of them, someone else deals.
        content = render.next_dealer_sentence(
            table, view, number=table.hand_number, order=order,
            random=_("Hand {number} is over: **{name} loses**; the next dealer will be drawn "
                     "at random. Finishing order: {order}."),
            loser=_("Hand {number} is over: **{name} loses** and deals next. Finishing order: "
                    "{order}."),
            other=_("Hand {number} is over: **{name} loses** and has left: **{dealer}** deals "
                    "next. Finishing order: {order}."))
        content += " " + _("Next hand ({seated}/{seats}): {players}.").format(
            seated=len(table.lobby), seats=table.max_seats,
            players=render.next_hand_seats(table))
        # This is now the channel's newest message: a way back to the table's buttons.
        content += f" [{_('Table')}]({render.jump_url(table)})"
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
        if message is not None:
            game = table.game
            self._note_ping(table.id, message.id, f"{table.channel_id} {table.hand_number} "
                            f"{game.version if game else -1} {table.user_to_act()}")
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
            self._delete_soon(table.channel_id, stale, table.id)

    def _delete_soon(self, channel_id: int, ping: _Ping, table_id: int) -> None:
        task = asyncio.create_task(self._delete(channel_id, ping, table_id))
        for tasks in (self._deletes, self._ping_deletes):
            tasks.add(task)
            task.add_done_callback(tasks.discard)

    async def _delete(self, channel_id: int, ping: _Ping, table_id: int) -> None:
        """Delete an old ping: through its interaction's webhook while the token lasts (no
        channel budget), else as a paced channel request. Once it is gone it is forgotten;
        if the bot stops first, the next start deletes it."""
        assert ping.message is not None
        try:
            if isinstance(ping.message, discord.WebhookMessage) and \
                    time.monotonic() - ping.sent < TOKEN_SECONDS:
                await ping.message.delete()
            else:
                async with self.pacer.use(channel_id, "delete"):
                    await self.client.http.delete_message(channel_id, ping.message.id)
        except discord.NotFound:
            log.debug("turn ping %s was already gone", ping.message.id)
        except discord.HTTPException:
            log.info("could not delete turn ping %s; the next start tries again",
                     ping.message.id)
            return
        self._note_ping(table_id, ping.message.id, None)

    # --- turn pings across a restart -------------------------------------------------------

    def _note_ping(self, table_id: int, message_id: int, value: str | None) -> None:
        """Write down a posted ping (``channel hand version user``), or forget a deleted one
        (None), in the background and in order."""
        self._ping_writes[f"{PING}{table_id}:{message_id}"] = value
        self._write_pings_soon()

    def _write_pings_soon(self) -> None:
        if not self.closed and (self._ping_writer is None or self._ping_writer.done()):
            self._ping_writer = asyncio.create_task(self._write_pings())

    async def _write_pings(self) -> None:
        while self._ping_writes:
            batch, self._ping_writes = self._ping_writes, {}
            try:
                await self.service.remember(batch)
            except Exception:
                # Only a restart's clean-up needs it: a ping left then stays in the channel.
                log.warning("could not write down the turn pings", exc_info=True)

    async def _remembered_pings(self) -> dict[str, str]:
        """The pings the last run wrote down and did not delete."""
        try:
            return await self.service.remembered(PING)
        except Exception:
            log.warning("could not read the turn pings left by the last run", exc_info=True)
            return {}

    async def _delete_left(self, channel_id: int, left: list[tuple[int, int]]) -> None:
        """Delete the pings (table id, message id) the last run left in a channel. A run
        stopped hard may have deleted some without writing it down: one look at the
        channel's history spares a delete of each of those (Discord counts a request for
        a message that is gone as invalid). Without Read Message History, delete them all."""
        first = min(message_id for _table_id, message_id in left)
        gone: set[int] = set()
        if self._can_read_history(channel_id):
            try:
                async with self.pacer.use(channel_id, "read"):
                    history = await self.client.http.logs_from(channel_id, HISTORY_MAX,
                                                               after=first - 1)
                seen = {int(message["id"]) for message in history}
                # A full page reaches only so far: beyond it, nothing is known.
                reach = max(seen) if len(history) == HISTORY_MAX else None
                gone = {message_id for _table_id, message_id in left if message_id not in
                        seen and (reach is None or message_id <= reach)}
            except discord.HTTPException:
                log.info("could not read channel %s's history; deleting its old pings",
                         channel_id)
        for table_id, message_id in left:
            if message_id not in gone:
                log.info("table %s: deleting turn ping %s left by the last run", table_id,
                         message_id)
                self._delete_soon(channel_id, _Ping(-1, discord.Object(message_id)), table_id)
            else:
                self._note_ping(table_id, message_id, None)

    def _can_read_history(self, channel_id: int) -> bool:
        channel = self.client.get_channel(channel_id)
        if not isinstance(channel, discord.abc.GuildChannel):
            return False
        return channel.permissions_for(channel.guild.me).read_message_history

    def _resume_pings(self, tables: list[Table], remembered: dict[str, str]) -> None:
        """Delete the pings posted before a restart whose turn is over (paced); a ping for
        a turn still being played stays, as the table's live ping."""
        open_tables = {table.id: table for table in tables}
        live: dict[int, tuple[int, int]] = {}  # table id → (message id, channel id)
        stale: list[tuple[int, int, int]] = []  # (table id, message id, channel id)
        for key, value in remembered.items():
            try:
                table_id, message_id = (int(x) for x in key[len(PING):].split(":"))
                channel, hand, version, user = value.split()
                channel_id = int(channel)
            except ValueError:  # not written by this bot: forget it
                self._ping_writes[key] = None
                continue
            table = open_tables.get(table_id)
            current = table is not None and table.id not in self._pings and \
                _turn_goes_on(table, int(hand), int(version), user)
            if current and message_id > live.get(table_id, (0, 0))[0]:
                if table_id in live:
                    stale.append((table_id, *live[table_id]))
                live[table_id] = (message_id, channel_id)
            else:
                stale.append((table_id, message_id, channel_id))
        for table_id, (message_id, _channel_id) in live.items():
            self._pings[table_id] = _Ping(open_tables[table_id].revision,
                                          discord.Object(message_id))
        by_channel: dict[int, list[tuple[int, int]]] = {}
        for table_id, message_id, channel_id in stale:
            by_channel.setdefault(channel_id, []).append((table_id, message_id))
        for channel_id, left in by_channel.items():
            self._background(self._delete_left(channel_id, left))
        if self._ping_writes:
            self._write_pings_soon()


TOKEN_SECONDS = 14 * 60  # an interaction's token lasts 15 minutes


@dataclass
class _Ping:
    revision: int
    message: discord.Message | discord.Object | None  # an Object: posted before a restart
    sent: float = field(default_factory=time.monotonic)


class _Gone(Exception):
    """The table message was deleted: post it again."""


class Pacer:
    """Discord's limits for requests outside interactions, kept before Discord enforces them.

    About 50 requests a second per bot, and per channel about 5 message posts or edits, and
    separately 5 deletes, in any 5 seconds. Interaction responses and follow-ups are not
    counted (Discord does not count them either).

    A request counts from the moment it is let through until its answer is back, and then in
    its window from the moment the answer came: Discord counts a request when it arrives,
    which is somewhere in between. Counting from the grant alone is not enough when the bot
    is busy: requests granted early in one second can arrive late and meet the next second's.
    """

    def __init__(self, per_channel: int = EDITS_PER_WINDOW, per_second: int = GLOBAL_PER_SECOND
                 ) -> None:
        self.per_channel = per_channel
        self.per_second = per_second
        self._channels: dict[tuple[int, str], _Bucket] = {}
        self._global = _Bucket(per_second, 1.0)

    def tracked(self) -> int:
        return len(self._channels)

    async def slot(self, channel_id: int, kind: str) -> None:
        """Wait until one more ``kind`` request ("write", "delete" or "read") fits in the
        channel's window and in the bot's global second, and count it as made now."""
        async with self.use(channel_id, kind):
            pass

    @asynccontextmanager
    async def use(self, channel_id: int, kind: str) -> AsyncIterator[None]:
        """Make one ``kind`` request inside this block, when it fits Discord's limits."""
        key = (channel_id, kind)
        channel = self._channels.get(key)
        if channel is None:
            limit = self.per_channel if kind == "write" else DELETES_PER_WINDOW
            channel = self._channels[key] = _Bucket(limit, WINDOW)
        await channel.take()
        try:
            await self._global.take()
        except BaseException:
            channel.done()
            raise
        try:
            yield
        finally:
            channel.done()
            self._global.done()

    def prune(self) -> None:
        """Forget channels with nothing in their window."""
        for key in [k for k, bucket in self._channels.items() if bucket.idle()]:
            del self._channels[key]


class _Bucket:
    """At most ``limit`` requests in flight or answered within the last ``window`` seconds.
    Waiters queue first come, first served; only the first one watches the clock."""

    def __init__(self, limit: int, window: float) -> None:
        self.limit = limit
        self.window = window
        self.recent: deque[float] = deque()  # when answers came back, oldest first
        self.busy = 0  # requests let through whose answer has not come back
        self._queue = asyncio.Lock()
        self._freed = asyncio.Event()

    async def take(self) -> None:
        async with self._queue:
            while True:
                now = time.monotonic()
                _expire(self.recent, now, self.window)
                if len(self.recent) + self.busy < self.limit:
                    self.busy += 1
                    return
                wait = self.window - (now - self.recent[0]) + 0.01 if self.recent else None
                self._freed.clear()
                with suppress(TimeoutError):
                    await asyncio.wait_for(self._freed.wait(), wait)

    def done(self) -> None:
        self.busy -= 1
        self.recent.append(time.monotonic())
        self._freed.set()

    def idle(self) -> bool:
        _expire(self.recent, time.monotonic(), self.window)
        return not self.recent and not self.busy and not self._queue.locked()


def shown_digest(table: Table, lang: Lang = DEFAULT) -> str:
    """A short fingerprint of everything the table message shows, drawn in ``lang``: a
    restart redraws a message whose table changed, or whose server changed language."""
    drawn = [render.table_embed(table, lang).to_dict(),
             render.table_view(table, lang).to_components()]
    text = json.dumps(drawn, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _unchanged(record: str | None, table: Table, active_at: float,
               lang: Lang = DEFAULT) -> bool:
    """Whether the recorded drawing is of the table as it is now, in ``lang``, made after
    its last change (the time rules out a table that changed and changed back since)."""
    if record is None:
        return False
    digest, _, at = record.partition(" ")
    try:
        return float(at) >= active_at and digest == shown_digest(table, lang)
    except ValueError:
        return False


def _turn_goes_on(table: Table, hand: int, version: int, user: str) -> bool:
    """Whether the turn a ping was posted for (the hand, the game's version then, the user
    pinged) is still being played: the same person is to act and only they moved since."""
    game = table.game
    if game is None or table.hand_number != hand or str(table.user_to_act()) != user or \
            not 0 <= version <= game.version:
        return False
    return all(seat == game.to_act for seat, _action in game.actions[version:])


def _carries(message: Any, table_id: int) -> bool:
    """Whether a raw message has a component of table ``table_id`` (its custom ids)."""
    prefix = f"nlk:{table_id}:"
    stack = list(message.get("components") or [])
    while stack:
        node = stack.pop()
        if str(node.get("custom_id", "")).startswith(prefix):
            return True
        stack.extend(node.get("components") or [])
    return False


def _expire(recent: deque[float], now: float, window: float) -> None:
    while recent and now - recent[0] > window:
        recent.popleft()
