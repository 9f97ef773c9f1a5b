"""Choosing how cards look: ``/nlk settings pictures`` for a server, ``/nlk cards`` for a
player's own cards."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands

from cogs.answers.interaction import place_of
from cogs.client import Interaction
from cogs.i18n.translator import L_, lang_of
from cogs.pictures import FOLLOW_SERVER, SERVER_DEFAULT
from rules.i18n import N_, Lang, translator

if TYPE_CHECKING:
    from bot.guilds.service import GuildService
    from cogs.pictures import Pictures

COLOUR = discord.Colour(0x2E7D32)  # the bot's colour (render.COLOUR)

PICTURES_CHOICES = [
    app_commands.Choice(name=L_("on — cards as pictures"), value="on"),
    app_commands.Choice(name=L_("four-colour — ♠ black, ♥ red, ♦ blue, ♣ green"),
                        value="four-colour"),
    app_commands.Choice(name=L_("off — cards as text"), value="off"),
]
CARDS_CHOICES = [
    app_commands.Choice(name=L_("as the server shows them"), value=FOLLOW_SERVER),
    app_commands.Choice(name=L_("pictures"), value="pictures"),
    app_commands.Choice(name=L_("four-colour pictures — ♠ black, ♥ red, ♦ blue, ♣ green"),
                        value="four-colour"),
    app_commands.Choice(name=L_("text only"), value="text"),
]
SERVER_WORDS = {"on": N_("pictures"), "four-colour": N_("four-colour pictures"),
                "off": N_("text only")}


def pictures_value(chosen: str | None, lang: Lang) -> str:
    """A server's picture setting in words."""
    return translator(lang).gettext(SERVER_WORDS.get(chosen or SERVER_DEFAULT, "pictures"))


async def cards_command(interaction: Interaction, servers: GuildService,
                        pictures: Pictures, style: str | None) -> None:
    """Show, or with ``style`` save, how the player sees their own cards."""
    lang = lang_of(interaction)
    _ = translator(lang).gettext
    user_id = interaction.user.id
    if style is not None:
        chosen = await servers.set_card_style(user_id, style)
        pictures.styles.player_changed(user_id, chosen)
    else:
        chosen = await servers.card_style(user_id)
    server = (await servers.settings(place_of(interaction))).pictures
    here = pictures_value(server, lang)
    if chosen is None:
        said = _("Your cards show as this server shows them: {style}.").format(style=here)
    else:
        words = {"pictures": _("pictures"), "four-colour": _("four-colour pictures"),
                 "text": _("text only")}[chosen]
        said = _("Your cards show as {style}, in every server (this server shows "
                 "{server}).").format(style=words, server=here)
    if style is not None:
        said = _("Saved.") + " " + said + " " + _("Open your hand again to see it.")
    embed = discord.Embed(title=_("Your cards"), colour=COLOUR, description=said)
    await interaction.response.send_message(embed=embed, ephemeral=True)
