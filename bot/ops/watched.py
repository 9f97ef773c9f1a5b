"""The running bot as the operator's tools see it: what the start-up line, the metrics and
the health check read of it (start-up's ``NLKBot`` is one; typed here so that these tools
need not import start-up, which builds them)."""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Sequence
from typing import Any, Protocol

import discord

from bot.db.storage import Database


class Watched(Protocol):
    """A discord.py bot with NLK's database."""

    @property
    def db(self) -> Database | None: ...

    @property
    def guilds(self) -> Sequence[discord.Guild]: ...

    @property
    def shard_count(self) -> int | None: ...

    @property
    def latency(self) -> float: ...

    @property
    def ws(self) -> Any: ...

    def is_closed(self) -> bool: ...

    def is_ready(self) -> bool: ...

    def add_listener(self, func: Callable[..., Coroutine[Any, Any, Any]], /,
                     name: str = ...) -> None: ...
