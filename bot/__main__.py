"""``python -m bot`` runs the bot; ``python -m bot sync`` publishes the slash commands;
``python -m bot cluster --processes N [--shards M]`` runs it as N processes;
``python -m bot copy-database SOURCE TARGET`` copies an SQLite database into PostgreSQL."""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Coroutine
from typing import Any, TypeVar

import aiohttp
import discord

from bot.db.sqlite import DatabaseUnusable, MigrationsBroken
from bot.logs import redact_logs
from bot.settings import Settings, SettingsError, load_settings

USAGE = ("usage: python -m bot [sync]\n"
         "       python -m bot cluster --processes N [--shards M]\n"
         "       python -m bot copy-database nlk.sqlite3 postgresql://user@host/database")

T = TypeVar("T")


def run_loop(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run``, on uvloop where it is installed (it is a dependency except on
    Windows): the same asyncio, with less CPU spent on each request and event."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main)
    return uvloop.run(main)


def main(argv: list[str]) -> int:
    if argv and argv[0] == "copy-database":
        return copy_database(argv[1:])
    if argv and argv[0] not in ("sync", "run", "cluster"):
        print(USAGE, file=sys.stderr)
        return 2
    try:
        settings = load_settings()
    except SettingsError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    logging.basicConfig(level=settings.log_level,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # No token in the logs, at any level: the bot's own, and the players' interaction tokens.
    redact_logs([settings.token])
    if argv and argv[0] == "cluster":
        return cluster(settings, argv[1:])
    from bot.client import run

    try:
        run_loop(run(settings, sync_only=bool(argv) and argv[0] == "sync"))
    except discord.LoginFailure:
        print("error: Discord refused the token in DISCORD_TOKEN. Copy a fresh one from the "
              "developer portal (Bot → Reset Token) into .env.", file=sys.stderr)
        return 1
    except (DatabaseUnusable, MigrationsBroken) as error:
        # Before the network clause: a missing file is an OSError too, but not Discord's.
        print(f"error: {error}", file=sys.stderr)
        return 1
    except (aiohttp.ClientError, OSError) as error:
        print(f"error: can't reach Discord ({error}). Check the network, or DISCORD_API_BASE "
              "if you set it.", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        pass
    return 0


def cluster(settings: Settings, argv: list[str]) -> int:
    from bot.cluster import processes as cluster

    try:
        return run_loop(cluster.main(settings, argv))
    except cluster.ClusterError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except (aiohttp.ClientError, OSError) as error:
        print(f"error: can't reach Discord ({error}). Check the network, or DISCORD_API_BASE "
              "if you set it.", file=sys.stderr)
        return 1


def copy_database(args: list[str]) -> int:
    """Copy a stopped bot's SQLite file into an empty PostgreSQL database (no token needed)."""
    if len(args) != 2:
        print(USAGE, file=sys.stderr)
        return 2
    from bot.db.copy import CopyRefused
    from bot.db.copy import copy_database as copy

    try:
        print(asyncio.run(copy(*args)))
    except (CopyRefused, DatabaseUnusable, MigrationsBroken) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("error: interrupted: nothing was copied", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
