"""What the cogs know of the bot that runs them, typed, and where clicks go.

Start-up (``bot/client.py``) makes the bot and its services; the composition root
(``cogs/compose.py``) builds the cog's parts from them and hands each family of buttons its
handler. So the cogs read nothing off the bot object but discord.py's own API and the little
``NLKClient`` says: no attribute is set on it later for a cog to find.
"""

from __future__ import annotations

from typing import Protocol

import discord
from discord.ext import commands

from bot.tasks import Scope
from cogs.replay.ids import Act as ReplayAct
from cogs.widgets.ids import Look, Move, Seating, Target

# Every interaction the bot answers (the bot is a discord.py ``commands.Bot``).
Interaction = discord.Interaction[commands.Bot]


class NLKClient(Protocol):
    """What the NLK cog needs of the bot that runs it, besides discord.py's API."""

    @property
    def command_ids(self) -> dict[int | None, int]:
        """``/nlk``'s published id: per server, None for the global one."""
        ...

    @property
    def lifetime(self) -> Scope:
        """The bot's lifetime: background work started in it stops when the bot does."""
        ...


class Router(Protocol):
    """Where the button and select families hand their clicks, parsed."""

    async def move(self, interaction: Interaction, target: Target, move: Move,
                   values: list[str]) -> None: ...

    async def seat(self, interaction: Interaction, target: Target, act: Seating) -> None: ...

    async def look(self, interaction: Interaction, target: Target, look: Look) -> None: ...

    async def page(self, interaction: Interaction, target: Target) -> None: ...

    async def rule(self, interaction: Interaction, target: Target) -> None: ...

    async def unknown(self, interaction: Interaction, target: Target) -> None: ...


class ReplayRouter(Protocol):
    """Where the replay buttons hand their clicks."""

    async def click(self, interaction: Interaction, ref: str, at: int, act: ReplayAct,
                    values: list[str]) -> None: ...

    async def unknown(self, interaction: Interaction) -> None: ...


class BoardRouter(Protocol):
    """Where the leaderboard's season buttons hand their clicks."""

    async def page(self, interaction: Interaction, key: str, players: int,
                   page: int) -> None: ...
