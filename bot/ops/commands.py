"""Slash commands in one place: a warning when ``/nlk`` is registered both globally and for
a server (that server lists every command twice), and ``sync --clear-guild`` to remove the
server's copy."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord

from bot.db.connect import open_database
from bot.db.repository import Repository

if TYPE_CHECKING:
    from discord import app_commands

    from bot.settings import Settings

log = logging.getLogger(__name__)
SYNCED = "command_tree:"  # the bot_state keys of the servers the bot synced commands to


async def warn_if_registered_twice(tree: app_commands.CommandTree[discord.Client],
                                   repo: Repository, name: str) -> list[int]:
    """Warn for each server that has ``name`` registered as well as the global ``name``.

    The servers looked at are those this database remembers syncing to (``NLK_DEV_GUILD``,
    now or in the past): asking about every server would cost a request each."""
    try:
        published = await tree.fetch_commands()
        if not any(command.name == name for command in published):
            return []
        servers = sorted({int(key.removeprefix(SYNCED))
                          for key in await repo.settings.state_values(SYNCED)
                          if key.removeprefix(SYNCED).isdigit()})
        doubled = []
        for server in servers:
            there = await tree.fetch_commands(guild=discord.Object(server))
            if any(command.name == name for command in there):
                doubled.append(server)
    except discord.HTTPException as error:
        log.warning("could not check where /%s is registered (%s)", name, error)
        return []
    for server in doubled:
        log.warning("/%s is registered both globally and for server %s, so that server lists "
                    "every command twice: run `python -m bot sync --clear-guild %s` (and unset "
                    "NLK_DEV_GUILD) to keep only the global ones", name, server, server)
    return doubled


async def clear_guild(settings: Settings, guild_id: int) -> None:
    """Remove every command registered for one server; the global ones stay."""
    from bot.settings import use_api_base

    db = await open_database(settings.database)
    try:
        await db.migrate()
        use_api_base(settings)
        # (Guilds on, as the bot has it: discord.py warns about a client without it.)
        async with discord.Client(intents=discord.Intents(guilds=True)) as client:
            await client.login(settings.token)
            application = client.application_id
            assert application is not None  # login reads it
            try:
                await client.http.bulk_upsert_guild_commands(application, guild_id, [])
            except (discord.Forbidden, discord.NotFound):
                raise ClearRefused(f"Discord refused to change the commands of server "
                                   f"{guild_id}: the bot is not in that server, or there is "
                                   "no such server (check the id)") from None
        # Forget the last sync there, so that NLK_DEV_GUILD, if set again, syncs again.
        await Repository(db).settings.set_state_values({f"{SYNCED}{guild_id}": None})
    finally:
        await db.close()
    log.info("removed the commands registered for server %s: it lists only the global ones "
             "now (run `python -m bot sync` if there are none)", guild_id)


class ClearRefused(Exception):
    """Discord would not clear the server's commands; the message says why."""
