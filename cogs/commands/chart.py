"""``/nlk stats user:``: the player's numbers with, under them, a chart of their rating after
each hand at one table size (the size asked for, else the one they played most), or for a
reader who chose text only, the sentence that sums it up. Only the reader sees it."""

from __future__ import annotations

import asyncio
import logging

import discord

from bot.guilds.service import GuildService, PlayerStats
from cogs.client import Interaction
from cogs.i18n.translator import lang_of
from cogs.pictures import OFF, Pictures
from cogs.pictures.chart import CHART_FILE, draw_chart, summary
from cogs.render import stats
from cogs.transport.files import MemoryFile
from rules.i18n import translator

log = logging.getLogger(__name__)


async def send_player(interaction: Interaction, servers: GuildService,
                      pictures: Pictures, guild_id: int, user_id: int, name: str,
                      size: int | None) -> None:
    """The player's numbers and their rating chart, privately, in the reader's language."""
    lang = lang_of(interaction)
    # Where else you played is yours to see: never shown of someone else.
    own = user_id == interaction.user.id
    numbers: PlayerStats = await servers.player(guild_id, user_id, everywhere=own)
    known = {place: guild.name for place, _hands in numbers.elsewhere
             if (guild := interaction.client.get_guild(place)) is not None}
    embed = stats.player(name, numbers, lang, known)
    files: list[discord.File] = []
    if numbers.sizes:
        played = {s.players: s.hands for s in numbers.sizes}
        players = size if size in played else max(played, key=lambda n: (played[n], -n))
        ratings = [r.shown for r in await servers.repo.ratings.rating_history(
            guild_id, user_id, players)]
        if ratings:
            _ = translator(lang).gettext
            n_ = translator(lang).ngettext
            sentence = summary(ratings, lang)
            label = n_("Rating at tables of {count} player", "Rating at tables of {count} "
                       "players", players).format(count=players)
            style = OFF
            try:
                style = await pictures.styles.private(interaction.user.id, guild_id)
            except Exception:
                log.warning("could not read a card style; the chart goes as text",
                            exc_info=True)
            png = None
            if style != OFF and pictures.ready():
                try:
                    png = await asyncio.to_thread(draw_chart, ratings, _("(provisional)"),
                                                  lang, pictures.fonts)
                except Exception:
                    log.warning("could not draw a rating chart; sending its sentence",
                                exc_info=True)
            embed.add_field(name=label, value=sentence, inline=False)
            if png is not None:
                embed.set_image(url=f"attachment://{CHART_FILE}")
                files.append(MemoryFile(png, CHART_FILE, description=sentence))
    if files:
        await interaction.response.send_message(embed=embed, files=files, ephemeral=True)
    else:
        await interaction.response.send_message(embed=embed, ephemeral=True)
