"""The command line: ``--help`` for each subcommand (no token needed), ``--version``, and a
usage error as one line with exit 2."""

from __future__ import annotations

import argparse
import sys
from importlib import metadata
from typing import NoReturn

PROG = "python -m bot"


class Exit(Exception):
    """The command line was answered (help, version) or refused; ``code`` is the exit code."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


class Parser(argparse.ArgumentParser):
    """argparse, with a usage error as one line (argparse prints the usage too) and no
    ``sys.exit`` inside: ``main`` returns the code."""

    def error(self, message: str) -> NoReturn:
        print(f"error: {message} (see {self.prog} --help)", file=sys.stderr)
        raise Exit(2)

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if message:
            print(message.rstrip("\n"), file=sys.stderr)
        raise Exit(status)


def version() -> str:
    try:
        return metadata.version("nlk-bot")
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"


def _positive(text: str) -> int:
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {number}")
    return number


def _snowflake(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"a server id is digits, not {text!r}")
    return int(text)


def parser() -> Parser:
    top = Parser(prog=PROG, description=(
        "Run the NLK bot. Settings come from the environment and a .env file in the "
        "current folder (DISCORD_TOKEN, NLK_DATABASE, NLK_METRICS, LOG_FORMAT... see "
        ".env.example). With no command, the bot runs."))
    top.add_argument("--version", action="version", version=f"nlk-bot {version()}")
    commands = top.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    commands.add_parser("run", help="run the bot (the default)",
                        description="Run the bot until SIGTERM or Ctrl-C.")
    sync = commands.add_parser(
        "sync", help="publish the slash commands (to NLK_DEV_GUILD's server if it is set, "
                     "else globally), or remove a server's copy",
        description="Publish the slash commands, then exit: to the server NLK_DEV_GUILD names "
                    "if it is set (they show there at once), else globally (Discord may take "
                    "up to an hour to show them everywhere).")
    sync.add_argument("--clear-guild", metavar="GUILD_ID", type=_snowflake, default=None,
                      help="instead, remove the commands registered for this one server "
                           "(left by NLK_DEV_GUILD), so it lists only the global ones")
    cluster = commands.add_parser(
        "cluster", help="run the bot as several processes, each owning some shards",
        description="Run the bot as several processes, each owning a slice of the shards. "
                    "Needs a PostgreSQL NLK_DATABASE for more than one process.")
    cluster.add_argument("--processes", type=_positive, required=True,
                         help="how many bot processes to run")
    cluster.add_argument("--shards", type=_positive, default=None,
                         help="how many shards in all (default: as many as Discord recommends)")
    copy = commands.add_parser(
        "copy-database", help="copy a stopped bot's SQLite file into an empty PostgreSQL "
                              "database",
        description="Copy a stopped bot's SQLite database into an empty PostgreSQL database "
                    "(no token needed).")
    copy.add_argument("source", help="the SQLite file, e.g. nlk.sqlite3")
    copy.add_argument("target", help="postgresql://user@host/database")
    return top


def parse(argv: list[str]) -> argparse.Namespace:
    """The parsed command line; raises ``Exit`` once it has been answered or refused."""
    args = parser().parse_args(argv)
    if args.command is None:
        args.command = "run"
    return args
