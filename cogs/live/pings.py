"""Turn pings and the end of a hand: at most one live ping per table, deleted when the turn
moves on, even across a restart (each ping is written down until it is deleted)."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass
from typing import Any

import discord

from bot.db.records import TableStatus
from bot.tables.service import Change, Table, TableService
from cogs import render
from cogs.i18n.translator import Languages
from cogs.live.owner import LiveTables, Ping
from cogs.transport.pacer import Kind, Pacer
from cogs.transport.posts import ChannelPosts
from rules.i18n import translator

log = logging.getLogger(__name__)

PING = "ping:"  # bot_state key prefix of a turn ping not yet deleted: ping:<table>:<message>
PING_GRACE = 2.0  # at shutdown, pings being deleted get this long to go
HISTORY_MAX = 100  # the most messages Discord returns for one history request
TOKEN_SECONDS = 14 * 60  # an interaction's token lasts 15 minutes; stop a minute early
# A table's newest interaction posts the pings of changes made without one (AI moves) for
# this long, so that the ping can still be deleted through the same token for a while.
BORROW_SECONDS = 10 * 60


@dataclass(frozen=True)
class PingRecord:
    """A posted ping, written down: the turn it was posted for."""

    channel_id: int
    hand: int
    version: int  # the game's version then (-1: no game)
    user_id: int | None  # the person pinged

    def dump(self) -> str:
        return json.dumps({"channel": self.channel_id, "hand": self.hand,
                           "version": self.version, "user": self.user_id})

    @classmethod
    def load(cls, text: str) -> PingRecord:
        """Raises ``ValueError`` for anything this bot did not write."""
        try:
            data = json.loads(text)
            user = data["user"]
            return cls(int(data["channel"]), int(data["hand"]), int(data["version"]),
                       None if user is None else int(user))
        except (TypeError, KeyError, AttributeError):
            raise ValueError(text) from None
        except ValueError:
            channel, hand, version, user = text.split()  # before records were JSON
            return cls(int(channel), int(hand), int(version),
                       None if user == "None" else int(user))


class Pings:
    """Posts, replaces and deletes the tables' turn pings, and announces ends of hands."""

    def __init__(self, client: discord.Client, service: TableService, languages: Languages,
                 pacer: Pacer, posts: ChannelPosts, tables: LiveTables) -> None:
        self.client = client
        self.service = service
        self.languages = languages
        self.pacer = pacer
        self.posts = posts
        self.tables = tables
        self.closed = False
        # Pings posted and not yet deleted are written down (bot_state key → value, None to
        # forget), so that a restart deletes those whose turn is over.
        self._writes: dict[str, str | None] = {}
        self._writer: asyncio.Task[None] | None = None
        self._deleting: set[asyncio.Task[None]] = set()  # given a grace at shutdown
        self._chores: set[asyncio.Task[None]] = set()  # deleting what the last run left

    def tracked(self) -> int:
        return len(self._chores)

    async def after(self, change: Change, interaction: discord.Interaction[Any] | None
                    ) -> None:
        """Ping whoever must act now, or announce the end of the hand, or clear the ping."""
        table = change.table
        actor = interaction.user.id if interaction is not None else None
        if change.hand_over:
            await self.announce_end(table, interaction)
        elif not table.is_open or table.status is TableStatus.LOBBY:
            self.clear(table)
        elif change.after is not None and table.ai_to_act() is None and (
                (change.turn_moved and change.after != actor) or change.phase_changed):
            await self.ping(table, interaction)
        elif change.turn_moved:
            self.clear(table)  # the turn ended: its ping or reminder goes

    async def remind(self, table: Table, user_id: int, deadline: float) -> None:
        """A reminder replaces the turn ping (one live ping per table), with the controls."""
        lang = await self.languages.public(table.guild_id)
        content, buttons = render.ping_message(table, user_id, deadline=deadline,
                                               reminder=True, lang=lang)
        self._swap(table, await self.posts.post(table.channel_id, table.guild_id, content,
                                                mention=user_id, view=buttons))

    def heard(self, table: Table, interaction: discord.Interaction[Any]) -> None:
        """``interaction`` was answered at ``table``: the table's pings may go through it."""
        live = self.tables.get(table.id)
        if live is not None and table.is_open and interaction.response.is_done() and \
                interaction.channel_id == table.channel_id:
            live.recent = (interaction, time.monotonic())

    def _borrowed(self, table: Table) -> tuple[discord.Interaction[Any], float] | None:
        """The table's newest interaction, while its token has minutes left: its follow-ups
        cost nothing of the channel's budget of 5 posts and edits in 5 s, which the table
        message's edits need (at a move a second they use all of it)."""
        live = self.tables.get(table.id)
        return live.borrow(time.monotonic(), BORROW_SECONDS) if live is not None else None

    async def ping(self, table: Table, interaction: discord.Interaction[Any] | None) -> None:
        """Tell the player to act, mentioning only them, with their turn's controls: as a
        follow-up of the change's interaction, or else of the table's newest one (an AI
        moved), or else as a channel message."""
        user_id = table.user_to_act()
        if user_id is None or table.public_view() is None:
            self.clear(table)
            return
        lang = await self.languages.public(table.guild_id, interaction)
        content, buttons = render.ping_message(table, user_id, lang=lang)
        through = (interaction, time.monotonic()) if interaction is not None else \
            self._borrowed(table)
        message, sent = await self._post(table, content, through, mention=user_id,
                                         view=buttons)
        self._swap(table, message, sent=sent)

    async def _post(self, table: Table, content: str,
                    through: tuple[discord.Interaction[Any], float] | None, *,
                    mention: int | None = None, view: discord.ui.View | None = None
                    ) -> tuple[discord.Message | None, float | None]:
        """Post ``content`` at ``table``, mentioning ``mention`` only: as a follow-up of
        ``through``'s interaction (no channel budget, no channel permission), or else, or
        if Discord refuses that, as a paced channel message. Returns the message and when
        the token that posted it was new (None: posted in the channel)."""
        if through is not None:
            interaction, since = through
            mentions = discord.AllowedMentions(everyone=False, roles=False, users=[
                discord.Object(mention)] if mention else False)
            try:
                return await interaction.followup.send(
                    content, view=view or discord.utils.MISSING, allowed_mentions=mentions,
                    wait=True), since
            except discord.HTTPException:
                log.warning("table %s: could not post through an interaction; posting in the "
                            "channel", table.id, exc_info=True)
                live = self.tables.get(table.id)
                if live is not None and live.recent is through:  # its token is no good
                    live.recent = None
        return await self.posts.post(table.channel_id, table.guild_id, content,
                                     mention=mention, view=view), None

    async def announce_end(self, table: Table, interaction: discord.Interaction[Any] | None
                           ) -> None:
        """Say who lost the hand (the table message shows it too)."""
        self.clear(table)
        view = table.public_view()
        if view is None or view.loser is None:
            return
        lang = await self.languages.public(table.guild_id, interaction)
        order = render.finishing_order(table, view, lang)
        _ = translator(lang).gettext
        # The next hand's seats are those still seated: people who left during the hand
        # are gone, and if the loser is one of them, someone else deals.
        content = render.next_dealer_sentence(
            table, view, lang=lang, number=table.hand_number, order=order,
            random=_("Hand {number} is over: **{name} loses**; the next dealer will be drawn "
                     "at random. Finishing order: {order}."),
            loser=_("Hand {number} is over: **{name} loses** and deals next. Finishing order: "
                    "{order}."),
            other=_("Hand {number} is over: **{name} loses** and has left: **{dealer}** deals "
                    "next. Finishing order: {order}."))
        content += " " + _("Next hand ({seated}/{seats}): {players}.").format(
            seated=len(table.next_seats), seats=table.max_seats,
            players=render.next_hand_seats(table, lang=lang))
        # No link to the table message: `/nlk table` may post it again, and a notice that
        # stays in the channel would keep pointing at the deleted one.
        await self._post(table, content,
                         (interaction, time.monotonic()) if interaction is not None else None)

    def clear(self, table: Table) -> None:
        """Delete the table's live turn ping, so the channel keeps one at most."""
        self._swap(table, None)

    def _swap(self, table: Table, message: discord.Message | None, *,
              sent: float | None = None) -> None:
        """Make ``message`` the table's live ping (None: no ping) and delete the one it
        replaces. Pings can finish sending out of order: the newest revision wins.
        ``sent``: when the token that posted it was new (None: now)."""
        live = self.tables.of(table)
        if message is not None:
            game = table.game
            self._note(table.id, message.id, PingRecord(
                table.channel_id, table.hand_number, game.version if game else -1,
                table.user_to_act()).dump())
        current = live.ping
        made = Ping(table.revision, message, time.monotonic() if sent is None else sent)
        if current is not None and current.revision > table.revision:
            stale = made if message is not None else None
        else:
            # No ping: keep the revision it was cleared at, so that a ping for an earlier
            # turn that lands late (a paced post) is known to be stale and deleted.
            live.ping = made
            stale = current
        if not table.is_open and message is None:
            live.ping = None
        if stale is not None and stale.message is not None:
            self._deleting_task(live.background(self._delete(table.channel_id, stale,
                                                             table.id)))
        live.settle()

    def _deleting_task(self, task: asyncio.Task[None]) -> None:
        self._deleting.add(task)
        task.add_done_callback(self._deleting.discard)

    async def _delete(self, channel_id: int, ping: Ping, table_id: int) -> None:
        """Delete an old ping: through its interaction's webhook while the token lasts (no
        channel budget), else as a paced channel request. Once it is gone it is forgotten;
        if the bot stops first, the next start deletes it."""
        assert ping.message is not None
        try:
            if isinstance(ping.message, discord.WebhookMessage) and \
                    time.monotonic() - ping.sent < TOKEN_SECONDS:
                await ping.message.delete()
            else:
                async with self.pacer.use(channel_id, Kind.DELETE):
                    await self.client.http.delete_message(channel_id, ping.message.id)
        except discord.NotFound:
            log.debug("turn ping %s was already gone", ping.message.id)
        except discord.HTTPException:
            log.info("could not delete turn ping %s; the next start tries again",
                     ping.message.id)
            return
        self._note(table_id, ping.message.id, None)

    async def close(self) -> None:
        """Let the pings being deleted go first (one cancelled after Discord deleted it
        would stay written down, and the next start would delete it a second time), then
        stop and write down the pings still live."""
        self.closed = True
        deleting = [task for task in self._deleting if not task.done()]
        if deleting:
            await asyncio.wait(deleting, timeout=PING_GRACE)
        chores = [task for task in self._chores if not task.done()]
        for task in chores:
            task.cancel()
        await asyncio.gather(*chores, return_exceptions=True)

    async def write_down(self) -> None:
        """Write down what is left to write (after the owners have stopped)."""
        if self._writer is not None:
            await asyncio.gather(self._writer, return_exceptions=True)
        await self._write()

    # --- turn pings across a restart -------------------------------------------------------

    def _note(self, table_id: int, message_id: int, value: str | None) -> None:
        """Write down a posted ping, or forget a deleted one (None), in the background and
        in order."""
        self._writes[f"{PING}{table_id}:{message_id}"] = value
        self._write_soon()

    def _write_soon(self) -> None:
        if not self.closed and (self._writer is None or self._writer.done()):
            self._writer = asyncio.create_task(self._write())

    async def _write(self) -> None:
        while self._writes:
            batch, self._writes = self._writes, {}
            try:
                await self.service.remember(batch)
            except Exception:
                # Only a restart's clean-up needs it: a ping left then stays in the channel.
                log.warning("could not write down the turn pings", exc_info=True)

    async def read_left(self) -> dict[str, str]:
        """The pings the last run wrote down and did not delete, in this process's servers
        (another process's pings are its own business)."""
        try:
            remembered = await self.service.remembered(PING)
            tables = {key: _table_of(key) for key in remembered}
            owned = await self.service.owned(t for t in tables.values() if t is not None)
        except Exception:
            log.warning("could not read the turn pings left by the last run", exc_info=True)
            return {}
        return {key: value for key, value in remembered.items()
                if tables[key] is None or tables[key] in owned}

    def resume(self, tables: list[Table], remembered: dict[str, str]) -> None:
        """Delete the pings posted before a restart whose turn is over (paced); a ping for
        a turn still being played stays, as the table's live ping."""
        open_tables = {table.id: table for table in tables}
        live: dict[int, tuple[int, int]] = {}  # table id → (message id, channel id)
        stale: list[tuple[int, int, int]] = []  # (table id, message id, channel id)
        for key, value in remembered.items():
            try:
                table_id, message_id = (int(x) for x in key[len(PING):].split(":"))
                record = PingRecord.load(value)
            except ValueError:  # not written by this bot: forget it
                self._writes[key] = None
                continue
            table = open_tables.get(table_id)
            owner = self.tables.get(table_id)
            current = table is not None and (owner is None or owner.ping is None) and \
                _turn_goes_on(table, record)
            if current and message_id > live.get(table_id, (0, 0))[0]:
                if table_id in live:
                    stale.append((table_id, *live[table_id]))
                live[table_id] = (message_id, record.channel_id)
            else:
                stale.append((table_id, message_id, record.channel_id))
        for table_id, (message_id, _channel_id) in live.items():
            table = open_tables[table_id]
            self.tables.of(table).ping = Ping(table.revision, discord.Object(message_id))
        by_channel: dict[int, list[tuple[int, int]]] = {}
        for table_id, message_id, channel_id in stale:
            by_channel.setdefault(channel_id, []).append((table_id, message_id))
        for channel_id, left in by_channel.items():
            task = asyncio.create_task(self._delete_left(channel_id, left))
            self._chores.add(task)
            task.add_done_callback(self._chores.discard)
        if self._writes:
            self._write_soon()

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
                deletes.append(self._delete(channel_id, Ping(-1, discord.Object(message_id)),
                                            table_id))
            else:
                self._note(table_id, message_id, None)
        for work in deletes:
            self._deleting_task(self._chore(work))

    def _chore(self, work: Any) -> asyncio.Task[None]:
        task: asyncio.Task[None] = asyncio.create_task(work)
        self._chores.add(task)
        task.add_done_callback(self._chores.discard)
        return task

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
