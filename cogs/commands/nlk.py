"""The ``/nlk`` commands: parse → table service → publish (buttons: ``cogs/routes/clicks.py``)."""

from __future__ import annotations

import asyncio
import json
import logging

import discord
from discord import app_commands
from discord.ext import commands

from bot.db.records import TableRecord, TableStatus
from bot.errors import BotLacksPermissions, InputError, NoTable, Refusal, TableExists
from bot.tables.service import Change, Table
from cogs import render
from cogs.answers import rulebook
from cogs.answers.interaction import (
    display_name,
    is_moderator,
    missing_permissions,
    place_of,
    server_of,
    tell_refusal,
)
from cogs.answers.replies import describe, say
from cogs.client import Interaction, NLKClient
from cogs.commands.chart import send_player
from cogs.commands.choices import LANGUAGE_CHOICES, LANGUAGE_NAMES, LAST_CARD_CHOICES, TIMER_CHOICES
from cogs.commands.seasons import SEASON_CHOICES, seasons_value
from cogs.compose import Parts
from cogs.i18n.mentions import link_commands, linked
from cogs.i18n.translator import L_, NC_, lang_of, t
from cogs.lesson.handler import FIRST_REFUSAL
from cogs.pictures.animation import EXPORT_ANIMATION, EXPORT_CHOICES, send_animation
from cogs.pictures.settings import CARDS_CHOICES, PICTURES_CHOICES, cards_command, pictures_value
from cogs.practice.handler import LEVEL_CHOICES
from cogs.render import stats
from cogs.replay.handler import hand_choices
from cogs.routes.clicks import seated
from cogs.routes.taps import Taps
from cogs.transport.files import MemoryFile
from rules import Variant
from rules.i18n import Lang, translator

log = logging.getLogger(__name__)
# The commands that act on this channel's table: a refusal of one is a refusal at a table.
AT_THE_TABLE = ("nlk hand", "nlk table", "nlk leave", "nlk end", "nlk remove")


class NLK(commands.Cog):
    """NLK tables in channels."""

    nlk = app_commands.Group(name=NC_("command", "nlk"),
                             description=L_("Play NLK, the Hungarian card game."),
                             # Installable to a server and to a person's own account, and
                             # usable in servers, group DMs and the DM with the bot.
                             allowed_installs=app_commands.AppInstallationType(
                                 guild=True, user=True),
                             allowed_contexts=app_commands.AppCommandContext(
                                 guild=True, dm_channel=True, private_channel=True))

    def __init__(self, bot: commands.Bot, client: NLKClient, parts: Parts) -> None:
        self.bot = bot
        self.client = client
        self.service = parts.service
        self.servers = parts.servers
        self.languages = parts.languages
        self.publisher = parts.publisher
        self.pictures = self.publisher.pictures  # card pictures (cogs/pictures)
        self.hands = self.publisher.hands
        self.messages = self.publisher.messages
        self.posts = self.publisher.posts
        self.clicks = parts.clicks
        self.replays = parts.replays
        self.boards = parts.boards
        self.taps = Taps(parts.families)  # every tap on a button or select of the bot
        self.lessons = parts.lessons
        self.practices = parts.practices
        self.warmed = asyncio.Event()  # the pictures' font is loaded (or could not be)

    async def public(self, interaction: Interaction) -> Lang:
        """The language of what everyone in the channel sees: the server's."""
        return await self.languages.public(place_of(interaction), interaction)

    async def cog_load(self) -> None:
        """Register the buttons and the error replies, and warm the pictures."""
        self.bot.add_listener(self.taps.on_interaction, "on_interaction")
        self.bot.tree.error(self.reply_error)
        self.client.lifetime.start(self._warm())

    async def _warm(self) -> None:
        """Load the pictures' font in a thread now rather than in the first player's tap."""
        try:
            await asyncio.to_thread(self.pictures.warm)
        finally:
            self.warmed.set()

    async def reply_error(self, interaction: Interaction, error: BaseException) -> None:
        """The command tree's error handler: the reply for whatever a command raised, in the
        language of whoever sent it; under a player's first refusal about the game from a
        command at this channel's table, the lesson's link, once ever, as under a button's
        (``Lessons.link_once``)."""
        original = getattr(error, "original", error)
        lang = lang_of(interaction)
        text, _expected = describe(original, lang)
        command = interaction.command
        if isinstance(original, Refusal) and not isinstance(original, NoTable) and \
                command is not None and command.qualified_name in AT_THE_TABLE and \
                await self.lessons.link_once(interaction.user.id, original):
            text += "\n" + translator(lang).gettext(FIRST_REFUSAL)
        await say(interaction, text)

    async def cog_unload(self) -> None:
        """Unregister the buttons (the tables' work lives in the bot's lifetime, and ends
        with it)."""
        self.bot.remove_listener(self.taps.on_interaction, "on_interaction")

    async def load(self, tables: list[Table]) -> None:
        """At start-up, before the clocks run: the tables' owners load what Discord shows."""
        await self.publisher.load(tables)

    def resume(self, tables: list[Table], quarantined: list[tuple[TableRecord, str]]) -> None:
        """After a start: in the background (the gateway is not connected yet), bring the
        tables' messages and pings up to date, and tell each set-aside table's channel why
        it stopped (within the bot's lifetime: a stop meanwhile ends it)."""
        self.client.lifetime.start(self._resume(tables, quarantined))

    async def _resume(self, tables: list[Table],
                      quarantined: list[tuple[TableRecord, str]]) -> None:
        await self.publisher.resume(tables)
        await self._tell_quarantined(quarantined)

    async def _tell_quarantined(self, quarantined: list[tuple[TableRecord, str]]) -> None:
        """Tell each set-aside table's channel why its table stopped (the log has the
        reason)."""
        for record, _reason in quarantined:
            if record.guild_id is None:
                continue  # a group DM's: no channel to post in (the log has the reason)
            lang = await self.languages.public(record.guild_id)
            _ = translator(lang).gettext
            await self.posts.post(
                record.channel_id, record.guild_id, link_commands(
                    _("NLK table {table} was stopped: its saved moves could not be read back "
                      "after a restart. Start a new table with `/nlk new`.").format(
                          table=record.id), self.client.command_ids, record.guild_id, lang))

    # --- slash commands --------------------------------------------------------------------

    @nlk.command(name=NC_("command", "new"),
                 description=L_("Open an NLK table in this channel."))
    @app_commands.describe(
        seats=L_("How many seats (2–9; six is best). Default: the server's setting"),
        last_card=L_("Whether whoever draws the last talon card must keep it, or may give it "
                     "away"),
        must_beat_in_suit=L_("Forbid trumping while you can beat in suit (the French rule)"),
        turn_timer=L_("Time per turn before a stand-in plays it"),
    )
    @app_commands.rename(seats=NC_("command", "seats"), last_card=NC_("command", "last_card"),
                         must_beat_in_suit=NC_("command", "must_beat_in_suit"),
                         turn_timer=NC_("command", "turn_timer"))
    @app_commands.choices(last_card=LAST_CARD_CHOICES)
    @app_commands.choices(turn_timer=TIMER_CHOICES)
    async def new(self, interaction: Interaction,
                  seats: app_commands.Range[int, 2, 9] | None = None,
                  last_card: str | None = None, must_beat_in_suit: bool | None = None,
                  turn_timer: int | None = None) -> None:
        """Open an NLK table in this channel."""
        place = place_of(interaction)
        assert interaction.channel_id is not None
        if interaction.guild_id is not None and not interaction.is_guild_integration():
            # Installed to the person's account only: the bot is not in this server, and
            # a server's table needs its channel.
            raise InputError("not_in_server")
        missing = missing_permissions(interaction) if interaction.guild_id is not None else []
        if missing:
            _ = t(interaction).gettext
            raise BotLacksPermissions(missing=", ".join(_(name) for name in missing))
        defaults = await self.servers.settings(place)
        if interaction.guild_id is None and not defaults.language:
            # A group DM or a DM has no server locale: its tables speak the language of
            # whoever opened the first one, after restarts and AI moves too.
            defaults = await self.servers.change_settings(
                place, {"language": lang_of(interaction).value}, can_manage=True)
            self.languages.changed(place, defaults.language, defaults.allow_ai)
        variant = Variant(last_card or defaults.last_card,
                          defaults.must_beat_in_suit if must_beat_in_suit is None
                          else must_beat_in_suit)
        timer = defaults.turn_seconds if turn_timer is None else turn_timer
        try:
            change = await self.service.create(
                interaction.guild_id, interaction.channel_id, interaction.user.id,
                display_name(interaction.user), seats or defaults.seats, variant, timer,
                moderator=is_moderator(interaction))
        except TableExists as exists:
            if exists.table_id and not await self.messages.exists(
                    await self.service.get(exists.table_id)):
                # Its message was deleted, or never posted (the bot was stopped before its
                # /nlk new answered): bring it back rather than point at nothing.
                table = await self.service.get(exists.table_id)
                await self.publisher.publish(Change(table, None, None), interaction,
                                             retire_old=False)
                await self._tell_refusal(interaction)
                return
            link = render.message_url(interaction.guild_id, interaction.channel_id,
                                      exists.message_id)
            text, _expected = describe(exists, lang_of(interaction))
            await say(interaction, t(interaction).gettext("{refusal} It's here: {link}").format(
                refusal=text, link=link))
            await self._tell_refusal(interaction)
            return
        await self.publisher.publish(change, interaction)
        if change.replaced is not None:
            # Its message says it was closed, and by which table, and offers nothing more.
            await self.publisher.publish(Change(change.replaced, None, None, closed=True))

    @nlk.command(name=NC_("command", "hand"),
                 description=L_("Show your cards (only you see them)."))
    async def hand(self, interaction: Interaction) -> None:
        """Show your cards (only you see them)."""
        table = await self._table_here(interaction)
        seated(table, interaction.user.id)
        # A private hand: the reader's own words and card letters.
        await self.hands.show(interaction, table, letters=lang_of(interaction))
        self.messages.check(table)
        self.publisher.touched(table, interaction)
        await self._tell_refusal(interaction)

    @nlk.command(name=NC_("command", "table"),
                 description=L_("Post this channel's table message again, at the bottom (the "
                                "old one goes)."))
    async def table_command(self, interaction: Interaction) -> None:
        """Post this channel's table message again, at the bottom (the old one goes)."""
        table = await self._table_here(interaction)
        await self.publisher.publish(Change(table, None, None), interaction)
        await self._tell_refusal(interaction)

    async def _tell_refusal(self, interaction: Interaction) -> None:
        await tell_refusal(interaction, self.posts)

    @nlk.command(name=NC_("command", "leave"),
                 description=L_("Leave this channel's table (during a hand: when the hand "
                                "ends)."))
    async def leave(self, interaction: Interaction) -> None:
        """Leave this channel's table (during a hand: when the hand ends)."""
        table = await self._table_here(interaction)
        change = await self.service.leave(table.id, interaction.user.id,
                                          channel_id=interaction.channel_id)
        _ = t(interaction).gettext
        text = _("You left the table.")
        if change.table.status is TableStatus.PLAYING:
            text = _("You'll leave when this hand ends: until then the seat is yours, so keep "
                     "playing your turns.")
        await interaction.response.send_message(text, ephemeral=True)
        await self.publisher.publish(change, interaction)
        await self._tell_refusal(interaction)

    @nlk.command(name=NC_("command", "end"),
                 description=L_("End this channel's table (host, or anyone who can manage the "
                                "channel)."))
    async def end(self, interaction: Interaction) -> None:
        """End this channel's table (host, or anyone who can manage the channel)."""
        table = await self._table_here(interaction)
        await self.clicks.end_table(interaction, table.id)

    @nlk.command(name=NC_("command", "remove"),
                 description=L_("Remove an away player's seat (host, or anyone who can manage "
                                "the channel)."))
    @app_commands.describe(player=L_("The away player (the AI is playing their seat)"))
    @app_commands.rename(player=NC_("command", "player"))
    async def remove(self, interaction: Interaction,
                     player: discord.User | discord.Member) -> None:
        """Remove an away player's seat (host, or anyone who can manage the channel)."""
        table = await self._table_here(interaction)
        change = await self.service.remove(table.id, interaction.user.id, player.id,
                                           moderator=is_moderator(interaction),
                                           channel_id=interaction.channel_id)
        _ = translator(await self.public(interaction)).gettext
        if change.table.status is TableStatus.PLAYING:
            text = _("{name}'s seat at NLK table {table} is removed when this hand ends: the AI "
                     "plays it until then (by {by}).")
        else:
            text = _("{name}'s seat at NLK table {table} is removed (by {by}).")
        await interaction.response.send_message(
            text.format(name=render.safe_name(display_name(player)), table=table.id,
                        by=render.safe_name(display_name(interaction.user))),
            allowed_mentions=discord.AllowedMentions.none())
        await self.publisher.publish(change, interaction)

    @nlk.command(name=NC_("command", "rules"),
                 description=L_("A short summary of the rules at this channel's table."))
    @app_commands.describe(rule=L_("One rule by its number (R3.3) or a word in it, to read "
                                   "it in full"))
    @app_commands.rename(rule=NC_("command", "rule"))
    async def rules(self, interaction: Interaction,
                    rule: app_commands.Range[str, 1, 40] | None = None) -> None:
        """A short summary of the rules at this channel's table, or one rule in full."""
        if rule is not None:
            await rulebook.open_rule(interaction, rule)
            return
        try:
            variant = (await self._table_here(interaction)).variant
        except NoTable:
            variant = Variant()
        lang = lang_of(interaction)
        embed = discord.Embed(title=translator(lang).gettext("How to play NLK"),
                              colour=render.COLOUR, description=render.rules_text(variant, lang))
        await interaction.response.send_message(embed=embed, ephemeral=True)

    @rules.autocomplete("rule")
    async def rule_choices(self, interaction: Interaction, current: str
                           ) -> list[app_commands.Choice[str]]:
        """The rules whose number or words match what is typed, in the reader's language."""
        return rulebook.choices(current, lang_of(interaction))

    @nlk.command(name=NC_("command", "learn"),
                 description=L_("Learn NLK: a guided first hand against two AI players, just "
                                "for you."))
    async def learn(self, interaction: Interaction) -> None:
        """Learn NLK: a guided first hand against two AI players, just for you."""
        await self.lessons.open(interaction)

    @nlk.command(name=NC_("command", "practice"),
                 description=L_("Practise NLK: an unrated hand against AI players, just for "
                                "you, with hints."))
    @app_commands.describe(ai_players=L_("How many AI players (1–8; default: as last time, "
                                         "or 3)"),
                           level=L_("How well the AI players play (default: as last time)"))
    @app_commands.rename(ai_players=NC_("command", "ai_players"),
                         level=NC_("command", "level"))
    @app_commands.choices(level=LEVEL_CHOICES)
    async def practice(self, interaction: Interaction,
                       ai_players: app_commands.Range[int, 1, 8] | None = None,
                       level: str | None = None) -> None:
        """Practise NLK: an unrated hand against AI players, just for you, with hints."""
        await self.practices.open(interaction, ai_players, level)

    @nlk.command(name=NC_("command", "stats"),
                 description=L_("The server's NLK leaderboard for one table size, or one "
                                "player's numbers at each size."))
    @app_commands.describe(user=L_("Show one player's numbers instead of the leaderboard"),
                           size=L_("The table size whose leaderboard to show (default: the "
                                   "size played most)"))
    @app_commands.rename(user=NC_("command", "user"), size=NC_("command", "size"))
    async def stats(self, interaction: Interaction,
                    user: discord.User | discord.Member | None = None,
                    size: app_commands.Range[int, 2, 9] | None = None) -> None:
        """The server's NLK leaderboard for one table size, or one player's numbers at each
        size; only the reader sees it, in their language."""
        guild_id = place_of(interaction)
        lang = lang_of(interaction)
        if user is not None:  # their numbers, and their rating chart under them
            await send_player(interaction, self.servers, self.pictures, guild_id, user.id,
                              display_name(user), size)
            return
        if await self.boards.stats(interaction, size):
            return  # the server plays in seasons: the current season's board
        embed, view = stats.leaderboard(await self.servers.leaderboard(guild_id, 0, size),
                                        lang)
        await interaction.response.send_message(embed=embed, view=view, ephemeral=True)

    @nlk.command(name=NC_("command", "export"),
                 description=L_("Attach a finished hand of this channel as an nlk-replay/1 "
                                "file (default: the last one)."))
    @app_commands.describe(hand=L_("The hand: its number at this table, or table and number "
                                   "(42.3), as the table message shows them"))
    @app_commands.rename(hand=NC_("deal", "hand"), format=NC_("command", "format"))
    @app_commands.describe(format=L_("A replay file (the default), or an animated picture to "
                                   "share"))
    @app_commands.choices(format=EXPORT_CHOICES)
    async def export(self, interaction: Interaction,
                     hand: app_commands.Range[str, 1, 40] | None = None,
                     format: str | None = None) -> None:
        """Attach a finished hand of this channel as an nlk-replay/1 file, or as an animated
        picture; only the reader sees it, in their language."""
        place_of(interaction)
        assert interaction.channel_id is not None
        stored = await self.servers.hand_to_export(interaction.channel_id, hand)
        record = stored.hand
        if format == EXPORT_ANIMATION:
            await send_animation(interaction, stored.replay(), self.pictures, record.table_id,
                                 record.number)
            return
        replay = stored.replay().to_json()
        replay["seed"] = record.seed  # with the deck: anyone can check the deal was fair
        if record.assisted:  # someone used a hint in it (/nlk settings hints)
            replay["assisted"] = True
        data = (json.dumps(replay, ensure_ascii=False) + "\n").encode("utf-8")
        filename = f"nlk-table{record.table_id}-hand{record.number}.json"
        lang = lang_of(interaction)
        _ = translator(lang).gettext
        # Where a player steps through it: the bot's own command, named in the reader's
        # words (a mention), not a developers' tool.
        text = _("Hand {number} of table {table}, as a file. To step through it, here or on "
                 "any server, give this file to `/nlk replay` in its **{option}** option.").format(
                     number=record.number, table=record.table_id,
                     option=translator(lang).pgettext("command", "file"))
        await interaction.response.send_message(
            linked(interaction, text, lang),
            file=MemoryFile(data, filename), ephemeral=True)

    @export.autocomplete("hand")
    async def export_choices(self, interaction: Interaction, current: str
                             ) -> list[app_commands.Choice[str]]:
        """The channel's latest finished hands, newest first, those matching what is typed."""
        return await hand_choices(self.servers, interaction, current)

    @nlk.command(name=NC_("command", "replay"),
                 description=L_("Step through a finished hand of this channel, or an exported "
                                "file (only you see it)."))
    @app_commands.describe(hand=L_("The hand: its number at this table, or table and number "
                                   "(42.3), as the table message shows them"),
                           file=L_("An nlk-replay/1 file, as /nlk export gives it (a hand "
                                   "from anywhere)"))
    @app_commands.rename(hand=NC_("deal", "hand"), file=NC_("command", "file"))
    async def replay(self, interaction: Interaction,
                     hand: app_commands.Range[str, 1, 40] | None = None,
                     file: discord.Attachment | None = None) -> None:
        """Step through a finished hand privately: the whole table at each step, every hand
        face up (the hand is over), with buttons to step, jump and show a step to all."""
        await self.replays.open(interaction, hand, file)

    @replay.autocomplete("hand")
    async def replay_choices(self, interaction: Interaction, current: str
                             ) -> list[app_commands.Choice[str]]:
        """The hands ``/nlk export`` offers: the channel's latest finished ones."""
        return await hand_choices(self.servers, interaction, current)

    @nlk.command(name=NC_("command", "settings"),
                 description=L_("This server's defaults for new NLK tables (needs Manage "
                                "Server to change)."))
    @app_commands.describe(
        seats=L_("Default seats for new tables (2–9)"),
        last_card=L_("Default for the last talon card"),
        must_beat_in_suit=L_("Default for the must-beat-in-suit rule"),
        turn_timer=L_("Default time per turn"),
        allow_ai=L_("Whether hosts may add AI players"),
        language=L_("The language of the bot's public messages in this server"),
        pictures=L_("Cards as pictures on the table message (and hands, unless a player "
                    "chose otherwise)"),
        seasons=L_("Play in seasons with their own boards (UTC calendar), or all-time only"),
        hints=L_("A Hint button on players' hands (a hand where one is used is marked "
                 "assisted)"),
    )
    @app_commands.rename(seats=NC_("command", "seats"), last_card=NC_("command", "last_card"),
                         must_beat_in_suit=NC_("command", "must_beat_in_suit"),
                         turn_timer=NC_("command", "turn_timer"),
                         allow_ai=NC_("command", "allow_ai"),
                         language=NC_("command", "language"),
                         pictures=NC_("command", "pictures"),
                         seasons=NC_("command", "seasons"), hints=NC_("command", "hints"))
    @app_commands.choices(last_card=LAST_CARD_CHOICES, language=LANGUAGE_CHOICES,
                          pictures=PICTURES_CHOICES, seasons=SEASON_CHOICES)
    @app_commands.choices(turn_timer=TIMER_CHOICES)
    async def settings(self, interaction: Interaction,
                       seats: app_commands.Range[int, 2, 9] | None = None,
                       last_card: str | None = None, must_beat_in_suit: bool | None = None,
                       turn_timer: int | None = None,
                       allow_ai: bool | None = None, language: str | None = None,
                       pictures: str | None = None, seasons: str | None = None,
                       hints: bool | None = None) -> None:
        """This server's defaults for new NLK tables (needs Manage Server to change)."""
        guild_id = server_of(interaction)
        changes = {k: v for k, v in {"seats": seats, "last_card": last_card,
                                     "must_beat_in_suit": must_beat_in_suit,
                                     "turn_seconds": turn_timer, "allow_ai": allow_ai,
                                     "language": language, "pictures": pictures,
                                     "seasons": seasons, "hints": hints}.items()
                   if v is not None}
        perms = interaction.permissions
        before = await self.public(interaction)
        current = await self.servers.change_settings(
            guild_id, changes, can_manage=perms.manage_guild or perms.administrator)
        if "allow_ai" in changes:  # the open tables show or hide their AI buttons
            self.languages.changed(guild_id, current.language, current.allow_ai)
            self.publisher.messages.relanguage(guild_id)
        if "language" in changes:
            self.languages.changed(guild_id, current.language, current.allow_ai)
            if await self.public(interaction) != before:  # the open tables follow, paced
                self.messages.relanguage(guild_id)
        if "pictures" in changes:
            self.pictures.styles.server_changed(guild_id, current.pictures)
            self.messages.relanguage(guild_id)  # the open tables redraw in the new style
        lang = lang_of(interaction)
        _ = translator(lang).gettext
        embed = discord.Embed(title=_("NLK settings for this server"), colour=render.COLOUR,
                              description=_("Saved.") if changes else _("Current defaults:"))
        embed.add_field(name=_("Seats"), value=str(current.seats))
        embed.add_field(name=_("Rules"), value=render.rules_line(
            Variant(current.last_card, current.must_beat_in_suit), lang))
        embed.add_field(name=_("Turn timer"), value=render.timer_line(current.turn_seconds,
                                                                      lang))
        embed.add_field(name=_("AI players"), value=_("allowed") if current.allow_ai
                        else _("off"))
        public = await self.public(interaction)
        spoken = _(LANGUAGE_NAMES[public])
        embed.add_field(name=_("Language"), value=spoken if current.language else
                        _("{language} (the server's language)").format(language=spoken))
        embed.add_field(name=_("Card pictures"), value=pictures_value(current.pictures, lang))
        embed.add_field(name=_("Seasons"), value=seasons_value(current.seasons, lang))
        embed.add_field(name=_("Hints"), value=_("allowed") if current.hints else _("off"))
        await interaction.response.send_message(embed=embed, ephemeral=True)

    @nlk.command(name=NC_("command", "cards"),
                 description=L_("How you see your own cards: pictures, four colours, or "
                                "text."))
    @app_commands.describe(style=L_("Your cards' style (everyone else keeps theirs)"))
    @app_commands.rename(style=NC_("command", "style"))
    @app_commands.choices(style=CARDS_CHOICES)
    async def cards(self, interaction: Interaction,
                    style: str | None = None) -> None:
        """How you see your own cards: pictures, four colours, or text."""
        await cards_command(interaction, self.servers, self.pictures, style)

    async def _table_here(self, interaction: Interaction) -> Table:
        place_of(interaction)
        assert interaction.channel_id is not None
        return await self.service.in_channel(interaction.channel_id)
