"""The table message kept current: paced edits, a deleted message posted again, and what
each message shows written down so that a restart redraws only what is out of date.

Most changes are shown by the interaction that caused them (the publisher edits the message
tapped, and reports what it drew to ``MessageShown``). The rest (a play made from someone's
hand, an AI move, a restart) leave the message behind the owner's newest snapshot, and the
owner's loop for this kind edits it: at most a few edits per channel in any five seconds, each
drawing the newest state, so a burst of moves becomes one or two edits.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Any

import discord

from bot.tables.service import Table, TableService
from cogs.client import Interaction
from cogs.i18n.translator import Languages
from cogs.live.owner import Drawing, LiveTable, LiveTables, Wait
from cogs.live.records import Notes
from cogs.live.shown import ShownRecord, carries, draw, fingerprint
from cogs.live.tokens import FOLLOWUP_LIMIT, FOLLOWUPS
from cogs.pictures import (
    TABLE_FILE,
    Late,
    Picture,
    PictureKey,
    Pictures,
    edit_files,
    kept_files,
    send_files,
)
from cogs.transport.pacer import Kind, Pacer
from cogs.transport.posts import ChannelPosts
from rules.i18n import Lang

log = logging.getLogger(__name__)

CHECK_SECONDS = 30.0  # look for a deleted table message at most this often per table
RECORD_SECONDS = 2.0  # what table messages show is written down in batches this often
HISTORY = 50  # recent channel messages searched for a table message posted before a crash
SHOWN = "shown:"  # bot_state key prefix: what a table's message last showed, and when
READY_SECONDS = 30.0  # a restart waits this long at most for the servers' locales
# A group DM's table message whose newest token is this old is posted afresh through a
# newer one at its next change, rather than left with no token that can edit it.
REPOST_SECONDS = 10 * 60
# The longest an answer waits for a paced edit already on its way to Discord, so that the
# answer's newer state lands after it, not before (a paced edit takes one request's time).
EDIT_WAIT = 1.0


UNKNOWN: object = object()  # the picture a message carries is not known: send it
KEPT: object = object()  # (reported) the message kept the picture it carried


class MessageShown:
    """What one table's message shows: the message, the revision it was drawn from, the
    style it was drawn in (the server's language and pictures, counted up when they change)
    and the picture it carries."""

    def __init__(self, driver: TableMessages, table: Table) -> None:
        self.driver = driver
        self.message_id = table.message_id  # None: no message to edit (post one)
        self.revision = -1  # the table revision it shows (-1: not known)
        self.style = 0  # the style it should be drawn in: counted up on every change
        self.drawn_style = 0  # the style it was drawn in
        self.picture: PictureKey | object | None = UNKNOWN
        self.checked_at = -float("inf")  # when the message was last looked for
        # Held while a paced edit is on its way to Discord: an answer drawn meanwhile waits
        # for it (``EDIT_WAIT`` at most), so the newer state is the one that lands last.
        self.sending = asyncio.Lock()

    @asynccontextmanager
    async def in_turn(self, wait: float | None = None) -> AsyncIterator[None]:
        """Hold the message's turn to be sent (``wait``: give up waiting after that long,
        and go anyway)."""
        held = False
        if wait is None:
            await self.sending.acquire()
            held = True
        else:
            with suppress(asyncio.TimeoutError):
                held = await asyncio.wait_for(self.sending.acquire(), wait)
        try:
            yield
        finally:
            if held:
                self.sending.release()

    def behind(self, table: Table) -> bool:
        return self.message_id is None or self.revision < table.revision or \
            self.drawn_style < self.style

    async def step(self, live: LiveTable) -> None:
        await self.driver.edit(live, self)

    def holds(self) -> bool:
        return False

    def give_up(self) -> None:
        """A closed table's message is left as it was (its owner is let go)."""

    # --- what it shows, as the answers and the loop report it ----------------------------

    def shows(self, message_id: int | None, revision: int, style: int) -> None:
        """The message ``message_id`` now shows ``revision`` (or something newer already),
        drawn in ``style``."""
        if message_id is not None and message_id != self.message_id:
            self.message_id, self.revision = message_id, revision
        else:
            self.revision = max(self.revision, revision)
        self.drawn_style = max(self.drawn_style, style)

    def overtook(self, table: Table) -> bool:
        """Whether an answer drew a newer state than ``table`` into the message while a
        paced edit of ``table`` waited for its picture: that edit would take it back (the
        loop draws the newest instead, if the message is still behind)."""
        return self.revision > table.revision

    def restyle(self) -> None:
        """The server's language or picture style changed: draw it again."""
        self.style += 1

    def gone(self, message_id: int) -> None:
        """``message_id`` was found deleted: post the message anew, whatever it showed."""
        if self.message_id == message_id:
            self.message_id, self.revision, self.picture = None, -1, UNKNOWN

    def carries(self, picture: Picture | None) -> None:
        """The message now carries ``picture`` (None: none)."""
        self.picture = picture.key if picture is not None else None

    def files_for(self, embed: discord.Embed, picture: Picture | Late | None
                  ) -> tuple[object, dict[str, Any]]:
        """What the message will carry, and the keyword arguments for editing it to show
        ``picture``; while that is late, the picture it carries (``KEPT``), or none if that
        is not known."""
        if not isinstance(picture, Late):
            return picture, self.edit_files(embed, picture)
        if self.picture is not UNKNOWN and self.picture is not None:
            embed.set_image(url=f"attachment://{TABLE_FILE}")
            return KEPT, {}
        return None, {"attachments": []}

    def edit_files(self, embed: discord.Embed, picture: Picture | None) -> dict[str, Any]:
        """Keyword arguments for editing the message to show ``picture``: an unchanged
        picture sends no file (Discord keeps a message's attachments when an edit names
        none)."""
        key = picture.key if picture is not None else None
        if self.picture is not UNKNOWN and self.picture == key:
            if picture is not None:
                embed.set_image(url=f"attachment://{picture.filename}")
            return {}
        return edit_files(embed, picture)

    def may_check(self, now: float, every: float) -> bool:
        """Whether to look for a deleted table message now (at most once ``every`` s)."""
        if now - self.checked_at < every:
            return False
        self.checked_at = now
        return True


class TableMessages:
    """The table message as a kind of message: keeps each live table's one showing its
    newest state."""

    name = "table_message"

    def __init__(self, client: discord.Client, service: TableService, languages: Languages,
                 pacer: Pacer, posts: ChannelPosts, tables: LiveTables, pictures: Pictures,
                 notes: Notes) -> None:
        self.client = client
        self.service = service
        self.languages = languages
        self.pacer = pacer
        self.posts = posts
        self.tables = tables
        self.pictures = pictures
        self.notes = notes
        # Drawn, not yet written down: table id → (what was sent, when; None: closed).
        self._unrecorded: dict[int, tuple[Drawing, float] | None] = {}
        self._recorder: asyncio.Task[None] | None = None

    def shown_for(self, live: LiveTable) -> MessageShown:
        return MessageShown(self, live.newest)

    @staticmethod
    def of(live: LiveTable) -> MessageShown:
        """The table message's ``Shown`` at ``live``."""
        shown: MessageShown = live.shown(TableMessages.name)
        return shown

    def shown(self, table: Table, drawing: Drawing, message_id: int | None,
              style: int, picture: Picture | object | None = KEPT) -> None:
        """The table message ``message_id`` now shows ``table``, as ``drawing`` drawn in
        ``style`` (an interaction's answer or the loop drew it), carrying ``picture``."""
        live = self.tables.of(table)
        shown = self.of(live)
        if table.revision >= shown.revision or message_id != shown.message_id:
            self._remember(table, drawing)
        shown.shows(message_id, table.revision, style)
        if picture is not KEPT:
            shown.carries(picture)  # type: ignore[arg-type]
        live.settle()

    # --- answers: a tap on the table message, a command that posts it ------------------

    async def answer(self, table: Table, interaction: Interaction, lang: Lang) -> None:
        """Answer a tap on the table message by drawing ``table`` into it (the answer is
        one way this kind sends: what it drew is reported like a paced edit's)."""
        message = interaction.message
        style = self.style_of(table)
        live = self.tables.of(table)
        shown = self.of(live)
        message_id = message.id if message is not None else table.message_id
        old = shown.message_id
        if table.private and message_id is not None and message_id != old:
            # A tap on an older table message in a group DM: its token can edit it for the
            # next 15 minutes, so it becomes the table message (the other one goes).
            table = await self._adopt_tapped(table, message_id)
            shown.message_id, shown.revision, shown.picture = message_id, -1, UNKNOWN
            if old is not None:
                live.background(self._retire_private(live, old))
        drawing = draw(table, lang, self.languages.ai_allowed(table.place))
        picture = await self.pictures.within(self.picture(table, lang, urgent=True))
        async with shown.in_turn(EDIT_WAIT):  # after a paced edit on its way, not before
            if isinstance(picture, Late):
                # The answer goes now with the picture the message has; the loop brings the
                # new one.
                files = kept_files(drawing.embed, message, TABLE_FILE)
                await interaction.response.edit_message(embed=drawing.embed,
                                                        view=drawing.view, **files)
                live.heard(interaction, message_id)
                self.shown(table, drawing, message_id, style, None if files else KEPT)
                self.redraw(table)
                return
            await interaction.response.edit_message(embed=drawing.embed, view=drawing.view,
                                                    **shown.edit_files(drawing.embed, picture))
            live.heard(interaction, message_id)
            self.shown(table, drawing, message_id, style, picture)

    async def post_answer(self, table: Table, interaction: Interaction, lang: Lang, *,
                          retire_old: bool) -> Table:
        """Post the table message as the answer to a command (it costs no channel request),
        and record it; the previous one is deleted with ``retire_old``. Returns the table as
        stored now, with its new message."""
        style = self.style_of(table)
        drawing = draw(table, lang, self.languages.ai_allowed(table.place))
        picture = await self.picture(table, lang, urgent=True)
        callback = await interaction.response.send_message(
            embed=drawing.embed, view=drawing.view, **send_files(drawing.embed, picture))
        message_id = callback.message_id or (await interaction.original_response()).id
        self.tables.of(table).heard(interaction, message_id)
        old = await self.service.set_message(table.id, message_id)
        if old is None:  # the table's first message (taps on it may have drawn newer states)
            self.shown(table, drawing, message_id, style, picture)
        else:
            self.replaced(table, drawing, message_id, old if retire_old else None, style,
                          picture)
        return await self.service.get(table.id)

    def style_of(self, table: Table) -> int:
        """The style a drawing begun now is in (a change of language from here draws
        again)."""
        return self.of(self.tables.of(table)).style

    def relanguage(self, guild_id: int) -> int:
        """The server's language changed: redraw each of its open table messages in it,
        paced like any edit. Returns how many tables are redrawn."""
        tables = [table for table in self.service.cached()
                  if table.place == guild_id and table.is_open and table.message_id]
        for table in tables:
            self.redraw(table)
        return len(tables)

    def redraw(self, table: Table) -> None:
        """Draw the table message again, paced, though it shows ``table``'s state (its
        server's language changed, or its picture was late for the answer)."""
        live = self.tables.of(table)
        self.of(live).restyle()
        live.wake()

    def replaced(self, table: Table, drawing: Drawing, message_id: int,
                 old_message_id: int | None, style: int, picture: Picture | None) -> None:
        """An interaction posted the table message afresh (``drawing`` of ``table``): the
        old one, if any, is deleted so only one carries the table's buttons."""
        live = self.tables.of(table)
        shown = self.of(live)
        shown.message_id, shown.revision = message_id, -1  # whatever the old one showed
        self.shown(table, drawing, message_id, style, picture)
        if old_message_id is not None:
            live.background(self._retire_private(live, old_message_id) if table.private
                            else self._retire(table.channel_id, old_message_id))

    async def close(self) -> None:
        """Write down what the table messages show, so the next start redraws only what
        is out of date (the owners' edits are already stopped)."""
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
            values = await self.notes.read(SHOWN)
            shown = {int(key[len(SHOWN):]): value for key, value in values.items()
                     if key[len(SHOWN):].isdigit()}
            return shown, await self.service.active_times()
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
        for table_id in shown:
            if table_id not in active:
                self.notes.note(f"{SHOWN}{table_id}", None)
        for table in tables:
            live = self.tables.of(table)
            if table.message_id is None and not table.private:
                live.background(self._adopt(table))
                continue
            record = ShownRecord.load(shown[table.id]) if table.id in shown else None
            lang = await self.languages.public(table.place)
            if record is not None and record.at >= active.get(table.id, 0.0) and \
                    record.digest == fingerprint(draw(
                        table, lang, self.languages.ai_allowed(table.place))):
                # Drawn after its last change (the time rules out a table that changed and
                # changed back since) and as it would be drawn now.
                message = self.of(live)
                if message.revision < 0:
                    message.shows(table.message_id, table.revision, message.style)
            live.saw(table)

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
            self.of(self.tables.of(table)).message_id = found[-1]  # what it shows: unknown
        # Adopted (and edited if out of date), or posted: the loop sees no message to edit.
        self.tables.of(table).saw(table)

    # --- a table message someone deleted ---------------------------------------------------

    def check(self, table: Table) -> None:
        """The table was used without its message being drawn (``/nlk hand``, a button on a
        ping or a hand): look, at most every ``CHECK_SECONDS``, whether the message still
        exists, and post it again if someone deleted it."""
        if self.tables.stopped or not table.is_open or table.message_id is None or \
                table.private:  # (a group DM's messages can't be looked at)
            return
        live = self.tables.of(table)
        if not self.of(live).may_check(time.monotonic(), CHECK_SECONDS):
            return
        live.background(self._check(table.id))

    async def exists(self, table: Table) -> bool:
        """Whether the table message is still there (True when the bot can't tell: it
        needs Read Message History to look)."""
        if table.message_id is None:
            return False
        if table.private:
            return True  # (a group DM's messages can't be looked at)
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
                self.of(live).gone(table.message_id)  # type: ignore[arg-type]
                live.saw(table)
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
        if self._recorder is None and not self.tables.stopped:
            self._recorder = asyncio.create_task(self._record_soon())

    async def _record_soon(self) -> None:
        await asyncio.sleep(RECORD_SECONDS)
        self._recorder = None
        await self._record()

    async def _record(self) -> None:
        drawn, self._unrecorded = self._unrecorded, {}
        for table_id, sent in drawn.items():
            self.notes.note(f"{SHOWN}{table_id}", None if sent is None else
                            ShownRecord(fingerprint(sent[0]), sent[1]).dump())

    async def picture(self, table: Table, lang: Lang, *, urgent: bool = False
                      ) -> Picture | None:
        """The table message's picture in its server's style (None: text only;
        ``urgent``: an answer waits for it)."""
        return await self.pictures.public(table, lang, urgent=urgent)

    # --- the paced edit --------------------------------------------------------------------

    async def edit(self, live: LiveTable, shown: MessageShown) -> None:
        """One paced step: draw the newest snapshot in the server's language now, and edit
        the message (or post it, if there is none, or it was deleted)."""
        if live.newest.private:
            # Through interaction tokens: Discord does not count those against the
            # channel's edits, so they are not paced.
            await self._send_private(live, shown, live.newest)
            return
        async with self.pacer.use(live.channel_id, Kind.WRITE):
            table = live.newest
            if not shown.behind(table):
                return  # an answer drew it while this waited for its turn
            try:
                await self._send(live, shown, table)
            except discord.Forbidden as error:
                self.posts.refused(table.channel_id, error)
                raise

    async def _painted(self, table: Table, lang: Lang) -> Picture | Late | None:
        """The picture a paced edit carries, if drawn within ``PAINT_WAIT`` (the edit holds
        the channel's turn meanwhile); else ``LATE``, and the table is drawn again once it
        has landed."""
        def landed() -> None:
            if self.tables.get(table.id) is not None:
                self.redraw(table)

        return await self.pictures.within(self.picture(table, lang), self.pictures.paint_wait,
                                          then=landed)

    async def _send(self, live: LiveTable, shown: MessageShown, table: Table) -> None:
        style = shown.style
        lang = await self.languages.public(table.place)
        drawing = draw(table, lang, self.languages.ai_allowed(table.place))
        picture = await self._painted(table, lang)
        async with shown.in_turn():
            await self._deliver(shown, table, drawing, style, picture)

    async def _deliver(self, shown: MessageShown, table: Table, drawing: Drawing, style: int,
                       picture: Picture | Late | None) -> None:
        """Send a paced edit (or post the message), in the message's turn: nothing if an
        answer drew a newer state while its picture was awaited."""
        if shown.overtook(table):
            return
        channel = self.client.get_partial_messageable(table.channel_id,
                                                      guild_id=table.guild_id)
        message_id = shown.message_id
        if message_id is None:
            new = None if isinstance(picture, Late) else picture
            message = await channel.send(embed=drawing.embed, view=drawing.view,
                                         **send_files(drawing.embed, new))
            await self.service.set_message(table.id, message.id)
            self.shown(table, drawing, message.id, style, new)
            return
        # An unchanged picture sends no file: the message keeps the one it has.
        carried, files = shown.files_for(drawing.embed, picture)
        try:
            await channel.get_partial_message(message_id).edit(
                embed=drawing.embed, view=drawing.view, **files)
        except discord.NotFound:
            # Someone deleted the table message: the loop posts a fresh one so the table
            # stays playable.
            shown.gone(message_id)
            return
        self.shown(table, drawing, message_id, style, carried)

    # --- in a group DM or a DM: through the tokens of the interactions answered ------------

    async def _send_private(self, live: LiveTable, shown: MessageShown, table: Table) -> None:
        """Edit the table message through the freshest token that can reach it, or post it
        afresh as a follow-up of a token with follow-ups to spare (the old one is deleted
        if a token still reaches it); ``Wait`` when no token is left."""
        style = shown.style
        lang = await self.languages.public(table.place)
        drawing = draw(table, lang, self.languages.ai_allowed(table.place))
        now = time.monotonic()
        old = shown.message_id
        held = live.tokens.editor(old, now) if old is not None else None
        if held is not None and now - held.since > REPOST_SECONDS:
            fresher = live.tokens.sender(now)
            if fresher is not None and fresher.since > held.since:
                # Its last token is about to lapse: post it afresh through a newer one,
                # and delete the old one while a token still can.
                held = None
        if held is not None and old is not None:
            picture = await self._painted(table, lang)
            async with shown.in_turn():
                if shown.overtook(table) or shown.message_id != old:
                    return
                carried, kwargs = shown.files_for(drawing.embed, picture)
                try:
                    if held.original == old:
                        await held.interaction.edit_original_response(
                            embed=drawing.embed, view=drawing.view, **kwargs)
                    else:
                        await held.interaction.followup.edit_message(
                            old, embed=drawing.embed, view=drawing.view, **kwargs)
                except discord.NotFound:
                    shown.gone(old)  # deleted: post it afresh
                    return
                except discord.HTTPException as error:
                    log.info("table %s: could not edit through a token (%s %s)", table.id,
                             error.status, error.code)
                    live.tokens.forget(held.interaction)
                    return
                self.shown(table, drawing, old, style, carried)
            return
        sender = live.tokens.sender(now)
        if sender is None:
            raise Wait()  # nobody tapped for 15 minutes: the next tap brings it up to date
        painted = await self._painted(table, lang)
        if shown.overtook(table) or shown.message_id != old:
            return
        picture = None if isinstance(painted, Late) else painted
        try:
            message = await sender.interaction.followup.send(
                embed=drawing.embed, view=drawing.view, wait=True,
                **send_files(drawing.embed, picture))
        except discord.HTTPException as error:
            log.info("table %s: could not post through a token (%s %s)", table.id,
                     error.status, error.code)
            if error.code == FOLLOWUP_LIMIT:
                sender.followups = FOLLOWUPS
            else:
                live.tokens.forget(sender.interaction)
            return
        live.tokens.sent(sender, message.id)
        await self.service.set_message(table.id, message.id)
        shown.message_id, shown.revision = message.id, -1
        self.shown(table, drawing, message.id, style, picture)
        if old is not None:
            live.background(self._retire_private(live, old))

    async def _retire_private(self, live: LiveTable, message_id: int) -> None:
        """Delete an older table message of a group DM's table, if a token still reaches
        it (otherwise it stays; a tap on it makes it the table message again)."""
        held = live.tokens.editor(message_id, time.monotonic())
        if held is None:
            return
        try:
            if held.original == message_id:
                await held.interaction.delete_original_response()
            else:
                await held.interaction.followup.delete_message(message_id)
        except discord.HTTPException:
            log.debug("old table message %s could not be deleted", message_id)

    async def _adopt_tapped(self, table: Table, message_id: int) -> Table:
        """A group DM's older table message was tapped: it is the table message now."""
        await self.service.set_message(table.id, message_id)
        return dataclasses.replace(table, message_id=message_id)
