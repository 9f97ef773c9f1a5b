"""What ``bot.client.run`` plugs into a running bot: the "ready" log line, and with
``NLK_METRICS`` the metrics and the health server."""

from __future__ import annotations

import contextlib
import logging
import os
import re
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from bot.ops.cli import version
from bot.ops.metrics import Metrics
from bot.ops.server import MetricsServer
from bot.settings import Settings

if TYPE_CHECKING:
    from bot.ops.watched import Watched

log = logging.getLogger("bot")


class Observer:
    """Built before the bot (its HTTP trace is a constructor option), watching it from
    before login until it has stopped."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        shards = str(settings.shards) if settings.shards is not None else None
        self.metrics = Metrics(shards) if settings.metrics is not None else None
        self.server: MetricsServer | None = None

    def options(self) -> dict[str, Any]:
        """Keyword arguments for the bot's constructor."""
        return {} if self.metrics is None else {"http_trace": self.metrics.trace()}

    def address(self) -> tuple[str, int] | None:
        """Where this process serves: in a cluster, process i on PORT + i − 1."""
        if self.settings.metrics is None:
            return None
        host, port = self.settings.metrics
        return host, port + (self.settings.process or 1) - 1

    @contextlib.asynccontextmanager
    async def watching(self, bot: Watched) -> AsyncIterator[None]:
        """Log the start (the database is usable by now), and serve metrics if asked, from
        before login until the bot has stopped (the health check says it is shutting down
        meanwhile). Not work in the bot's lifetime: that begins after login, and a port
        that can't be served must stop the start."""
        log.info("starting nlk-bot %s (pid %d, database %s)", version(), os.getpid(),
                 _where(self.settings.database))

        async def ready() -> None:
            log.info("ready: %d server(s), %s", len(bot.guilds),
                     f"shards {self.metrics.shards}" if self.metrics and self.metrics.shards
                     else f"{bot.shard_count or 1} shard(s)")

        bot.add_listener(ready, "on_ready")
        address = self.address()
        if self.metrics is None or address is None:
            yield
            return
        metrics = self.metrics
        metrics.watch(bot)
        loggers = [logging.getLogger(name) for name in ("bot", "cogs", "discord")]
        counting = metrics.count_errors(*loggers)
        timed = False

        async def connected() -> None:  # after setup_hook, which opened the database
            nonlocal timed
            if not timed and bot.db is not None:
                metrics.time_transactions(bot.db)
                timed = True

        bot.add_listener(connected, "on_connect")
        try:
            self.server = MetricsServer(bot, metrics, *address)
            await self.server.start()
            try:
                yield
            finally:
                await self.server.stop()
        finally:
            for logger in loggers:
                logger.removeHandler(counting)


def _where(database: str) -> str:
    """The database, without the password a PostgreSQL URL may carry."""
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:[redacted]@", database)
