"""Settings, read once from the environment (and a ``.env`` file) into one typed object."""

from __future__ import annotations

import io
import logging
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import discord
from dotenv import dotenv_values
from dotenv.parser import parse_stream

from bot.cluster.shards import Shards

TOKEN_HELP = (
    "DISCORD_TOKEN is not set. Create a bot at https://discord.com/developers/applications "
    "(Bot → Reset Token), then put DISCORD_TOKEN=<token> in a .env file next to where you run "
    "the bot, or export it in your shell. See .env.example."
)

NAME = re.compile(r"(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=")


class SettingsError(Exception):
    """A setting is missing or unusable; the message says how to fix it."""


@dataclass(frozen=True)
class Settings:
    token: str = field(repr=False)  # repr() goes into logs and error reports
    database: str = "nlk.sqlite3"
    dev_guild: int | None = None
    api_base: str | None = None
    log_level: str = "INFO"
    shards: Shards | None = None  # None: one process, the whole bot, as Discord recommends
    ready_fd: int | None = None  # set by ``cluster``: a pipe to say "ready" on when up
    log_format: str = "text"  # or "json": one object per line, for log shippers
    metrics: tuple[str, int] | None = None  # where /metrics and /healthz listen
    process: int | None = None  # set by ``cluster``: this process's number, from 1
    cpu_profile: str | None = None  # the load benchmark's: profile the loop's CPU into this file


def read_dotenv(path: Path) -> dict[str, str]:
    """The ``.env`` file's values (python-dotenv: quoting, ``export`` lines, comments); a
    missing file is no values, an unreadable one, or one with a line that does not parse, a
    ``SettingsError``.

    A line python-dotenv can't parse is refused, not skipped as python-dotenv would (with a
    warning): an unclosed quote around ``NLK_DATABASE`` would otherwise start the bot on a new,
    empty database in the current folder, and every table would look lost.
    """
    if not path.is_file():
        return {}
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise SettingsError(f"can't read {path}: {error}") from None
    for binding in parse_stream(io.StringIO(text)):
        if binding.error:
            raise SettingsError(_unparsed(path, binding.original.line,
                                          binding.original.string))
    values = dotenv_values(stream=io.StringIO(text))
    return {key: value for key, value in values.items() if value is not None}


def _unparsed(path: Path, line: int, text: str) -> str:
    """One line naming the ``.env`` line that does not parse, and its setting's name, never
    its value (it may be the token)."""
    name = NAME.match(text.strip())
    what = f" (the {name[1]} setting)" if name else ""
    return (f"{path}, line {line}{what}, is not a setting the bot can read: check its quotes "
            "(an opening quote needs a closing one) and its form, NAME=value. Nothing was "
            "started.")


def _address(name: str, text: str) -> tuple[str, int] | None:
    """``HOST:PORT`` (an empty host listens everywhere); empty text is no address."""
    if not text:
        return None
    host, colon, port = text.rpartition(":")
    if not colon or not port.isdigit() or not 0 < int(port) < 65536:
        raise SettingsError(f"{name} must be HOST:PORT, such as 127.0.0.1:9100, not {text!r}.")
    return host.strip("[]") or "0.0.0.0", int(port)


def load_settings(environ: Mapping[str, str] | None = None,
                  dotenv: Path | None = Path(".env")) -> Settings:
    """The environment wins over ``.env``; a missing token raises ``SettingsError``."""
    env = dict(read_dotenv(dotenv) if dotenv else {})
    env.update(os.environ if environ is None else environ)
    token = env.get("DISCORD_TOKEN", "").strip()
    if not token:
        raise SettingsError(TOKEN_HELP)
    guild = env.get("NLK_DEV_GUILD", "").strip()
    if guild and not guild.isdigit():
        raise SettingsError(f"NLK_DEV_GUILD must be a server id (digits), not {guild!r}.")
    level = env.get("LOG_LEVEL", "INFO").strip().upper() or "INFO"
    if not isinstance(logging.getLevelName(level), int):
        raise SettingsError(f"LOG_LEVEL must be DEBUG, INFO, WARNING or ERROR, not {level!r}.")
    shards = env.get("NLK_SHARDS", "").strip()
    try:
        owned = Shards.parse(shards) if shards else None
    except ValueError as error:
        raise SettingsError(f"NLK_SHARDS: {error}.") from None
    ready_fd = env.get("NLK_READY_FD", "").strip()
    log_format = env.get("LOG_FORMAT", "").strip().lower() or "text"
    if log_format not in ("text", "json"):
        raise SettingsError(f"LOG_FORMAT must be text or json, not {log_format!r}.")
    process = env.get("NLK_PROCESS", "").strip()
    return Settings(
        token=token,
        database=env.get("NLK_DATABASE", "").strip() or "nlk.sqlite3",
        dev_guild=int(guild) if guild else None,
        api_base=env.get("DISCORD_API_BASE", "").strip().rstrip("/") or None,
        log_level=level,
        shards=owned,
        ready_fd=int(ready_fd) if ready_fd.isdigit() else None,
        log_format=log_format,
        metrics=_address("NLK_METRICS", env.get("NLK_METRICS", "").strip()),
        process=int(process) if process.isdigit() else None,
        cpu_profile=env.get("NLK_CPU_PROFILE", "").strip() or None,
    )


def use_api_base(settings: Settings) -> None:
    """Point discord.py's REST client at ``DISCORD_API_BASE`` (must happen before login)."""
    if settings.api_base:
        discord.http.Route.BASE = settings.api_base
