"""The table message kept current: paced edits, a deleted message posted again, and what
each message shows written down so that a restart redraws only what is out of date.

Most changes are shown by the interaction that caused them (the publisher edits the message
tapped). The rest — a play made from someone's hand, an AI move, a restart — ask for a
coalesced edit: at most a few edits per channel in any five seconds, each drawing the latest
state, so a burst of moves becomes one or two edits.
"""

from __future__ import annotations

import asyncio
import logging
import time
from contextlib import suppress

import discord

from bot.tables.service import Table, TableService
from bot.tasks import backoff
from cogs.i18n.translator import Languages
from cogs.live.owner import Drawing, LiveTable, LiveTables
from cogs.live.shown import ShownRecord, carries, draw, fingerprint
from cogs.pictures import Attached, Picture, Pictures, send_files
from cogs.transport.pacer import Kind, Pacer
from cogs.transport.posts import ChannelPosts
from rules.i18n import Lang

log = logging.getLogger(__name__)

CHECK_SECONDS = 30.0  # look for a deleted table message at most this often per table
RECORD_SECONDS = 2.0  # what table messages show is written down in batches this often
HISTORY = 50  # recent channel messages searched for a table message posted before a crash
SHOWN = "shown:"  # bot_state key prefix: what a table's message last showed, and when
CLOSED_TRIES = 3  # a closed table's last edit is tried this often, then given up
READY_SECONDS = 30.0  # a restart waits this long at most for the servers' locales


class _Gone(Exception):
    """The table message was deleted: post it again."""


class TableMessages:
    """Keeps each live table's message showing its newest state."""

    def __init__(self, client: discord.Client, service: TableService, languages: Languages,
                 pacer: Pacer, posts: ChannelPosts, tables: LiveTables, pictures: Pictures,
                 attached: Attached) -> None:
        self.client = client
        self.service = service
        self.languages = languages
        self.pacer = pacer
        self.posts = posts
        self.tables = tables
        self.pictures = pictures
        self.attached = attached
        self.closed = False
        # Drawn, not yet written down: table id → (what was sent, when; None: closed).
        self._unrecorded: dict[int, tuple[Drawing, float] | None] = {}
        self._recorder: asyncio.Task[None] | None = None

    def shown(self, table: Table, drawing: Drawing) -> None:
        """The table message now shows ``table``, as ``drawing`` (an interaction's answer
        or a paced edit drew it)."""
        live = self.tables.of(table)
        if table.revision >= live.shown_revision:
            self._remember(table, drawing)
        live.message_shows(table.revision)
        latest = live.edits.latest(table.id)
        if latest is not None and latest.revision <= table.revision and not live.restyle:
            live.edits.discard(table.id)
        live.settle()

    def request(self, table: Table) -> None:
        """Bring the table message up to date soon."""
        if self.closed:
            return  # shutting down: the next start redraws what is out of date
        self.tables.of(table).edits.put(table)

    def relanguage(self, guild_id: int) -> int:
        """The server's language changed: redraw each of its open table messages in it,
        paced like any edit (their state is already shown, so ``request`` alone would
        not). Returns how many tables are redrawn."""
        tables = [table for table in self.service.cached()
                  if table.guild_id == guild_id and table.is_open and table.message_id]
        for table in tables:
            self.redraw(table)
        return len(tables)

    def redraw(self, table: Table) -> None:
        """Draw the table message again, paced, though it shows ``table``'s state (its
        server's language changed, or its picture was late for the answer)."""
        self.tables.of(table).message_restyled()
        self.request(table)

    def replaced(self, table: Table, drawing: Drawing, old_message_id: int | None) -> None:
        """An interaction posted the table message afresh (``drawing`` of ``table``): the
        old one, if any, is deleted so only one carries the table's buttons."""
        live = self.tables.of(table)
        live.message_posted(table.revision)  # the new one shows this, whatever the old did
        self._remember(table, drawing)
        if old_message_id is not None:
            live.background(self._retire(table.channel_id, old_message_id))

    async def close(self) -> None:
        """Write down what the table messages show, so the next start redraws only what
        is out of date (the owners' edits are already stopped)."""
        self.closed = True
        if self._recorder is not None:
            self._recorder.cancel()
            await asyncio.gather(self._recorder, return_exceptions=True)
            self._recorder = None
        await self._record()

    # --- after a restart -------------------------------------------------------------------

    async def read_records(self) -> tuple[dict[int, str], dict[int, float]]:
        """What each table message showed when the last run wrote it down, and when each
        open table last changed."""
        try:
            return await self.service.shown_records(SHOWN)
        except Exception:
            log.warning("could not read what the table messages show", exc_info=True)
            return {}, {}

    async def current(self, tables: list[Table]) -> list[Table]:
        """The open tables as they are now (a move may have been played while waiting for
        the gateway to say each server's locale: a message drawn in a server's own language
        is only current if it is still that language)."""
        with suppress(RuntimeError, asyncio.TimeoutError):  # RuntimeError: never logged in
            await asyncio.wait_for(self.client.wait_until_ready(), READY_SECONDS)
        current = []
        for table in tables:
            try:
                table = await self.service.get(table.id)
            except Exception:
                log.debug("table %s: kept as it was at start-up", table.id, exc_info=True)
            if table.is_open:
                current.append(table)
        return current

    async def resume(self, tables: list[Table], shown: dict[int, str],
                     active: dict[int, float]) -> None:
        """Redraw the table messages that are out of date, and only those: a restart with
        hundreds of open tables must not spend Discord's request budget on no-op edits.
        A table with no recorded message first looks for one posted just before a crash."""
        # Tables open anywhere keep their records: another process may own them.
        closed: dict[int, str | None] = {
            table_id: None for table_id in shown if table_id not in active}
        if closed:
            try:
                await self.service.record_shown(SHOWN, closed)
            except Exception:
                log.warning("could not forget closed tables' messages", exc_info=True)
        for table in tables:
            live = self.tables.of(table)
            if table.message_id is None:
                live.background(self._adopt(table))
                continue
            record = ShownRecord.load(shown[table.id]) if table.id in shown else None
            lang = await self.languages.public(table.guild_id)
            if record is not None and record.at >= active.get(table.id, 0.0) and \
                    record.digest == fingerprint(draw(
                        table, lang, self.languages.ai_allowed(table.guild_id))):
                # Drawn after its last change (the time rules out a table that changed and
                # changed back since) and as it would be drawn now.
                if live.shown_revision < 0:
                    live.message_shows(table.revision)
            else:
                self.request(table)

    async def _adopt(self, table: Table) -> None:
        """A table with no recorded message: the bot may have been stopped between posting
        it and recording its id. Adopt the newest such message among the channel's recent
        ones (retiring any older copy) rather than post a second; without Read Message
        History the channel looks empty, and a fresh one is posted."""
        found: list[int] = []
        me = self.client.user.id if self.client.user else None
        try:
            async with self.pacer.use(table.channel_id, Kind.READ):
                history = await self.client.http.logs_from(table.channel_id, HISTORY)
            for message in history:
                if int(message["author"]["id"]) == me and message.get("embeds") and \
                        carries(message, table.id):
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
        live = self.tables.of(table)
        if not live.may_check_message(time.monotonic(), CHECK_SECONDS):
            return
        live.background(self._check(table.id))

    async def exists(self, table: Table) -> bool:
        """Whether the table message is still there (True when the bot can't tell: it
        needs Read Message History to look)."""
        if table.message_id is None:
            return False
        try:
            async with self.pacer.use(table.channel_id, Kind.READ):
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
                live = self.tables.of(table)
                self.attached.unknown(table.id)
                live.message_gone()
                self.request(table)
        except Exception:
            log.warning("table %s: could not check its message", table_id, exc_info=True)

    async def _retire(self, channel_id: int, message_id: int) -> None:
        try:
            async with self.pacer.use(channel_id, Kind.DELETE):
                await self.client.http.delete_message(channel_id, message_id)
        except discord.HTTPException:
            log.debug("old table message %s was already gone", message_id)

    # --- what the table messages show, written down ----------------------------------------

    def _remember(self, table: Table, drawing: Drawing) -> None:
        """The table message now shows ``drawing``: write it down soon (in a batch)."""
        self._unrecorded[table.id] = (drawing, self.service.clock()) if table.is_open \
            else None
        if self._recorder is None and not self.closed:
            self._recorder = asyncio.create_task(self._record_soon())

    async def _record_soon(self) -> None:
        await asyncio.sleep(RECORD_SECONDS)
        self._recorder = None
        await self._record()

    async def _record(self) -> None:
        drawn, self._unrecorded = self._unrecorded, {}
        if not drawn:
            return
        try:
            await self.service.record_shown(SHOWN, {
                table_id: None if sent is None else
                ShownRecord(fingerprint(sent[0]), sent[1]).dump()
                for table_id, sent in drawn.items()})
        except Exception:
            # Nothing is lost but a skipped redraw: the next start redraws these tables.
            log.warning("could not write down what the table messages show", exc_info=True)

    async def picture(self, table: Table, lang: Lang, *, urgent: bool = False
                      ) -> Picture | None:
        """The table message's picture in its server's style (None: text only;
        ``urgent``: an answer waits for it)."""
        return await self.pictures.public(table, lang, urgent=urgent)

    # --- the paced edit --------------------------------------------------------------------

    async def run(self, table_id: int) -> None:
        """Edit (or post) the table message until it shows the newest snapshot, pacing each
        request and retrying a failure; the owner's coalescer starts it and logs what
        escapes."""
        live = self.tables.get(table_id)
        if live is None:
            return
        failures = 0
        while True:
            table = live.edits.latest(table_id)
            if table is None or self._current(live, table.revision):
                break
            try:
                async with self.pacer.use(table.channel_id, Kind.WRITE):
                    latest = live.edits.latest(table_id)
                    if latest is None or self._current(live, latest.revision):
                        break
                    table = latest
                    drawing = await self._edit(live, table)
            except asyncio.CancelledError:
                raise
            except _Gone:
                continue  # someone deleted the message: the next turn posts it again
            except Exception as error:
                # Report a persisting failure once, then back off and try again: the
                # message must not stay stale until the next change. A closed table's
                # last edit gets a few tries only.
                if isinstance(error, discord.Forbidden):
                    self.posts.refused(table.channel_id, error)
                if failures == 0:
                    log.warning("could not update the message of table %s; retrying",
                                table_id, exc_info=True)
                failures += 1
                if not table.is_open and failures >= CLOSED_TRIES:
                    log.warning("table %s closed: its message was left as it was",
                                table_id)
                    live.edits.discard(table_id)
                    live.settle()
                    break
                await asyncio.sleep(backoff(failures))
                continue
            if failures:
                log.info("table %s: its message is up to date again after %d failed "
                         "tries", table_id, failures)
                failures = 0
            self.shown(table, drawing)

    def _current(self, live: LiveTable, revision: int) -> bool:
        """Whether the table message shows ``revision`` as it should be drawn now."""
        return not live.restyle and live.shown_revision >= revision

    async def _edit(self, live: LiveTable, table: Table) -> Drawing:
        """Draw the table message in the server's language now, and send it."""
        live.message_drawn_in_current_style()  # a change of language from here draws again
        lang = await self.languages.public(table.guild_id)
        drawing = draw(table, lang, self.languages.ai_allowed(table.guild_id))
        picture = await self.picture(table, lang)
        channel = self.client.get_partial_messageable(table.channel_id,
                                                      guild_id=table.guild_id)
        message_id = table.message_id
        if message_id is None:  # posted since this snapshot was taken?
            message_id = (await self.service.get(table.id)).message_id
        if message_id is None or live.gone:
            message = await channel.send(embed=drawing.embed, view=drawing.view,
                                         **send_files(drawing.embed, picture))
            self.attached.sent(table.id, picture)
            await self.service.set_message(table.id, message.id)
            live.message_posted(table.revision)
            return drawing
        try:
            # An unchanged picture sends no file: the message keeps the one it has.
            await channel.get_partial_message(message_id).edit(
                embed=drawing.embed, view=drawing.view,
                **self.attached.edit(table.id, drawing.embed, picture))
            self.attached.sent(table.id, picture)
        except discord.NotFound:
            # Someone deleted the table message: post a fresh one so the table stays playable.
            live.message_gone()
            raise _Gone() from None
        return drawing
