"""The seasonal board buttons that receive clicks, before or after a restart: each custom
id (``cogs/render/seasons.py``) names a season (or all-time), a table size and a page."""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.errors import InputError
from cogs.answers.interaction import let_go
from cogs.answers.replies import describe, say
from cogs.client import BoardRouter, Interaction
from cogs.i18n.translator import lang_of
from cogs.render.seasons import TEMPLATE
from cogs.routes.families import Families, refusing


def season_families(boards: BoardRouter) -> Families:
    """The season board button families, each handing its clicks to ``boards``."""

    class BoardButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=TEMPLATE):
        """A season, a size or a page of the boards."""

        def __init__(self, item: discord.ui.Button[Any], season: str, players: int, page: int
                     ) -> None:
            super().__init__(item)
            self.season, self.players, self.page = season, players, page

        @classmethod
        async def from_custom_id(cls, interaction: discord.Interaction[Any],
                                 item: discord.ui.Item[Any], match: re.Match[str]
                                 ) -> BoardButton:
            assert isinstance(item, discord.ui.Button)
            return cls(item, match["season"], int(match["players"]), int(match["page"]))

        async def callback(self, interaction: discord.Interaction[Any]) -> None:
            try:
                await boards.page(interaction, self.season, self.players, self.page)
            finally:
                let_go(interaction)

    async def refuse(interaction: Interaction) -> None:
        await say(interaction, describe(InputError(), lang_of(interaction))[0])

    # A board-shaped id no version of the buttons made (forged or damaged): refused.
    return (BoardButton, refusing("UnknownBoard", rf"(?!{TEMPLATE}$)nlkb:.{{0,95}}", refuse))
