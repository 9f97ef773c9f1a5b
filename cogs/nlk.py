"""``/nlk`` commands and every NLK button: interaction in → table service → render out."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.errors import NoTable, Refusal, Stale, TableExists, WrongState
from bot.tables import Table, TableService
from rules import Action, Card, CardError, Variant

from . import render
from .replies import describe, say
from .updates import TableUpdater

if TYPE_CHECKING:
    from bot.client import NLKBot

log = logging.getLogger(__name__)

GAME_ACTIONS = {"draw", "keep", "give", "play", "take"}


def jump_url(guild_id: int | None, channel_id: int, message_id: int | None) -> str:
    if message_id is None:
        return f"<#{channel_id}>"
    return f"https://discord.com/channels/{guild_id or '@me'}/{channel_id}/{message_id}"


def display_name(user: discord.abc.User) -> str:
    return (getattr(user, "display_name", None) or user.name)[:64]


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
        self.updater = TableUpdater(bot, self.service)
        bot.nlk_router = self  # where NLK buttons find their handler

    async def cog_unload(self) -> None:
        await self.updater.close()

    # --- slash commands --------------------------------------------------------------------

    @nlk.command(name="new")
    @app_commands.describe(
        seats="How many seats (2–9; six is best)",
        last_card="Whether the last talon card must be kept (McLeod) or may be given away",
        must_beat_in_suit="Forbid trumping while you can beat in suit (the French rule)",
    )
    @app_commands.choices(last_card=[
        app_commands.Choice(name="keep — the drawer keeps it (McLeod)", value="keep"),
        app_commands.Choice(name="free — it may be given away", value="free"),
    ])
    async def new(self, interaction: discord.Interaction[Any],
                  seats: app_commands.Range[int, 2, 9] = 6, last_card: str = "keep",
                  must_beat_in_suit: bool = False) -> None:
        """Open an NLK table in this channel."""
        assert interaction.channel_id is not None
        try:
            table = await self.service.create(
                interaction.guild_id, interaction.channel_id, interaction.user.id,
                display_name(interaction.user), seats, Variant(last_card, must_beat_in_suit))
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
        await self._after_change(interaction, table, before, after)

    async def _after_change(self, interaction: discord.Interaction[Any], table: Table,
                            before: int | None, after: int | None) -> None:
        """Ping whoever must act now; announce the end of a hand."""
        view = table.public_view()
        if view is not None and view.is_over and table.status == "over" and before is not None:
            await self.updater.clear_ping(table)
            assert view.loser is not None
            order = ", ".join(render.name(view.players[s]) for s in view.out)
            await interaction.followup.send(
                f"Hand {table.hand_number} is over: **{render.name(view.players[view.loser])} "
                f"loses** and deals next. Finishing order: {order}.",
                allowed_mentions=discord.AllowedMentions.none())
        elif not table.is_open or table.status == "lobby":
            await self.updater.clear_ping(table)
        elif after is not None and after not in (before, interaction.user.id):
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
