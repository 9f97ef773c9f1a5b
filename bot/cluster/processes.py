"""``python -m bot cluster``: several bot processes, each owning a slice of the shards.

The launcher deals the shards evenly, starts one ``python -m bot`` per slice (with
``NLK_SHARDS``), prints a line as each comes up, restarts one that dies (waiting longer after
each quick death), and on SIGTERM or Ctrl-C stops them all and exits 0 once they have stopped.
A process that fails before it ever came up (a start-up check: the token, the database) stops
the whole cluster with exit 1: starting it again would only fail again.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import time
from dataclasses import dataclass, field

import aiohttp

from bot.cluster.shards import Shards, deal
from bot.settings import Settings

DISCORD_API = "https://discord.com/api/v10"
BACKOFF = (1.0, 2.0, 5.0, 15.0, 60.0)  # before a restart, after each quick death in a row
STEADY_SECONDS = 60.0  # a process that ran this long died of something new: no backoff
STOP_SECONDS = 30.0  # after SIGTERM, how long a process gets before it is killed


class ClusterError(Exception):
    """The cluster cannot start; the message says why and what to do."""


async def recommended_shards(settings: Settings) -> int:
    """The shard count Discord recommends for this bot (``GET /gateway/bot``)."""
    url = f"{settings.api_base or DISCORD_API}/gateway/bot"
    headers = {"Authorization": f"Bot {settings.token}"}
    async with aiohttp.ClientSession() as http, http.get(url, headers=headers) as answer:
        if answer.status == 401:
            raise ClusterError("Discord refused the token in DISCORD_TOKEN.")
        if answer.status != 200:
            raise ClusterError(f"can't ask Discord how many shards to run (HTTP "
                               f"{answer.status}); give --shards.")
        shards: int = (await answer.json())["shards"]
        return shards


def plan(settings: Settings, processes: int, shards: int) -> list[Shards]:
    """The slices, checked: several processes need a database they can share."""
    if processes > 1 and not settings.database.startswith(("postgresql://", "postgres://")):
        raise ClusterError(f"{processes} processes cannot share the SQLite file "
                           f"{settings.database}: set NLK_DATABASE to a postgresql:// URL "
                           "(see Running big in the README), or run one process.")
    try:
        return deal(processes, shards)
    except ValueError as error:
        raise ClusterError(str(error)) from None


@dataclass
class Worker:
    """One bot process of the cluster, started again when it dies."""

    number: int
    shards: Shards
    process: asyncio.subprocess.Process | None = None
    started: float = 0.0
    came_up: bool = False  # ever, in this cluster's life
    deaths: int = 0  # quick deaths in a row
    up: asyncio.Event = field(default_factory=asyncio.Event)

    def __str__(self) -> str:
        return f"process {self.number} (shards {self.shards})"


class Cluster:
    def __init__(self, parts: list[Shards], *, json_lines: bool = False) -> None:
        self.json_lines = json_lines  # LOG_FORMAT=json: the launcher's lines too
        self.workers = [Worker(n + 1, part) for n, part in enumerate(parts)]
        self.stopping = asyncio.Event()
        self.failed: str | None = None

    def say(self, line: str) -> None:
        if self.json_lines:
            now = time.time()
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(now))
            print(json.dumps({"time": f"{stamp}.{int(now % 1 * 1000):03d}", "level": "INFO",
                              "logger": "cluster", "message": line}), flush=True)
        else:
            print(f"cluster: {line}", flush=True)

    async def run(self) -> int:
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, self.stopping.set)
        self.say(f"starting {len(self.workers)} process(es) for "
                 f"{self.workers[0].shards.count} shard(s)")
        tasks = [asyncio.create_task(self._keep(worker)) for worker in self.workers]
        await self.stopping.wait()
        self.say("stopping every process")
        for worker in self.workers:
            _signal(worker, signal.SIGTERM)
        await asyncio.gather(*tasks)
        if self.failed is not None:
            print(f"error: {self.failed}", file=sys.stderr, flush=True)
            return 1
        self.say("all processes stopped")
        return 0

    async def _keep(self, worker: Worker) -> None:
        """Run the worker until the cluster stops, starting it again when it dies."""
        while not self.stopping.is_set():
            code = await self._run_once(worker)
            if self.stopping.is_set():
                return
            how = f"exited with {code}" if code >= 0 else f"was killed by signal {-code}"
            if not worker.came_up:
                self.failed = f"{worker} {how} before it came up: stopping the cluster"
                self.stopping.set()
                return
            quick = time.monotonic() - worker.started < STEADY_SECONDS
            worker.deaths = worker.deaths + 1 if quick else 1
            pause = BACKOFF[min(worker.deaths - 1, len(BACKOFF) - 1)]
            self.say(f"{worker} {how}; its tables pause until it is back; restarting it "
                     f"in {pause:g} s")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.stopping.wait(), pause)

    async def _run_once(self, worker: Worker) -> int:
        read, write = os.pipe()
        env = {**os.environ, "NLK_SHARDS": str(worker.shards), "NLK_READY_FD": str(write),
               "NLK_PROCESS": str(worker.number)}  # names its log lines, picks its port
        try:
            # A process group of its own: when the process dies, whatever it left behind
            # (its AI worker processes) goes with it.
            worker.process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", env=env, pass_fds=(write,),
                start_new_session=True)
        finally:
            os.close(write)
        worker.started = time.monotonic()
        watcher = asyncio.create_task(self._watch_ready(worker, read))
        code = await worker.process.wait()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(worker.process.pid, signal.SIGKILL)
        watcher.cancel()
        await asyncio.gather(watcher, return_exceptions=True)
        return code

    async def _watch_ready(self, worker: Worker, fd: int) -> None:
        """Print a line when the process says it is up (its gateway sessions are ready)."""
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(fd, "rb", buffering=0))
        try:
            while line := await reader.readline():
                if line.strip() == b"ready" and worker.process is not None:
                    worker.came_up = True
                    self.say(f"{worker} is up (pid {worker.process.pid})")
        finally:
            transport.close()


def _signal(worker: Worker, signum: int) -> None:
    process = worker.process
    if process is not None and process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signum)


async def _stop_stragglers(cluster: Cluster) -> None:
    """Kill a process that did not stop within ``STOP_SECONDS`` of SIGTERM."""
    await cluster.stopping.wait()
    await asyncio.sleep(STOP_SECONDS)
    for worker in cluster.workers:
        _signal(worker, signal.SIGKILL)


async def main(settings: Settings, processes: int, shards: int | None) -> int:
    """Run ``processes`` bot processes over ``shards`` shards (None: Discord's advice)."""
    count = shards if shards is not None else max(await recommended_shards(settings),
                                                  processes)
    cluster = Cluster(plan(settings, processes, count),
                      json_lines=settings.log_format == "json")
    straggler = asyncio.create_task(_stop_stragglers(cluster))
    try:
        return await cluster.run()
    finally:
        straggler.cancel()
