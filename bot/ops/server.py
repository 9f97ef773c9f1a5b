"""``NLK_METRICS=HOST:PORT``: ``GET /metrics`` (Prometheus text) and ``GET /healthz`` on one
small aiohttp server in the bot's own event loop."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from bot.ops.metrics import Metrics

if TYPE_CHECKING:
    from bot.ops.watched import Watched

log = logging.getLogger(__name__)
DATABASE_SECONDS = 2.0  # a database slower than this to answer SELECT 1 counts as down


class MetricsServer:
    """Serves one bot's metrics and health; ``start`` before the bot logs in, so that an
    orchestrator sees 503 ("not connected yet") rather than a refused connection."""

    def __init__(self, bot: Watched, metrics: Metrics, host: str, port: int) -> None:
        self.bot, self.metrics, self.host, self.port = bot, metrics, host, port
        app = web.Application()
        app.router.add_get("/metrics", self.scrape)
        app.router.add_get("/healthz", self.health)
        self.runner = web.AppRunner(app, access_log=None)

    async def start(self) -> None:
        await self.runner.setup()
        site = web.TCPSite(self.runner, self.host, self.port)
        try:
            await site.start()
        except OSError as error:
            await self.runner.cleanup()
            raise MetricsUnavailable(f"can't serve metrics on {self.host}:{self.port} "
                                     f"(NLK_METRICS): {error.strerror or error}") from None
        log.info("metrics on http://%s:%d/metrics, health on /healthz", self.host, self.port)

    async def stop(self) -> None:
        await self.runner.cleanup()

    async def scrape(self, _request: web.Request) -> web.Response:
        body = generate_latest(self.metrics)  # any object with .collect() will do
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def health(self, _request: web.Request) -> web.Response:
        problem = self._gateway_problem() or await self._database_problem()
        if problem:
            return web.Response(status=503, text=f"unhealthy: {problem}\n")
        return web.Response(text="ok\n")

    def _gateway_problem(self) -> str | None:
        bot = self.bot
        if bot.is_closed():
            return "the bot is shutting down"
        if not bot.is_ready():
            return "the gateway is not connected yet"
        shards = getattr(bot, "shards", None)  # AutoShardedBot: one session per shard
        if isinstance(shards, dict):
            down = sorted(shard_id for shard_id, shard in shards.items() if shard.is_closed())
            if down:
                return f"the gateway is not connected (shard {', '.join(map(str, down))})"
        elif bot.ws is None or not bot.ws.open:
            return "the gateway is not connected"
        return None

    async def _database_problem(self) -> str | None:
        db = self.bot.db
        if db is None:
            return "the database is not open"
        try:
            await asyncio.wait_for(db.one("SELECT 1"), DATABASE_SECONDS)
        except TimeoutError:
            return f"the database did not answer within {DATABASE_SECONDS:g} s"
        except Exception as error:
            return f"the database failed: {error}"
        return None


class MetricsUnavailable(Exception):
    """The metrics address can't be served; the message says why."""
