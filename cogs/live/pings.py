"""Turn pings and the end of a hand: at most one live ping per table, for the person to act.

The ping converges: what the table's live ping shows (``Ping.want``: the person, the turn,
the version its buttons were drawn at, the deadline, whether it is a reminder) is compared
with what the newest snapshot wants (``wanted_ping``). A new person's turn, or a reminder,
posts a new ping (a mention must notify) and deletes the old one; a change within the same
turn (the player moved from the table message, a restart renewed the clock) edits it in
place; no person to act (an AI, a stand-in, the end of the hand) deletes it. A new turn's
ping waits until the turn has lasted ``PING_AFTER`` seconds: someone playing along has moved
by then, and a ping deleted a moment after it notified them is noise (a mention that buzzed
their phone and is gone when they look) and two requests of the channel's budget. The ping is a
kind of message of the table's ``LiveTable`` (``PingShown``): one loop per table brings it up
to date, so two changes never race to post. It is sent through the table's ``borrowing`` way
(``LiveTable.aside``): in a server as a follow-up of the newest tap while its token is fresh,
in a group DM through the tokens, as every message there. Pings are written down until
deleted, so a restart deletes those whose turn is over.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
from dataclasses import dataclass
from typing import Any

import discord

from bot.tables.service import Table, TableService
from bot.tasks import Tasks
from cogs import render
from cogs.client import Interaction
from cogs.i18n.translator import Languages
from cogs.live.owner import LiveTable, LiveTables
from cogs.live.records import Notes
from cogs.live.table_message import MessageShown, TableMessages
from cogs.live.ways import ChannelWay, Gone, Refused, Spec, Wait, Way
from cogs.transport.pacer import Kind, Pacer
from cogs.transport.posts import ChannelPosts
from cogs.widgets.buttons import Buttons
from rules import Phase
from rules.i18n import Lang

log = logging.getLogger(__name__)

PING = "ping:"  # bot_state key prefix of a turn ping not yet deleted: ping:<table>:<message>
PING_GRACE = 2.0  # at shutdown, pings being deleted get this long to go
HISTORY_MAX = 100  # the most messages Discord returns for one history request
# A new turn's player is pinged once their turn has lasted this many seconds (a reminder,
# and a ping already posted for the turn, never wait).
PING_AFTER = 3.0


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
    """A table's one live ping (None: none), and the turn the clock reminded its person
    of."""

    def __init__(self, driver: Pings, live: LiveTable) -> None:
        self.driver = driver
        self.live = live
        self.ping: Ping | None = None
        self.reminded: tuple[int, int] | None = None

    def want(self, table: Table) -> PingWant | None:
        """What the ping should show for ``table`` (None: none, or not yet)."""
        want = self._wanted(table)
        return None if self.early(table, want) > 0 else want

    def _wanted(self, table: Table) -> PingWant | None:
        """What the ping shows once it is due: its link points to the table message the
        owner knows is there (a snapshot taken before ``/nlk table`` names the old)."""
        message = self.live.kinds.get(TableMessages.name)
        link = message.message_id if isinstance(message, MessageShown) else None
        # Until when the table's way can show a stand-in's move, on the table's clock.
        lapses = self.live.way.lapses()
        reach = None if lapses is None else \
            self.driver.service.clock() + lapses - self.live.clock()
        return wanted_ping(table, self.reminded, link or table.message_id, reach,
                           TableMessages.quiet(self.live))

    def early(self, table: Table, want: PingWant | None) -> float:
        """How many seconds ``want`` waits before it is posted as a new ping (0: none): a
        new turn's until it has lasted ``PING_AFTER``; a reminder, and a ping that stands
        for the turn already (edited, never posted again), wait for nothing."""
        if want is None or want.reminder or \
                (self.ping is not None and not needs_new_ping(self.ping.want, want)):
            return 0.0
        return max(0.0, table.turn_started + PING_AFTER - self.driver.service.clock())

    def behind(self, table: Table) -> bool:
        """A ping that shows nothing wanted ("Your turn is over.", or not known) still
        mentions its person: it is behind even where no ping is wanted, and goes. A ping
        not yet due is not behind: the owner is woken when it is."""
        want = self._wanted(table)
        early = self.early(table, want)
        if early > 0:
            self.live.alarm(early, Pings.name)
            want = None
        if self.ping is None:
            return want is not None
        return want is None or self.ping.want != want

    async def step(self, live: LiveTable) -> None:
        await self.driver.converge(live, self)

    def holds(self) -> bool:
        return self.ping is not None

    def give_up(self) -> None:
        """A closed table's ping could not be deleted: the next start deletes it."""
        self.ping = None

    def dump(self) -> str | None:
        return None  # kept in records of its own (see the module's docstring)

    def restore(self, record: str) -> None:
        """(Nothing: it reads its own records at start-up.)"""


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
    """A posted ping, written down: the turn it was posted for and what it showed."""

    channel_id: int
    hand: int
    version: int  # the game's version then (-1: no game)
    user_id: int | None  # the person pinged
    turn: int | None = None  # the version the turn began at (None: an older record)
    deadline: float | None = None
    reminder: bool = False
    shed: bool = False
    link: int | None = None  # the table message its link pointed to (None: not known)

    def dump(self) -> str:
        return json.dumps({"channel": self.channel_id, "hand": self.hand,
                           "version": self.version, "user": self.user_id, "turn": self.turn,
                           "deadline": self.deadline, "reminder": self.reminder,
                           "shed": self.shed, "link": self.link})

    @classmethod
    def of(cls, channel_id: int, want: PingWant) -> PingRecord:
        return cls(channel_id, want.hand, want.version, want.user_id, want.turn,
                   want.deadline, want.reminder, want.shed, want.link)

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

    def shown(self, table: Table) -> PingWant | None:
        """What this ping shows of ``table``'s current turn (None: another turn). A record
        from before deadlines were written down shows an unknown one (NaN: never equal)."""
        turn = table.turn_key()
        if turn is None or self.user_id is None or not _turn_goes_on(table, self):
            return None
        deadline = self.deadline if self.turn is not None else math.nan
        return PingWant(self.user_id, turn[0], turn[1], self.version, deadline, self.reminder,
                        self.shed, self.link)


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
        # Pings posted and not yet deleted are written down (key → value, None to forget),
        # so that a restart deletes those whose turn is over.
        self.notes = notes
        self._deleting = Tasks()  # given a grace at shutdown
        self._chores = Tasks()  # deleting what the last run left
        # Messages older than this were posted by an earlier run (Discord's ids grow with
        # time): pings this run posts, even before it resumes its tables, are younger.
        self._started = discord.utils.time_snowflake(discord.utils.utcnow())
        # Loaded at start-up, cleaned up once connected: the pings the last run left whose
        # turn is over (table id, message id, channel id), and the tables whose ping it kept.
        self._stale: list[tuple[int, int, int]] = []
        self._found: set[int] = set()

    def tracked(self) -> int:
        return len(self._chores)

    def shown_for(self, live: LiveTable) -> PingShown:
        return PingShown(self, live)

    @staticmethod
    def of(live: LiveTable) -> PingShown:
        """The turn ping's ``Shown`` at ``live``."""
        return live.shown(Pings.name, PingShown)

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

    def want(self, table: Table) -> PingWant | None:
        """What ``table``'s live ping should show now."""
        live = self.tables.get(table.id)
        return self.of(live).want(table) if live is not None else wanted_ping(table, None)

    async def answer(self, table: Table, interaction: Interaction, lang: Lang) -> None:
        """Answer a tap on a turn ping: draw it as the owner wants it now (the answer is one
        way this kind sends), and report what it shows."""
        content, view, want = await self.draw(table, interaction.user.id, lang)
        await interaction.response.edit_message(content=content, view=view)
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
        """One step towards what the newest snapshot wants: post a new ping (deleting the
        old one), edit it in place, or delete it."""
        table = live.newest
        want = shown.want(table)
        ping = shown.ping
        if want is None:
            assert ping is not None
            shown.ping = None
            self._retire(live, table, ping)
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
                self._retire(live, table, ping)
        elif not await self._edit(live, shown, table, ping, want):
            # Someone deleted it, or nothing reaches it any more (its token lapsed): post a
            # fresh one.
            shown.ping = None
            self._note(table.id, ping.message_id, None)

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
        shown.ping = Ping(message_id, want)
        # Written down in the next batch (with the old ping's deletion, one transaction); a
        # bot killed first finds it in the channel at its next start (``_sweep``).
        self._note(table.id, message_id, PingRecord.of(table.channel_id, want).dump())
        return True

    async def _edit(self, live: LiveTable, shown: PingShown, table: Table, ping: Ping,
                    want: PingWant) -> bool:
        """Edit the ping into ``want``; False: it is gone, or nothing reaches it any more."""
        if not live.aside.reaches(ping.message_id):
            return False
        content, view = _drawn(table, want, await self.languages.public(table.place))
        try:
            await live.aside.edit(ping.message_id, Spec(content, view=view, keep_files=True))
        except (Gone, Wait, Refused):
            return False
        except discord.HTTPException:
            # Not the ping's fault: post a fresh one rather than leave stale buttons.
            log.info("table %s: could not edit its turn ping; posting it again", table.id)
            shown.ping = None
            self._retire(live, table, ping)
            return True
        ping.want = want
        self._note(table.id, ping.message_id, PingRecord.of(table.channel_id, want).dump())
        return True

    def _retire(self, live: LiveTable, table: Table, ping: Ping) -> None:
        """Delete an old ping in the background (it no longer stands for the table)."""
        deleting = live.background(self._delete(live.aside, ping.message_id, table.id,
                                                adopted=ping.adopted))
        if deleting is not None:
            self._deleting.keep(deleting)

    async def _delete(self, way: Way, message_id: int, table_id: int, *,
                      adopted: bool = False) -> None:
        """Delete an old ping; once it is gone it is forgotten. If the bot stops first, the
        next start deletes it. A live ping this run ``adopted`` from another's record (a
        start beside the process it takes over from) is deleted only while its record is
        still there: the other process deletes what it posted and forgets it, and a second
        delete of a message that is gone counts against the bot's invalid requests."""
        key = f"{PING}{table_id}:{message_id}"
        if adopted and not self.notes.pending(key):
            try:
                still = key in await self.notes.read(key)
            except Exception:
                still = True
            if not still:
                return
        try:
            await way.delete(message_id)
        except discord.HTTPException:
            log.info("could not delete turn ping %s; the next start tries again", message_id)
            return
        self._note(table_id, message_id, None)

    async def close(self) -> None:
        """Let the pings being deleted go first (one cancelled after Discord deleted it
        would stay written down, and the next start would delete it a second time), then
        stop and write down the pings still live."""
        await self._deleting.wait(PING_GRACE)
        await self._chores.cancel()

    # --- turn pings across a restart -------------------------------------------------------

    def _note(self, table_id: int, message_id: int, value: str | None) -> None:
        """Write down a posted ping, or forget a deleted one (None), in the background and
        in order."""
        # At once: a ping posted and not written down is left in the channel by a kill.
        self.notes.note(f"{PING}{table_id}:{message_id}", value, now=True)

    async def read_left(self) -> dict[str, str]:
        """The pings the last run wrote down and did not delete, in this process's servers
        (another process's pings are its own business)."""
        try:
            remembered = await self.notes.read(PING)
            tables = {key: _table_of(key) for key in remembered}
            owned = await self.service.owned(t for t in tables.values() if t is not None)
        except Exception:
            log.warning("could not read the turn pings left by the last run", exc_info=True)
            return {}
        return {key: value for key, value in remembered.items()
                if tables[key] is None or tables[key] in owned}

    def load(self, tables: list[Table], remembered: dict[str, str]) -> None:
        """Before anything moves after a restart: a ping posted for a turn still being
        played is the table's live ping again; the others are to be deleted (``clean``)."""
        open_tables = {table.id: table for table in tables}
        live: dict[int, tuple[int, PingRecord]] = {}  # table id → (message id, record)
        stale: list[tuple[int, int, int]] = []  # (table id, message id, channel id)
        for key, value in remembered.items():
            try:
                table_id, message_id = (int(x) for x in key[len(PING):].split(":"))
                record = PingRecord.load(value)
            except ValueError:  # not written by this bot: forget it
                self.notes.note(key, None)
                continue
            table = open_tables.get(table_id)
            owner = self.tables.get(table_id)
            current = table is not None and \
                (owner is None or self.of(owner).ping is None) and \
                _turn_goes_on(table, record)
            if current and (table_id not in live or message_id > live[table_id][0]):
                if table_id in live:
                    stale.append((table_id, live[table_id][0], live[table_id][1].channel_id))
                live[table_id] = (message_id, record)
            else:
                stale.append((table_id, message_id, record.channel_id))
        for table_id, (message_id, record) in live.items():
            table = open_tables[table_id]
            # Posted by the last run: no token to edit it through, and what it shows is
            # what was written down (its deadline is renewed: the clock restarted).
            self.of(self.tables.of(table)).ping = Ping(message_id, record.shown(table),
                                                       adopted=True)
        self._stale, self._found = stale, set(live)

    def clean(self, tables: list[Table]) -> None:
        """Once connected: delete the pings the last run left whose turn is over (paced),
        and look for pings it posted and never wrote down."""
        stale, self._stale = self._stale, []
        by_channel: dict[int, list[tuple[int, int]]] = {}
        for table_id, message_id, channel_id in stale:
            by_channel.setdefault(channel_id, []).append((table_id, message_id))
        for channel_id, left in by_channel.items():
            self._chores.start(self._delete_left(channel_id, left))
        # A run killed between posting a ping and writing it down left a ping nobody knows
        # of: where a ping is wanted and none was written down, look for one.
        known = {message_id for _table_id, message_id, _channel_id in stale}
        for table in tables:
            if table.id not in self._found and wanted_ping(table, None) is not None and \
                    self._can_read_history(table.channel_id):
                self._chores.start(self._sweep(table, self._started, known))

    async def _sweep(self, table: Table, before: int, known: set[int]) -> None:
        """Delete the table's turn pings posted before ``before`` (a snowflake) that nobody
        wrote down (``known``: those written down, deleted apart): the bot's messages that
        mention someone and carry the table's buttons, other than the table message."""
        prefix = (f"nlk:{table.id}:", f"nlks:{table.id}:")
        try:
            async with self.pacer.use(table.channel_id, Kind.READ):
                history = await self.client.http.logs_from(table.channel_id, HISTORY_MAX,
                                                           before=before)
        except discord.HTTPException:
            log.info("table %s: could not look for turn pings left behind", table.id)
            return
        me = self.client.user.id if self.client.user else None
        for message in history:
            message_id = int(message["id"])
            rows: list[Any] = list(message.get("components", []))
            ids = [str(item.get("custom_id", "")) for row in rows
                   for item in row.get("components", [])]
            if int(message["author"]["id"]) != me or message_id == table.message_id or \
                    message_id in known or not message.get("mentions") or \
                    not any(i.startswith(prefix) for i in ids):
                continue
            log.info("table %s: deleting turn ping %s nobody wrote down", table.id,
                     message_id)
            await self._delete(self._way(table.id, table.channel_id), message_id, table.id)

    async def _delete_left(self, channel_id: int, left: list[tuple[int, int]]) -> None:
        """Delete the pings (table id, message id) the last run left in a channel. A run
        stopped hard may have deleted some without writing it down: one look at the
        channel's history spares a delete of each of those (Discord counts a request for
        a message that is gone as invalid). Without Read Message History, delete them all."""
        first = min(message_id for _table_id, message_id in left)
        gone: set[int] = set()
        if self._can_read_history(channel_id):
            try:
                async with self.pacer.use(channel_id, Kind.READ):
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
        deletes = []
        for table_id, message_id in left:
            if message_id not in gone:
                log.info("table %s: deleting turn ping %s left by the last run", table_id,
                         message_id)
                deletes.append(self._delete(self._way(table_id, channel_id), message_id,
                                            table_id))
            else:
                self._note(table_id, message_id, None)
        for work in deletes:
            self._deleting.keep(self._chores.start(work))

    def _way(self, table_id: int, channel_id: int) -> Way:
        """How to reach a ping the last run left: through its table's owner (a group DM's
        reaches none: their tokens went with that run), or in the channel of a table that
        has closed since."""
        live = self.tables.get(table_id)
        if live is not None:
            return live.aside
        return ChannelWay(self.client, self.pacer, self.posts, channel_id, None)

    def _can_read_history(self, channel_id: int) -> bool:
        channel = self.client.get_channel(channel_id)
        if not isinstance(channel, discord.abc.GuildChannel):
            return False
        return channel.permissions_for(channel.guild.me).read_message_history


def _table_of(ping_key: str) -> int | None:
    """The table of a ``ping:<table>:<message>`` key (None: not one of the bot's)."""
    table, _, _message = ping_key[len(PING):].partition(":")
    return int(table) if table.isdigit() else None


def _turn_goes_on(table: Table, record: PingRecord) -> bool:
    """Whether the turn a ping was posted for (the hand, the game's version then, the user
    pinged) is still being played: the same person is to act and only they moved since."""
    game = table.game
    if game is None or table.hand_number != record.hand or \
            table.user_to_act() != record.user_id or not 0 <= record.version <= game.version:
        return False
    return all(seat == game.to_act for seat, _action in game.actions[record.version:])
