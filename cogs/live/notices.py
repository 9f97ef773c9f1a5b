"""The end-of-hand notice: who lost, who deals next, and the finishing order, posted once
per hand as a message of its own (the table message shows it too, and moves on).

A kind of message of the table's ``LiveTable``: it wants a notice for each hand that ended,
and shows the number of the last hand it announced. That number is its record (written down
by the owner as any kind's, ``live:end_of_hand_notice:<table>``), so a bot stopped between
the end of a hand and its notice posts it at its next start, and one stopped after it does
not post it twice. (The records of the format before, ``notice:<table>``, are read once.)
"""

from __future__ import annotations

import asyncio
import logging

import discord

from bot.db.records import TableStatus
from bot.guilds.service import GuildService
from bot.tables.service import Table
from cogs import render
from cogs.i18n.translator import Languages
from cogs.live.owner import LiveTable
from cogs.live.records import Notes
from cogs.live.ways import Refused, Spec
from cogs.pictures import FOUR, OFF, Pictures
from cogs.pictures.ending import EndingPicture, end_of_hand_message, end_of_hand_picture
from rules import observe
from rules.i18n import Lang, shown_name, translator

log = logging.getLogger(__name__)

LEGACY = "notice:"  # the format before: notice:<table> → the last hand announced


class NoticeShown:
    """The last hand a table's notice was posted for, and the finished hand waiting for
    one (a snapshot taken when it ended: the next hand may start before it is posted)."""

    def __init__(self, driver: Notices, table: Table) -> None:
        self.driver = driver
        # Without a record (a table first seen before notices were written down), a hand
        # that ended before the owner first saw the table was announced then.
        self.announced = table.hand_number if _ended(table) else 0
        self.due: Table | None = None

    def behind(self, table: Table) -> bool:
        """Whether a finished hand waits for its notice (``table``, if it is one, is kept
        as the one to announce)."""
        if _ended(table) and table.hand_number > self.announced and \
                (self.due is None or table.revision >= self.due.revision):
            self.due = table
        return self.due is not None

    async def step(self, live: LiveTable) -> None:
        due = self.due
        if due is None:
            return
        if not await self.driver.post(live, due):
            return  # its token was refused: through another, at once
        self.announced = max(self.announced, due.hand_number)
        if self.due is due:  # (not a later hand that ended while this one was posted)
            self.due = None

    def holds(self) -> bool:
        return self.due is not None

    def give_up(self) -> None:
        self.due = None

    def dump(self) -> str | None:
        return str(self.announced)

    def restore(self, record: str) -> None:
        if record.isdigit():
            self.announced = int(record)


class Notices:
    """The end-of-hand notice as a kind of message."""

    name = "end_of_hand_notice"

    def __init__(self, languages: Languages, notes: Notes,
                 pictures: Pictures, servers: GuildService | None) -> None:
        self.languages = languages
        self.notes = notes
        self.pictures = pictures
        self.servers = servers

    async def read_legacy(self) -> dict[int, str]:
        """The records written before each kind had one (``notice:<table>``), as records of
        this kind; read once, and forgotten."""
        try:
            records = {}
            for key, value in (await self.notes.read(LEGACY)).items():
                table_id = key[len(LEGACY):]
                self.notes.note(key, None)
                if table_id.isdigit() and value.isdigit():
                    records[int(table_id)] = value
            return records
        except Exception:
            log.warning("could not read the notices posted by the last run", exc_info=True)
            return {}

    def shown_for(self, live: LiveTable) -> NoticeShown:
        return NoticeShown(self, live.newest)

    async def post(self, live: LiveTable, table: Table) -> bool:
        """Say who lost the hand, beside the table message (``LiveTable.aside``: in a
        server through the newest tap's token while it is fresh, else in the channel; in a
        group DM through a token, or at the next tap: ``Wait``), with the hand's picture and
        a Replay button where the server shows pictures. False: the token it went through
        was refused, and it is to be posted through another."""
        newest = live.tokens.newest()
        lang = await self.languages.public(table.place,
                                           newest.interaction if newest is not None else None)
        content = notice(table, lang)
        picture = await self.picture(table, lang)
        if picture is None:
            spec = Spec(content)
        else:
            # The sentence stays the message's text (what notifications and searches show);
            # the picture is its embed's.
            message = end_of_hand_message(picture, table.hand_id or 0, lang)
            spec = Spec(content, embed=message["embed"], view=message["view"],
                        files=message["files"])
        try:
            await live.aside.post(spec)
        except Refused:
            return False
        except discord.HTTPException as error:
            # The channel refused it (permissions changed under a running table: the next
            # tap there is told); a notice is not worth retrying for ever.
            log.warning("table %s: could not post its end-of-hand notice (%s %s)", table.id,
                        error.status, error.code)
        return True

    async def picture(self, table: Table, lang: Lang) -> EndingPicture | None:
        """The finished hand in one picture (None: the server shows text only): the
        finishing order with each rated player's change, and the loser's last cards."""
        style = await self.pictures.styles.public(table.place)
        view, game = table.public_view(), table.game
        if style == OFF or view is None or view.loser is None or game is None or \
                table.hand_id is None or not self.pictures.ready():
            return None
        try:
            by_user = await self.servers.hand_changes(table.hand_id) if self.servers else {}
        except Exception:
            log.warning("table %s: could not read its hand's rating changes", table.id,
                        exc_info=True)
            by_user = {}
        names = [shown_name(name, lang) for name in view.players]
        changes = {names[seat]: by_user[seat_.user_id]
                   for seat, seat_ in enumerate(table.seats) if seat_.user_id in by_user}
        # The hand is over: the loser's last cards are everyone's to see now.
        last = observe(game, view.loser).own
        return await asyncio.to_thread(
            end_of_hand_picture, [names[seat] for seat in view.out], names[view.loser], last,
            lang, hand_number=table.hand_number, changes=changes, trump=view.trump,
            four=style == FOUR, letters=lang)


def notice(table: Table, lang: Lang) -> str:
    """The notice of ``table``'s finished hand, in ``lang``."""
    view = table.public_view()
    assert view is not None and view.loser is not None
    order = render.finishing_order(table, view, lang)
    _ = translator(lang).gettext
    # The next hand's seats are those still seated: people who left during the hand are
    # gone, and if the loser is one of them, someone else deals.
    content = render.next_dealer_sentence(
        table, view, lang=lang, number=table.hand_number, order=order,
        random=_("Hand {number} is over: **{name} loses**; the next dealer will be drawn "
                 "at random. Finishing order: {order}."),
        loser=_("Hand {number} is over: **{name} loses** and deals next. Finishing order: "
                "{order}."),
        other=_("Hand {number} is over: **{name} loses** and has left: **{dealer}** deals "
                "next. Finishing order: {order}."))
    # No link to the table message: `/nlk table` may post it again, and a notice that
    # stays in the channel would keep pointing at the deleted one.
    return content + " " + _("Next hand ({seated}/{seats}): {players}.").format(
        seated=len(table.next_seats), seats=table.max_seats,
        players=render.next_hand_seats(table, lang=lang))


def _ended(table: Table) -> bool:
    """Whether ``table``'s hand is over with a loser (not cut short by the end of the
    table)."""
    if table.status is not TableStatus.OVER:
        return False
    view = table.public_view()
    return view is not None and view.loser is not None
