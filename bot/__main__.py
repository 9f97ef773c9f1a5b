"""``python -m bot`` runs the bot; ``python -m bot sync`` publishes the slash commands;
``python -m bot cluster --processes N [--shards M]`` runs it as N processes;
``python -m bot copy-database SOURCE TARGET`` copies an SQLite database into PostgreSQL."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Coroutine
from typing import Any, TypeVar

import aiohttp
import discord

from bot.db.sqlite import DatabaseUnusable, MigrationsBroken
from bot.logs import setup_logging
from bot.ops import cli
from bot.ops.commands import ClearRefused, clear_guild
from bot.ops.orphans import stop_self, watch_parent
from bot.ops.server import MetricsUnavailable
from bot.settings import Settings, SettingsError, load_settings

T = TypeVar("T")
log = logging.getLogger("bot")


def run_loop(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run``, on uvloop where it is installed (it is a dependency except on
    Windows): the same asyncio, with less CPU spent on each request and event."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main)
    return uvloop.run(main)


def main(argv: list[str]) -> int:
    try:
        args = cli.parse(argv)
    except cli.Exit as done:
        return done.code
    if args.command == "copy-database":
        return copy_database(args.source, args.target)
    try:
        settings = load_settings()
    except SettingsError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    setup_logging(settings)
    if args.command == "cluster":
        return cluster(settings, args)
    from bot.client import run

    if args.command == "run" and settings.ready_fd is not None:
        # Started by ``cluster``: a launcher that is SIGKILLed can't stop its processes,
        # so each shuts itself down when its launcher is gone.
        watch_parent(stop_self)
    try:
        if args.command == "sync" and args.clear_guild is not None:
            run_loop(clear_guild(settings, args.clear_guild))
        else:
            run_loop(run(settings, sync_only=args.command == "sync"))
    except discord.LoginFailure:
        print("error: Discord refused the token in DISCORD_TOKEN. Copy a fresh one from the "
              "developer portal (Bot → Reset Token) into .env.", file=sys.stderr)
        return 1
    except (DatabaseUnusable, MigrationsBroken, MetricsUnavailable, ClearRefused) as error:
        # Before the network clause: a missing file is an OSError too, but not Discord's.
        print(f"error: {error}", file=sys.stderr)
        return 1
    except discord.HTTPException as error:
        print(f"error: Discord answered {error.status}: {error.text or error}", file=sys.stderr)
        return 1
    except (aiohttp.ClientError, OSError) as error:
        print(f"error: can't reach Discord ({error}). Check the network, or DISCORD_API_BASE "
              "if you set it.", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        pass
    if args.command == "run":
        log.info("stopped")
    return 0


def cluster(settings: Settings, args: argparse.Namespace) -> int:
    from bot.cluster import processes as cluster

    try:
        return run_loop(cluster.main(settings, args.processes, args.shards))
    except cluster.ClusterError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except (aiohttp.ClientError, OSError) as error:
        print(f"error: can't reach Discord ({error}). Check the network, or DISCORD_API_BASE "
              "if you set it.", file=sys.stderr)
        return 1


def copy_database(source: str, target: str) -> int:
    """Copy a stopped bot's SQLite file into an empty PostgreSQL database (no token needed)."""
    from bot.db.copy import CopyRefused
    from bot.db.copy import copy_database as copy

    try:
        print(asyncio.run(copy(source, target)))
    except (CopyRefused, DatabaseUnusable, MigrationsBroken) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("error: interrupted: nothing was copied", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
