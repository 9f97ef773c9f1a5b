"""Settings, read once from the environment (and a ``.env`` file) into one typed object."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from bot.cluster.shards import Shards

TOKEN_HELP = (
    "DISCORD_TOKEN is not set. Create a bot at https://discord.com/developers/applications "
    "(Bot → Reset Token), then put DISCORD_TOKEN=<token> in a .env file next to where you run "
    "the bot, or export it in your shell. See .env.example."
)


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


def read_dotenv(path: Path) -> dict[str, str]:
    """``KEY=value`` lines; blank lines and ``#`` comments are skipped, quotes stripped."""
    values: dict[str, str] = {}
    if not path.is_file():
        return values
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        key = key.strip().removeprefix("export ").strip()
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        values[key] = value
    return values


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
    return Settings(
        token=token,
        database=env.get("NLK_DATABASE", "").strip() or "nlk.sqlite3",
        dev_guild=int(guild) if guild else None,
        api_base=env.get("DISCORD_API_BASE", "").strip().rstrip("/") or None,
        log_level=level,
        shards=owned,
        ready_fd=int(ready_fd) if ready_fd.isdigit() else None,
    )
