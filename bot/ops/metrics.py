"""The bot's Prometheus metrics, observed from the outside through public hooks: discord.py's
``interaction`` event and ``http_trace`` (an aiohttp trace config on its one HTTP session),
the database's ``transaction()``, and the log (an error logged with its traceback is a
handler error: every unexpected error is logged so, with the code its reader was given).
Nothing in the cogs counts anything."""

from __future__ import annotations

import logging
import re
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import aiohttp
import discord
from prometheus_client import (
    GC_COLLECTOR,
    PLATFORM_COLLECTOR,
    PROCESS_COLLECTOR,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
)
from prometheus_client.metrics_core import Metric

if TYPE_CHECKING:
    from bot.db.storage import Database, Row, Transaction
    from bot.ops.watched import Watched

# Interactions unanswered after this long can no longer be answered (Discord's 15 minutes).
FORGET_SECONDS = 15 * 60.0
# An HTTP route as a label: ids and tokens out, so that there are a few dozen routes in all.
_ID = re.compile(r"/\d{5,}")
_TOKEN = re.compile(r"(?P<head>/(?:interactions|webhooks)/\{id\}/)[^/?]+")
_API_PREFIX = re.compile(r"^/api(?:/v\d+)?")
_CALLBACK = re.compile(r"/interactions/(\d+)/[^/]+/callback$")
# From 1 ms: most answers take a few milliseconds, so p50 and p90 need buckets that low; the
# top ones are Discord's 3 s deadline and beyond.
ANSWER_BUCKETS = (0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0,
                  10.0)
# Interaction kinds (discord.InteractionType names) and 429 scopes shown from the start, at
# 0, so a dashboard reads 0 rather than "no data".
KINDS = ("application_command", "component", "autocomplete", "modal_submit")
SCOPES = ("user", "global", "shared")


def route(method: str, path: str) -> str:
    """``POST /channels/{id}/messages`` for ``POST /api/v10/channels/1234…/messages``."""
    path = _TOKEN.sub(r"\g<head>{token}", _ID.sub("/{id}", _API_PREFIX.sub("", path)))
    return f"{method} {path}"


class Metrics:
    """Every metric of one bot process, in a registry of its own (the standard process,
    platform and garbage-collector collectors included)."""

    def __init__(self, shards: str | None = None) -> None:
        # No *_created series: they double what is scraped and no dashboard of ours uses them.
        disable_created_metrics()  # type: ignore[no-untyped-call]
        self.registry = CollectorRegistry(auto_describe=True)
        self.shards = shards
        for collector in (PROCESS_COLLECTOR, PLATFORM_COLLECTOR, GC_COLLECTOR):
            self.registry.register(collector)
        r = self.registry
        self.interactions = Counter("nlk_interactions", "Interactions received, by kind.",
                                    ["kind"], registry=r)
        self.interaction_seconds = Histogram(
            "nlk_interaction_seconds",
            "From receiving an interaction to sending its first answer (the callback), by "
            "kind.", ["kind"], buckets=ANSWER_BUCKETS, registry=r)
        self.handler_errors = Counter(
            "nlk_handler_errors", "Unexpected errors while handling something (logged with "
            "their traceback; the reader got a code to quote), by logger.", ["logger"],
            registry=r)
        self.tables_live = Gauge("nlk_tables_live", "Open tables this process runs.",
                                 registry=r)
        self.requests = Counter("nlk_discord_requests", "Requests to Discord's HTTP API.",
                                ["route", "status"], registry=r)
        self.ratelimited = Counter(
            "nlk_discord_ratelimited", "Requests Discord answered with 429, by the scope it "
            "named (user: our own limits, global, shared: a resource's).", ["scope"],
            registry=r)
        self.db_seconds = Histogram(
            "nlk_db_transaction_seconds",
            "Database writes (transactions, and statements written alone), from begin to "
            "commit.",
            buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0), registry=r)
        self.gateway_latency = Gauge(
            "nlk_gateway_latency_seconds",
            "Between a gateway heartbeat and its acknowledgement (NaN: not connected; +Inf: "
            "connected, no heartbeat acknowledged yet).", registry=r)
        self.pictures_waiting = Gauge(
            "nlk_pictures_waiting",
            "Card pictures waiting for a drawing process (answers' first): one that keeps "
            "growing means the drawing processes can't keep up.", registry=r)
        self.picture_cache_bytes = Gauge(
            "nlk_picture_cache_bytes",
            "Bytes of card pictures kept to be sent again without drawing (bounded).",
            registry=r)
        for kind in KINDS:
            self.interactions.labels(kind)
            self.interaction_seconds.labels(kind)
        for scope in SCOPES:
            self.ratelimited.labels(scope)
        for logger in ("bot", "cogs", "discord"):
            self.handler_errors.labels(logger)
        self._unanswered: OrderedDict[int, tuple[float, str]] = OrderedDict()

    # --- what the scrape shows ---------------------------------------------------------------

    def collect(self) -> Iterator[Metric]:
        """The registry's metrics; in a cluster, every sample carries its process's shards."""
        for metric in self.registry.collect():
            if self.shards is not None:
                metric.samples = [s._replace(labels={**s.labels, "shards": self.shards})
                                  for s in metric.samples]
            yield metric

    # --- what is observed --------------------------------------------------------------------

    def watch(self, bot: Watched) -> None:
        """Count the bot's interactions and read its tables and latency at each scrape."""

        async def received(interaction: discord.Interaction) -> None:
            self.interactions.labels(interaction.type.name).inc()
            self._received(interaction.id, time.monotonic(), interaction.type.name)

        bot.add_listener(received, "on_interaction")
        self.tables_live.set_function(lambda: _open_tables(bot))
        self.pictures_waiting.set_function(lambda: _pictures(bot, "waiting"))
        self.picture_cache_bytes.set_function(lambda: _pictures(bot, "kept"))
        self.gateway_latency.set_function(lambda: bot.latency)

    def count_errors(self, *loggers: logging.Logger) -> logging.Handler:
        """Count every record ``loggers`` write at ERROR or above with a traceback (the
        handler is returned, to be removed again)."""
        handler = _ErrorCounter(self.handler_errors)
        for logger in loggers:
            logger.addHandler(handler)
        return handler

    def _received(self, interaction_id: int, now: float, kind: str = "unknown") -> None:
        self._unanswered[interaction_id] = (now, kind)
        while self._unanswered:  # oldest first: drop those too old to be answered
            oldest, (at, _kind) = next(iter(self._unanswered.items()))
            if now - at < FORGET_SECONDS:
                break
            del self._unanswered[oldest]

    def _answered(self, interaction_id: int, now: float) -> None:
        received = self._unanswered.pop(interaction_id, None)
        if received is not None:
            at, kind = received
            self.interaction_seconds.labels(kind).observe(now - at)

    def trace(self) -> aiohttp.TraceConfig:
        """For discord.py's ``http_trace``: every request to Discord, the interaction
        callbacks (sent through the same session) included. Not frozen: the bot adds to it
        (``cogs.transport.answered.tracing``)."""
        trace = aiohttp.TraceConfig()

        async def start(_session: aiohttp.ClientSession, _context: SimpleNamespace,
                        params: aiohttp.TraceRequestStartParams) -> None:
            answered = _CALLBACK.search(params.url.path)
            if answered is not None:
                self._answered(int(answered[1]), time.monotonic())

        async def end(_session: aiohttp.ClientSession, _context: SimpleNamespace,
                      params: aiohttp.TraceRequestEndParams) -> None:
            status = params.response.status
            self.requests.labels(route(params.method, params.url.path), str(status)).inc()
            if status == 429:
                scope = params.response.headers.get("X-RateLimit-Scope", "unknown")
                self.ratelimited.labels(scope).inc()

        async def failed(_session: aiohttp.ClientSession, _context: SimpleNamespace,
                         params: aiohttp.TraceRequestExceptionParams) -> None:
            self.requests.labels(route(params.method, params.url.path), "error").inc()

        trace.on_request_start.append(start)
        trace.on_request_end.append(end)
        trace.on_request_exception.append(failed)
        return trace

    def time_transactions(self, db: Database) -> None:
        """Time every write: each ``db.transaction()`` from begin to commit (or rollback),
        and each statement written alone (``db.write``, a transaction of its own)."""
        begin: Callable[[], AbstractAsyncContextManager[Transaction]] = db.transaction
        write = db.write
        seconds = self.db_seconds

        @asynccontextmanager
        async def timed() -> AsyncIterator[Transaction]:
            started = time.perf_counter()
            try:
                async with begin() as transaction:
                    yield transaction
            finally:
                seconds.observe(time.perf_counter() - started)

        async def timed_write(sql: str, params: Sequence[Any] = ()) -> Row | None:
            started = time.perf_counter()
            try:
                return await write(sql, params)
            finally:
                seconds.observe(time.perf_counter() - started)

        # The instance's methods are replaced: every caller goes through them.
        db.transaction = timed  # type: ignore[method-assign]
        db.write = timed_write  # type: ignore[method-assign]


class _ErrorCounter(logging.Handler):
    """Counts the errors logged with a traceback, by the top of the logger's name."""

    def __init__(self, counter: Counter) -> None:
        super().__init__(logging.ERROR)
        self.counter = counter

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info:
            self.counter.labels(record.name.partition(".")[0]).inc()


def _open_tables(bot: Watched) -> float:
    service: Any = getattr(bot, "service", None)
    tables: Iterable[Any] = service.cached() if service is not None else ()
    return float(sum(1 for table in tables if table.is_open))


def _pictures(bot: Watched, what: str) -> float:
    """The card pictures' line (``waiting``: pictures waiting for a drawer) or their cache
    (``kept``: its bytes); 0 before the cog is loaded."""
    pictures: Any = getattr(getattr(bot, "publisher", None), "pictures", None)
    if pictures is None:
        return 0.0
    return float(pictures.turns.waiting if what == "waiting" else pictures.cache.bytes)
