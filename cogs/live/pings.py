"""Turn pings and the end of a hand: at most one live ping per table, for the person to act.

The ping converges: what the table's live ping shows (``Ping.want``: the person, the turn,
the version its buttons were drawn at, the deadline, whether it is a reminder) is compared
with what the newest snapshot wants (``wanted_ping``). A new person's turn, or a reminder,
posts a new ping (a mention must notify) and deletes the old one; a change within the same
turn (the player moved from the table message, a restart renewed the clock) edits it in
place; no person to act (an AI, a stand-in, the end of the hand) deletes it. The ping is a
kind of message of the table's ``LiveTable`` (``PingShown``): one loop per table brings it up
to date, so two changes never race to post. It is sent through the table's ``borrowing`` way
(``LiveTable.aside``): in a server as a follow-up of the newest tap while its token is fresh,
in a group DM through the tokens, as every message there.

Its record, one per table (``live:turn_ping:<table>``, written by the owner as any kind's),
holds the live ping and what it shows, and the pings owed a delete (one on its way, or one
Discord refused). It is written at once when a ping is posted: a ping posted and not written
down is left in the channel by a kill. A restart restores it and wakes the loop, which
compares what the ping shows with what is wanted as on any change: it edits the ping, or
deletes it if its turn is over, and does the deletes owed. A table closed since keeps an
owner until they are done. Before its first step after a restart, the loop looks once at
the channel: a ping written down and gone already is not deleted again, and a ping the last
run posted and had no time to write down is found (by the mention in its text: an edit
names its person again, but one from before may have dropped them from its mentions) and
deleted.
The records of the format before, one per ping (``ping:<table>:<message>``), are read once.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
from dataclasses import dataclass
from typing import Any

import discord
import orjson
from discord.utils import MISSING

from bot.tables.service import Table, TableService
from bot.tasks import Tasks
from cogs import render
from cogs.client import Interaction
from cogs.i18n.translator import Languages
from cogs.live.owner import LiveTable, LiveTables, record_key
from cogs.live.records import Notes
from cogs.live.table_message import MessageShown, TableMessages
from cogs.live.ways import ChannelWay, Gone, Refused, Spec, Wait
from cogs.transport.mentions import only_user
from cogs.transport.pacer import Pacer
from cogs.transport.posts import ChannelPosts
from cogs.transport.raw import answer_by_editing
from cogs.widgets.buttons import Buttons
from rules import Phase
from rules.i18n import Lang

log = logging.getLogger(__name__)

LEGACY = "ping:"  # the format before: ping:<table>:<message> → that ping's record
PING_GRACE = 2.0  # at shutdown, pings being deleted get this long to go
HISTORY_MAX = 100  # the most messages Discord returns for one history request
MENTION = re.compile(r"<@!?\d+>")  # a person mentioned in a message's text


@dataclass(frozen=True)
class PingWant:
    """What a turn ping shows: whose turn, which turn, the version its buttons were drawn
    at, the deadline it counts down to, whether it is a reminder, and the table message its
    link points to."""

    user_id: int
    hand: int
    turn: int  # the game version the turn began at
    version: int
    deadline: float | None
    reminder: bool
    shed: bool = False  # phase two's ping: **My hand** instead of moves
    link: int | None = None  # the table message its [Table] link points to
    # A table whose deadline comes after its way stops reaching it (a group DM's, once every
    # token it holds has lapsed): the ping says that a stand-in plays at the next tap, not
    # when the time runs out.
    waits: bool = False
    # A group DM's ping before its last token lapses: its buttons go (they would offer
    # moves of a turn that may pass while nothing can edit it).
    quiet: bool = False


@dataclass
class Ping:
    """A table's live turn ping and what it shows (``want`` None: it says "Done.", or it
    is not known); ``adopted``: posted by the run before this one."""

    message_id: int
    want: PingWant | None
    adopted: bool = False


class PingShown:
    """A table's one live ping (None: none), the pings still owed a delete, and the turn
    the clock reminded its person of.

    A ping that no longer stands for the table is owed a delete until Discord confirmed it
    (one already gone counts as done): the delete goes in the background, and one that
    could not start yet (restored, or found in the channel) is started by the loop. A delete
    Discord refused is not tried again in this run (it would count against the bot's
    invalid requests): it stays written down, and the next start tries again."""

    def __init__(self, driver: Pings, live: LiveTable) -> None:
        self.driver = driver
        self.live = live
        self.ping: Ping | None = None
        self.reminded: tuple[int, int] | None = None
        self.owed: list[int] = []  # message ids whose delete is not confirmed, oldest first
        self.deleting: set[int] = set()  # those whose delete is on its way
        self.refused: set[int] = set()  # those whose delete Discord refused in this run
        # After a restart, one look at the channel before the first step (``Pings._look``):
        # which pings written down are gone already, and which the last run posted and had
        # no time to write down.
        self.look = False

    def want(self, table: Table) -> PingWant | None:
        """What the ping should show for ``table``: its link points to the table message
        the owner knows is there (a snapshot taken before ``/nlk table`` names the old)."""
        message = self.live.kinds.get(TableMessages.name)
        link = message.message_id if isinstance(message, MessageShown) else None
        # Until when the table's way can show a stand-in's move, on the table's clock.
        lapses = self.live.way.lapses()
        reach = None if lapses is None else \
            self.driver.service.clock() + lapses - self.live.clock()
        return wanted_ping(table, self.reminded, link or table.message_id, reach,
                           TableMessages.quiet(self.live))

    def behind(self, table: Table) -> bool:
        """A ping that shows nothing wanted ("Your turn is over.", or not known) still
        mentions its person: it is behind even where no ping is wanted, and goes."""
        if self.due():  # a delete owed and not on its way
            return True
        want = self.want(table)
        if self.ping is None:
            return want is not None
        return want is None or self.ping.want != want

    async def step(self, live: LiveTable) -> None:
        await self.driver.converge(live, self)

    def holds(self) -> bool:
        """A live ping, or a delete owed that may still go (the owner of a closed table
        waits for it)."""
        return self.ping is not None or any(m not in self.refused for m in self.owed)

    def give_up(self) -> None:
        """A closed table's ping could not be deleted: it is left in the channel."""
        self.ping = None
        self.refused.update(self.owed)

    # --- the deletes owed -------------------------------------------------------------

    def owe(self, message_id: int) -> None:
        """``message_id`` no longer stands for the table: it is owed a delete."""
        if message_id not in self.owed:
            self.owed.append(message_id)

    def due(self) -> list[int]:
        """The deletes owed that are not on their way (nor refused in this run)."""
        return [m for m in self.owed if m not in self.deleting and m not in self.refused]

    def deleted(self, message_id: int) -> None:
        """Discord confirmed ``message_id`` is gone: it is owed nothing."""
        if message_id in self.owed:
            self.owed.remove(message_id)
        self.deleting.discard(message_id)
        self.refused.discard(message_id)

    # --- the record -------------------------------------------------------------------

    def held(self) -> PingsRecord:
        """The live ping and the deletes owed, as a record."""
        return PingsRecord(self.live.channel_id, self.ping, tuple(self.owed))

    def dump(self) -> str | None:
        """The live ping (its message and what it shows) and the deletes owed; None when
        there is neither."""
        if self.ping is None and not self.owed:
            return None
        return self.held().dump()

    def restore(self, record: str) -> None:
        """What the last run wrote down: its live ping is the table's live ping again (no
        token reaches it: it is edited or deleted through the table's way), and the deletes
        it owed are owed still. The loop compares what it shows with what is wanted."""
        loaded = PingsRecord.load(record)
        if loaded is None:
            return  # not written by this bot: nothing to go on
        if self.ping is None and loaded.ping is not None:
            self.ping = dataclasses.replace(loaded.ping, adopted=True)
        for message_id in loaded.owed:
            self.owe(message_id)
        self.look = True

    def merge(self, record: str, table: Table) -> bool:
        """Another process moved ``table`` on and wrote down its ping (``record``): a live
        ping of the turn ``table`` is at is this table's live ping here too, adopted (that
        process deletes what it posted: this one deletes it only while that record names
        it). This process's own live ping, which that record does not name, is owed its
        delete; one it adopted, or one that process owes a delete, is that process's to
        delete. Returns whether anything changed (nothing does for a record of another
        turn: the loop posts this turn's ping as on any change)."""
        loaded = PingsRecord.load(record)
        want = self.want(table)
        if loaded is None or loaded.ping is None or loaded.ping.want is None or \
                want is None or needs_new_ping(loaded.ping.want, want):
            return False
        theirs, mine = loaded.ping, self.ping
        if theirs.message_id in self.owed or \
                (mine is not None and not needs_new_ping(mine.want, want)):
            return False  # this process shows this turn already (or let that ping go)
        self.ping = dataclasses.replace(theirs, adopted=True)
        if mine is not None and not mine.adopted and mine.message_id not in loaded.owed:
            self.owe(mine.message_id)
        return True


@dataclass(frozen=True)
class PingsRecord:
    """A table's turn pings, written down (``live:turn_ping:<table>``): its channel, its
    live ping and what it shows, and the pings owed a delete."""

    channel_id: int
    ping: Ping | None
    owed: tuple[int, ...] = ()

    def messages(self) -> set[int]:
        """Every message it names: the live ping and those owed a delete."""
        return set(self.owed) | ({self.ping.message_id} if self.ping is not None else set())

    def dump(self) -> str:
        ping = None if self.ping is None else {
            "message": self.ping.message_id,
            # (its fields are plain values: ``asdict``'s deep copy of each cost more than the
            # rest of the record)
            "shows": None if self.ping.want is None else vars(self.ping.want)}
        return orjson.dumps({"channel": self.channel_id, "ping": ping, "owed": self.owed}).decode()

    @classmethod
    def load(cls, text: str) -> PingsRecord | None:
        """The record, or None for anything this bot did not write."""
        try:
            data = json.loads(text)
            ping, shows = data["ping"], None
            if ping is not None and ping["shows"] is not None:
                shows = PingWant(**ping["shows"])
            return cls(int(data["channel"]),
                       None if ping is None else Ping(int(ping["message"]), shows),
                       tuple(int(m) for m in data["owed"]))
        except (ValueError, TypeError, KeyError, AttributeError):
            return None


def wanted_ping(table: Table, reminded: tuple[int, int] | None,
                link: int | None = None, reach: float | None = None,
                quiet: bool = False) -> PingWant | None:
    """What the table's live ping should show now (None: no ping).

    A person to act has a ping, unless a stand-in is playing their turn; it is a reminder
    once the clock reminded them of this turn (``reminded``: the turn's key). ``reach``:
    until when a change can be shown at the table, on the table's clock (None: always)."""
    game, user_id, turn = table.game, table.user_to_act(), table.turn_key()
    if not table.is_open or game is None or user_id is None or turn is None or \
            table.ai_to_act() is not None or table.covered():
        return None
    # Phase one's buttons carry the version they were drawn at; phase two's ping carries
    # only **My hand**, which stays right for the whole turn. A turn can begin in phase one
    # and go on in phase two (its player drew the last card): the phase is part of it.
    shed = game.phase is not Phase.COLLECT
    version = turn[1] if shed else game.version
    deadline = table.deadline()
    waits = deadline is not None and reach is not None and deadline > reach
    return PingWant(user_id, turn[0], turn[1], version, deadline, reminded == turn,
                    shed, link if link is not None else table.message_id, waits, quiet)


def _drawn(table: Table, want: PingWant, lang: Lang) -> tuple[str, discord.ui.View]:
    """The ping as ``want`` shows it: posted, edited, or a tap's answer alike."""
    if want.link != table.message_id:
        table = dataclasses.replace(table, message_id=want.link)
    content, view = render.ping_message(table, want.user_id, deadline=want.deadline,
                                        reminder=want.reminder, lang=lang, waits=want.waits)
    return content, Buttons() if want.quiet else view


def needs_new_ping(shown: PingWant | None, want: PingWant) -> bool:
    """Whether ``want`` needs a new message (which notifies) rather than an edit: another
    person's or another turn's ping, or a reminder where there was none."""
    return shown is None or (shown.user_id, shown.hand, shown.turn) != \
        (want.user_id, want.hand, want.turn) or (want.reminder and not shown.reminder)


@dataclass(frozen=True)
class PingRecord:
    """A posted ping as the format before wrote it down (``ping:<table>:<message>``, one
    record per ping): read once, to be written again in the table's one record."""

    channel_id: int
    hand: int
    version: int  # the game's version then (-1: no game)
    user_id: int | None  # the person pinged
    turn: int | None = None  # the version the turn began at (None: an older record)
    deadline: float | None = None
    reminder: bool = False
    shed: bool = False
    link: int | None = None  # the table message its link pointed to (None: not known)

    @classmethod
    def load(cls, text: str) -> PingRecord:
        """Raises ``ValueError`` for anything this bot did not write."""
        try:
            data = json.loads(text)
            user, turn, deadline = data["user"], data.get("turn"), data.get("deadline")
            link = data.get("link")
            return cls(int(data["channel"]), int(data["hand"]), int(data["version"]),
                       None if user is None else int(user),
                       None if turn is None else int(turn),
                       None if deadline is None else float(deadline),
                       bool(data.get("reminder", False)), bool(data.get("shed", False)),
                       None if link is None else int(link))
        except (TypeError, KeyError, AttributeError):
            raise ValueError(text) from None
        except ValueError:
            channel, hand, version, user = text.split()  # before records were JSON
            return cls(int(channel), int(hand), int(version),
                       None if user == "None" else int(user))

    def shows(self) -> PingWant | None:
        """What the ping shows (None: not known, as in a record from before turns were
        written down: the loop posts a fresh one and deletes it)."""
        if self.user_id is None or self.turn is None:
            return None
        return PingWant(self.user_id, self.hand, self.turn, self.version, self.deadline,
                        self.reminder, self.shed, self.link)


class Pings:
    """The turn ping as a kind of message: keeps each table's one live ping right."""

    name = "turn_ping"

    def __init__(self, client: discord.Client, service: TableService, languages: Languages,
                 pacer: Pacer, posts: ChannelPosts, tables: LiveTables, notes: Notes) -> None:
        self.client = client
        self.service = service
        self.languages = languages
        self.pacer = pacer
        self.posts = posts
        self.tables = tables
        # Where each table's record is written (by its owner) and the format before read.
        self.notes = notes
        self._deleting = Tasks()  # given a grace at shutdown
        self._chores = Tasks()  # deleting what a table that can't be read any more left
        # Messages older than this were posted by an earlier run (Discord's ids grow with
        # time): pings this run posts, even before it resumes its tables, are younger.
        self._started = discord.utils.time_snowflake(discord.utils.utcnow())
        # Read at start-up, deleted once connected: the pings of closed tables that can't
        # be read any more (table id, its record).
        self._left: list[tuple[int, PingsRecord]] = []

    def tracked(self) -> int:
        return len(self._chores)

    def shown_for(self, live: LiveTable) -> PingShown:
        return PingShown(self, live)

    @staticmethod
    def of(live: LiveTable) -> PingShown:
        """The turn ping's ``Shown`` at ``live``."""
        return live.shown(Pings.name, PingShown)

    def unrecorded(self, live: LiveTable) -> None:
        """At start-up: the last run wrote down no ping at ``live``'s table. Its first step
        looks in the channel for a ping the last run posted and was stopped before writing
        down."""
        self.of(live).look = True

    # --- events ------------------------------------------------------------------------------

    def changed(self, table: Table) -> None:
        """The table changed: bring its ping up to date (its owner's loop)."""
        self.tables.of(table).saw(table)

    async def remind(self, table: Table, user_id: int, deadline: float) -> None:
        """The clock says the person to act is running out of time: their ping becomes a
        reminder, if that turn is still theirs, theirs to play, and not yet over."""
        turn = table.turn_key()
        if turn is None or table.user_to_act() != user_id or table.covered() or \
                table.ai_to_act() is not None or self.service.clock() >= deadline:
            return
        live = self.tables.of(table)
        self.of(live).reminded = turn
        live.saw(table)

    async def reloaded(self, live: LiveTable, table: Table) -> None:
        """Another process moved ``table`` on (a hand-over): the ping it posted for this
        turn, if its record names one, is the live ping here too (``PingShown.merge``), and
        is not posted again; a ping of this process's that it replaced is written down as
        owed its delete at once."""
        key = record_key(self.name, live.id)
        try:
            record = await self.notes.read_one(key)
        except Exception:
            log.warning("table %s: could not read its turn ping's record", live.id,
                        exc_info=True)
            return
        shown = self.of(live)
        owed = len(shown.owed)
        if record is not None and shown.merge(record, table):
            log.info("table %s: its turn ping %s was posted by another process", live.id,
                     shown.ping.message_id if shown.ping is not None else None)
            if len(shown.owed) > owed:
                live.record(self.name, now=True)

    def want(self, table: Table) -> PingWant | None:
        """What ``table``'s live ping should show now."""
        live = self.tables.get(table.id)
        return self.of(live).want(table) if live is not None else wanted_ping(table, None)

    async def answer(self, table: Table, interaction: Interaction, lang: Lang) -> None:
        """Answer a tap on a turn ping: draw it as the owner wants it now (the answer is one
        way this kind sends), and report what it shows."""
        content, view, want = await self.draw(table, interaction.user.id, lang)
        # A ping still live names its person again, as its edits do (``Spec.edited``).
        mention = only_user(want.user_id) if want is not None else MISSING
        await answer_by_editing(interaction, content=content, view=view,
                                allowed_mentions=mention)
        if interaction.message is not None:
            self.answered(table, interaction.message.id, want)

    async def draw(self, table: Table, user_id: int, lang: Any) -> tuple[
            str, discord.ui.View, PingWant | None]:
        """The ping ``user_id`` tapped, drawn as the owner wants it now (a tap's answer)."""
        want = self.want(table)
        if want is None or want.user_id != user_id:
            content, view = render.ping_message(table, user_id, lang=lang)
            return content, view, None
        return *_drawn(table, want, lang), want

    def answered(self, table: Table, message_id: int, want: PingWant | None) -> None:
        """A tap's answer redrew the ping ``message_id`` as ``want`` (None: "Done.")."""
        live = self.tables.get(table.id)
        if live is None:
            return
        shown = self.of(live)
        if shown.ping is not None and shown.ping.message_id == message_id:
            shown.ping.want = want
        live.saw(table)

    # --- converging ----------------------------------------------------------------------------

    async def converge(self, live: LiveTable, shown: PingShown) -> None:
        """One step towards what the newest snapshot wants: start the deletes owed, then
        post a new ping (deleting the old one), edit it in place, or delete it."""
        if shown.look:
            await self._look(live, shown)
        for message_id in shown.due():
            self._retire(live, shown, message_id)
        table = live.newest
        want = shown.want(table)
        ping = shown.ping
        if want is None:
            if ping is not None:
                shown.ping = None
                self._retire(live, shown, ping.message_id, adopted=ping.adopted)
        elif ping is None or needs_new_ping(ping.want, want):
            message = live.kinds.get(TableMessages.name)
            if live.way.lapses() is not None and isinstance(message, MessageShown) and \
                    message.behind(table):
                # Where the way's reach lapses (a group DM's tokens), the table message is
                # posted afresh when its token grows old: it goes first, so that the ping's
                # link reaches the one posted. Woken once it landed.
                raise Wait()
            if not await self._post(live, shown, table, want):
                return  # its token was refused: through another, at once
            if ping is not None:
                self._retire(live, shown, ping.message_id, adopted=ping.adopted)
        elif ping.want != want and not await self._edit(live, shown, table, ping, want):
            # Someone deleted it, or nothing reaches it any more (its token lapsed): post a
            # fresh one.
            shown.ping = None

    async def _post(self, live: LiveTable, shown: PingShown, table: Table, want: PingWant
                    ) -> bool:
        """Post the ping ``want`` shows; False: the token it went through was refused."""
        content, view = _drawn(table, want, await self.languages.public(table.place))
        try:
            message_id = await live.aside.post(Spec(content, view=view, mention=want.user_id))
        except Refused:
            return False
        except discord.HTTPException as error:
            log.info("table %s: could not post its turn ping (%s %s); the next change tries "
                     "again", table.id, error.status, error.code)
            raise Wait() from None
        old, shown.ping = shown.ping, Ping(message_id, want)
        if old is not None:
            shown.owe(old.message_id)
        # Written down at once, with the old ping owed its delete: a bot killed before its
        # record is written leaves a ping in the channel (the next start looks: ``_look``).
        live.record(self.name, now=True)
        return True

    async def _edit(self, live: LiveTable, shown: PingShown, table: Table, ping: Ping,
                    want: PingWant) -> bool:
        """Edit the ping into ``want``; False: it is gone, or nothing reaches it any more."""
        if not live.aside.reaches(ping.message_id):
            return False
        content, view = _drawn(table, want, await self.languages.public(table.place))
        try:
            await live.aside.edit(ping.message_id, Spec(content, view=view, keep_files=True,
                                                        mention=want.user_id))
        except (Gone, Wait, Refused):
            return False
        except discord.HTTPException:
            # Not the ping's fault: post a fresh one rather than leave stale buttons.
            log.info("table %s: could not edit its turn ping; posting it again", table.id)
            shown.ping = None
            self._retire(live, shown, ping.message_id, adopted=ping.adopted)
            return True
        ping.want = want
        return True

    def _retire(self, live: LiveTable, shown: PingShown, message_id: int, *,
                adopted: bool = False) -> None:
        """Delete a ping that no longer stands for the table, in the background; it is owed
        its delete until Discord confirmed it."""
        shown.owe(message_id)
        if message_id in shown.deleting:
            return
        deleting = live.background(self._delete(live, shown, message_id, adopted=adopted))
        if deleting is not None:
            shown.deleting.add(message_id)
            self._deleting.keep(deleting)

    async def _delete(self, live: LiveTable, shown: PingShown, message_id: int, *,
                      adopted: bool = False) -> None:
        """Delete an old ping; once it is gone it is owed nothing. If the bot stops first,
        the next start deletes it. A live ping this run ``adopted`` from another's record (a
        start beside the process it takes over from) is deleted only while that record
        still names it: the other process deletes what it posted and forgets it, and a
        second delete of a message that is gone counts against the bot's invalid
        requests."""
        key = record_key(self.name, live.id)
        try:
            if adopted and not self.notes.pending(key) and \
                    not await self._still_written(key, message_id):
                shown.deleted(message_id)
                return
            try:
                await live.aside.delete(message_id)
            except discord.HTTPException:
                log.info("table %s: could not delete turn ping %s; the next start tries "
                         "again", live.id, message_id)
                shown.refused.add(message_id)
                return
            shown.deleted(message_id)
        finally:
            shown.deleting.discard(message_id)
            live.record(self.name)

    async def _still_written(self, key: str, message_id: int) -> bool:
        """Whether the record ``key`` still names ``message_id`` (True if it can't be
        read)."""
        try:
            text = await self.notes.read_one(key)
        except Exception:
            return True
        record = None if text is None else PingsRecord.load(text)
        return record is not None and message_id in record.messages()

    async def close(self) -> None:
        """Let the pings being deleted go first (one cancelled after Discord deleted it
        would stay written down, and the next start would delete it a second time), then
        stop."""
        await self._deleting.wait(PING_GRACE)
        await self._chores.cancel()

    # --- turn pings across a restart -------------------------------------------------------

    async def _look(self, live: LiveTable, shown: PingShown) -> None:
        """Once after a restart, one look at the channel's newest messages from before this
        run (where they can be read): the pings written down that are gone already are owed
        nothing (Discord counts a delete of a message that is gone as an invalid request; a
        run stopped hard between a delete and writing it down leaves one), and the table's
        pings nobody wrote down (a run stopped hard between posting one and writing it
        down) are owed their deletes."""
        shown.look = False
        table = live.newest
        history = await live.way.history(HISTORY_MAX, before=self._started)
        if history is None:  # the place can't be read
            return
        seen = {int(message["id"]) for message in history}
        # A full page reaches back only so far: before its oldest message, nothing is known.
        oldest = min(seen) if len(history) == HISTORY_MAX else None
        known = shown.held().messages()
        for message_id in known - seen:
            if oldest is None or message_id >= oldest:
                if shown.ping is not None and shown.ping.message_id == message_id:
                    shown.ping = None  # someone deleted it: a fresh one is posted
                shown.deleted(message_id)
        for message_id in self._pings_in(history, table) - known:
            log.info("table %s: deleting turn ping %s nobody wrote down", table.id,
                     message_id)
            shown.owe(message_id)

    def _pings_in(self, history: list[dict[str, Any]], table: Table) -> set[int]:
        """The table's turn pings among ``history``: the bot's messages whose text mentions
        someone and that carry the table's buttons, other than the table message. (Not by
        their ``mentions``: a ping edited without naming its person again, as this bot did
        before, no longer lists them there.)"""
        prefix = (f"nlk:{table.id}:", f"nlks:{table.id}:")
        me = self.client.user.id if self.client.user else None
        found = set()
        for message in history:
            message_id = int(message["id"])
            rows: list[Any] = list(message.get("components", []))
            ids = [str(item.get("custom_id", "")) for row in rows
                   for item in row.get("components", [])]
            if int(message["author"]["id"]) == me and message_id != table.message_id and \
                    MENTION.search(message.get("content") or "") and \
                    any(i.startswith(prefix) for i in ids):
                found.add(message_id)
        return found

    async def read_legacy(self, records: dict[int, dict[str, str]]) -> None:
        """The records of the format before (``ping:<table>:<message>``, one per ping not
        yet deleted), of this process's tables, read once into ``records`` (by table, then
        kind) and written again as each table's one record: the newest ping of a table is
        its live ping, as its record shows it, and the others are owed their deletes.
        Another process's are its own business."""
        try:
            left = await self.notes.read(LEGACY)
            tables = {key: _table_of(key) for key in left}
            owned = await self.service.owned(t for t in tables.values() if t is not None)
        except Exception:
            log.warning("could not read the turn pings left by the last run", exc_info=True)
            return
        by_table: dict[int, list[tuple[int, PingRecord]]] = {}
        for key, value in left.items():
            table_id = tables[key]
            if table_id is not None and table_id not in owned:
                continue
            self.notes.note(key, None)
            try:
                message_id = int(key.rpartition(":")[2])
                record = PingRecord.load(value)
            except ValueError:  # not written by this bot: forgotten
                continue
            if table_id is not None:
                by_table.setdefault(table_id, []).append((message_id, record))
        for table_id, pings in by_table.items():
            pings.sort(key=lambda ping: ping[0])
            newest, record = pings[-1]
            older = tuple(message_id for message_id, _record in pings[:-1])
            written = records.setdefault(table_id, {}).get(self.name)
            now = None if written is None else PingsRecord.load(written)
            if now is None:
                now = PingsRecord(record.channel_id, Ping(newest, record.shows()), older)
            else:  # (both formats: the new one's live ping stays, the old ones go)
                now = dataclasses.replace(now, owed=now.owed + older + (newest,))
            records[table_id][self.name] = text = now.dump()
            self.notes.note(record_key(self.name, table_id), text, now=True)

    def left_behind(self, table_id: int, record: str) -> None:
        """A closed table that can't be read any more wrote down pings to delete: they go
        through its channel once connected (``delete_left``), and then its record."""
        loaded = PingsRecord.load(record)
        if loaded is None:
            self.notes.note(record_key(self.name, table_id), None)
        else:
            self._left.append((table_id, loaded))

    def delete_left(self) -> None:
        """Once connected: delete the pings of the tables ``left_behind``."""
        left, self._left = self._left, []
        for table_id, record in left:
            self._deleting.keep(self._chores.start(self._delete_all(table_id, record)))

    async def _delete_all(self, table_id: int, record: PingsRecord) -> None:
        way = ChannelWay(self.client, self.pacer, self.posts, record.channel_id, None)
        for message_id in sorted(record.messages()):
            try:
                await way.delete(message_id)
            except discord.HTTPException:
                log.info("table %s: could not delete turn ping %s; the next start tries "
                         "again", table_id, message_id)
                return
        self.notes.note(record_key(self.name, table_id), None)


def _table_of(ping_key: str) -> int | None:
    """The table of a ``ping:<table>:<message>`` key (None: not one of the bot's)."""
    table, _, _message = ping_key[len(LEGACY):].partition(":")
    return int(table) if table.isdigit() else None
