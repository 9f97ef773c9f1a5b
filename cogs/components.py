"""Buttons and selects that survive restarts: their custom ids carry the table and version.

They are ``DynamicItem``s the NLK cog registers when it loads, so any NLK button ever sent —
before or after a restart — reaches the cog's router, found by ``get_cog``.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

import discord
from discord.ext import commands

from . import ids


class Router(Protocol):
    async def on_component(self, interaction: discord.Interaction[Any], custom_id: str,
                           values: list[str]) -> None: ...


class Buttons(discord.ui.View):
    """The buttons of one message, to send and forget.

    Every NLK button is a ``DynamicItem`` found by its custom id, so discord.py need not keep
    the view once it is sent. The view is stopped at once so that discord.py doesn't: it
    would otherwise hold each ephemeral hand's view for 15 minutes.
    """

    def __init__(self) -> None:
        super().__init__(timeout=None)
        self.stop()


ROUTER_COG = "NLK"


def router_of(interaction: discord.Interaction[Any]) -> Router:
    client = interaction.client
    cog = client.get_cog(ROUTER_COG) if isinstance(client, commands.Bot) else None
    if cog is None:
        raise RuntimeError("the NLK cog is not loaded")
    router: Router = cog  # type: ignore[assignment]
    return router


class NLKButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=ids.BUTTON_TEMPLATE):
    """Any button on an NLK message."""

    def __init__(self, custom_id: str, label: str,
                 style: discord.ButtonStyle = discord.ButtonStyle.secondary,
                 row: int | None = None, *, disabled: bool = False) -> None:
        super().__init__(discord.ui.Button(custom_id=custom_id, label=label[:80], style=style,
                                           disabled=disabled), row=row)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> NLKButton:
        button = item if isinstance(item, discord.ui.Button) else None
        return cls(match.string, (button.label if button else None) or "",
                   button.style if button else discord.ButtonStyle.secondary)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await router_of(interaction).on_component(interaction, self.item.custom_id or "", [])


class NLKSelect(discord.ui.DynamicItem[discord.ui.Select[Any]], template=ids.SELECT_TEMPLATE):
    """A select menu of cards (used when a hand has too many legal plays for buttons)."""

    def __init__(self, custom_id: str, placeholder: str,
                 options: list[discord.SelectOption], row: int | None = None) -> None:
        super().__init__(discord.ui.Select(custom_id=custom_id, placeholder=placeholder[:150],
                                           options=options, min_values=1, max_values=1),
                         row=row)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> NLKSelect:
        select = item if isinstance(item, discord.ui.Select) else None
        options = list(select.options) if select else [discord.SelectOption(label="?")]
        return cls(match.string, (select.placeholder if select else None) or "", options)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await router_of(interaction).on_component(interaction, self.item.custom_id or "",
                                                  list(self.item.values))
