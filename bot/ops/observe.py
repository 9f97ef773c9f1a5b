"""What ``bot.client.run`` plugs into a running bot: the "ready" log line, and with
``NLK_METRICS`` the metrics and the health server."""

from __future__ import annotations

import logging
import os
import re
from typing import TYPE_CHECKING, Any

from bot.ops.cli import version
from bot.ops.metrics import Metrics
from bot.ops.server import MetricsServer
from bot.settings import Settings

if TYPE_CHECKING:
    from bot.ops.watched import Watched

log = logging.getLogger("bot")


class Observer:
    """Built before the bot (its HTTP trace is a constructor option), started before login."""

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

    async def start(self, bot: Watched) -> None:
        """Log the start (the database is usable by now), and serve metrics if asked."""
        log.info("starting nlk-bot %s (pid %d, database %s)", version(), os.getpid(),
                 _where(self.settings.database))

        async def ready() -> None:
            log.info("ready: %d server(s), %s", len(bot.guilds),
                     f"shards {self.metrics.shards}" if self.metrics and self.metrics.shards
                     else f"{bot.shard_count or 1} shard(s)")

        bot.add_listener(ready, "on_ready")
        address = self.address()
        if self.metrics is None or address is None:
            return
        metrics = self.metrics
        metrics.watch(bot)
        loggers = [logging.getLogger(name) for name in ("bot", "cogs", "discord")]
        counting = metrics.count_errors(*loggers)

        async def stop_counting() -> None:
            for logger in loggers:
                logger.removeHandler(counting)

        bot.on_stop(stop_counting)
        timed = False

        async def connected() -> None:  # after setup_hook, which opened the database
            nonlocal timed
            if not timed and bot.db is not None:
                metrics.time_transactions(bot.db)
                timed = True

        bot.add_listener(connected, "on_connect")
        self.server = MetricsServer(bot, metrics, *address)
        await self.server.start()
        bot.on_stop(self.server.stop)


def _where(database: str) -> str:
    """The database, without the password a PostgreSQL URL may carry."""
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:[redacted]@", database)
