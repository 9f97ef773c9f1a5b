"""The one way out: every change reaches Discord through ``Publisher.publish``.

A handler hands over the service's ``Change`` and the interaction that caused it (None for
the clocks); the publisher does what follows, in this order:

1. the answer, through the kind of message the interaction is on: an unanswered tap edits
   the message it was on (the table message, the player's own hand, or a turn ping), and an
   unanswered command posts the table message; each kind reports what its answer drew;
2. the change goes to the table's owner once (``LiveTable.saw``): every kind of message
   (the table message, the open hands, the turn ping, the end-of-hand notice) catches up from
   there in its own loop;
3. the table's clock is woken (AI moves, reminders, stand-ins).

The kinds are registered here, one line each.

It also makes the tables' clocks, as their ``Notifier`` (what they tell it only wakes the
tables' owners), and owns the registry of live tables.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import discord

from bot.tables.clocks import Clocks, Notifier
from bot.tables.service import Change, Foresee, Table, TableService
from bot.tasks import Scope
from cogs.client import Interaction
from cogs.i18n.translator import Languages, lang_of
from cogs.live import kinds
from cogs.live.notices import Notices
from cogs.live.open_hands import OpenHands
from cogs.live.owner import LiveTable, LiveTables, record_key, token_way
from cogs.live.pings import Pings
from cogs.live.records import Notes
from cogs.live.table_message import TableMessages
from cogs.live.ways import ChannelWay, Way
from cogs.pictures import Pictures
from cogs.transport.pacer import EDITS_PER_WINDOW, GLOBAL_PER_SECOND, Pacer
from cogs.transport.posts import ChannelPosts

log = logging.getLogger(__name__)


TABLE_MESSAGE, OWN_HAND, PING = "table message", "own hand", "ping"


def answered_by(table: Table, message: discord.Message | None, keeps_copies: bool) -> str:
    """Which kind of message answers a tap on ``message``: the player's own hand (a private
    message), the table message (also before its id is stored, if a tap beat ``/nlk new``'s
    answer, and any copy of it where older copies stay: ``keeps_copies``, a group DM's), or
    else a turn ping (which keeps the controls while the turn lasts)."""
    if message is not None and message.flags.ephemeral:
        return OWN_HAND
    if message is None or table.message_id in (None, message.id) or \
            (keeps_copies and bool(message.embeds)):
        return TABLE_MESSAGE
    return PING


class Publisher:
    """Decides and makes every follow-up of a change; holds every live table's owner."""

    def __init__(self, client: discord.Client, service: TableService,
                 clocks: Callable[[Notifier], Clocks], languages: Languages, notes: Notes, *,
                 edits_per_window: int = EDITS_PER_WINDOW,
                 rest_share: float = 1.0, picture_processes: int = 0) -> None:
        self.service = service
        # The tables' clocks, made telling this publisher what they do (it wakes the
        # tables' owners), and woken by it after each change.
        self.clocks = clocks(self)
        self.languages = languages
        # Discord's global budget is the bot's, across all its processes: each takes the
        # part of it that its shards are of the bot.
        self.pacer = Pacer(edits_per_window, max(1, int(GLOBAL_PER_SECOND * rest_share)))
        self.posts = ChannelPosts(client, self.pacer)
        self.client = client
        self.tables = LiveTables(released=self._released, ways=self._way, notes=notes)
        # Card pictures (the servers' and players' styles come from the languages' store),
        # drawn in ``picture_processes`` processes of their own (none: in a thread).
        self.pictures = Pictures(languages.servers, processes=picture_processes)
        self.notes = notes  # what the messages show, written down
        # The kinds of message every live table has, each brought up to the newest snapshot
        # by its owner's loop: one line each.
        self.messages = self.tables.register(TableMessages(
            client, service, languages, self.pacer, self.posts, self.tables, self.pictures,
            notes))
        self.hands = self.tables.register(OpenHands(client, self.tables, notes, self.pictures))
        self.pings = self.tables.register(Pings(client, service, languages, self.pacer,
                                                self.posts, self.tables, notes))
        self.notices = self.tables.register(Notices(languages, notes, self.pictures,
                                                    languages.servers))
        # Kinds that other modules added (``cogs/live/kinds.py``).
        for kind in kinds.made(kinds.Parts(client, service, languages, self.pictures)):
            self.tables.register(kind)

    def _way(self, live: LiveTable) -> Way:
        """How a table's messages reach Discord: its channel in a server (paced), the
        tokens of the taps answered there in a group DM or a DM."""
        table = live.newest
        if table.private:
            return token_way(live)
        return ChannelWay(self.client, self.pacer, self.posts, table.channel_id,
                          table.guild_id)

    def held(self) -> int:
        """Tables, channels and chores the bot holds state for besides the pacer's
        time-based windows: zero once every table is closed and its last work done."""
        return len(self.tables) + self.posts.tracked() + self.pings.tracked()

    async def publish(self, change: Change, interaction: Interaction | None = None,
                      *, retire_old: bool = True) -> None:
        """Show ``change`` everywhere it shows, and do what it calls for next.

        An unanswered command's answer is the table message, posted afresh (``retire_old``:
        the previous table message is deleted)."""
        table = change.table
        live = self.tables.of(table)  # keeps ``table`` if it is the newest snapshot seen
        if interaction is not None and not interaction.response.is_done():
            if interaction.type is discord.InteractionType.component:
                await self._answer_tap(live, interaction)
            else:
                await self._post_table(live, interaction, retire_old=retire_old)
        if interaction is not None and table.is_open:
            live.heard(interaction)
        live.saw(table)  # every kind of message catches up from here
        self.clocks.poke(table)

    def foresee(self, interaction: Interaction, *, urgent: bool = True) -> Foresee:
        """What to start before a tap's change is written (``TableService.act``,
        ``start``, ``next_hand``): the picture its answer will carry, when the tap is on
        the player's own hand or on the table message. The write and the drawing then
        overlap, and the answer waits for the longer of the two, not for both; nothing is
        shown before the write. Never raises: a picture not foreseen is drawn for the
        answer as before. Not ``urgent``: the picture is for a later answer (a deal made
        ahead, ``TableService.deal_ahead``), drawn in the background's line: it never holds
        up another answer's picture, and that answer hurries it if it is not drawn yet."""
        def start(table: Table) -> None:
            message = interaction.message
            if message is None:
                return
            try:
                live = self.tables.get(table.id)
                kind = answered_by(table, message, live is not None and live.way.keeps_copies())
                if kind == OWN_HAND:
                    self.hands.foresee(table, interaction, letters=lang_of(interaction))
                elif kind == TABLE_MESSAGE and live is not None:
                    later = self.messages.foresee(table, interaction, urgent=urgent)
                    if later is not None:
                        live.background(later)
            except Exception:
                log.warning("table %s: could not start drawing an answer's picture early",
                            table.id, exc_info=True)
        return start

    async def _answer_tap(self, live: LiveTable, interaction: Interaction) -> None:
        """The tap is answered by the kind of message it is on (``answered_by``), drawing
        the owner's newest snapshot into the message tapped."""
        table = live.newest
        kind = answered_by(table, interaction.message, live.way.keeps_copies())
        try:
            if kind == TABLE_MESSAGE:
                await self.messages.of(live).reply(live, interaction)
            elif kind == OWN_HAND:  # a private message: the reader's own card letters
                await self.hands.answer(interaction, live.newest,
                                        letters=lang_of(interaction))
            else:
                lang = await self.languages.public(table.place, interaction)
                await self.pings.answer(live.newest, interaction, lang)
        except discord.HTTPException as error:
            # The move stands, but Discord refused its answer: during a hand-over another
            # process answered this click first, with its refusal ("That button is out of
            # date": it found the table moved on), which draws nothing of the table. The
            # owner's loop edits the message instead: nothing else shows the move for sure.
            log.info("table %s: the answer to a move was refused (%s); editing instead",
                     table.id, error)

    async def refresh(self, table: Table, interaction: Interaction) -> None:
        """Bring the table message tapped up to date in place (in a group DM: that copy
        becomes the table message), changing nothing at the table: a change of nothing,
        published as any other."""
        await self.publish(Change(table, None, None), interaction)

    async def _post_table(self, live: LiveTable, interaction: Interaction, *,
                          retire_old: bool) -> None:
        """Post the table message as the answer to a command, and bring it up to date if
        the table changed meanwhile."""
        lang = await self.languages.public(live.newest.place, interaction)
        current = await self.messages.post_answer(live.newest, interaction, lang,
                                                  retire_old=retire_old)
        live.saw(current)

    # --- the clocks' notifier --------------------------------------------------------------

    async def table_changed(self, change: Change) -> None:
        """A change made without an interaction (an AI move, a stand-in, the idle sweep, a
        table another process changed): its owner is woken with it (the clocks woke
        themselves)."""
        self.tables.of(change.table).saw(change.table)

    async def table_reloaded(self, change: Change) -> None:
        """A table another process moved on, loaded again from the database (a hand-over:
        both processes got the click, and the other played it): its owner first takes the
        turn ping that process posted for this turn, if its record names one, so that the
        person to act is not pinged twice; then it is woken. That process is posting and
        editing in the table's channel too, in the budget Discord counts for the bot, and
        this one can't see its requests: the channel's budget counts as used from now, for
        one window (as at a start), so that the edit this change brings waits, not earns a
        429."""
        if not change.table.private:
            self.pacer.spend({change.table.channel_id})
        live = self.tables.of(change.table)
        await self.pings.reloaded(live, change.table)
        live.saw(change.table)

    async def remind(self, table: Table, user_id: int, deadline: float) -> None:
        await self.pings.remind(table, user_id, deadline)

    def reaches(self, table: Table) -> bool:
        """Whether players can be shown a change at ``table`` now: in a group DM or a DM,
        only while the token of someone's tap is alive (otherwise a move waits for the
        next tap)."""
        if not table.private:
            return True
        live = self.tables.get(table.id)
        return live is not None and live.reachable()

    def touched(self, table: Table, interaction: Interaction) -> None:
        """Someone tapped at a group DM's table, whatever came of it: its token can bring
        every message up to date, and a turn that ran out meanwhile is played now."""
        if not table.private or self.tables.stopped:
            return
        live = self.tables.of(table)
        live.heard(interaction)
        live.wake()
        self.clocks.poke(table)

    # --- letting go ----------------------------------------------------------------------

    def _released(self, live: LiveTable) -> None:
        """A closed table's owner was let go: forget its channel's refusals too."""
        self.posts.forget(live.channel_id)
        self.pacer.prune()

    # --- start and stop --------------------------------------------------------------------

    async def load(self, tables: list[Table]) -> None:
        """At start-up, before the clocks run: the owners hold what the last run wrote
        down that Discord shows (the table messages, the live pings and the pings still to
        delete, the open hands and their tokens). A table closed since that still owes a
        ping its delete gets an owner too, which lets go once it is done."""
        records = await self.tables.read_records()
        for kind in (self.messages, self.notices, self.hands):  # the formats before, once
            for table_id, legacy in (await kind.read_legacy()).items():
                records.setdefault(table_id, {}).setdefault(kind.name, legacy)
        await self.pings.read_legacy(records)
        for table in tables:
            left = records.pop(table.id, {})
            live = self.tables.of(table)
            live.restore(left)
            if self.pings.name not in left:
                self.pings.unrecorded(live)
        try:  # a table open anywhere keeps its records: another process may own it
            open_anywhere = set(await self.service.active_times())
        except Exception:
            log.warning("could not read which tables are open", exc_info=True)
            open_anywhere = set(records)
        await self._load_closed({table_id: left for table_id, left in records.items()
                                 if table_id not in open_anywhere and
                                 self.pings.name in left}, records)
        for table_id, left in records.items():
            for name in left if table_id not in open_anywhere else ():
                self.notes.note(record_key(name, table_id), None)

    async def _load_closed(self, owing: dict[int, dict[str, str]],
                           records: dict[int, dict[str, str]]) -> None:
        """The tables closed since the last run whose pings are still to delete, of this
        process's servers (taken out of ``records``): each gets an owner that restores what
        it wrote down, woken once connected; a table that can't be read any more has its
        pings deleted through its channel."""
        if not owing:
            return
        try:
            mine = await self.service.owned(owing)
        except Exception:
            log.warning("could not read whose the closed tables are", exc_info=True)
            mine = set()
        for table_id, left in owing.items():
            del records[table_id]  # (another process's are its own business)
            if table_id not in mine:
                continue
            try:
                table = await self.service.get(table_id)
            except Exception:
                log.info("table %s can't be read: its turn pings go through its channel",
                         table_id)
                self.pings.left_behind(table_id, left[self.pings.name])
                continue
            self.tables.of(table).restore(left)

    async def resume(self, tables: list[Table]) -> None:
        """Once connected: every owner converges from what it holds (the table messages
        out of date are redrawn, and only those; the pings whose turn is over go), the
        owners of tables closed since included."""
        self.pacer.spend({table.channel_id for table in tables})
        if tables:
            tables = await self.messages.current(tables)
        self.pings.delete_left()
        for live in self.tables:
            if not live.newest.is_open:
                live.wake()
        await self.messages.resume(tables)

    def live_in(self, lifetime: Scope) -> None:
        """Run every table's owner in ``lifetime`` (the bot's): they stop, with all they run,
        when it ends. The pings being deleted get a moment first (``Pings.close``: one
        cancelled after Discord deleted it would stay written down, and the next start would
        delete it a second time)."""
        self.tables.scope.within(lifetime, grace=self.pings.close)

    async def close(self) -> None:
        """Once every table's work has stopped (the bot's lifetime is over): write down what
        the messages show, so the next start redraws and deletes only what it must, stop
        the drawing processes; then let the last second's requests pass (``let_pass``)."""
        await self.notes.close()
        self.pictures.close()
        await self.pacer.let_pass()
