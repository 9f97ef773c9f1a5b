"""The bot: start-up order, the table service and clocks, and a clean shutdown.

Start-up composes everything, in order, each step visible in ``setup_hook``: the database
(opened once), the services, the NLK cog (which registers its buttons and error replies; its
publisher makes the clocks, which tell it what they do), then the open tables, resumed.

The bot has one lifetime (``NLKBot.lifetime``, a ``bot.tasks.Scope``), begun first in
``setup_hook``: every long-lived piece of background work runs within it (the clocks', the
tables' owners', the resuming of the tables at start-up). A shutdown ends it, which stops them
all and waits for them; only what needs all work stopped comes after it.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import hashlib
import json
import logging
import os
import signal
from collections.abc import Callable
from typing import Any

import discord
import yarl
from discord.ext import commands

from bot.cluster.identify import IdentifyGate, advisory_lock
from bot.cluster.shards import Shards
from bot.db.connect import open_database
from bot.db.repository import Repository
from bot.db.storage import Database
from bot.guilds.service import GuildService
from bot.ops.commands import warn_if_registered_twice
from bot.ops.cpu_profile import CPUProfile
from bot.ops.observe import Observer
from bot.ops.workers import WorkerPool, drawing_processes, load
from bot.settings import Settings, use_api_base
from bot.tables.clocks import Clocks
from bot.tables.service import TableService
from bot.tasks import Scope, Tasks
from cogs.commands.nlk import NLK
from cogs.compose import compose
from cogs.i18n.translator import NLKTranslator
from cogs.live.publisher import Publisher
from cogs.transport.answered import tracing

COMMAND_GROUP = "nlk"  # the bot's one top-level command; sentences mention its subcommands

log = logging.getLogger(__name__)
# NLK has no voice: no warnings about missing voice libraries at start-up.
discord.VoiceClient.warn_nacl = False
discord.VoiceClient.warn_dave = False


def machine_share(settings: Settings) -> float:
    """A process's part of the machine (and of the database server's connections): of a
    cluster started by ``python -m bot cluster`` (its processes run side by side), its part
    of the shards; else all of it (one process, or processes on machines of their own)."""
    if settings.process is None or settings.shards is None:
        return 1.0
    return settings.shards.share


class NLKBot(commands.Bot):
    """Runs NLK tables; everything it knows lives in the database."""

    def __init__(self, settings: Settings, *, sync_only: bool = False, ai_delay: float = 1.0,
                 ai_budget_ms: int | None = None, idle_seconds: float = 6 * 3600,
                 ai_processes: int = 2, picture_processes: int | None = None,
                 channel_edits: int = 5,
                 clock: Callable[[], float] | None = None, db: Database | None = None,
                 **options: Any) -> None:
        intents = discord.Intents.none()
        intents.guilds = True
        shards = settings.shards
        if shards is not None and len(shards.ids) == 1:
            options.update(shard_id=shards.first, shard_count=shards.count)
        elif shards is not None:
            options.update(shard_ids=list(shards.ids), shard_count=shards.count)
        super().__init__(command_prefix=commands.when_mentioned, intents=intents,
                         help_command=None,
                         allowed_mentions=discord.AllowedMentions.none(),
                         chunk_guilds_at_startup=False,
                         member_cache_flags=discord.MemberCacheFlags.none(),
                         # A request is known to have landed when Discord answered it, not
                         # when discord.py, waiting out a rate limit, returns it (the trace
                         # of the metrics, if any, tells that too).
                         http_trace=tracing(options.pop("http_trace", None)), **options)
        self.settings = settings
        self.sync_only = sync_only
        self.ai_delay = ai_delay  # AI moves are paced so people can follow them
        self.ai_budget_ms = ai_budget_ms
        self.idle_seconds = idle_seconds
        self.ai_processes = ai_processes
        # Card pictures are drawn there (None: as many as the machine's cores, up to four,
        # shared among a cluster's processes: see ``setup_hook``).
        self.picture_processes = picture_processes
        self.channel_edits = channel_edits  # channel posts and edits per 5 s (Discord: ~5)
        self.clock = clock  # what time it is (tests move it); None: the real time
        # The shards this process owns: it runs only their servers' tables, and takes their
        # part of the bot's global REST budget.
        self.shard_range = shards or Shards(0, 0, 1)
        self.identify_gate: IdentifyGate | None = None  # sharded: IDENTIFY paced through the db
        self.ai_pool: WorkerPool | None = None
        # Opened and migrated by ``run`` (deployed), else by ``setup_hook`` (tests).
        self.db: Database | None = db
        self.service: TableService
        self.servers: GuildService
        self.clocks: Clocks
        self.command_ids: dict[int | None, int] = {}  # /nlk's id: per server, None: global
        self.accepting = True  # False once shutting down: new interactions are not taken
        # Every long-lived piece of background work runs within it; a shutdown ends it.
        self.lifetime = Scope("bot")
        self.publisher: Publisher | None = None  # the cog's way out, closed after the rest
        self._stopping: asyncio.Task[None] | None = None
        # Shutting down starts by no longer taking interactions. discord.py has no public
        # switch for that, so the gateway's INTERACTION_CREATE parser is wrapped.
        parsers = self._connection.parsers
        parse_interaction = parsers["INTERACTION_CREATE"]

        def take_interaction(data: Any) -> None:
            if self.accepting:
                parse_interaction(data)
            else:
                log.info("shutting down: an interaction was not taken")

        parsers["INTERACTION_CREATE"] = take_interaction

    def machine_share(self) -> float:
        """This process's part of the machine (``machine_share``)."""
        return machine_share(self.settings)

    def _drawers(self) -> int:
        """The card pictures' drawing processes: as asked, or this process's share of the
        machine's cores (``drawing_processes``)."""
        if self.picture_processes is not None:
            return self.picture_processes
        return drawing_processes(self.machine_share())

    def _thinkers(self) -> int:
        """The AI players' processes: as asked, shared among a cluster's processes (a
        2-process cluster has as many as one process, not twice as many idling)."""
        if self.ai_processes <= 0:
            return 0
        return max(1, round(self.ai_processes * self.machine_share()))

    async def setup_hook(self) -> None:
        # Order: the bot's lifetime, database, migrations, cogs, persistent buttons, then
        # resume tables.
        self.lifetime.begin()
        await self._use_api_gateway()
        if self.db is None:
            self.db = await open_database(self.settings.database)
            await self.db.migrate()
        log.info("database %s at schema version %s", self.db.name,
                 await self.db.schema_version())
        repo = Repository(self.db)
        if self.settings.shards is not None and not self.sync_only:
            _shards, _url, limit = await self.http.get_bot_gateway()
            # Across processes, one at a time per bucket: they share PostgreSQL (a cluster
            # needs it); SQLite serves one process, whose own lock suffices.
            pool = getattr(self.db, "pool", None)
            self.identify_gate = IdentifyGate(
                repo.settings.state_value, repo.settings.set_state_value, limit["max_concurrency"],
                lock=advisory_lock(pool) if self.db.dialect == "postgresql" else None)
        self.service = TableService(repo)
        self.service.shards = self.shard_range
        if self.clock is not None:
            self.service.clock = self.clock
        self.servers = GuildService(repo)
        await self.servers.rate_old_results_by_size()  # after migration 0006, once
        if self.ai_processes > 0:
            # AI players think in other processes, so a thinking AI never delays a table.
            # (Processes of our own, which exit with the bot even when it is SIGKILLed.)
            # (Started now, having loaded the AI and the rules: no first move waits.)
            self.ai_pool = WorkerPool(self._thinkers(), eager=True,
                                      warm=functools.partial(load, "rules.practice"))
        clocks = functools.partial(Clocks, self.service, pool=self.ai_pool,
                                   ai_delay=self.ai_delay, budget_ms=self.ai_budget_ms,
                                   idle_seconds=self.idle_seconds)
        # The composition root builds the cog's parts; the cog registers its buttons and
        # error replies, and tells the players what the clocks do.
        parts = compose(self, self.service, self.servers, clocks,
                        channel_edits=self.channel_edits, rest_share=self.shard_range.share,
                        picture_processes=0 if self.sync_only else self._drawers())
        self.clocks = parts.publisher.clocks  # (made by the publisher, which they tell)
        self.publisher = parts.publisher
        # The clocks and the tables' owners live within the bot's lifetime, and end with it.
        self.clocks.scope.within(self.lifetime)
        parts.publisher.live_in(self.lifetime)
        self.nlk = NLK(self, self, parts)
        await self.add_cog(self.nlk)
        await self.tree.set_translator(NLKTranslator())  # commands in Hungarian and French
        if self.settings.dev_guild and (self.shard_range.owns(0) or self.sync_only):
            # A development server gets the commands there, instantly, and only there: a
            # global copy as well would show every command twice in that server. One process
            # syncs for the whole bot: the one that owns shard 0.
            guild = discord.Object(self.settings.dev_guild)
            self.tree.copy_global_to(guild=guild)
            await self._sync_if_changed(repo, guild, force=self.sync_only)
        elif self.sync_only:
            synced = await self.tree.sync()
            log.info("synced %d command(s) globally (Discord may take up to an hour to show "
                     "them everywhere)", len(synced))
        elif self.shard_range.owns(0):  # (one process of a cluster looks, not each)
            await self._warn_if_unpublished()
        if not self.sync_only and self.shard_range.owns(0):
            await warn_if_registered_twice(self.tree, repo, COMMAND_GROUP)
        if self.sync_only:
            return
        await self._learn_command_ids()
        tables = await self.service.open_tables()
        log.info("resumed %d open table(s)", len(tables))
        # The owners hold what Discord shows before anything can move; then the clocks run;
        # once connected, the owners converge (and the channels of tables whose hand did not
        # rebuild are told why they stopped).
        await self.nlk.load(tables)
        self.clocks.resume(tables)
        self.nlk.resume(tables, list(self.service.quarantined))
        # The first taps after a start or a restart find the pictures ready: the drawing
        # (started with the cog, beside the rest of the start-up) is warm before the bot
        # connects. Answered while it warmed, each tap's picture would come after the whole
        # wait, and follow in an edit of its own.
        try:
            await asyncio.wait_for(self.nlk.warmed.wait(), WARM_SECONDS)
        except TimeoutError:
            log.warning("the card pictures were not ready after %.0f s: connecting without "
                        "waiting for them", WARM_SECONDS)

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False
                                   ) -> None:
        """A sharded bot waits its bucket's turn (across restarts and processes); a
        whole bot in one session keeps discord.py's own pacing."""
        if self.identify_gate is None:
            await super().before_identify_hook(shard_id, initial=initial)
        else:
            await self.identify_gate.wait(shard_id or 0)

    async def on_connect(self) -> None:
        """The session's READY: its IDENTIFY went out, and the next may follow in its turn."""
        if self.identify_gate is not None:
            self.identify_gate.identified(self.shard_id or 0)

    async def _sync_if_changed(self, repo: Repository, guild: discord.abc.Snowflake, *,
                               force: bool = False) -> None:
        """Sync the guild's commands only if they differ from the last sync this database
        remembers: every sync counts against Discord's daily limit, and restarts are common."""
        key = f"command_tree:{guild.id}"
        digest = await self._command_tree_hash(guild)
        if not force and await repo.settings.state_value(key) == digest:
            log.info("commands for guild %s unchanged: not synced", guild.id)
            return
        synced = await self.tree.sync(guild=guild)
        await repo.settings.set_state_value(key, digest)
        log.info("synced %d command(s) to server %s", len(synced), guild.id)

    async def _warn_if_unpublished(self) -> None:
        """Say so at start-up when no slash command is published: the bot would sit in its
        servers with nothing to type."""
        try:
            published = await self.tree.fetch_commands()
        except discord.HTTPException:
            log.warning("could not check which slash commands are published", exc_info=True)
            return
        if not published:
            log.warning("no slash commands are published, so nobody can type /nlk: run "
                        "`python -m bot sync` once (it publishes them globally), or set "
                        "NLK_DEV_GUILD to a server id to try the bot there")

    async def _learn_command_ids(self) -> None:
        """Read the ids of the published ``/nlk`` commands (the development server's, and
        the global ones), so that sentences can mention them as ``</nlk new:ID>``."""
        scopes: list[discord.abc.Snowflake | None] = [None]
        if self.settings.dev_guild:
            scopes.append(discord.Object(self.settings.dev_guild))
        for scope in scopes:
            try:
                published = await self.tree.fetch_commands(guild=scope)
            except discord.HTTPException as error:
                log.warning("could not read the published commands (%s): sentences name "
                            "them as typed", error)
                continue
            for command in published:
                if command.name == COMMAND_GROUP:
                    self.command_ids[scope.id if scope else None] = command.id

    async def _command_tree_hash(self, guild: discord.abc.Snowflake) -> str:
        """A hash of what ``tree.sync(guild=guild)`` would send, and to which application."""
        tree, translator = self.tree, self.tree.translator
        payload = [await command.get_translated_payload(tree, translator) if translator
                   else command.to_dict(tree) for command in tree.get_commands(guild=guild)]
        text = json.dumps([self.application_id, payload], sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()

    async def _use_api_gateway(self) -> None:
        """Behind an API proxy, connect to the gateway that the API names."""
        if not self.settings.api_base:
            return
        data = await self.http.request(discord.http.Route("GET", "/gateway"))
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(data["url"])

    async def close(self) -> None:
        """Stop in order: take no new interactions, let those in flight finish (or cancel
        them), end the bot's lifetime (every piece of background work stops), and only then
        write down the last records and close HTTP, the AI processes and the database."""
        if self._stopping is None:
            self._stopping = asyncio.create_task(self._stop(), name="nlk-shutdown")
        await asyncio.shield(self._stopping)

    async def _stop(self) -> None:
        self.accepting = False
        try:
            await _finish_or_cancel(_interaction_tasks(), DRAIN_SECONDS)
            # The clocks stop (no move is made after this), and every table's owner with all
            # it runs (the pings being deleted get a moment first): awaited until they have.
            await self.lifetime.close()
            if self.publisher is not None:
                try:
                    await self.publisher.close()  # nothing writes any more: the last records
                except Exception:
                    log.exception("a shutdown step failed")
            await super().close()
        finally:
            if self.identify_gate is not None:
                await self.identify_gate.close()
            if self.ai_pool is not None:
                self.ai_pool.shutdown(wait=False, cancel_futures=True)
                self.ai_pool = None
            if self.db is not None:
                await self.db.close()
                self.db = None


DRAIN_SECONDS = 5.0
WARM_SECONDS = 30.0  # the longest a start waits for the pictures before it connects


# discord.py's names for the tasks that answer interactions: a slash command's, and the
# ``on_interaction`` event's, where the cog answers a tap on a button or select
# (``cogs.routes.taps``); a view's own (``discord-ui-…``) answers any other component.
ANSWERING = ("CommandTree-invoker", "discord.py: on_interaction")


def answering(task: asyncio.Task[Any]) -> bool:
    """Whether ``task`` is discord.py's, answering an interaction (a stop drains those
    first)."""
    name = task.get_name()
    return name in ANSWERING or name.startswith("discord-ui-")


def _interaction_tasks() -> list[asyncio.Task[Any]]:
    """discord.py's tasks that answer interactions: slash commands, buttons and selects."""
    current = asyncio.current_task()
    return [task for task in asyncio.all_tasks() if task is not current and not task.done()
            and answering(task)]


async def _finish_or_cancel(tasks: list[asyncio.Task[Any]], seconds: float) -> None:
    """Give ``tasks`` up to ``seconds``, cancel the rest, and wait for all of them."""
    if not tasks:
        return
    _, pending = await asyncio.wait(tasks, timeout=seconds)
    for task in pending:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


class ShardedNLKBot(NLKBot, commands.AutoShardedBot):
    """The bot owning several shards in one process (``NLK_SHARDS=0-3/8``)."""

    async def on_connect(self) -> None:
        """Any shard's READY: which one is :meth:`on_shard_connect`'s to say."""

    async def on_shard_connect(self, shard_id: int) -> None:
        if self.identify_gate is not None:
            self.identify_gate.identified(shard_id)


def bot_class(settings: Settings) -> type[NLKBot]:
    """One gateway session (the whole bot, or one shard of it), or several."""
    shards = settings.shards
    return ShardedNLKBot if shards is not None and len(shards.ids) > 1 else NLKBot


async def run(settings: Settings, *, sync_only: bool = False) -> None:
    """Run the bot until it is stopped; with ``sync_only``, publish the commands and exit."""
    # Migrate before talking to Discord, so an unusable database fails fast and plainly; the
    # bot then uses this one connection.
    db = await open_database(settings.database, share=machine_share(settings))
    try:
        await db.migrate()
    except BaseException:
        await db.close()
        raise
    use_api_base(settings)
    observer = Observer(settings)  # the "ready" line; NLK_METRICS: metrics and health
    async with bot_class(settings)(settings, sync_only=sync_only, db=db,
                                   **observer.options()) as bot:
        if sync_only:
            await bot.login(settings.token)  # setup_hook syncs the commands globally
            return
        # A service manager stops the bot with SIGTERM: close the gateway and the database
        # cleanly, as on Ctrl-C.
        stopping = Tasks()

        def stop() -> None:
            log.info("SIGTERM: shutting down")
            stopping.start(bot.close())

        with contextlib.suppress(NotImplementedError):  # no signal handlers on Windows
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop)
        if settings.ready_fd is not None:
            _say_ready(bot, settings.ready_fd)
        bot.add_listener(_freeze_start_up, "on_ready")
        profile = CPUProfile(settings.cpu_profile)  # NLK_CPU_PROFILE: the load benchmark's

        async def profile_from_ready() -> None:
            profile.start()

        bot.add_listener(profile_from_ready, "on_ready")
        try:
            async with observer.watching(bot):
                await bot.start(settings.token)
                # start() returns as soon as the gateway is closed, in the middle of the
                # shutdown: wait for the rest of it (the database is closed last), or
                # asyncio.run would cancel it and leave a database thread behind, and the
                # process would never exit.
                await bot.close()
        finally:
            profile.write()


# Python's youngest generation is collected after this many new objects (Python's own:
# 700). At 50 tables at a human pace, 700 meant 1,545 collections in 302 s (p50 1.2 ms
# each), 140 of the middle generation and 13 full ones of 50-70 ms: 3.7 s with the event
# loop stopped. At 10,000, in the same run: 69, 6 and 1, 0.9 s in all (the young ones
# 12 ms each at p50), the first answer's p99 47 -> 38 ms, memory per table within the spread.
YOUNG_COLLECTION = 10_000


async def _freeze_start_up() -> None:
    """Keep Python's garbage collections short and few. A full collection scans every object
    the process holds, with the event loop stopped: nothing is answered meanwhile. What
    start-up made (modules, classes, discord.py's and the translations' tables, the tables
    resumed) mostly lives as long as the process; frozen, it is never scanned again. Only the
    first time the bot is ready: later, after a reconnection, what is there is the tables in
    play, which come and go. The youngest generation is then collected less often
    (``YOUNG_COLLECTION``): each collection has a cost of its own, and fewer young ones also
    mean fewer full ones."""
    if gc.get_freeze_count() == 0:
        gc.collect()
        gc.freeze()
        gc.set_threshold(YOUNG_COLLECTION, *gc.get_threshold()[1:])


def _say_ready(bot: NLKBot, fd: int) -> None:
    """Tell the cluster launcher, through its pipe, each time every shard is ready."""
    pipe = os.fdopen(fd, "wb", buffering=0)

    async def ready() -> None:
        with contextlib.suppress(OSError):  # the launcher is gone: nobody to tell
            pipe.write(b"ready\n")

    bot.add_listener(ready, "on_ready")
