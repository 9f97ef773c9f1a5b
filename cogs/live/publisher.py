"""The one way out: every change reaches Discord through ``Publisher.publish``.

A handler hands over the service's ``Change`` and the interaction that caused it (None for
the clocks); the publisher decides everything that follows, in this order:

1. the answer: an unanswered tap edits the message it was on (the table message, the
   player's own hand, or a turn ping), and an unanswered command posts the table message;
   otherwise, or for a message the answer did not draw, a paced edit of the table message;
2. the open hands are redrawn;
3. the table's clock is woken (AI moves, reminders, stand-ins);
4. the next player is pinged, or the end of the hand announced, or the ping cleared.

Steps 2 and 4, and the paced edit of step 1, are the owner's: the publisher reports the
change to the table's ``LiveTable`` once (``saw``), and each kind of message catches up from
there. The kinds are registered here, one line each.

It also implements the clocks' ``Notifier``, and owns the registry of live tables.
"""

from __future__ import annotations

import logging

import discord

from bot.tables.clocks import Clocks
from bot.tables.service import Change, Table, TableService
from cogs.client import Interaction
from cogs.i18n.translator import Languages
from cogs.live.notices import Notices
from cogs.live.open_hands import OpenHands
from cogs.live.owner import LiveTable, LiveTables
from cogs.live.pings import Pings
from cogs.live.records import Notes
from cogs.live.shown import draw
from cogs.live.table_message import UNKNOWN, TableMessages
from cogs.pictures import TABLE_FILE, Late, Pictures, kept_files, send_files
from cogs.transport.pacer import EDITS_PER_WINDOW, GLOBAL_PER_SECOND, Pacer
from cogs.transport.posts import ChannelPosts

log = logging.getLogger(__name__)


class Publisher:
    """Decides and makes every follow-up of a change; holds every live table's owner."""

    def __init__(self, client: discord.Client, service: TableService, clocks: Clocks,
                 languages: Languages, notes: Notes, *,
                 edits_per_window: int = EDITS_PER_WINDOW,
                 rest_share: float = 1.0) -> None:
        self.service = service
        self.clocks = clocks
        self.languages = languages
        self.tables = LiveTables(released=self._released)
        # Discord's global budget is the bot's, across all its processes: each takes the
        # part of it that its shards are of the bot.
        self.pacer = Pacer(edits_per_window, max(1, int(GLOBAL_PER_SECOND * rest_share)))
        # Card pictures (the servers' and players' styles come from the languages' store).
        self.pictures = Pictures(languages.servers)
        self.posts = ChannelPosts(client, self.pacer)
        self.notes = notes  # what the messages show, written down
        # The kinds of message every live table has, each brought up to the newest snapshot
        # by its owner's loop: one line each.
        self.messages = self.tables.register(TableMessages(
            client, service, languages, self.pacer, self.posts, self.tables, self.pictures,
            notes))
        self.hands = self.tables.register(OpenHands(client, self.tables, notes, self.pictures))
        self.pings = self.tables.register(Pings(client, service, languages, self.pacer,
                                                self.posts, self.tables, notes))
        self.tables.register(Notices(languages, self.pings.io))
        # What the last run wrote down that the table messages show, until they resume.
        self._shown: tuple[dict[int, str], dict[int, float]] = ({}, {})

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
        if interaction is not None and not interaction.response.is_done():
            if interaction.type is discord.InteractionType.component:
                await self._answer_tap(table, interaction)
            else:
                await self._post_table(table, interaction, retire_old=retire_old)
        live = self.tables.of(table)
        if interaction is not None and table.is_open:
            live.heard(interaction)
        live.saw(table)  # every kind of message catches up from here
        self.clocks.poke(table)

    async def _answer_tap(self, table: Table, interaction: Interaction) -> None:
        """Edit the message tapped: the table message, the player's own hand, or a turn ping
        (which keeps the controls while the turn lasts). The table message's id may not be
        stored yet if a tap beat ``/nlk new``'s answer."""
        message = interaction.message
        ephemeral = message is not None and message.flags.ephemeral
        style = self.messages.style_of(table)
        lang = await self.languages.public(table.guild_id, interaction)
        try:
            if not ephemeral and (message is None or table.message_id in (None, message.id)):
                shown = self.messages.of(self.tables.of(table))
                message_id = message.id if message is not None else table.message_id
                drawing = draw(table, lang, self.languages.ai_allowed(table.guild_id))
                picture = await self.pictures.within(
                    self.messages.picture(table, lang, urgent=True))
                if isinstance(picture, Late):
                    # The answer goes now with the picture the message has; a paced edit
                    # brings the new one.
                    files = kept_files(drawing.embed, message, TABLE_FILE)
                    await interaction.response.edit_message(
                        embed=drawing.embed, view=drawing.view, **files)
                    self.messages.shown(table, drawing, message_id, style,
                                        None if files else UNKNOWN)
                    self.messages.redraw(table)
                    return
                await interaction.response.edit_message(
                    embed=drawing.embed, view=drawing.view,
                    **shown.edit_files(drawing.embed, picture))
                self.messages.shown(table, drawing, message_id, style, picture)
                return
            if ephemeral:
                await self.hands.answer(interaction, table, letters=lang)
            else:  # a turn ping: drawn as its owner wants it, which it then shows
                content, view, want = await self.pings.draw(table, interaction.user.id, lang)
                await interaction.response.edit_message(content=content, view=view)
                if message is not None:
                    self.pings.answered(table, message.id, want)
        except discord.HTTPException as error:
            # The move stands, but Discord refused its answer: during a hand-over another
            # process answered this click first. The owner's loop edits the message instead.
            log.info("table %s: the answer to a move was refused (%s); editing instead",
                     table.id, error)

    async def _post_table(self, table: Table, interaction: Interaction, *,
                          retire_old: bool) -> None:
        """Post the table message as the answer to a command (so it costs no channel
        request), record it, and bring it up to date if the table changed meanwhile."""
        style = self.messages.style_of(table)
        lang = await self.languages.public(table.guild_id, interaction)
        drawing = draw(table, lang, self.languages.ai_allowed(table.guild_id))
        picture = await self.messages.picture(table, lang, urgent=True)
        callback = await interaction.response.send_message(
            embed=drawing.embed, view=drawing.view, **send_files(drawing.embed, picture))
        message_id = callback.message_id or (await interaction.original_response()).id
        old = await self.service.set_message(table.id, message_id)
        current = await self.service.get(table.id)  # with its new message id
        if old is None:  # the table's first message (taps on it may have drawn newer states)
            self.messages.shown(table, drawing, message_id, style, picture)
        else:
            self.messages.replaced(table, drawing, message_id, old if retire_old else None,
                                   style, picture)
        self.tables.of(current).saw(current)

    # --- the clocks' notifier --------------------------------------------------------------

    async def table_changed(self, change: Change) -> None:
        """A change made without an interaction (an AI move, a stand-in, the idle sweep)."""
        await self.publish(change)

    async def remind(self, table: Table, user_id: int, deadline: float) -> None:
        await self.pings.remind(table, user_id, deadline)

    # --- letting go ----------------------------------------------------------------------

    def _released(self, live: LiveTable) -> None:
        """A closed table's owner was let go: forget its channel's refusals too."""
        self.posts.forget(live.channel_id)
        self.pacer.prune()

    # --- start and stop --------------------------------------------------------------------

    async def load(self, tables: list[Table]) -> None:
        """At start-up, before the clocks run: the owners hold what the last run wrote
        down that Discord shows (the live pings, the open hands and their tokens)."""
        self._shown = await self.messages.read_records()
        self.pings.load(tables, await self.pings.read_left())
        self.hands.load(tables, await self.hands.read_left())

    async def resume(self, tables: list[Table]) -> None:
        """Once connected: every owner converges from what it holds (the table messages
        out of date are redrawn, and only those), and the pings whose turn is over go."""
        (shown, active), self._shown = self._shown, ({}, {})
        self.pacer.spend({table.channel_id for table in tables})
        if tables:
            tables = await self.messages.current(tables)
        self.pings.clean(tables)
        await self.messages.resume(tables, shown, active)

    async def close(self) -> None:
        """Stop every table's work, then write down what the table messages show and the
        pings still live, so the next start redraws and deletes only what it must."""
        if self.tables.stopped:
            return
        await self.pings.close()
        await self.tables.close()
        await self.messages.close()
        await self.notes.close()
