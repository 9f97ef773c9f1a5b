"""The bot as the cogs know it: what start-up hands them, typed, and where clicks go.

``NLKClient`` is the discord.py bot class every interaction carries
(``Interaction``): a DynamicItem reaches its handler as ``client_of(interaction).router``
(or ``.replays``, ``.boards``), attributes set when the NLK cog is made, not a cog found by
name. Start-up (``bot/client.py``) makes the bot, the services and the cog, in that
order, and fills these in.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import discord
from discord.ext import commands

from bot.cluster.shards import Shards
from bot.db.storage import Database
from bot.guilds.service import GuildService
from bot.tables.clocks import Clocks
from bot.tables.service import TableService
from cogs.replay.ids import Act as ReplayAct
from cogs.widgets.ids import Look, Move, Seating, Target


class Router(Protocol):
    """Where the button and select families hand their clicks, parsed."""

    async def move(self, interaction: Interaction, target: Target, move: Move,
                   values: list[str]) -> None: ...

    async def seat(self, interaction: Interaction, target: Target, act: Seating) -> None: ...

    async def look(self, interaction: Interaction, target: Target, look: Look) -> None: ...

    async def page(self, interaction: Interaction, target: Target) -> None: ...

    async def unknown(self, interaction: Interaction, target: Target) -> None: ...


class ReplayRouter(Protocol):
    """Where the replay buttons hand their clicks."""

    async def click(self, interaction: discord.Interaction[NLKClient], ref: str, at: int,
                    act: ReplayAct, values: list[str]) -> None: ...

    async def unknown(self, interaction: discord.Interaction[NLKClient]) -> None: ...


class BoardRouter(Protocol):
    """Where the leaderboard's season buttons hand their clicks."""

    async def page(self, interaction: discord.Interaction[NLKClient], key: str, players: int,
                   page: int) -> None: ...


class NLKClient(commands.Bot):
    """A discord.py bot that runs NLK tables (the start-up's ``NLKBot`` is one)."""

    service: TableService
    servers: GuildService
    clocks: Clocks
    router: Router  # the NLK cog's click handlers
    replays: ReplayRouter  # the replay buttons' handlers
    boards: BoardRouter  # the season board buttons' handlers
    channel_edits: int  # channel posts and edits per 5 s
    shard_range: Shards  # the shards this process owns
    command_ids: dict[int | None, int]  # /nlk's id: per server, None: global
    db: Database | None  # the database, open while the bot runs

    def on_stop(self, hook: Callable[[], Awaitable[None]]) -> None:
        """Run ``hook`` while shutting down (start-up defines the order)."""
        raise NotImplementedError


Interaction = discord.Interaction[NLKClient]


def client_of(interaction: discord.Interaction[Any]) -> NLKClient:
    """The NLK bot a DynamicItem's click reached. (discord.py types a DynamicItem's
    interaction for any client; an NLK button only ever reaches the NLK bot.)"""
    client = interaction.client
    if not isinstance(client, NLKClient):
        raise TypeError(type(client))  # a programming error, never a player's
    return client
