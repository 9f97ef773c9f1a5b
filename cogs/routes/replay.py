"""The replay buttons that receive clicks, before or after a restart: each custom id
(``cogs/replay/ids.py``) names its replay and step, parsed once here and handed to the
replay answers (``cogs/replay/handler.py``) that ``replay_families`` is given."""

from __future__ import annotations

import re
from typing import Any

import discord

from cogs.answers.interaction import let_go
from cogs.client import ReplayRouter
from cogs.replay import ids
from cogs.routes.families import Families, refusing


def replay_families(replays: ReplayRouter) -> Families:
    """The replay button families, each handing its clicks to ``replays``."""

    class ReplayStep(discord.ui.DynamicItem[discord.ui.Item[Any]], template=ids.TEMPLATE):
        """⏮ ◀ ▶ ⏭, Show in channel, and the jump menu of a replay message."""

        def __init__(self, item: discord.ui.Item[Any], ref: str, step: int, act: ids.Act
                     ) -> None:
            super().__init__(item)
            self.ref, self.step, self.act = ref, step, act

        @classmethod
        async def from_custom_id(cls, interaction: discord.Interaction[Any],
                                 item: discord.ui.Item[Any], match: re.Match[str]
                                 ) -> ReplayStep:
            return cls(item, *ids.parse(match))

        async def callback(self, interaction: discord.Interaction[Any]) -> None:
            values = list(self.item.values) if isinstance(self.item, discord.ui.Select) \
                else []
            try:
                await replays.click(interaction, self.ref, self.step, self.act, values)
            finally:
                let_go(interaction)

    return (ReplayStep, refusing("UnknownReplay", ids.UNKNOWN, lambda ix: replays.unknown(ix)))
