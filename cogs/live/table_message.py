"""The table message kept current: paced edits, a deleted message posted again, and what
each message shows written down so that a restart edits only what is out of date.

Every request to the table message goes out from here, drawn from the owner's newest
snapshot at the moment it is sent: a tap's answer (``reply``, sent at once), the answer of a
command that posts it, and the owner's loop (``edit``): at most a few edits per channel in
any five seconds, so a burst of moves becomes one or two edits. Discord applies two requests
in flight at once in either order, so each waits until the one on its way to the message has
landed (``Flights.clear``, a second at most; a paced edit does not wait for the channel's
turn meanwhile, only for its answer): a move's answer never lands before an edit of the move
before it. Two that cross all the same (after that second) leave the message showing either,
and the loop draws it again. Nothing waits for a picture: a request carries the picture if it
is ready, the one the message has if not, and the loop edits the new one in once it is drawn.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Coroutine
from contextlib import nullcontext, suppress
from typing import Any

import discord

from bot.tables.service import Table, TableService
from cogs.client import Interaction
from cogs.i18n.translator import Languages
from cogs.live.owner import (
    HOLD_SECONDS,
    Drawing,
    Flight,
    Flights,
    LiveTable,
    LiveTables,
    token_way,
)
from cogs.live.records import Notes
from cogs.live.shown import MessageRecord, ShownRecord, carries, draw, fingerprint
from cogs.live.ways import Gone, Refused, Spec, Wait, Way
from cogs.pictures import (
    LATE,
    TABLE_FILE,
    Late,
    Picture,
    PictureKey,
    Pictures,
    attach,
    edit_files,
    kept_files,
    send_files,
)
from cogs.transport.pacer import Pacer
from cogs.transport.posts import ChannelPosts
from cogs.transport.raw import answer_by_editing, post_as_answer
from rules.i18n import Lang

log = logging.getLogger(__name__)

CHECK_SECONDS = 30.0  # look for a deleted table message at most this often per table
HISTORY = 50  # recent channel messages searched for a table message posted before a crash
SHOWN = "shown:"  # the records' key prefix before: shown:<table> → a fingerprint and a time
READY_SECONDS = 30.0  # a restart waits this long at most for the servers' locales
# A group DM's table message is left quiet (no moves, one button that brings it up to date)
# this long before the last token that could edit it lapses.
QUIET_SECONDS = 60.0
# A group DM's table message that no token will reach this long from now is posted afresh
# through a newer one at its next change, rather than left with no token that can edit it.
REPOST_AHEAD = 4 * 60


UNKNOWN: object = object()  # the picture a message carries is not known: send it
KEPT: object = object()  # (reported) the message kept the picture it carried

# What a table message was drawn from: the revision, the style, and whether it was left
# quiet (a group DM's, before its last token lapses).
Drawn = tuple[int, int, bool]


class MessageShown:
    """What one table's message shows, written only here, once a request that drew it
    landed: the message, the snapshot and style it was drawn from (None: not known), the
    fingerprint of what it shows (what a restart compares), and the picture it carries."""

    def __init__(self, driver: TableMessages, live: LiveTable) -> None:
        self.driver = driver
        self.live = live
        self.message_id = live.newest.message_id  # None: no message to edit (post one)
        self.drawn: Drawn | None = None  # what it was drawn from; None: not known
        self.digest: str | None = None  # the fingerprint of what it shows (None: not known)
        self.style = 0  # the style it should be drawn in: counted up on every change
        self.picture: PictureKey | object | None = UNKNOWN
        # The picture of what it shows is still being drawn: the loop waits for it (while
        # answers go on) and then edits it in.
        self.painting: asyncio.Future[Picture | None] | None = None
        self.flights: Flights[Drawn] = Flights()
        self.checked_at = -float("inf")  # when the message was last looked for
        self.replies = 0  # taps' answers that landed on it: each proves a token reaches it
        self.order = 0  # the ``Flight.order`` of the request it shows

    def wants(self, table: Table) -> Drawn:
        """What the message should be drawn from now."""
        return table.revision, self.style, self.driver.quiet(self.live)

    def behind(self, table: Table) -> bool:
        return self.message_id is None or self.drawn != self.wants(table) or \
            self.painting is not None

    async def step(self, live: LiveTable) -> None:
        await self.driver.edit(live, self)

    async def reply(self, live: LiveTable, interaction: Interaction) -> None:
        await self.driver.reply(live, interaction)

    def holds(self) -> bool:
        return False

    def give_up(self) -> None:
        """A closed table's message is left as it was (its owner is let go)."""
        self.painting = None

    # --- what it shows, written once a request landed ------------------------------------

    def moved(self, message_id: int) -> None:
        """The table message is ``message_id`` now (posted afresh, adopted, or an older copy
        tapped): what it shows is not known until a request to it lands."""
        if message_id != self.message_id:
            self.message_id, self.drawn, self.digest = message_id, None, None
            self.picture, self.painting = UNKNOWN, None

    def landed(self, flight: Flight[Drawn], message_id: int, digest: str,
               picture: Picture | object | None,
               painting: asyncio.Future[Picture | None] | None = None) -> bool:
        """A request to ``message_id`` that drew ``flight.shows`` (fingerprint ``digest``,
        carrying ``picture``, or the one it had with ``KEPT``; ``painting``: its own picture,
        still being drawn) was accepted. Returns whether it is what the message shows (a
        request to a message that is no longer the table message changes nothing, and
        neither does one that returned after a later one landed: an edit whose answer came
        before it returned, while discord.py waited out the channel's rate limit)."""
        if message_id != self.message_id or (flight.order or 0) < self.order:
            return False
        self.order = flight.order or self.order
        self.drawn = Flights.outcome(flight)
        self.digest = digest if self.drawn is not None else None
        if picture is not KEPT:
            self.picture = picture.key if isinstance(picture, Picture) else picture
        if self.drawn is None:
            self.picture = UNKNOWN  # either request's picture: send it again
        self.painting = painting
        return self.drawn is not None

    def painted(self, key: PictureKey | object | None) -> None:
        """The picture of what it shows was drawn (``UNKNOWN``: it failed, or is still
        late): edit it in, unless it is the one the message carries."""
        self.painting = None
        if self.drawn is not None and (key is UNKNOWN or key != self.picture):
            self.drawn = (-1, *self.drawn[1:])

    def restyle(self) -> None:
        """The server's language or picture style changed: draw it again."""
        self.style += 1

    def gone(self, message_id: int) -> None:
        """``message_id`` was found deleted: post the message anew, whatever it showed."""
        if self.message_id == message_id:
            self.message_id, self.drawn, self.digest = None, None, None
            self.picture, self.painting = UNKNOWN, None

    def dump(self) -> str | None:
        return MessageRecord(self.message_id, self.digest).dump() \
            if self.message_id is not None else None

    def restore(self, record: str) -> None:
        """What the last run wrote down the message shows (its drawing is compared with it
        before any edit, so an unchanged message is not edited). A record written before
        records named their message is of the message the table names."""
        loaded = MessageRecord.load(record)
        if loaded is not None and loaded.message_id in (None, self.message_id) and \
                self.drawn is None:
            self.digest = loaded.digest

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

    def shown_for(self, live: LiveTable) -> MessageShown:
        return MessageShown(self, live)

    @staticmethod
    def quiet(live: LiveTable) -> bool:
        """Whether a group DM's table message is to be left quiet: every token the table
        holds lapses within ``QUIET_SECONDS``, and then nothing could edit it again until
        someone taps; its moves would go stale meanwhile."""
        return live.newest.is_open and not live.reachable(QUIET_SECONDS)

    @staticmethod
    def of(live: LiveTable) -> MessageShown:
        """The table message's ``Shown`` at ``live``."""
        return live.shown(TableMessages.name, MessageShown)

    def _landed(self, live: LiveTable, shown: MessageShown, flight: Flight[Drawn],
                table: Table, message_id: int, digest: str, picture: Picture | object | None,
                painting: asyncio.Future[Picture | None] | None = None) -> None:
        """A request that drew ``table`` into ``message_id`` landed: what it shows, written
        down soon (in a batch) for the next start."""
        shown.landed(flight, message_id, digest, picture, painting)
        live.record(self.name)
        until = live.way.lapses()
        if table.is_open and until is not None and until > live.clock():
            # Left quiet before its last token lapses (unless a tap comes first).
            live.alarm(until - QUIET_SECONDS - live.clock())
        live.wake()  # the kinds that wait for the table message (a group DM's ping)
        live.settle()

    # --- answers: a tap on the table message, a command that posts it ------------------

    async def reply(self, live: LiveTable, interaction: Interaction) -> None:
        """Answer a tap on the table message by drawing the newest snapshot into it. It is
        sent as soon as no other request to the message is on its way (a paced edit waiting
        for the channel's turn is not on its way yet); if two cross all the same, what the
        message shows is not known, and the loop draws it again. A tap on an older copy in a
        group DM makes that copy the table message (the other one goes)."""
        shown = self.of(live)
        message = interaction.message
        table = live.newest
        tapped = message.id if message is not None else table.message_id
        old = shown.message_id
        if live.way.keeps_copies() and tapped is not None and tapped != old:
            # Its token can edit it for the next 15 minutes: it becomes the table message.
            live.keep(await self._adopt_tapped(table, tapped))
            shown.moved(tapped)
        elif old is None and tapped is not None:
            shown.moved(tapped)  # a tap beat ``/nlk new``'s answer to storing its message
        lang = await self.languages.public(live.newest.place, interaction)
        until = asyncio.get_running_loop().time() + HOLD_SECONDS
        while True:
            table, style = live.newest, shown.style
            drawing = draw(table, lang, self.languages.ai_allowed(table.place))
            picture, painting = await self._paint(table, lang, answering=interaction)
            # Sent once the other requests to the message on their way have landed, so
            # that Discord applies it after them: an edit of an older move landing after
            # this answer would leave the next player the buttons of a move already made.
            if await shown.flights.clear(
                    until, lambda: (live.newest.revision, shown.style), (table.revision, style)):
                break
        if isinstance(picture, Late):
            # The answer goes now with the picture the message has; the loop brings the new
            # one once it is drawn.
            files = kept_files(drawing.embed, message, TABLE_FILE)
            carried: object = None if files else KEPT
        else:
            files = shown.edit_files(drawing.embed, picture)
            carried = picture
        with shown.flights.fly((table.revision, style, False)) as flight:
            await answer_by_editing(interaction, embed=drawing.embed, view=drawing.view,
                                    **files)
        live.heard(interaction, tapped)
        if tapped is not None:
            shown.replies += 1
            self._landed(live, shown, flight, table, tapped, fingerprint(drawing), carried,
                         painting)
        if live.way.keeps_copies() and old is not None and old != tapped:
            live.background(live.way.delete(old))

    async def post_answer(self, table: Table, interaction: Interaction, lang: Lang, *,
                          retire_old: bool) -> Table:
        """Post the table message as the answer to a command (it costs no channel request),
        and record it; the previous one is deleted with ``retire_old``. Returns the table as
        stored now, with its new message."""
        live = self.tables.of(table)
        shown = self.of(live)
        table, style = live.newest, shown.style
        drawing = draw(table, lang, self.languages.ai_allowed(table.place))
        picture, painting = await self._paint(table, lang, answering=interaction)
        new = None if isinstance(picture, Late) else picture
        with shown.flights.fly((table.revision, style, False)) as flight:
            message_id = await post_as_answer(interaction, embed=drawing.embed,
                                              view=drawing.view,
                                              **send_files(drawing.embed, new))
        message_id = message_id or (await interaction.original_response()).id
        live.heard(interaction, message_id)
        old = await self.service.set_message(table.id, message_id)
        shown.moved(message_id)
        self._landed(live, shown, flight, table, message_id, fingerprint(drawing), new,
                     painting)
        if old is not None and old != message_id and retire_old:
            live.background(live.way.delete(old))
        return await self.service.get(table.id)

    def relanguage(self, guild_id: int) -> int:
        """The server's language changed: redraw each of its open table messages in it,
        paced like any edit. Returns how many tables are redrawn."""
        tables = [table for table in self.service.cached()
                  if table.place == guild_id and table.is_open and table.message_id]
        for table in tables:
            live = self.tables.of(table)
            self.of(live).restyle()
            live.wake()
        return len(tables)

    # --- after a restart -------------------------------------------------------------------

    async def read_legacy(self) -> dict[int, str]:
        """The records written before each kind had one (``shown:<table>``: a fingerprint
        and a time), as records of this kind; read once, and forgotten."""
        try:
            records = {}
            for key, value in (await self.notes.read(SHOWN)).items():
                table_id = key[len(SHOWN):]
                old = ShownRecord.load(value)
                self.notes.note(key, None)
                if table_id.isdigit() and old is not None:
                    records[int(table_id)] = MessageRecord(None, old.digest).dump()
            return records
        except Exception:
            log.warning("could not read what the table messages showed", exc_info=True)
            return {}

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

    async def resume(self, tables: list[Table]) -> None:
        """Each open table's loop woken: it edits a message only if what it would draw
        differs from what the message shows (restored from its record: a restart with
        hundreds of open tables must not spend Discord's request budget on no-op edits). A
        table with no recorded message first looks for one posted just before a crash."""
        for table in tables:
            live = self.tables.of(table)
            if table.message_id is None:
                live.background(self._adopt(table))
                continue
            live.saw(table)

    async def _adopt(self, table: Table) -> None:
        """A table with no recorded message: the bot may have been stopped between posting
        it and recording its id. Adopt the newest such message among the channel's recent
        ones (retiring any older copy) rather than post a second; without Read Message
        History the channel looks empty, and a fresh one is posted."""
        found: list[int] = []
        me = self.client.user.id if self.client.user else None
        # (Nothing is found where the place's messages can't be read: a group DM's.)
        for message in await self.tables.of(table).way.history(HISTORY) or []:
            if int(message["author"]["id"]) == me and message.get("embeds") and \
                    carries(message, table.id):
                found.append(int(message["id"]))
        if found:
            found.sort()
            await self.service.set_message(table.id, found[-1])
            log.info("table %s: adopted message %s", table.id, found[-1])
            for extra in found[:-1]:
                await self.tables.of(table).way.delete(extra)
            table = await self.service.get(table.id)
            self.of(self.tables.of(table)).moved(found[-1])  # what it shows: unknown
        # Adopted (and edited if out of date), or posted: the loop sees no message to edit.
        self.tables.of(table).saw(table)

    # --- a table message someone deleted ---------------------------------------------------

    def check(self, table: Table) -> None:
        """The table was used without its message being drawn (``/nlk hand``, a button on a
        ping or a hand): look, at most every ``CHECK_SECONDS``, whether the message still
        exists, and post it again if someone deleted it."""
        if self.tables.stopped or not table.is_open or table.message_id is None:
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
        return await self.tables.of(table).way.exists(table.message_id)

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

    # --- what the table messages show, written down ----------------------------------------

    async def picture(self, table: Table, lang: Lang, *, urgent: bool = False
                      ) -> Picture | None:
        """The table message's picture in its server's style (None: text only;
        ``urgent``: an answer is to carry it)."""
        return await self.pictures.public(table, lang, urgent=urgent)

    def foresee(self, table: Table, interaction: Interaction, *, urgent: bool = True
                ) -> Coroutine[Any, Any, None] | None:
        """Start drawing the picture of ``table`` (a tap's change, being written) for the
        answer to come (``reply``), which finds it drawn or on its way: at once if the
        server's language and picture style are known, else the work that reads them first
        (to run in the table's scope). Not ``urgent``: for a later answer (a deal made
        ahead), in the background's line, which that answer hurries if it comes first."""
        lang = self.languages.public_now(table.place, interaction)
        style = self.pictures.styles.known_public(table.place)
        if lang is None or style is None:
            return self._foresee(table, interaction, urgent)
        self.pictures.table_now(table, lang, style, urgent=urgent)
        return None

    async def _foresee(self, table: Table, interaction: Interaction, urgent: bool) -> None:
        lang = await self.languages.public(table.place, interaction)
        await self.picture(table, lang, urgent=urgent)

    async def _paint(self, table: Table, lang: Lang, *,
                     answering: Interaction | None = None
                     ) -> tuple[Picture | Late | None, asyncio.Future[Picture | None] | None]:
        """The picture of ``table`` if it is ready now (drawn before, or at once; for the
        answer to ``answering``, within the pictures' wait for it), else ``LATE`` and the
        drawing on its way: no request waits on a picture longer."""
        wait = 0.0 if answering is None else self.pictures.answer_wait_for(answering)
        found = self.pictures.public_now(table, lang, urgent=answering is not None)
        if found is None or isinstance(found, Picture):
            return found, None  # kept: taken without a turn of the event loop
        painting = asyncio.ensure_future(found)
        await asyncio.wait((painting,), timeout=wait)
        if painting.done():
            return (None if painting.cancelled() or painting.exception() is not None
                    else painting.result()), None
        return LATE, painting

    # --- the loop's step -------------------------------------------------------------------

    async def _drawing(self, live: LiveTable, shown: MessageShown
                       ) -> tuple[Table, Drawn, Drawing, str, Picture | Late | None,
                                  asyncio.Future[Picture | None] | None] | None:
        """The newest snapshot drawn now, its fingerprint, and its picture if ready; None
        when the message is known to show it already (after a restart: its fingerprint is
        what the last run wrote down)."""
        lang = await self.languages.public(live.newest.place)
        table = live.newest
        wants = shown.wants(table)
        drawing = draw(table, lang, self.languages.ai_allowed(table.place), quiet=wants[2])
        digest = fingerprint(drawing)
        if shown.drawn is None and shown.digest == digest and shown.message_id is not None \
                and shown.style == 0:
            with shown.flights.fly(wants) as flight:
                pass  # nothing to send: it shows this already
            shown.landed(flight, shown.message_id, digest, KEPT)
            return None
        picture, painting = await self._paint(table, lang)
        return table, wants, drawing, digest, picture, painting

    async def edit(self, live: LiveTable, shown: MessageShown) -> None:
        """One step: wait until the way has room for it (a server's channel is paced); then
        the picture of what it shows, if that is still being drawn, and the newest
        snapshot's (``PAINT_WAIT`` at most each; answers go on meanwhile); then, in the way's
        turn, draw the newest snapshot and edit the message, or post it if there is none, it
        was deleted, or the way will soon no longer reach it (a group DM's, through a newer
        token; the old one goes).

        The room comes first: at a move a second a channel's budget is spent, and a picture
        drawn before that wait was of a snapshot moves had left behind by the end of it; the
        edit then went without the newest one's picture and a second edit put it in, two of
        the channel's five edits in five seconds for one change.

        A server's message that requests crossed is put right through a tap's token
        (``_mender``), at once, with no room to wait for."""
        way = live.way
        mender = self._mender(live, shown)
        if mender is None:
            await way.room()
        painting = shown.painting
        if painting is not None:
            await asyncio.wait((painting,), timeout=self.pictures.paint_wait)
            if shown.painting is painting:
                if not painting.done() and shown.drawn == shown.wants(live.newest):
                    # Still being drawn (the bot is busy drawing), and nothing else to show:
                    # an edit now would only send again what the message shows, spending the
                    # channel's budget the picture's own edit will need. The loop waits again.
                    return
                drawn = painting.result() if painting.done() and not painting.cancelled() \
                    and painting.exception() is None else UNKNOWN
                shown.painted(drawn.key if isinstance(drawn, Picture) else drawn)
        if painting is None or painting.done():
            await self._paint_ahead(live)  # (drawn already, unless the table moved on)
        async with way.turn() if mender is None else nullcontext():
            if not shown.behind(live.newest):
                return  # an answer drew it while this waited for its turn
            old = shown.message_id
            # A group DM's message whose last token grows old is posted afresh through a
            # newer one while one can still delete it (not when every token is about to
            # lapse: then it is left quiet instead).
            repost = old is not None and not way.reaches(old, REPOST_AHEAD) and \
                way.posts(REPOST_AHEAD) and not self.quiet(live)
            if ((old is None or repost) and not way.posts()) or \
                    (old is not None and not repost and not way.reaches(old)):
                raise Wait()  # nobody tapped for 15 minutes: the next tap brings it back
            drawn = await self._drawing(live, shown)
            if drawn is None:
                return
            table, wants, drawing, digest, picture, painting = drawn
            until = asyncio.get_running_loop().time() + HOLD_SECONDS
            if not await shown.flights.clear(until, lambda: live.newest.revision,
                                             table.revision) or \
                    not shown.behind(live.newest):
                return  # a tap's answer meanwhile drew it, or the table moved on: again
            if old is None or repost:
                new = None if isinstance(picture, Late) else picture
                replies = shown.replies
                try:
                    with shown.flights.fly(wants) as flight:
                        message_id = await way.post(Spec(
                            embed=drawing.embed, view=drawing.view,
                            files=attach(drawing.embed, new)))
                except Refused:
                    return  # through another token, at once
                if old is not None and (shown.message_id != old or shown.replies != replies):
                    # A tap meanwhile brought a copy up to date in place (its token reaches
                    # it): that copy stays the table message, and this one goes.
                    live.background(way.delete(message_id))
                    return
                shown.moved(message_id)
                self._landed(live, shown, flight, table, message_id, digest, new, painting)
                if old is not None:
                    live.background(way.delete(old))
                await self.service.set_message(table.id, message_id)
                return
            # An unchanged picture sends no file: the message keeps the one it has.
            carried, files = shown.files_for(drawing.embed, picture)
            try:
                with shown.flights.fly(wants) as flight:
                    # Landed once Discord answered: an edit that spent the channel's last
                    # place returns only when its budget is back (up to 5 s later), and a
                    # tap's answer need not wait for that.
                    await (mender or way).edit(old, Spec(
                        embed=drawing.embed, view=drawing.view,
                        files=files.get("attachments", []),
                        keep_files="attachments" not in files, answered=flight.answered))
            except Gone:
                # Someone deleted the table message: the loop posts a fresh one so the table
                # stays playable.
                shown.gone(old)
                return
            except Refused:
                return  # through another token, or posted afresh, at once
            except Wait:
                if mender is None:
                    raise
                return  # the token lapsed meanwhile: through the channel, at once
            self._landed(live, shown, flight, table, old, digest, carried, painting)

    @staticmethod
    def _mender(live: LiveTable, shown: MessageShown) -> Way | None:
        """How to put right a server's table message that two requests crossed on (a tap's
        answer and an edit of an older state: Discord may have applied the older last, and
        the next player would see the buttons of a move already made): through the token of
        the tap it answered last, while that reaches it, at once; the channel's next room
        may be a second or more away at a move a second, and Discord does not count
        interaction webhooks against it. None: through the table's own way (a group DM's
        goes through tokens already)."""
        message_id = shown.message_id
        if live.way.keeps_copies() or shown.drawn is not None or message_id is None or \
                live.tokens.editor(message_id, live.clock()) is None:
            return None
        return token_way(live)

    async def _paint_ahead(self, live: LiveTable) -> None:
        """Draw the newest snapshot's picture before the edit takes the channel's turn
        (``PAINT_WAIT`` at most; answers go on meanwhile), so that the edit carries it. An
        edit that went without it would need a second one to put it in: two of the
        channel's five edits in five seconds for one change, and at a move a second the
        table message fell seconds behind (p90 2.5 s, against 0.8 s with the picture drawn
        first). A picture not drawn by then follows, as ``painting``."""
        table = live.newest
        lang = await self.languages.public(table.place)
        await self.pictures.within(self.pictures.public_now(table, lang),
                                   self.pictures.paint_wait)

    async def _adopt_tapped(self, table: Table, message_id: int) -> Table:
        """A group DM's older table message was tapped: it is the table message now."""
        await self.service.set_message(table.id, message_id)
        return dataclasses.replace(table, message_id=message_id)
