"""``/nlk`` commands and every NLK button: interaction in → table service → render out."""

from __future__ import annotations

import io
import json
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.errors import NoTable, NotAllowed, Refusal, Stale, TableExists, WrongState
from bot.repository import GuildSettings
from bot.tables import Table, TableService, stored_action
from rules import Action, Card, CardError, Variant
from rules.replay import Replay

from . import render, stats
from .autoplay import Autoplay
from .replies import describe, say
from .updates import TableUpdater

if TYPE_CHECKING:
    from bot.client import NLKBot

log = logging.getLogger(__name__)

GAME_ACTIONS = {"draw", "keep", "give", "play", "take"}
MIN_TURN_SECONDS = 15
LAST_CARD_CHOICES = [
    app_commands.Choice(name="keep — the drawer keeps it (McLeod)", value="keep"),
    app_commands.Choice(name="free — it may be given away", value="free"),
]


def jump_url(guild_id: int | None, channel_id: int, message_id: int | None) -> str:
    if message_id is None:
        return f"<#{channel_id}>"
    return f"https://discord.com/channels/{guild_id or '@me'}/{channel_id}/{message_id}"


def display_name(user: discord.abc.User) -> str:
    return (getattr(user, "display_name", None) or user.name)[:64]


def check_timer(seconds: int) -> int:
    if 0 < seconds < MIN_TURN_SECONDS:
        raise WrongState(f"A turn timer needs at least {MIN_TURN_SECONDS} seconds (or 0 for "
                         "none).")
    return seconds


def is_moderator(interaction: discord.Interaction[Any]) -> bool:
    perms = interaction.permissions
    return bool(perms.manage_channels or perms.administrator)


class NLK(commands.Cog):
    """NLK tables in channels."""

    nlk = app_commands.Group(name="nlk", description="Play NLK, the Hungarian card game.",
                             guild_only=True)

    def __init__(self, bot: NLKBot) -> None:
        self.bot = bot
        self.service: TableService = bot.service
        self.updater = TableUpdater(bot, self.service, edits_per_window=bot.channel_edits)
        self.autoplay = Autoplay(bot, self.service, self.updater, pool=bot.ai_pool,
                                 ai_delay=bot.ai_delay, budget_ms=bot.ai_budget_ms,
                                 idle_seconds=bot.idle_seconds)
        bot.nlk_router = self  # where NLK buttons find their handler
        bot.on_stop(self.stop)

    async def stop(self) -> None:
        """Stop the clocks first (they post and edit), then the message updates."""
        await self.autoplay.close()
        await self.updater.close()

    async def cog_unload(self) -> None:
        await self.stop()

    def resume(self, tables: list[Table]) -> None:
        """After a restart: bring every table message up to date and restart the clocks."""
        for table in tables:
            self.updater.request(table)
            self.autoplay.poke(table)
        self.autoplay.start_idle_sweeps()

    # --- slash commands --------------------------------------------------------------------

    @nlk.command(name="new")
    @app_commands.describe(
        seats="How many seats (2–9; six is best). Default: the server's setting",
        last_card="Whether the last talon card must be kept (McLeod) or may be given away",
        must_beat_in_suit="Forbid trumping while you can beat in suit (the French rule)",
        turn_timer="Seconds per turn before a stand-in plays it (0: no timer)",
    )
    @app_commands.choices(last_card=LAST_CARD_CHOICES)
    async def new(self, interaction: discord.Interaction[Any],
                  seats: app_commands.Range[int, 2, 9] | None = None,
                  last_card: str | None = None, must_beat_in_suit: bool | None = None,
                  turn_timer: app_commands.Range[int, 0, 3600] | None = None) -> None:
        """Open an NLK table in this channel."""
        assert interaction.channel_id is not None
        defaults = await self.service.repo.guild_settings(interaction.guild_id)
        variant = Variant(last_card or defaults.last_card,
                          defaults.must_beat_in_suit if must_beat_in_suit is None
                          else must_beat_in_suit)
        timer = check_timer(defaults.turn_seconds if turn_timer is None else turn_timer)
        try:
            table = await self.service.create(
                interaction.guild_id, interaction.channel_id, interaction.user.id,
                display_name(interaction.user), seats or defaults.seats, variant, timer)
        except TableExists as exists:
            link = jump_url(interaction.guild_id, interaction.channel_id, exists.message_id)
            await say(interaction, f"{exists} It's here: {link}")
            return
        async with self.service.lock(table.id):
            revision, embed, view = table.revision, render.table_embed(table), \
                render.table_view(table)
        callback = await interaction.response.send_message(embed=embed, view=view)
        message_id = callback.message_id or (await interaction.original_response()).id
        await self.service.set_message(table, message_id)
        self.updater.shown(table, revision)

    @nlk.command(name="hand")
    async def hand(self, interaction: discord.Interaction[Any]) -> None:
        """Show your cards (only you see them)."""
        table = await self._table_here(interaction)
        if table.seat_of(interaction.user.id) is None:
            raise NoTable("You're not playing in this channel's current hand.")
        async with self.service.lock(table.id):
            embed, view = render.hand_message(table, interaction.user.id)
        await interaction.response.send_message(embed=embed, view=view, ephemeral=True)

    @nlk.command(name="leave")
    async def leave(self, interaction: discord.Interaction[Any]) -> None:
        """Leave this channel's table before it starts."""
        table = await self._table_here(interaction)
        async with self.service.lock(table.id):
            await self.service.leave(table, interaction.user.id)
        await interaction.response.send_message("You left the table.", ephemeral=True)
        self.updater.request(table)

    @nlk.command(name="end")
    async def end(self, interaction: discord.Interaction[Any]) -> None:
        """End this channel's table (host, or anyone who can manage the channel)."""
        table = await self._table_here(interaction)
        async with self.service.lock(table.id):
            await self.service.end(table, interaction.user.id,
                                   moderator=is_moderator(interaction))
        self.autoplay.poke(table)
        await self.updater.clear_ping(table)
        await interaction.response.send_message(
            f"NLK table {table.id} was ended by {render.name(display_name(interaction.user))}.",
            allowed_mentions=discord.AllowedMentions.none())
        self.updater.request(table)

    @nlk.command(name="rules")
    async def rules(self, interaction: discord.Interaction[Any]) -> None:
        """A short summary of the rules at this channel's table."""
        try:
            variant = (await self._table_here(interaction)).variant
        except NoTable:
            variant = Variant()
        embed = discord.Embed(title="How to play NLK", colour=render.COLOUR,
                              description=render.rules_text(variant))
        await interaction.response.send_message(embed=embed, ephemeral=True)

    @nlk.command(name="stats")
    @app_commands.describe(user="Show one player's numbers instead of the leaderboard")
    async def stats(self, interaction: discord.Interaction[Any],
                    user: discord.User | discord.Member | None = None) -> None:
        """The server's NLK leaderboard, or one player's numbers by table size."""
        assert interaction.guild_id is not None
        if user is not None:
            embed = await stats.player(self.service.repo, interaction.guild_id, user.id,
                                       display_name(user))
            await interaction.response.send_message(embed=embed)
            return
        embed, view = await stats.leaderboard(self.service.repo, interaction.guild_id, 0)
        await interaction.response.send_message(embed=embed, view=view)

    @nlk.command(name="export")
    async def export(self, interaction: discord.Interaction[Any]) -> None:
        """Attach this channel's last finished hand as an nlk-replay/1 file."""
        assert interaction.channel_id is not None
        hand = await self.service.repo.last_finished_hand_in(interaction.channel_id)
        if hand is None:
            raise NoTable("No hand has finished in this channel yet: a hand is exported only "
                          "once it is over.")
        actions = await self.service.repo.actions(hand["id"])
        replay = Replay(
            tuple(json.loads(hand["names"])),
            Variant(hand["last_card"], bool(hand["must_beat_in_suit"])),
            {"dealer": hand["dealer"], "deck": json.loads(hand["deck"])},
            tuple((a["seat"], stored_action(a)) for a in actions),
        ).to_json()
        replay["seed"] = hand["seed"]  # with the deck: anyone can check the deal was fair
        data = (json.dumps(replay, ensure_ascii=False) + "\n").encode("utf-8")
        filename = f"nlk-table{hand['table_id']}-hand{hand['number']}.json"
        await interaction.response.send_message(
            f"Hand {hand['number']} of table {hand['table_id']}. Replay it with "
            f"`python -m rules replay {filename}`.",
            file=discord.File(io.BytesIO(data), filename=filename))

    @nlk.command(name="settings")
    @app_commands.describe(
        seats="Default seats for new tables (2–9)",
        last_card="Default for the last talon card",
        must_beat_in_suit="Default for the must-beat-in-suit rule",
        turn_timer="Default seconds per turn (0: no timer)",
        allow_ai="Whether hosts may add AI players",
    )
    @app_commands.choices(last_card=LAST_CARD_CHOICES)
    async def settings(self, interaction: discord.Interaction[Any],
                       seats: app_commands.Range[int, 2, 9] | None = None,
                       last_card: str | None = None, must_beat_in_suit: bool | None = None,
                       turn_timer: app_commands.Range[int, 0, 3600] | None = None,
                       allow_ai: bool | None = None) -> None:
        """This server's defaults for new NLK tables (needs Manage Server to change)."""
        assert interaction.guild_id is not None
        current = await self.service.repo.guild_settings(interaction.guild_id)
        changes = {k: v for k, v in {"seats": seats, "last_card": last_card,
                                     "must_beat_in_suit": must_beat_in_suit,
                                     "turn_seconds": turn_timer, "allow_ai": allow_ai}.items()
                   if v is not None}
        if changes:
            perms = interaction.permissions
            if not (perms.manage_guild or perms.administrator):
                raise NotAllowed("Changing the server's NLK settings needs the Manage Server "
                                 "permission.")
            check_timer(changes.get("turn_seconds", 0))
            current = GuildSettings(**{**current.__dict__, **changes})
            await self.service.repo.save_guild_settings(interaction.guild_id, current)
        embed = discord.Embed(title="NLK settings for this server", colour=render.COLOUR,
                              description="Saved." if changes else "Current defaults:")
        embed.add_field(name="Seats", value=str(current.seats))
        embed.add_field(name="Rules", value=render.variant_line(
            Variant(current.last_card, current.must_beat_in_suit)))
        embed.add_field(name="Turn timer", value=render.timer_line(current.turn_seconds))
        embed.add_field(name="AI players", value="allowed" if current.allow_ai else "off")
        await interaction.response.send_message(embed=embed, ephemeral=True)

    async def _table_here(self, interaction: discord.Interaction[Any]) -> Table:
        assert interaction.channel_id is not None
        return await self.service.in_channel(interaction.channel_id)

    # --- buttons ---------------------------------------------------------------------------

    async def on_component(self, interaction: discord.Interaction[Any], table_id: int,
                           version: int | None, action: str, arg: str,
                           values: list[str]) -> None:
        """Every NLK button and select lands here."""
        try:
            await self._component(interaction, table_id, version, action, arg, values)
        except Exception as error:
            await self._refuse(interaction, table_id, error)

    async def _component(self, interaction: discord.Interaction[Any], table_id: int,
                         version: int | None, action: str, arg: str,
                         values: list[str]) -> None:
        user = interaction.user
        if action == "hand":
            await self._show_hand(interaction, table_id)
            return
        if action == "stats":
            assert interaction.guild_id is not None
            embed, view = await stats.leaderboard(self.service.repo, interaction.guild_id,
                                                  int(arg or 0))
            await interaction.response.edit_message(embed=embed, view=view)
            return
        async with self.service.lock(table_id):
            table = await self.service.get(table_id)
            before = table.user_to_act()
            if action in GAME_ACTIONS:
                if version is None:
                    raise Stale("That button is out of date.")
                await self.service.act(table, user.id, version,
                                       _action(action, arg, values))
            elif action == "join":
                await self.service.join(table, user.id, display_name(user))
            elif action == "leave":
                await self.service.leave(table, user.id)
            elif action == "start":
                await self.service.start(table, user.id)
            elif action == "cancel":
                await self.service.cancel(table, user.id)
            elif action == "next":
                await self.service.next_hand(table, user.id)
            elif action == "end":
                await self.service.end(table, user.id, moderator=is_moderator(interaction))
            elif action == "addai":
                allowed = (await self.service.repo.guild_settings(table.guild_id)).allow_ai
                await self.service.add_ai(table, user.id, arg.lower(), allowed=allowed)
            elif action == "removeai":
                await self.service.remove_ai(table, user.id)
            elif action == "back":
                await self.service.back(table, user.id)
            else:
                raise Stale("That button is from an older version of the bot.")
            revision = table.revision
            # Game and lobby buttons live on the public table message or on a player's own
            # ephemeral hand; the id may not be stored yet if a click beat /nlk new's reply.
            on_table = not _is_ephemeral(interaction)
            if on_table:
                embed, view = render.table_embed(table), render.table_view(table)
            else:
                embed, view = render.hand_message(table, user.id)
            after = table.user_to_act()
        await interaction.response.edit_message(embed=embed, view=view)
        if on_table:
            self.updater.shown(table, revision)
        else:
            self.updater.request(table)
        self.autoplay.poke(table)
        await self._after_change(interaction, table, before, after)

    async def _after_change(self, interaction: discord.Interaction[Any], table: Table,
                            before: int | None, after: int | None) -> None:
        """Ping whoever must act now; announce the end of a hand."""
        view = table.public_view()
        if view is not None and view.is_over and table.status == "over" and before is not None:
            await self.updater.announce_end(table, interaction)
        elif not table.is_open or table.status == "lobby":
            await self.updater.clear_ping(table)
        elif after is not None and after not in (before, interaction.user.id) and \
                table.ai_to_act() is None:
            await self.updater.ping(table, interaction)

    async def _show_hand(self, interaction: discord.Interaction[Any], table_id: int) -> None:
        async with self.service.lock(table_id):
            table = await self.service.get(table_id)
            if table.seat_of(interaction.user.id) is None:
                view = table.public_view()
                who = (f" It's {render.name(view.players[view.to_act])}'s turn."
                       if view is not None and view.to_act is not None else "")
                raise NoTable(f"You're not playing at this table.{who}")
            embed, view_ = render.hand_message(table, interaction.user.id)
        if _is_ephemeral(interaction):
            await interaction.response.edit_message(embed=embed, view=view_)
        else:
            await interaction.response.send_message(embed=embed, view=view_, ephemeral=True)

    async def _refuse(self, interaction: discord.Interaction[Any], table_id: int,
                      error: Exception) -> None:
        """Refuse politely; on a player's own hand message, redraw it as it is now."""
        text, expected = describe(error)
        if expected and _is_ephemeral(interaction) and not interaction.response.is_done():
            try:
                async with self.service.lock(table_id):
                    table = await self.service.get(table_id)
                    embed, view = render.hand_message(table, interaction.user.id, note=text)
                await interaction.response.edit_message(embed=embed, view=view)
                return
            except Refusal:
                pass
        await say(interaction, text)


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
        raise WrongState("That button doesn't make sense any more; nothing changed.") from None


async def setup(bot: NLKBot) -> None:
    await bot.add_cog(NLK(bot))
