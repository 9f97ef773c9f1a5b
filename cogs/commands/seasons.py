"""``/nlk stats`` while the server plays in seasons: the current season's board (after a
season ends, each reader's first look shows its podium too), and the board buttons that go
to all-time, the other seasons, the sizes and the pages. Only the reader sees them.
"""

from __future__ import annotations

import logging

from discord import app_commands

from bot.guilds.seasons import MONTHLY, QUARTERLY, Season
from bot.guilds.service import GuildService
from cogs.answers.interaction import place_of
from cogs.answers.replies import describe, say
from cogs.client import Interaction
from cogs.i18n.translator import L_, lang_of
from cogs.render.seasons import ALL_TIME, all_time_board, podium, season_board
from rules.i18n import N_, Lang, translator

log = logging.getLogger(__name__)

SEASON_CHOICES = [
    app_commands.Choice(name=L_("off — all-time boards only"), value="off"),
    app_commands.Choice(name=L_("monthly — a new season each calendar month (UTC)"),
                        value=MONTHLY),
    app_commands.Choice(name=L_("quarterly — a new season every three months (UTC)"),
                        value=QUARTERLY),
]
SEASON_VALUES = {None: N_("off (all-time only)"), MONTHLY: N_("monthly"),
                 QUARTERLY: N_("quarterly")}


def seasons_value(kind: str | None, lang: Lang) -> str:
    """The setting as ``/nlk settings`` shows it."""
    return translator(lang).gettext(SEASON_VALUES.get(kind, SEASON_VALUES[None]))


class SeasonBoards:
    """Reads the boards for one answer at a time; keeps nothing."""

    def __init__(self, servers: GuildService) -> None:
        self.servers = servers
        self.seasons = servers.seasons

    async def stats(self, interaction: Interaction, size: int | None) -> bool:
        """Answer ``/nlk stats`` with the current season's board; False (nothing sent) when
        the server plays without seasons."""
        guild_id = place_of(interaction)
        kind = await self.seasons.kind(guild_id)
        if kind is None:
            return False
        lang = lang_of(interaction)
        embed, view = season_board(await self.seasons.board(guild_id, kind, None, 0, size),
                                   lang)
        embeds = [embed]
        ended = await self.seasons.podium_to_show(guild_id, interaction.user.id, kind)
        if ended is not None:
            embeds.insert(0, podium(*ended, lang))
        await interaction.response.send_message(embeds=embeds, view=view, ephemeral=True)
        return True

    async def page(self, interaction: Interaction, key: str, players: int,
                   page: int) -> None:
        """A board button: a season (or all-time), a size, a page."""
        lang = lang_of(interaction)
        try:
            guild_id = place_of(interaction)
            kind = await self.seasons.kind(guild_id)
            if key == ALL_TIME:
                board = await self.servers.leaderboard(guild_id, page, players or None)
                seasons = await self.seasons.played(guild_id, kind) if kind else []
                embed, view = all_time_board(board, seasons, lang)
            else:
                season = Season.parse(key)
                if season is None:
                    raise ValueError(key)
                kind = QUARTERLY if season.months == 3 else MONTHLY
                embed, view = season_board(await self.seasons.board(
                    guild_id, kind, season, page, players or None), lang)
            await interaction.response.edit_message(embeds=[embed], view=view)
        except Exception as error:  # a refusal, or a code for the reader and the log
            await say(interaction, describe(error, lang)[0])
