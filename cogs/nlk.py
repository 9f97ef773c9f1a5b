"""``/nlk`` commands and every NLK button: interaction in → table service → render out."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.errors import (
    BotLacksPermissions,
    InputError,
    NoTable,
    NotPlaying,
    NotSeated,
    Refusal,
    Stale,
    TableExists,
)
from bot.records import TableRecord
from bot.tables import Change, Table, check_end
from rules import Action, Card, CardError, Variant
from rules.i18n import N_, Lang, translator

from . import ids, render, stats
from .components import NLKButton, NLKSelect
from .hands import draw_hand
from .mentions import link_commands, linked
from .pictures import edit_files, send_files
from .pictures.settings import CARDS_CHOICES, PICTURES_CHOICES, cards_command, pictures_value
from .replies import describe, reply_error, say
from .translator import L_, NC_, Languages, lang_of, t
from .updates import TableUpdater

if TYPE_CHECKING:
    from bot.client import NLKBot

log = logging.getLogger(__name__)

GAME_ACTIONS = {"draw", "keep", "give", "play", "take"}
LAST_CARD_CHOICES = [
    app_commands.Choice(name=L_("keep — whoever draws it keeps it"), value="keep"),
    app_commands.Choice(name=L_("free — it may be given away"), value="free"),
]
# Discord's picker offers only these, so no value is refused after it is sent (an integer
# option's own limits can't say "0, or 15 to 3600").
TIMER_CHOICES = [
    app_commands.Choice(name=L_("no timer"), value=0),
    app_commands.Choice(name=L_("15 seconds"), value=15),
    app_commands.Choice(name=L_("30 seconds"), value=30),
    app_commands.Choice(name=L_("45 seconds"), value=45),
    app_commands.Choice(name=L_("1 minute"), value=60),
    app_commands.Choice(name=L_("90 seconds"), value=90),
    app_commands.Choice(name=L_("2 minutes"), value=120),
    app_commands.Choice(name=L_("3 minutes"), value=180),
    app_commands.Choice(name=L_("5 minutes"), value=300),
    app_commands.Choice(name=L_("10 minutes"), value=600),
    app_commands.Choice(name=L_("30 minutes"), value=1800),
    app_commands.Choice(name=L_("1 hour"), value=3600),
]
LANGUAGE_NAMES = {Lang.EN: N_("English"), Lang.HU: N_("Hungarian"), Lang.FR: N_("French")}
LANGUAGE_CHOICES = [
    app_commands.Choice(name=L_("The server's own language"), value="auto"),
    *(app_commands.Choice(name=L_(name), value=lang.value)
      for lang, name in LANGUAGE_NAMES.items()),
]


def jump_url(guild_id: int | None, channel_id: int, message_id: int | None) -> str:
    if message_id is None:
        return f"<#{channel_id}>"
    return f"https://discord.com/channels/{guild_id or '@me'}/{channel_id}/{message_id}"


def display_name(user: discord.abc.User) -> str:
    return (getattr(user, "display_name", None) or user.name)[:64]


def is_moderator(interaction: discord.Interaction[Any]) -> bool:
    perms = interaction.permissions
    return bool(perms.manage_channels or perms.administrator)


def guild_of(interaction: discord.Interaction[Any]) -> int:
    """The server the interaction came from; NLK is not played in direct messages."""
    if interaction.guild_id is None or interaction.channel_id is None:
        raise InputError("dm")
    return interaction.guild_id


def missing_permissions(interaction: discord.Interaction[Any]) -> list[str]:
    """What the bot lacks to run a table in this channel (it posts pings and exports)."""
    perms = interaction.app_permissions
    in_thread = isinstance(interaction.channel, discord.Thread)
    needed = {N_("Send Messages in Threads") if in_thread else N_("Send Messages"):
              perms.send_messages_in_threads if in_thread else perms.send_messages,
              N_("Embed Links"): perms.embed_links, N_("Attach Files"): perms.attach_files}
    return [name for name, has in needed.items() if not has]


class NLK(commands.Cog):
    """NLK tables in channels."""

    nlk = app_commands.Group(name=NC_("command", "nlk"),
                             description=L_("Play NLK, the Hungarian card game."),
                             guild_only=True)

    def __init__(self, bot: NLKBot) -> None:
        self.bot = bot
        self.service = bot.service
        self.servers = bot.servers
        self.languages = Languages(bot.servers, bot)
        self.updater = TableUpdater(bot, self.service, edits_per_window=bot.channel_edits,
                                    languages=self.languages)
        self.pictures = self.updater.pictures  # card pictures (cogs/pictures)

    async def public(self, interaction: discord.Interaction[Any]) -> Lang:
        """The language of what everyone in the channel sees: the server's."""
        return await self.languages.public(interaction.guild_id, interaction)

    async def cog_load(self) -> None:
        """Register the buttons, the error replies and the notifier of the clocks."""
        self.bot.add_dynamic_items(NLKButton, NLKSelect)
        self.bot.tree.error(reply_error)
        self.bot.clocks.notifier = self.updater
        self.bot.on_stop(self.updater.close)
        # Load the pictures' font in a thread now rather than in the first player's tap.
        self._warming = asyncio.create_task(asyncio.to_thread(self.pictures.warm))

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(NLKButton, NLKSelect)
        self.bot.clocks.notifier = None
        await self.updater.close()

    @commands.Cog.listener()
    async def on_tables_resumed(self, tables: list[Table]) -> None:
        """After a restart: bring the table messages that are out of date up to date."""
        await self.updater.resume(tables)

    @commands.Cog.listener()
    async def on_tables_quarantined(self, quarantined: list[tuple[TableRecord, str]]) -> None:
        """Tell each set-aside table's channel why its table stopped (the log has the
        reason)."""
        for record, _reason in quarantined:
            lang = await self.languages.public(record.guild_id)
            _ = translator(lang).gettext
            await self.updater.post(
                record.channel_id, record.guild_id, link_commands(
                    _("NLK table {table} was stopped: its saved moves could not be read back "
                      "after a restart. Start a new table with `/nlk new`.").format(
                          table=record.id), self.bot.command_ids, record.guild_id, lang))

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
    async def new(self, interaction: discord.Interaction[Any],
                  seats: app_commands.Range[int, 2, 9] | None = None,
                  last_card: str | None = None, must_beat_in_suit: bool | None = None,
                  turn_timer: int | None = None) -> None:
        """Open an NLK table in this channel."""
        guild_id = guild_of(interaction)
        assert interaction.channel_id is not None
        missing = missing_permissions(interaction)
        if missing:
            _ = t(interaction).gettext
            raise BotLacksPermissions(missing=", ".join(_(name) for name in missing))
        defaults = await self.servers.settings(guild_id)
        variant = Variant(last_card or defaults.last_card,
                          defaults.must_beat_in_suit if must_beat_in_suit is None
                          else must_beat_in_suit)
        timer = defaults.turn_seconds if turn_timer is None else turn_timer
        try:
            change = await self.service.create(
                guild_id, interaction.channel_id, interaction.user.id,
                display_name(interaction.user), seats or defaults.seats, variant, timer,
                moderator=is_moderator(interaction))
        except TableExists as exists:
            if exists.message_id is not None and exists.table_id and \
                    not await self.updater.exists(await self.service.get(exists.table_id)):
                # Its message was deleted: bring it back rather than point at nothing.
                await self._post_table(interaction, exists.table_id, retire=False)
                return
            link = jump_url(guild_id, interaction.channel_id, exists.message_id)
            text, _expected = describe(exists, lang_of(interaction))
            await say(interaction, t(interaction).gettext("{refusal} It's here: {link}").format(
                refusal=text, link=link))
            await self._tell_refusal(interaction)
            return
        table = change.table
        lang = await self.public(interaction)
        embed = render.table_embed(table, lang)
        picture = await self.updater.table_picture(table, lang)
        callback = await interaction.response.send_message(
            embed=embed, view=render.table_view(table, lang), **send_files(embed, picture))
        self.updater.attached.sent(table.id, picture)
        message_id = callback.message_id or (await interaction.original_response()).id
        await self.service.set_message(table.id, message_id)
        self.updater.shown(table, change.revision, lang)

    @nlk.command(name=NC_("command", "hand"),
                 description=L_("Show your cards (only you see them)."))
    async def hand(self, interaction: discord.Interaction[Any]) -> None:
        """Show your cards (only you see them)."""
        table = await self._table_here(interaction)
        _seated(table, interaction.user.id)
        letters = await self.public(interaction)
        embed, view = draw_hand(table, interaction.user.id, lang_of(interaction),
                                letters=letters)
        picture = await self.pictures.own(table, interaction.user.id, lang_of(interaction),
                                          letters)
        await interaction.response.send_message(embed=embed, view=view, ephemeral=True,
                                                **send_files(embed, picture))
        self.updater.hands.opened(table, interaction.user.id, interaction, letters)
        self.updater.check(table)
        await self._tell_refusal(interaction)

    @nlk.command(name=NC_("command", "table"),
                 description=L_("Post this channel's table message again, at the bottom (the "
                                "old one goes)."))
    async def table_command(self, interaction: discord.Interaction[Any]) -> None:
        """Post this channel's table message again, at the bottom (the old one goes)."""
        table = await self._table_here(interaction)
        await self._post_table(interaction, table.id)

    async def _post_table(self, interaction: discord.Interaction[Any], table_id: int, *,
                          retire: bool = True) -> None:
        """The table message, posted afresh as the answer to ``interaction`` (so it costs no
        channel request); with ``retire``, the old one is deleted."""
        table = await self.service.get(table_id)
        lang = await self.public(interaction)
        embed = render.table_embed(table, lang)
        picture = await self.updater.table_picture(table, lang)
        callback = await interaction.response.send_message(
            embed=embed, view=render.table_view(table, lang), **send_files(embed, picture))
        self.updater.attached.sent(table.id, picture)
        message_id = callback.message_id or (await interaction.original_response()).id
        old = await self.service.set_message(table.id, message_id)
        table.message_id = message_id
        self.updater.replaced(table, table.revision, old if retire else None, lang)
        self.updater.request(await self.service.get(table.id))  # if it changed meanwhile
        await self._tell_refusal(interaction)

    async def _tell_refusal(self, interaction: discord.Interaction[Any]) -> None:
        """If Discord refused one of the bot's posts in this channel since (a permission was
        taken away), tell whoever uses the table next, once, what the bot needs."""
        said = self.updater.untold_refusal(interaction.channel_id)
        if said is None or not interaction.response.is_done():
            return
        missing = missing_permissions(interaction)
        if missing and missing[0].startswith("Send Messages"):
            missing = missing[:1]  # Discord takes the others away with it: it alone is missing
        if not interaction.app_permissions.view_channel:
            missing = [N_("View Channel")]
        _ = t(interaction).gettext  # only this person reads it
        needs = (_("It needs **{missing}** here: ask someone who can manage this channel to "
                   "allow it.").format(missing=", ".join(_(name) for name in missing))
                 if missing else _("It seems to have them again now."))
        try:
            await interaction.followup.send(
                _("The bot couldn't post in this channel ({said}), so turn pings or table "
                  "updates may be missing. {needs}").format(said=said, needs=needs),
                ephemeral=True)
        except discord.HTTPException:
            log.warning("could not tell about a refused post", exc_info=True)

    @nlk.command(name=NC_("command", "leave"),
                 description=L_("Leave this channel's table (during a hand: when the hand "
                                "ends)."))
    async def leave(self, interaction: discord.Interaction[Any]) -> None:
        """Leave this channel's table (during a hand: when the hand ends)."""
        table = await self._table_here(interaction)
        change = await self.service.leave(table.id, interaction.user.id,
                                          channel_id=interaction.channel_id)
        _ = t(interaction).gettext
        text = _("You left the table.")
        if change.table.status == "playing":
            text = _("You'll leave when this hand ends: until then the seat is yours, so keep "
                     "playing your turns.")
        await interaction.response.send_message(text, ephemeral=True)
        self.updater.request(change.table)
        await self.updater.after(change, interaction)
        await self._tell_refusal(interaction)

    @nlk.command(name=NC_("command", "end"),
                 description=L_("End this channel's table (host, or anyone who can manage the "
                                "channel)."))
    async def end(self, interaction: discord.Interaction[Any]) -> None:
        """End this channel's table (host, or anyone who can manage the channel)."""
        table = await self._table_here(interaction)
        await self._end_table(interaction, table.id)

    async def _end_table(self, interaction: discord.Interaction[Any], table_id: int) -> None:
        """End the table and announce it in the channel: as the command's answer, or, from
        the confirmation of **End table**, as a public follow-up."""
        change = await self.service.end(table_id, interaction.user.id,
                                        moderator=is_moderator(interaction),
                                        channel_id=interaction.channel_id)
        self.bot.clocks.poke(change.table)
        await self.updater.after(change, None)
        lang = await self.public(interaction)
        _ = translator(lang).gettext
        text = _("NLK table {table} was ended by {name}.").format(
            table=table_id, name=render.safe_name(display_name(interaction.user)))
        ended = change.table
        hand = ended.public_view()
        if ended.seed is not None and hand is not None and not hand.is_over:
            # The unfinished hand's seed is public now, so its deal can still be checked.
            unfinished = _("Hand {number} was not finished.").format(number=ended.hand_number)
            text += f" {unfinished} {render.seed_reveal(ended.seed, hand.n, lang)}"
        none = discord.AllowedMentions.none()
        if interaction.type is discord.InteractionType.application_command:
            await interaction.response.send_message(text, allowed_mentions=none)
        else:
            mine = t(interaction).gettext("You ended the table.")
            await interaction.response.edit_message(content=mine, embed=None, view=None)
            await interaction.followup.send(text, allowed_mentions=none)
        self.updater.request(change.table)

    async def _ask_end(self, interaction: discord.Interaction[Any], table_id: int) -> None:
        """**End table** asks first, privately: it sits beside **Next hand**."""
        table = await self.service.get(table_id, channel_id=interaction.channel_id)
        check_end(table, interaction.user.id, moderator=is_moderator(interaction))
        _ = t(interaction).gettext
        await interaction.response.send_message(
            _("End NLK table {table} for everyone? Its seats go, and it can't be undone.")
            .format(table=table_id), view=render.end_confirmation(table_id, lang_of(interaction)),
            ephemeral=True)

    @nlk.command(name=NC_("command", "remove"),
                 description=L_("Remove an away player's seat (host, or anyone who can manage "
                                "the channel)."))
    @app_commands.describe(player=L_("The away player (the AI is playing their seat)"))
    @app_commands.rename(player=NC_("command", "player"))
    async def remove(self, interaction: discord.Interaction[Any],
                     player: discord.User | discord.Member) -> None:
        """Remove an away player's seat (host, or anyone who can manage the channel)."""
        table = await self._table_here(interaction)
        change = await self.service.remove(table.id, interaction.user.id, player.id,
                                           moderator=is_moderator(interaction),
                                           channel_id=interaction.channel_id)
        _ = translator(await self.public(interaction)).gettext
        if change.table.status == "playing":
            text = _("{name}'s seat at NLK table {table} is removed when this hand ends: the AI "
                     "plays it until then (by {by}).")
        else:
            text = _("{name}'s seat at NLK table {table} is removed (by {by}).")
        await interaction.response.send_message(
            text.format(name=render.safe_name(display_name(player)), table=table.id,
                        by=render.safe_name(display_name(interaction.user))),
            allowed_mentions=discord.AllowedMentions.none())
        self.updater.request(change.table)
        await self.updater.after(change, interaction)

    @nlk.command(name=NC_("command", "rules"),
                 description=L_("A short summary of the rules at this channel's table."))
    async def rules(self, interaction: discord.Interaction[Any]) -> None:
        """A short summary of the rules at this channel's table."""
        try:
            variant = (await self._table_here(interaction)).variant
        except NoTable:
            variant = Variant()
        lang = lang_of(interaction)
        embed = discord.Embed(title=translator(lang).gettext("How to play NLK"),
                              colour=render.COLOUR, description=render.rules_text(variant, lang))
        await interaction.response.send_message(embed=embed, ephemeral=True)

    @nlk.command(name=NC_("command", "stats"),
                 description=L_("The server's NLK leaderboard for one table size, or one "
                                "player's numbers at each size."))
    @app_commands.describe(user=L_("Show one player's numbers instead of the leaderboard"),
                           size=L_("The table size whose leaderboard to show (default: the "
                                   "size played most)"))
    @app_commands.rename(user=NC_("command", "user"), size=NC_("command", "size"))
    async def stats(self, interaction: discord.Interaction[Any],
                    user: discord.User | discord.Member | None = None,
                    size: app_commands.Range[int, 2, 9] | None = None) -> None:
        """The server's NLK leaderboard for one table size, or one player's numbers at each
        size; only the reader sees it, in their language."""
        guild_id = guild_of(interaction)
        lang = lang_of(interaction)
        if user is not None:
            numbers = await self.servers.player(guild_id, user.id)
            await interaction.response.send_message(
                embed=stats.player(display_name(user), numbers, lang), ephemeral=True)
            return
        embed, view = stats.leaderboard(await self.servers.leaderboard(guild_id, 0, size),
                                        lang)
        await interaction.response.send_message(embed=embed, view=view, ephemeral=True)

    @nlk.command(name=NC_("command", "export"),
                 description=L_("Attach a finished hand of this channel as an nlk-replay/1 "
                                "file (default: the last one)."))
    @app_commands.describe(hand=L_("The hand: its number at this table, or table and number "
                                   "(42.3), as the table message shows them"))
    @app_commands.rename(hand=NC_("command", "hand"))
    async def export(self, interaction: discord.Interaction[Any],
                     hand: app_commands.Range[str, 1, 40] | None = None) -> None:
        """Attach a finished hand of this channel as an nlk-replay/1 file; only the reader
        sees it, in their language."""
        guild_of(interaction)
        assert interaction.channel_id is not None
        stored = await self.servers.hand_to_export(interaction.channel_id, hand)
        record = stored.hand
        replay = stored.replay().to_json()
        replay["seed"] = record.seed  # with the deck: anyone can check the deal was fair
        data = (json.dumps(replay, ensure_ascii=False) + "\n").encode("utf-8")
        filename = f"nlk-table{record.table_id}-hand{record.number}.json"
        _ = translator(lang_of(interaction)).gettext
        await interaction.response.send_message(
            _("Hand {number} of table {table}. Replay it with `python -m rules replay "
              "{filename}`.").format(number=record.number, table=record.table_id,
                                     filename=filename),
            file=discord.File(io.BytesIO(data), filename=filename), ephemeral=True)

    @export.autocomplete("hand")
    async def export_choices(self, interaction: discord.Interaction[Any], current: str
                             ) -> list[app_commands.Choice[str]]:
        """The channel's latest finished hands, newest first, those matching what is typed."""
        if interaction.channel_id is None:
            return []
        _ = translator(lang_of(interaction)).gettext
        choices = []
        for record in await self.servers.finished_hands(interaction.channel_id):
            value = f"{record.table_id}.{record.number}"
            name = _("Table {table} · hand {number} · {players}").format(
                table=record.table_id, number=record.number, players=", ".join(record.names))
            if current.strip() in value or current.strip().lower() in name.lower():
                choices.append(app_commands.Choice(name=name[:100], value=value))
        return choices[:25]

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
    )
    @app_commands.rename(seats=NC_("command", "seats"), last_card=NC_("command", "last_card"),
                         must_beat_in_suit=NC_("command", "must_beat_in_suit"),
                         turn_timer=NC_("command", "turn_timer"),
                         allow_ai=NC_("command", "allow_ai"),
                         language=NC_("command", "language"),
                         pictures=NC_("command", "pictures"))
    @app_commands.choices(last_card=LAST_CARD_CHOICES, language=LANGUAGE_CHOICES,
                          pictures=PICTURES_CHOICES)
    @app_commands.choices(turn_timer=TIMER_CHOICES)
    async def settings(self, interaction: discord.Interaction[Any],
                       seats: app_commands.Range[int, 2, 9] | None = None,
                       last_card: str | None = None, must_beat_in_suit: bool | None = None,
                       turn_timer: int | None = None,
                       allow_ai: bool | None = None, language: str | None = None,
                       pictures: str | None = None) -> None:
        """This server's defaults for new NLK tables (needs Manage Server to change)."""
        guild_id = guild_of(interaction)
        changes = {k: v for k, v in {"seats": seats, "last_card": last_card,
                                     "must_beat_in_suit": must_beat_in_suit,
                                     "turn_seconds": turn_timer, "allow_ai": allow_ai,
                                     "language": language, "pictures": pictures}.items()
                   if v is not None}
        perms = interaction.permissions
        before = await self.public(interaction)
        current = await self.servers.change_settings(
            guild_id, changes, can_manage=perms.manage_guild or perms.administrator)
        if "language" in changes:
            self.languages.changed(guild_id, current.language)
            if await self.public(interaction) != before:  # the open tables follow, paced
                self.updater.relanguage(guild_id)
        if "pictures" in changes:
            self.pictures.styles.server_changed(guild_id, current.pictures)
            self.updater.relanguage(guild_id)  # the open tables redraw in the new style
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
        await interaction.response.send_message(embed=embed, ephemeral=True)

    @nlk.command(name=NC_("command", "cards"),
                 description=L_("How you see your own cards: pictures, four colours, or "
                                "text."))
    @app_commands.describe(style=L_("Your cards' style (everyone else keeps theirs)"))
    @app_commands.rename(style=NC_("command", "style"))
    @app_commands.choices(style=CARDS_CHOICES)
    async def cards(self, interaction: discord.Interaction[Any],
                    style: str | None = None) -> None:
        """How you see your own cards: pictures, four colours, or text."""
        await cards_command(interaction, self.servers, self.pictures, style)

    async def _table_here(self, interaction: discord.Interaction[Any]) -> Table:
        guild_of(interaction)
        assert interaction.channel_id is not None
        return await self.service.in_channel(interaction.channel_id)

    # --- buttons ---------------------------------------------------------------------------

    async def on_component(self, interaction: discord.Interaction[Any], custom_id: str,
                           values: list[str]) -> None:
        """Every NLK button and select lands here."""
        table_id, action = None, ""
        try:
            table_id, version, action, arg = ids.parse(custom_id)
            await self._component(interaction, table_id, version, action, arg, values)
        except Exception as error:
            # A refusal on a private hand redraws the hand; the End table question is no hand.
            await self._refuse(interaction, table_id, error,
                               on_hand=action not in ("endyes", "endno"))
        if table_id is not None:
            await self._tell_refusal(interaction)

    async def _component(self, interaction: discord.Interaction[Any], table_id: int,
                         version: int | None, action: str, arg: str,
                         values: list[str]) -> None:
        user = interaction.user
        if action == "hand":
            await self._show_hand(interaction, table_id)
            return
        if action == "moves":
            await self._show_moves(interaction, table_id, arg)
            return
        if action == "fair":
            await self._show_fair(interaction, table_id)
            return
        if action == "stats":
            guild_id = guild_of(interaction)
            asked = stats.parse_stats_arg(arg)
            if asked is None:
                raise InputError("page")
            size, page = asked
            embed, view = stats.leaderboard(
                await self.servers.leaderboard(guild_id, page, size), lang_of(interaction))
            await interaction.response.edit_message(embed=embed, view=view)
            return
        if action == "end":
            await self._ask_end(interaction, table_id)
            return
        if action == "endyes":
            await self._end_table(interaction, table_id)
            return
        if action == "endno":
            await interaction.response.edit_message(
                content=t(interaction).gettext("The table goes on."), view=None)
            return
        change = await self._apply(interaction, table_id, version, action, arg, values)
        table = change.table
        # Game and lobby buttons live on the public table message, on a turn ping or on a
        # player's own ephemeral hand; the table message's id may not be stored yet if a
        # click beat /nlk new's reply.
        message = interaction.message
        on_table = not _is_ephemeral(interaction) and (
            message is None or table.message_id in (None, message.id))
        if on_table:
            lang = await self.public(interaction)
            embed = render.table_embed(table, lang)
            picture = await self.updater.table_picture(table, lang)
            await interaction.response.edit_message(
                embed=embed, view=render.table_view(table, lang),
                **self.updater.attached.edit(table.id, embed, picture))
            self.updater.attached.sent(table.id, picture)
        elif _is_ephemeral(interaction):
            hands = self.updater.hands
            letters = await self.public(interaction)
            async with hands.answering(table.id, user.id):
                shown = hands.newest(table)  # never older than a redraw that just landed
                embed, view = draw_hand(shown, user.id, lang_of(interaction), letters=letters)
                picture = await self.pictures.own(shown, user.id, lang_of(interaction), letters)
                await interaction.response.edit_message(embed=embed, view=view,
                                                        **edit_files(embed, picture))
                hands.opened(shown, user.id, interaction, letters)
        else:  # a turn ping: it keeps the controls while the turn lasts
            content, view = render.ping_message(table, user.id,
                                                lang=await self.public(interaction))
            await interaction.response.edit_message(content=content, view=view)
        if on_table:
            self.updater.shown(table, change.revision, lang)
        else:
            self.updater.request(table)
        self.bot.clocks.poke(table)
        await self.updater.after(change, interaction)

    async def _apply(self, interaction: discord.Interaction[Any], table_id: int,
                     version: int | None, action: str, arg: str, values: list[str]) -> Change:
        """The change a button asks for, made by the table service."""
        user, service = interaction.user, self.service
        where = interaction.channel_id
        guild_of(interaction)
        if action in GAME_ACTIONS:
            if version is None:
                raise Stale()
            return await service.act(table_id, user.id, version, _action(action, arg, values),
                                     channel_id=where)
        if action == "join":
            return await service.join(table_id, user.id, display_name(user), channel_id=where)
        if action == "leave":
            return await service.leave(table_id, user.id, channel_id=where)
        if action == "start":
            return await service.start(table_id, user.id, channel_id=where)
        if action == "cancel":
            return await service.cancel(table_id, user.id, channel_id=where)
        if action == "next":
            return await service.next_hand(table_id, user.id, channel_id=where)
        if action == "addai":
            allowed = (await self.servers.settings(interaction.guild_id)).allow_ai
            return await service.add_ai(table_id, user.id, arg.lower(), allowed=allowed,
                                        channel_id=where)
        if action == "removeai":
            return await service.remove_ai(table_id, user.id, channel_id=where)
        if action == "back":
            return await service.back(table_id, user.id, channel_id=where)
        if action == "remove":
            if not arg.isdigit():
                raise InputError("action")
            return await service.remove(table_id, user.id, int(arg),
                                        moderator=is_moderator(interaction), channel_id=where)
        raise InputError("action")

    async def _show_hand(self, interaction: discord.Interaction[Any], table_id: int) -> None:
        table = await self.service.get(table_id, channel_id=interaction.channel_id)
        _seated(table, interaction.user.id)
        hands, user_id = self.updater.hands, interaction.user.id
        letters = await self.public(interaction)
        lang = lang_of(interaction)
        if _is_ephemeral(interaction):  # Refresh on the hand itself
            async with hands.answering(table.id, user_id):
                table = hands.newest(table)
                embed, view = draw_hand(table, user_id, lang, letters=letters)
                picture = await self.pictures.own(table, user_id, lang, letters)
                await interaction.response.edit_message(embed=embed, view=view,
                                                        **edit_files(embed, picture))
                hands.opened(table, user_id, interaction, letters)
        else:
            embed, view = draw_hand(table, user_id, lang, letters=letters)
            picture = await self.pictures.own(table, user_id, lang, letters)
            await interaction.response.send_message(embed=embed, view=view, ephemeral=True,
                                                    **send_files(embed, picture))
            hands.opened(table, user_id, interaction, letters)
        if interaction.message is None or interaction.message.id != table.message_id:
            self.updater.check(table)  # opened from a ping or a hand: is the table still there?

    async def _show_moves(self, interaction: discord.Interaction[Any], table_id: int,
                          arg: str) -> None:
        """The hand's public log, to anyone in the channel, privately; page buttons on the
        log turn its pages in place."""
        guild_of(interaction)
        if arg and not arg.isdigit():
            raise InputError("page")
        table = await self.service.get(table_id, channel_id=interaction.channel_id)
        if table.public_view() is None:
            raise NotPlaying("lobby")
        with render.table_letters(await self.public(interaction)):
            embed, view = render.moves_message(table, int(arg) if arg else None,
                                               lang_of(interaction))
        if _is_ephemeral(interaction):
            await interaction.response.edit_message(embed=embed, view=view)
        else:
            await interaction.response.send_message(embed=embed, view=view, ephemeral=True)

    async def _show_fair(self, interaction: discord.Interaction[Any], table_id: int) -> None:
        """The hand's full commitment (and its seed once that is public), privately."""
        guild_of(interaction)
        table = await self.service.get(table_id, channel_id=interaction.channel_id)
        if table.seed is None or table.game is None:
            raise NotPlaying("lobby")
        await interaction.response.send_message(
            embed=render.fair_message(table, lang_of(interaction)), ephemeral=True)

    async def _refuse(self, interaction: discord.Interaction[Any], table_id: int | None,
                      error: Exception, *, on_hand: bool = True) -> None:
        """Refuse politely; on a player's own hand message, redraw it as it is now."""
        lang = lang_of(interaction)
        text, expected = describe(error, lang)
        text = linked(interaction, text, lang)
        if on_hand and expected and table_id is not None and _is_ephemeral(interaction) and \
                not interaction.response.is_done():
            try:
                table = await self.service.get(table_id, channel_id=interaction.channel_id)
                letters = await self.public(interaction)
                async with self.updater.hands.answering(table_id, interaction.user.id):
                    embed, view = draw_hand(table, interaction.user.id, lang, note=text,
                                            letters=letters)
                    picture = await self.pictures.own(table, interaction.user.id, lang, letters)
                    await interaction.response.edit_message(embed=embed, view=view,
                                                            **edit_files(embed, picture))
                return
            except Refusal:
                pass
        await say(interaction, text)


def _seated(table: Table, user_id: int) -> None:
    """Refuse someone with no seat at ``table``: a closed table says so; an open one says
    whose turn it is, if anyone's."""
    if table.seat_of(user_id) is not None:
        return
    if not table.is_open:
        raise NotPlaying("ended")
    raise NotSeated(turn_of=table.name_to_act())


def _is_ephemeral(interaction: discord.Interaction[Any]) -> bool:
    message = interaction.message
    return message is not None and message.flags.ephemeral


def _action(act: str, arg: str, values: list[str]) -> Action:
    """The engine action a button or select stands for."""
    try:
        if act == "give":
            card, _, to = arg.partition(".")
            return Action.give(Card.parse(card), int(to))
        if act == "play":
            return Action.play(Card.parse(values[0] if values else arg))
        return Action.parse(act)
    except (CardError, ValueError, IndexError):
        raise InputError("action") from None


async def setup(bot: NLKBot) -> None:
    """Loaded by the bot's ``setup_hook``."""
    await bot.add_cog(NLK(bot))
