"""The practice buttons and menus that receive clicks, before or after a restart: each
custom id (``cogs/practice/ids.py``) names the hand, its version and the act, parsed once
here and handed to the practice's answers (``cogs/practice/handler.py``)."""

from __future__ import annotations

import re
from typing import Any, Protocol

import discord

from cogs.answers.interaction import let_go
from cogs.client import Interaction
from cogs.practice import ids
from cogs.routes.families import refusing


class PracticeRouter(Protocol):
    """Where the practice buttons hand their clicks."""

    async def click(self, interaction: Interaction, hand: int, version: int, act: str
                    ) -> None: ...

    async def unknown(self, interaction: Interaction) -> None: ...


def practice_families(practices: PracticeRouter
                      ) -> tuple[type[discord.ui.DynamicItem[Any]], ...]:
    """The practice's button families, each handing its clicks to ``practices``."""

    class PracticeStep(discord.ui.DynamicItem[discord.ui.Item[Any]], template=ids.TEMPLATE):
        """A move, a card picked from a menu, the Hint, or another hand."""

        def __init__(self, item: discord.ui.Item[Any], hand: int, version: int, act: str
                     ) -> None:
            super().__init__(item)
            self.hand, self.version, self.act = hand, version, act

        @classmethod
        async def from_custom_id(cls, interaction: discord.Interaction[Any],
                                 item: discord.ui.Item[Any], match: re.Match[str]
                                 ) -> PracticeStep:
            return cls(item, *ids.parse(match))

        async def callback(self, interaction: discord.Interaction[Any]) -> None:
            act = self.act
            if act.startswith("pick"):  # a menu's card: its value is the move
                values = getattr(self.item, "values", None) or [""]
                act = str(values[0])
            try:
                await practices.click(interaction, self.hand, self.version, act)
            finally:
                let_go(interaction)

    return (PracticeStep,
            refusing("UnknownPractice", ids.UNKNOWN, lambda ix: practices.unknown(ix)))
