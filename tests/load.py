"""Load benchmark: many NLK tables at once through the fake Discord, played by scripted taps.

    python -m tests.load --tables 100 [--players 4] [--seed S] [--hands 1] [--json]

One process, one event loop: the fake Discord (REST + gateway on 127.0.0.1), the real bot
(``running_bot``, a temporary SQLite file) and one ``Driver`` per table. Every table gets its
own channel (the bot allows one open table per channel) and its own players, and all tables
are opened and played concurrently until each has finished ``--hands`` hands. It prints one
JSON object::

    {"tables", "players", "interactions", "first_response_ms": {"p50", "p90", "p99", "max"},
     "memory_per_table_kb", "cached_state_per_table_kb", "seconds", "rate_limited",
     "violations", "failed_tables"}

**Latency** (``first_response_ms``): for every interaction the fake sent, the time from the
fake dispatching ``INTERACTION_CREATE`` (``Interaction.created_at``) to the fake receiving the
bot's initial callback (``Response.at``, stamped when ``POST /interactions/…/callback`` is
handled), on the fake's clock. The drivers and the fake share the bot's event loop, so the
figure includes scheduling contention from every other table's driver and from the fake
itself: it is an upper bound on what the bot alone would show at this load.

**Memory per active table** (``memory_per_table_kb``): measured in a separate pass (so that
tracemalloc's overhead does not distort the latency pass). A second fake and bot are started,
``tracemalloc`` is switched on once the bot is ready, a baseline snapshot is taken, all N tables
are opened and played until every one of them has reached the middle of its hand (the start
of phase two, when the talon is used up) and is paused there; after a ``gc.collect()`` a
second snapshot is taken. Each traced allocation is attributed by walking its traceback from
the innermost frame outwards to the first frame in a file that belongs to someone: the
project's ``bot/``, ``cogs/`` and ``rules/`` packages or the ``discord`` and ``aiosqlite``
libraries count as the bot; ``tests/`` (the fake and the drivers) does not; frames in the
standard library or other libraries (asyncio, json, aiohttp, …) are skipped, so a dict that
``json.loads`` builds for discord.py counts as discord.py's. Only the growth of live bot
memory between the two snapshots is counted, divided by N. Memory SQLite allocates in C (its
page cache) is not traced by tracemalloc and is not included.

**Cached state per table** (``cached_state_per_table_kb``): the same paused moment, measured
directly: the deep size (``sys.getsizeof`` over ``gc.get_referents``, not descending into
modules, classes or functions) of everything reachable from the bot's cached ``Table``
objects (``bot.service.cached()``) plus their per-table entries in the service's locks and
the updater's bookkeeping, counted once across all tables, divided by N.

The run is bounded: every wait has a timeout, the whole run has ``--timeout`` seconds, and all
traffic goes to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import sys
import tempfile
import time
import tracemalloc
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fakediscord import FakeDiscord
from tests.fakediscord.models import Message
from tests.nlk_driver import Driver, actor, is_over, running_bot, title

ROOT = Path(__file__).resolve().parent.parent
BOT_DIRS = tuple(str(ROOT / name) + os.sep for name in ("bot", "cogs", "rules"))
TEST_DIR = str(ROOT / "tests") + os.sep


def _library_dir(module: str) -> str:
    return str(Path(__import__(module).__file__).resolve().parent) + os.sep


LIBRARY_DIRS = tuple(_library_dir(m) for m in ("discord", "aiosqlite"))


# --- scripted players, one channel per table ---------------------------------------------


@dataclass
class Midpoint:
    """Where every table pauses mid-hand so memory can be measured with nothing in flight."""

    tables: int
    reached: int = 0
    all_reached: asyncio.Event = field(default_factory=asyncio.Event)
    resume: asyncio.Event = field(default_factory=asyncio.Event)

    async def arrive(self) -> None:
        self.reached += 1
        if self.reached >= self.tables:
            self.all_reached.set()
        await self.resume.wait()


@dataclass
class ChannelDriver(Driver):
    """A ``Driver`` whose table lives in its own channel."""

    channel: int | None = None
    midpoint: Midpoint | None = None

    async def new_table(self, host: str, **options: object) -> Message:
        ix = await self.fake.slash(host, self.channel, "nlk", "new", options or None)
        response = await ix.wait_response()
        assert response.type == 4 and not response.ephemeral
        return await ix.wait_message()

    async def open_hand(self, name: str, table: Message) -> Message:
        """As ``Driver.open_hand``, but the turn pings are looked up in this table's channel."""
        user = self.fake.user(name).id
        pings = [m for m in self.fake.public_messages(self.channel)
                 if user in m.pinged_user_ids and m.buttons()]
        source = pings[-1] if pings else table
        label = "My hand" if any(b.label == "My hand" for b in source.buttons()) else "My stack"
        ix = await self.fake.click(name, source, label=label)
        response = await ix.wait_response()
        assert response.type == 4 and response.ephemeral
        self.hands_opened += 1
        return await ix.wait_message()

    async def play_hand(self, table: Message, *, limit: int = 20000) -> None:
        """As ``Driver.play_hand``, pausing once at the start of phase two if asked to."""
        while not is_over(table) and self.actions < limit:
            if " · collect" in title(table):
                await self._collect_step(table)
            else:
                if self.midpoint is not None:
                    midpoint, self.midpoint = self.midpoint, None
                    await midpoint.arrive()
                await self._shed_turn(table, actor(table))
        if not is_over(table):
            raise AssertionError(f"hand not over after {self.actions} actions")


async def play_table(driver: ChannelDriver, names: list[str], hands: int) -> None:
    table = await driver.seat_and_start(names[0], names[1:])
    for number in range(hands):
        if number:
            await driver.click(names[number % len(names)], table, "Next hand")
        await driver.play_hand(table)


# --- keeping the harness light ------------------------------------------------------------


class Housekeeper:
    """Keeps the fake's records bounded during a long run, and collects latency samples.

    The fake remembers everything (every interaction with its payload, every message with
    every version). At 100 tables that is hundreds of MB and over a million objects, and the
    garbage collector's full collections — which stop the whole shared event loop — then take
    seconds, which the bot would be blamed for. So, once a second, this drops what nobody will
    touch again: interactions answered more than ``keep`` seconds ago (after taking their
    latency sample), deleted messages and ephemeral messages first seen more than ``keep``
    seconds ago, and the middle versions of every message (the first, which carries the
    pings, and the current one stay). If the bot did use a dropped interaction's token, the
    fake would refuse it and the refusal would show up in ``violations``.
    """

    def __init__(self, fake: FakeDiscord, keep: float = 60.0) -> None:
        self.fake = fake
        self.keep = keep
        self.samples: list[float] = []
        self.interactions = 0
        self.unanswered = 0
        self._first_seen: dict[int, float] = {}

    def sweep(self, *, everything: bool = False) -> None:
        state = self.fake.state
        now = state.clock()
        horizon = float("inf") if everything else now - self.keep
        for ix in [ix for ix in state.interactions.values() if ix.created_at < horizon]:
            if ix.response is None and not everything:
                continue  # still in its acknowledgement window, or about to be refused
            self.interactions += 1
            if ix.response is None:
                self.unanswered += 1
            else:
                self.samples.append((ix.response.at - ix.created_at) * 1000.0)
            del state.interactions[ix.id]
            state.interactions_by_token.pop(ix.token, None)
        if everything:
            return
        for channel_id, messages in state.channel_messages.items():
            kept = []
            for message in messages:
                first = self._first_seen.setdefault(message.id, now)
                if (message.deleted or message.ephemeral) and first < horizon:
                    state.messages.pop(message.id, None)
                    self._first_seen.pop(message.id, None)
                    continue
                if len(message.versions) > 2:
                    del message.versions[1:-1]
                kept.append(message)
            state.channel_messages[channel_id] = kept

    async def run(self, every: float = 1.0) -> None:
        while True:
            await asyncio.sleep(every)
            self.sweep()


class PauseWatch:
    """How long the event loop stalled: a 5 ms ticker's oversleep, and GC pause times."""

    def __init__(self) -> None:
        self.lags: list[float] = []
        self.gc_pauses: list[float] = []
        self._gc_started = 0.0

    def _gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
        else:
            self.gc_pauses.append((time.perf_counter() - self._gc_started) * 1000.0)

    async def run(self) -> None:
        gc.callbacks.append(self._gc)
        try:
            while True:
                started = time.perf_counter()
                await asyncio.sleep(0.005)
                self.lags.append((time.perf_counter() - started - 0.005) * 1000.0)
        finally:
            gc.callbacks.remove(self._gc)

    def report(self) -> dict[str, Any]:
        return {"loop_lag_ms": percentiles(self.lags),
                "gc_pause_ms": {"count": len(self.gc_pauses),
                                "total": round(sum(self.gc_pauses), 1),
                                "max": round(max(self.gc_pauses, default=0.0), 1)}}


@contextlib.asynccontextmanager
async def background(*coroutines: Any) -> Any:
    tasks = [asyncio.create_task(c) for c in coroutines]
    try:
        yield
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


# --- measuring ---------------------------------------------------------------------------


def percentiles(samples: list[float]) -> dict[str, float]:
    if not samples:
        return {"p50": 0.0, "p90": 0.0, "p99": 0.0, "max": 0.0}
    ordered = sorted(samples)

    def at(q: float) -> float:
        # Nearest rank: the smallest sample with at least q of all samples at or below it.
        index = max(0, min(len(ordered) - 1, int(-(-q * len(ordered) // 1)) - 1))
        return round(ordered[index], 2)

    return {"p50": at(0.50), "p90": at(0.90), "p99": at(0.99), "max": round(ordered[-1], 2)}


def owner(frames: tracemalloc.Traceback) -> str | None:
    """``"bot"``, ``"tests"`` or None: who the innermost attributable frame belongs to."""
    for frame in reversed(frames):  # tracemalloc lists the oldest frame first
        name = frame.filename
        if name.startswith(BOT_DIRS) or name.startswith(LIBRARY_DIRS):
            return "bot"
        if name.startswith(TEST_DIR):
            return "tests"
    return None


def bot_bytes(snapshot: tracemalloc.Snapshot) -> int:
    return sum(stat.size for stat in snapshot.statistics("traceback")
               if owner(stat.traceback) == "bot")


SHARED = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
          types.MethodType, types.CodeType)


def deep_size(roots: list[Any]) -> int:
    """Bytes reachable from ``roots``, each object once; modules, classes and functions stop."""
    seen: set[int] = set()
    stack = list(roots)
    total = 0
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, SHARED):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        stack.extend(gc.get_referents(obj))
    return total


def cached_state(bot: Any, tables: list[Any]) -> list[Any]:
    """The bot's per-table state: cached tables and their entries in per-table registries."""
    service = bot.service
    roots: list[Any] = []
    updater = getattr(bot.nlk_router, "updater", None)
    for table in tables:
        roots.append(table)
        roots.append(service._locks.get(table.id))
        if updater is not None:
            for registry in ("_shown", "_tasks", "_pings"):
                roots.append(getattr(updater, registry, {}).get(table.id))
            roots.append(getattr(updater, "_recent", {}).get(table.channel_id))
    return [r for r in roots if r is not None]


# --- a run -------------------------------------------------------------------------------


def _names(index: int, players: int) -> list[str]:
    return [f"t{index:03d}p{seat}" for seat in range(players)]


async def _drivers(fake: FakeDiscord | GatedFake, tables: int, seed: int,
                   midpoint: Midpoint | None) -> list[ChannelDriver]:
    return [ChannelDriver(fake, random.Random(seed * 100_003 + i),
                          channel=fake.add_channel(f"nlk-{i:03d}"), midpoint=midpoint)
            for i in range(tables)]


async def _gather(jobs: list[Any]) -> list[BaseException]:
    results = await asyncio.gather(*jobs, return_exceptions=True)
    return [r for r in results if isinstance(r, BaseException)]


async def latency_pass(tables: int, players: int, seed: int, hands: int, folder: Path
                       ) -> dict[str, Any]:
    async with FakeDiscord() as fake:
        with fake.patch_discord():
            async with running_bot(fake, folder / "latency.sqlite3", seed):
                drivers = await _drivers(fake, tables, seed, None)
                housekeeper, watch = Housekeeper(fake), PauseWatch()
                started = time.perf_counter()
                async with background(housekeeper.run(), watch.run()):
                    failures = await _gather([play_table(d, _names(i, players), hands)
                                              for i, d in enumerate(drivers)])
                seconds = time.perf_counter() - started
            housekeeper.sweep(everything=True)
            return {
                "interactions": housekeeper.interactions,
                "first_response_ms": percentiles(housekeeper.samples),
                "seconds": round(seconds, 2),
                "rate_limited": len(fake.rate_limited),
                "violations": len(fake.violations),
                "failed_tables": len(failures),
                "_failures": failures,
                "_unanswered": housekeeper.unanswered,
                **watch.report(),
            }


class GatedFake:
    """The fake, with at most ``limit`` interactions awaiting their first response at once.

    Used while tracing memory: tracemalloc slows everything down several times, and without
    a gate 100 tables' worth of taps would blow through Discord's 3 second window. Waiting
    for the gate happens before dispatch, so it never counts against the bot.
    """

    def __init__(self, fake: FakeDiscord, limit: int) -> None:
        self._fake = fake
        self._gate = asyncio.Semaphore(limit)
        self._releases: set[asyncio.Task[None]] = set()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._fake, name)

    async def _send(self, send: Any, *args: Any, **kwargs: Any) -> Any:
        await self._gate.acquire()
        try:
            ix = await send(*args, **kwargs)
        except BaseException:
            self._gate.release()
            raise
        task = asyncio.create_task(self._release_after(ix))
        self._releases.add(task)
        task.add_done_callback(self._releases.discard)
        return ix

    async def _release_after(self, ix: Any) -> None:
        try:
            await ix.wait_response()
        except AssertionError:
            pass  # the driver reports it
        finally:
            self._gate.release()

    async def slash(self, *args: Any, **kwargs: Any) -> Any:
        return await self._send(self._fake.slash, *args, **kwargs)

    async def click(self, *args: Any, **kwargs: Any) -> Any:
        return await self._send(self._fake.click, *args, **kwargs)

    async def select(self, *args: Any, **kwargs: Any) -> Any:
        return await self._send(self._fake.select, *args, **kwargs)


async def _until(event: asyncio.Event, jobs: list[asyncio.Task[None]], timeout: float) -> None:
    """Wait for ``event``, or until every job has ended (some table failed on the way)."""
    waiter = asyncio.create_task(event.wait())
    try:
        async with asyncio.timeout(timeout):
            while not waiter.done() and not all(job.done() for job in jobs):
                await asyncio.wait([waiter, *jobs], return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()


def top_sites(before: tracemalloc.Snapshot, after: tracemalloc.Snapshot, count: int = 8
              ) -> list[tuple[str, int]]:
    """Where the bot's memory grew: innermost bot frame, bytes."""
    sites: dict[str, int] = {}
    for stat in after.compare_to(before, "traceback"):
        if owner(stat.traceback) != "bot":
            continue
        frame = next(f for f in reversed(stat.traceback)
                     if f.filename.startswith(BOT_DIRS + LIBRARY_DIRS))
        where = f"{os.path.relpath(frame.filename, ROOT)}:{frame.lineno}"
        sites[where] = sites.get(where, 0) + stat.size_diff
    return sorted(sites.items(), key=lambda item: -item[1])[:count]


async def memory_pass(tables: int, players: int, seed: int, folder: Path, *,
                      frames: int = 10, in_flight: int = 10, timeout: float = 600.0
                      ) -> dict[str, Any]:
    async with FakeDiscord() as fake:
        with fake.patch_discord():
            async with running_bot(fake, folder / "memory.sqlite3", seed) as bot:
                gated = GatedFake(fake, in_flight)
                housekeeper = asyncio.create_task(Housekeeper(fake).run())
                # A warm-up table pays for one-time allocations (lazy imports, caches, the
                # first statement of each kind) before the baseline; it stays paused mid-hand.
                warm_up = Midpoint(1)
                warm = ChannelDriver(gated, random.Random(seed), channel=fake.add_channel("warm"),
                                     midpoint=warm_up)  # type: ignore[arg-type]
                jobs = [asyncio.create_task(play_table(warm, _names(999, players), 1))]
                await _until(warm_up.all_reached, jobs, timeout)
                midpoint = Midpoint(tables)
                drivers = await _drivers(gated, tables, seed, midpoint)  # type: ignore[arg-type]
                gc.collect()
                tracemalloc.start(frames)
                try:
                    before = tracemalloc.take_snapshot()
                    jobs += [asyncio.create_task(play_table(d, _names(i, players), 1))
                             for i, d in enumerate(drivers)]
                    await _until(midpoint.all_reached, jobs, timeout)
                    await asyncio.sleep(0.5)  # let in-flight edits and pings land
                    gc.collect()
                    after = tracemalloc.take_snapshot()
                finally:
                    tracemalloc.stop()
                measured = [t for t in bot.service.cached()
                            if t.status == "playing" and t.channel_id != warm.channel]
                direct = deep_size(cached_state(bot, measured))
                warm_up.resume.set()
                midpoint.resume.set()
                failures = await _gather(jobs)
                housekeeper.cancel()
            grown = bot_bytes(after) - bot_bytes(before)
            per = max(len(measured), 1)
            return {
                "memory_per_table_kb": round(grown / per / 1024, 1),
                "cached_state_per_table_kb": round(direct / per / 1024, 1),
                "memory_active_tables": len(measured),
                "memory_violations": len(fake.violations),
                "memory_rate_limited": len(fake.rate_limited),
                "_memory_top": [(where, round(size / per / 1024, 1))
                                for where, size in top_sites(before, after)],
                "_failures": failures,
            }


async def run_load(tables: int = 100, players: int = 4, seed: int = 0, hands: int = 1, *,
                   memory: bool = True, timeout: float = 1200.0) -> dict[str, Any]:
    """Run the benchmark; returns the report (keys starting with ``_`` are diagnostics)."""
    if not 2 <= players <= 9:
        raise ValueError("NLK tables seat 2 to 9 players")
    if tables < 1 or hands < 1:
        raise ValueError("need at least one table and one hand")
    with tempfile.TemporaryDirectory(prefix="nlk-load-") as tmp:
        folder = Path(tmp)
        async with asyncio.timeout(timeout):
            latency = await latency_pass(tables, players, seed, hands, folder)
            mem = await memory_pass(tables, players, seed, folder) if memory else {}
    report: dict[str, Any] = {
        "tables": tables,
        "players": players,
        "hands": hands,
        "interactions": latency["interactions"],
        "first_response_ms": latency["first_response_ms"],
        "memory_per_table_kb": mem.get("memory_per_table_kb"),
        "cached_state_per_table_kb": mem.get("cached_state_per_table_kb"),
        "seconds": latency["seconds"],
        "rate_limited": latency["rate_limited"] + mem.get("memory_rate_limited", 0),
        "violations": latency["violations"] + mem.get("memory_violations", 0),
        "failed_tables": latency["failed_tables"] + len(mem.get("_failures", [])),
        "unanswered": latency["_unanswered"],
        "loop_lag_ms": latency["loop_lag_ms"],
        "gc_pause_ms": latency["gc_pause_ms"],
    }
    report["_failures"] = [*latency["_failures"], *mem.get("_failures", [])]
    report["_memory_top"] = mem.get("_memory_top", [])
    return report


def public(report: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in report.items() if not k.startswith("_")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.load", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hands", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print only the JSON object")
    parser.add_argument("--no-memory", action="store_true", help="skip the memory pass")
    parser.add_argument("--timeout", type=float, default=1200.0,
                        help="give up after this many seconds (default 1200)")
    args = parser.parse_args(argv)
    report = asyncio.run(run_load(args.tables, args.players, args.seed, args.hands,
                                  memory=not args.no_memory, timeout=args.timeout))
    for failure in report["_failures"][:5]:
        print(f"table failed: {failure!r}", file=sys.stderr)
    if args.json:
        print(json.dumps(public(report)))
    else:
        print(json.dumps(public(report), indent=2))
        if report["_memory_top"]:
            print("bot memory growth per table, by allocation site (KB):", file=sys.stderr)
            for where, kb in report["_memory_top"]:
                print(f"  {kb:8.1f}  {where}", file=sys.stderr)
    clean = not (report["violations"] or report["rate_limited"] or report["failed_tables"])
    return 0 if clean else 1


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
