"""Load benchmark: many NLK tables at once, the bot in its own process, played by scripted taps.

    python -m tests.load --tables 100 [--players 4] [--think MS] [--hands 1] [--seed S] [--json]
                         [--pictures on|four-colour|off] [--learners N] [--profile [FILE]]
                         [--naive | --against-naive]

This process runs the fake Discord (REST + gateway on 127.0.0.1) and one scripted driver per
table; the bot runs as ``python -m bot`` in a child process, exactly as it is deployed, with
its own SQLite file. Every table gets its own channel (one open table per channel) and its
own players. The tables are opened together and played concurrently: first to the middle of
their hand (the start of phase two), where they all pause while memory is measured, then on
to the end of ``--hands`` hands. It prints one JSON object::

    {"tables", "processes", "interactions_per_second", "players", "hands", "think_ms",
     "interactions",
     "first_response_ms": {"p50", "p90", "p95", "p99", "max"}, "first_response_ms_by_kind",
     "memory_per_table_kb",
     "bot_cpu_ms_per_interaction", "workers_cpu_ms_per_interaction",
     "db_cpu_ms_per_interaction", "metrics", "seconds",
     "rate_limited", "violations", "failed_tables", "unanswered",
     "harness_lag_ms", "after_restart", "requests_per_interaction", "learners", "learning",
     "naive"}

**Latency** (``first_response_ms``): for every interaction, the time from the fake sending
``INTERACTION_CREATE`` down the gateway to the fake receiving the bot's first answer
(``POST /interactions/…/callback``), on the fake's clock. It includes both trips over
loopback, discord.py's parsing, the bot's work and its SQLite commit. Every interaction of
the run counts, the warm-up's included. ``first_response_ms_by_kind`` splits the same samples
by what was tapped (each with its ``count``): ``/nlk`` for a slash command, a table button's
action (``play``, ``draw``, ``hand``, ``hint``…); with learners, ``/nlk learn`` and
``/nlk practice``, ``coach`` (a tap on a lesson's message), ``practice`` (a move on a
practice hand's) and ``practice hint``. ``unanswered`` counts the interactions the bot never
answered.

**Learners** (``--learners N``, default none): beside the tables and at the same time, N
people take the lesson (``/nlk learn``, then each step's button the coach names, or now and
then another, which is explained and plays nothing; then the lesson again), N play practice
hands (``/nlk practice``, four players or 2 to 9 seats, tapping Hint before the first move
and before some others), and N more people sit at ceil(N / ``--players``) tables of their
own, played as the others but in a server of their own whose ``hints`` setting is on, where
the player to act taps Hint now and then. One more lesson and practice hand are played
during the warm-up. The other tables are played as without learners, but everything the bot
does for the learners counts in the run's figures (latency, CPU and requests per
interaction, memory). Each learner stops once the tables are done and they have finished a
lesson or a hand. ``learning`` (null without learners) says what they did::

    {"hint_tables", "lessons_finished", "practice_hands_finished", "failed_learners",
     "coach_ms": {"count", "p50", "p90", "p95", "p99", "max"}, "hint_ms": {…}}

``coach_ms`` is the kind ``coach``, ``hint_ms`` the kinds ``hint`` and ``practice hint``
together: a coach step or a hint is to be answered within 50 ms at the 99th percentile.

**Players** tap as soon as they see their turn, unless ``--think`` is given: then each tap
waits a random time first (exponential with that mean), as people do. With ``--think 0`` the
run is a saturation test: it measures how the bot queues when offered more than it can do.

**Memory per active table** (``memory_per_table_kb``): the bot's resident memory (``VmRSS``:
its process's and its worker processes') with all N tables paused mid-hand, minus that with
one warm-up table paused at the same point, divided by N (with learners, the hint tables
count among the N, and the learners pause too). Everything counts: Python objects, discord.py's
caches, SQLite's page cache and allocator slack. Resident memory seldom shrinks, so with
``--think 0`` the figure also holds the peak of the queued work (hundreds of interactions
parsed and waiting at once); ``--think`` shows what a table costs at a human pace. Linux only
(null elsewhere).

**Processes** (``--processes N``, with ``--database``): the bot runs as N processes, one
shard each (``NLK_SHARDS=k/N``), on one PostgreSQL database, as ``python -m bot cluster``
runs it; the tables are spread over one server per shard. ``interactions_per_second`` is the
interactions answered over the run's wall time: with ``--think 0``, the most the bot can do.

**CPU** (``bot_cpu_ms_per_interaction``): the bot's processes' CPU time (user + system,
from ``/proc``, their AI workers included) over the run, divided by the interactions
answered; ``workers_cpu_ms_per_interaction`` is the part of it spent in the worker
processes (drawing pictures, the AI), the rest being the bot's own. On PostgreSQL,
``db_cpu_ms_per_interaction`` is the same for the server's backends
that serve the bot's connections (found by the bot's socket ports in ``pg_stat_activity``;
the server must run on this machine). ``--metrics`` has the bot serve ``NLK_METRICS``,
scraped every 5 s, to measure what metrics cost.

``requests_per_interaction`` is what the bot sent to Discord, by route, for each
interaction counted: what a change costs beyond its answer.

``harness_lag_ms`` is how late a 5 ms timer fired in this process: if it is large, the
harness (not the bot) was the bottleneck and the latency figures are upper bounds. The
harness makes no full garbage collection of its own while tables play (``no_full_collections``):
each would stop the fake for a few hundred milliseconds at 100 tables, and every answer in
flight meanwhile would count as that much slower.

The run is bounded: every wait has a timeout, the whole run has ``--timeout`` seconds, and all
traffic stays on 127.0.0.1.

**Restarts** (``--restart``): opens N two-player tables (each in the collect phase, no turn
timer), stops the bot (SIGTERM), starts it again and counts the requests and 429s while it
resumes (until the bot has been quiet for three seconds). Then it stops the bot once more,
makes every table idle in the database (as if nobody had touched them for days), starts it
again and counts the same while the idle sweep (a minute after the start) ends them all::

    {"tables", "open_seconds", "resume": {"seconds", "requests", "rate_limited"},
     "idle_resume": {…}, "sweep": {…}, "violations"}

``requests`` counts the bot's requests by route (interaction answers excluded: none come).

**A restart mid-hand** (``--restart-mid-hand``): the same play, but while every table waits at
its midpoint the bot is stopped (SIGTERM, as an operator's restart) and started again; once it
is connected, the tables play on. ``after_restart`` reports the answers to the interactions
made after that, apart (``first_response_ms``), and the first ten in the order they were made
(``first_answers_ms``: the ones a cold start would slow). The CPU figures are null: the
processes measured at the start are gone.

**Profile** (``--profile [FILE]``): py-spy (in the project's ``test`` extra) samples the bot
and its worker processes (the AI's, the pictures') 100 times a second for the whole run, and
writes what they were doing into FILE (default: ``nlk-profile-<date>-<time>.svg`` here), whose
path the run prints: a flame graph to open in a browser (``.svg``), or speedscope's format
(``.json``, for https://www.speedscope.app) or py-spy's raw stacks (``.txt``). With several
``--processes``, each has a profile of its own (``FILE`` named ``<name>-process<k>``), and a
bot started again (``--restart-mid-hand``) one more (``<name>-start2``, beside the first
start's). Sampling pauses the bot for a few microseconds each time, so the figures include
that. A thread that waits for a core (more busy processes than cores, as flat out on a small
machine beside the benchmark) is sampled as busy where it stands: read a function's share of
such a profile against the CPU figures, not as CPU alone. Without py-spy (or where it may
not read other processes), the run says so and goes on without a profile. ``FILE.pstats``
instead profiles each bot process's event-loop thread by its CPU time, every call counted,
from when it is ready until it stops (``bot/ops/cpu_profile.py``; read it with ``python -m
pstats FILE``): it counts no waiting, so it says where the CPU goes on any machine, but the
bot runs about three times slower under it, so its latencies and CPU figures are not the
bot's, and call-heavy code weighs more in it than in the CPU figures.

**The naive bot** (``--naive``): the same run, the same players and the same fake, against
``python -m tests.naive_bot`` instead of ``python -m bot``: a bot written the obvious way with
discord.py, its tables in memory, the game played by the same engine, every tap answered by
editing the message tapped, no pictures, database, pings or pacing (its docstring says what it
leaves out). It is the yardstick of issue 44, whose targets are ratios against it. The JSON is
the same, with ``"naive": true``; what it does not have is null (``db_cpu_ms_per_interaction``),
and it runs alone (no ``--database``, ``--processes``, ``--metrics``, ``--learners`` or
``--restart``). ``--pictures`` still sets the server's pictures, which it ignores.

``--against-naive`` runs ours, then the naive bot, one after the other in one invocation with
the same arguments, and prints one JSON object::

    {"ours": {…}, "naive": {…},
     "ratios": {"first_response_ms": {"p50", "p90", "p99"},
                "lobby_p50": {"/nlk", "join", "start"}, "lobby_p95": {…},
                "bot_cpu_ms_per_interaction", "memory_per_table_kb"},
     "clean"}

each ratio ours / naive (null where the naive figure is missing or zero); the CPU ratio is
of ``bot_cpu_ms_per_interaction``, which counts the drawing workers' CPU as the bot's (once:
``workers_cpu_ms_per_interaction`` is the part of it they spent). ``clean``
is false if either run had a failed table, an unanswered interaction, a refusal or a 429: a
table that failed stopped early, so its run's figures, and the ratios, are then suspect.
``lobby_p50`` is the lobby burst, the tables opening together: the median first answer to
``/nlk`` (``/nlk new``, and the one ``/nlk settings`` that sets the pictures), to **Join**
and to **Start**; ``lobby_p95`` the same at the 95th percentile.
Issue 44's targets, on the same machine in the same invocation: at 50 tables and
``--think 500``, p99 at most 0.5 and each lobby p50 at most 1; flat out (``--think 0``, 20
tables), CPU per interaction at most 1.5. Without ``--json`` the ratios are also said in one
line on standard error. The runs follow each other, so a machine whose load changes between
them skews the ratios: run it more than once.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import math
import os
import random
import shutil
import signal
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cogs.lesson import ids as lesson_ids
from cogs.practice import ids as practice_ids
from tests.backends import postgres_schema
from tests.fakediscord import FakeDiscord
from tests.fakediscord.models import Message, Perm
from tests.learners import coach_through, lesson_way, play_out, practice_way
from tests.nlk_driver import Driver, actor, is_over, spawn_bot, title

# --- scripted players, one channel per table ---------------------------------------------


class Fingers:
    """The fake as one table's players (or one learner) use it, pausing to think before each
    tap; while ``gate`` is cleared, they wait for it before tapping."""

    def __init__(self, fake: FakeDiscord, think: float, rng: random.Random,
                 gate: asyncio.Event | None = None) -> None:
        self._fake = fake
        self._think = think
        self._rng = rng
        self._gate = gate

    def __getattr__(self, name: str) -> Any:
        return getattr(self._fake, name)

    async def _pause(self) -> None:
        if self._think > 0:
            await asyncio.sleep(self._rng.expovariate(1.0 / self._think))
        if self._gate is not None:
            await self._gate.wait()

    async def slash(self, *args: Any, **kwargs: Any) -> Any:
        await self._pause()
        return await self._fake.slash(*args, **kwargs)

    async def click(self, *args: Any, **kwargs: Any) -> Any:
        await self._pause()
        return await self._fake.click(*args, **kwargs)

    async def select(self, *args: Any, **kwargs: Any) -> Any:
        await self._pause()
        return await self._fake.select(*args, **kwargs)


@dataclass
class Midpoint:
    """Where tables pause mid-hand, so memory is measured with nothing in flight."""

    tables: int
    reached: int = 0
    all_reached: asyncio.Event = field(default_factory=asyncio.Event)
    resume: asyncio.Event = field(default_factory=asyncio.Event)

    async def arrive(self) -> None:
        self.leave()
        await self.resume.wait()

    def leave(self) -> None:
        """Counted as arrived without waiting (a table that failed before the middle), so
        the others are not kept waiting for it until the run times out."""
        self.reached += 1
        if self.reached >= self.tables:
            self.all_reached.set()


@dataclass
class ChannelDriver(Driver):
    """A ``Driver`` whose table lives in its own channel (``fake`` may be ``Fingers``)."""

    channel: int | None = None
    midpoint: Midpoint | None = None

    async def new_table(self, host: str, **options: object) -> Message:
        ix = await self.fake.slash(host, self.channel, "nlk", "new", options or None)
        response = await ix.wait_response()
        if response.type != 4 or response.ephemeral:
            said = response.message.content if response.message else response.data
            raise AssertionError(f"/nlk new in channel {self.channel} answered {response.name}"
                                 f" (ephemeral={response.ephemeral}): {said!r}")
        return await ix.wait_message()

    async def open_hand(self, name: str, table: Message) -> Message:
        """As ``Driver.open_hand``, but the turn pings are looked up in this table's channel."""
        user = self.fake.user(name).id
        label = "My stack" if " · collect" in title(table) else "My hand"
        # Their newest ping, unless it is from before the phase changed (the new one is a
        # follow-up still on its way): then the table message, as a person would.
        pings = [m for m in self.fake.public_messages(self.channel)
                 if user in m.pinged_user_ids and m.buttons()]
        source = pings[-1] if pings and any(b.label == label for b in pings[-1].buttons()) \
            else table
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


@dataclass
class HintDriver(ChannelDriver):
    """A table in a server whose ``hints`` setting is on: before a move, now and then, the
    player to act taps **Hint** on their own hand (in the collect phase, on their stack
    opened for it) and reads the answer, then plays as any other table's players."""

    hint_chance: float = 0.2
    hints: int = 0

    async def _collect_step(self, table: Message) -> None:
        name = actor(table)
        if name is not None and self.rng.random() < self.hint_chance:
            await self._hint(name, await self.open_hand(name, table))
        await super()._collect_step(table)

    async def _choose(self, name: str, hand: Message) -> Any:
        if self.rng.random() < self.hint_chance:
            await self._hint(name, hand)
        return await super()._choose(name, hand)

    async def _hint(self, name: str, hand: Message) -> None:
        found = [b for b in hand.buttons() if (b.custom_id or "").endswith(":hint")]
        assert found, f"no Hint on {name}'s hand where the server allows hints: {hand.text()}"
        ix = await self.fake.click(name, hand, custom_id=found[0].custom_id)
        response = await ix.wait_response()
        said = (response.data or {}).get("content") or ""
        assert response.type == 4 and response.ephemeral and said.startswith("💡"), said
        self.hints += 1


async def play_table(driver: ChannelDriver, names: list[str], hands: int) -> None:
    # No turn timer: a stand-in moving while a table is paused for measuring would confuse
    # its scripted players.
    try:
        table = await driver.seat_and_start(names[0], names[1:], turn_timer=0)
        for number in range(hands):
            if number:
                await driver.click(names[number % len(names)], table, "Next hand")
            await driver.play_hand(table)
    except BaseException:
        if driver.midpoint is not None:  # it never reached the middle
            driver.midpoint.leave()
            driver.midpoint = None
        raise


def _names(index: int, players: int) -> list[str]:
    return [f"t{index:03d}p{seat}" for seat in range(players)]


def _driver(fake: FakeDiscord, index: int, seed: int, think: float,
            midpoint: Midpoint, guilds: list[int] | None = None, *,
            hints: int | None = None) -> ChannelDriver:
    """Table ``index``'s players, in a channel of their own (in ``guilds`` in turn: one
    server per shard when the bot runs as several processes). With ``hints`` (a server
    whose hints setting is on), the table is there and its players tap Hint now and then."""
    fingers = Fingers(fake, think, random.Random(seed * 7919 + index))
    guild = hints if hints is not None else guilds[index % len(guilds)] if guilds else None
    kind = HintDriver if hints is not None else ChannelDriver
    return kind(fingers, random.Random(seed * 100_003 + index),  # type: ignore[arg-type]
                channel=fake.add_channel(f"nlk-{index:03d}", guild=guild), midpoint=midpoint)


# --- learners: the lesson and practice hands, beside the tables ---------------------------

LESSON_WRONG = 0.2  # a learner taps a button the coach did not name, now and then
PRACTICE_HINTS = 0.3  # a practice player taps Hint before a move, now and then


@dataclass
class Learner:
    """One person taking the lesson (``lesson``) or playing practice hands, round after
    round (a lesson, or a hand), until ``stop`` is set once they have finished one round."""

    fingers: Fingers
    name: str
    rng: random.Random
    channel: int
    lesson: bool
    rounds: int = 0
    finished_one: asyncio.Event = field(default_factory=asyncio.Event)
    message: Any = None  # the lesson's message, tapped through round after round

    async def run(self, stop: asyncio.Event) -> None:
        while not (stop.is_set() and self.rounds):
            if self.lesson:
                await self._lesson()
            else:
                await self._practice()
            self.rounds += 1
            self.finished_one.set()

    async def _lesson(self) -> None:
        """``/nlk learn`` the first time, **Play the lesson again** after; then each step:
        the button the coach names, or now and then another (explained, nothing played)."""
        if not self.rounds:
            ix = await self.fingers.slash(self.name, self.channel, "nlk", "learn")
            self.message = await ix.wait_message()
        else:
            again = lesson_way(self.message, "again")
            assert again is not None, "a finished lesson offers it again"
            ix = await self.fingers.click(self.name, self.message, custom_id=again.custom_id)
            assert (await ix.wait_response()).type == 7
        await coach_through(self.fingers, self.name, self.message, self.rng,
                            wrong_chance=LESSON_WRONG)

    async def _practice(self) -> None:
        """A new practice hand (the default four players, or 2 to 9 seats), a Hint before
        the first move (not knowing where to start), then a Hint before some moves."""
        options = None if self.rng.random() < 0.5 else {"ai_players": self.rng.randint(1, 8)}
        ix = await self.fingers.slash(self.name, self.channel, "nlk", "practice", options)
        message = await ix.wait_message()
        hint = practice_way(message, "hint")
        if hint is not None:
            ix = await self.fingers.click(self.name, message, custom_id=hint.custom_id)
            assert (await ix.wait_response()).type == 7
        await play_out(self.fingers, self.name, message, self.rng, hint_chance=PRACTICE_HINTS)


def _learners(fake: FakeDiscord, count: int, seed: int, think: float, gate: asyncio.Event,
              channel: int, tag: str = "") -> list[Learner]:
    """``count`` people taking the lesson and ``count`` playing practice hands, in
    ``channel`` (their messages are their own: nobody else sees them)."""
    found = []
    for index in range(count):
        for lesson in (True, False):
            name = f"{tag}{'l' if lesson else 'r'}{index:03d}"
            number = 2 * index + (0 if lesson else 1)
            fingers = Fingers(fake, think, random.Random(seed * 6007 + number), gate)
            found.append(Learner(fingers, name, random.Random(seed * 104_729 + number),
                                 channel, lesson))
    return found


async def _until(event: asyncio.Event, jobs: list[asyncio.Task[None]], timeout: float) -> None:
    """Wait for ``event``, or until every job has ended (some table failed on the way)."""
    waiter = asyncio.create_task(event.wait())
    try:
        async with asyncio.timeout(timeout):
            while not waiter.done() and not all(job.done() for job in jobs):
                await asyncio.wait([waiter, *jobs], return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()


async def set_pictures(fake: FakeDiscord, setting: str) -> None:
    """The server's card pictures (``/nlk settings pictures``), set by someone who may."""
    fake.add_user("load-owner", permissions=Perm.MANAGE_GUILD)
    ix = await fake.slash("load-owner", None, "nlk", "settings", {"pictures": setting})
    await ix.wait_response()


async def hints_server(fake: FakeDiscord, pictures: str, shard: int | None) -> int:
    """A server of its own whose ``hints`` setting is on (and its pictures as the others'),
    so that the other tables are played exactly as without learners; its id."""
    guild = fake.add_guild("Hints", shard=shard)
    # Its members get the commands as every server does (a global sync).
    fake.state.commands.setdefault(None, dict(fake.state.commands[fake.guild_id]))
    fake.add_user("load-hints-owner", guild=guild, permissions=Perm.MANAGE_GUILD)
    ix = await fake.slash("load-hints-owner", fake.add_channel("nlk-settings", guild=guild),
                          "nlk", "settings", {"pictures": pictures, "hints": True})
    response = await ix.wait_response()
    assert response.ephemeral, response.data
    return guild


# --- the bot, as a process of its own ------------------------------------------------------


class Bots(list[int]):
    """The pids of the bot's processes (``bot_process``), and ``restart``: each stopped as an
    operator's restart stops it (SIGTERM), then started again, and waited for until it is
    connected."""

    restart: Callable[[], Awaitable[None]]


@contextlib.asynccontextmanager
async def bot_process(fake: FakeDiscord, folder: Path, database: str | None = None,
                      processes: int = 1, profile: Path | None = None,
                      metrics_port: int | None = None, module: str = "bot"
                      ) -> AsyncIterator[Bots]:
    """``python -m bot`` against the fake, on ``database`` (default: a new SQLite file in
    ``folder``); yields the pids. Its log goes to ``bot.log``. With several ``processes``,
    each owns one shard of a sharded fake (``NLK_SHARDS=k/N``), as ``cluster`` runs them.
    ``profile``: py-spy profiles each process and its workers into that file (one a process
    and a start: ``Profiler``), if it can; a ``.pstats`` file: each process profiles its
    event loop's thread by its CPU time (``CPUProfiles``). ``metrics_port``: the bots serve
    ``/metrics`` there (process k on the port + k − 1). ``module``: the bot to run
    (``tests.naive_bot``: the naive one)."""
    started: list[asyncio.subprocess.Process] = []
    cpu = CPUProfiles(profile) if profile and profile.suffix == CPUProfiles.SUFFIX else None
    profiler = Profiler(profile, folder) if profile and cpu is None else None
    bots = Bots()

    async def start(log: Any, after: Any = None) -> None:
        if cpu is not None:
            cpu.starts += 1
        for shard in range(processes):
            # As ``cluster`` starts them: each knows its number (and so that the
            # machine is shared: see ``NLKBot.machine_share``).
            env = {"NLK_SHARDS": f"{shard}/{processes}", "NLK_PROCESS": str(shard + 1)} \
                if processes > 1 else {}
            if metrics_port is not None:
                env |= {"NLK_METRICS": f"127.0.0.1:{metrics_port}",
                        "NLK_PROCESS": str(shard + 1)}
            if cpu is not None:
                env |= cpu.env(shard + 1, processes)
            started.append(await spawn_bot(fake, database or folder / "load.sqlite3",
                                           stdout=log, stderr=log, env=env, module=module))
        for shard in range(processes):
            await fake.wait_for_bot(timeout=60, shard=shard if processes > 1 else None,
                                    after=after)
        bots[:] = [process.pid for process in started]

    async def stop() -> None:
        for process in started:
            if process.returncode is None:
                process.terminate()
        for process in started:
            try:
                await asyncio.wait_for(process.wait(), 10)
            except TimeoutError:
                process.kill()
                await process.wait()
        started.clear()

    try:
        with open(folder / "bot.log", "wb") as log:
            await start(log)

            async def restart() -> None:
                last = fake.gateway.sessions[-1]  # the new sessions come after it
                if profiler is not None:  # its profile ends with it
                    await profiler.stop()
                await stop()
                await start(log, last)
                if profiler is not None:
                    await profiler.start(bots)

            bots.restart = restart
            if processes > 1:
                # Shard 0's process published the commands for the test server: every
                # server gets them, as a global sync would.
                await fake.wait_until(lambda: fake.state.commands.get(fake.guild_id), 30)
                fake.state.commands[None] = dict(fake.state.commands[fake.guild_id])
            if profiler is not None:  # once its workers have started, which it samples too
                await profiler.start(bots)
            yield bots
    finally:
        if profiler is not None:  # the run, not the shutdown
            await profiler.stop()
        await stop()
        if cpu is not None:  # each process wrote its own as it stopped
            cpu.report()


class Profiler:
    """py-spy sampling each bot process and its children, each into a file of its own in
    the format ``path``'s suffix names (``file_for``); or, without py-spy or where it can't
    read a process, a polite line saying the run goes on without that profile. It says on
    standard error where each profile is."""

    FORMATS = {".json": "speedscope", ".txt": "raw"}  # anything else: a flame graph (SVG)
    RATE = 100  # samples a second
    ATTACH = 3.0  # seconds py-spy has to say it can't read the process

    def __init__(self, path: Path, folder: Path) -> None:
        self.path = path.resolve()
        self.folder = folder
        self.starts = 0  # how many times the bot was started (and profiled)
        # py-spy per process being sampled, with the file it writes and its log.
        self.sampling: list[tuple[asyncio.subprocess.Process, Path, Path]] = []

    @staticmethod
    def program() -> str | None:
        """py-spy, next to this Python (a virtual environment's, not on PATH) or on PATH."""
        here = Path(sys.executable).parent
        return shutil.which("py-spy", path=os.pathsep.join((str(here),
                                                            os.environ.get("PATH", ""))))

    def file_for(self, number: int, processes: int) -> Path:
        """Where process ``number`` (of ``processes``, from 1) of the current start writes
        (``profile_file``)."""
        return profile_file(self.path, number, processes, self.starts)

    async def start(self, pids: list[int]) -> None:
        """Sample each of ``pids`` (the bot's processes, as just started) and its workers."""
        self.starts += 1
        program = self.program()
        if program is None:
            say("--profile: py-spy is not installed (pip install py-spy, or the project's "
                "test extra), so this run goes on without a profile.")
            return
        # Side by side: each py-spy is given ``ATTACH`` seconds to say it can't read its
        # process, and a cluster's would otherwise wait that long once a process.
        await asyncio.gather(*(self._sample(program, pid, self.file_for(number, len(pids)),
                                            number) for number, pid in enumerate(pids, 1)))

    async def _sample(self, program: str, pid: int, path: Path, number: int) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        fmt = self.FORMATS.get(path.suffix.lower(), "flamegraph")
        log_path = self.folder / f"py-spy-{self.starts}-{number}.log"
        with open(log_path, "wb") as log:
            process = await asyncio.create_subprocess_exec(
                program, "record", "--pid", str(pid), "--subprocesses", "--rate",
                str(self.RATE), "--format", fmt, "--output", str(path),
                stdin=asyncio.subprocess.DEVNULL, stdout=log, stderr=log)
        try:  # one that can't read the process stops within a second or two
            await asyncio.wait_for(process.wait(), self.ATTACH)
        except TimeoutError:
            self.sampling.append((process, path, log_path))
            say(f"--profile: py-spy samples the bot and its workers into {path}")
            return
        say(f"--profile: py-spy could not profile the bot ({self.why(process, log_path)}), "
            "so this run goes on without a profile.")

    @staticmethod
    def why(process: asyncio.subprocess.Process, log_path: Path) -> str:
        """What py-spy said went wrong: its error line, else its last."""
        said = [line.strip() for line in log_path.read_text(errors="replace").splitlines()
                if line.strip()]
        errors = [line for line in said if line.startswith("Error")]
        return (errors or said or [f"it exited with {process.returncode}"])[0 if errors else -1]

    async def stop(self) -> None:
        """py-spy writes its file on SIGINT (as on Ctrl-C)."""
        sampling, self.sampling, stopping = self.sampling, [], []
        for process, path, log_path in sampling:
            if process.returncode is not None and not path.is_file():
                say(f"--profile: py-spy stopped during the run "
                    f"({self.why(process, log_path)}): no profile.")
                continue
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGINT)
            stopping.append((process, path, log_path))
        for process, path, log_path in stopping:
            try:
                await asyncio.wait_for(process.wait(), 60)
            except TimeoutError:
                process.kill()
                await process.wait()
            if path.is_file():
                say(f"--profile: the profile of the bot and its workers is in {path} "
                    f"({path.stat().st_size // 1024} KiB)")
            else:
                say(f"--profile: py-spy wrote no profile ({self.why(process, log_path)}).")


def profile_file(path: Path, number: int, processes: int, starts: int) -> Path:
    """Where process ``number`` (of ``processes``, from 1) of the bot's ``starts``-th start
    writes its profile: ``path`` itself for the only process of the first start, else
    ``path`` with ``-process<k>`` and, after a restart, ``-start<n>`` before its suffix."""
    tags = ([f"process{number}"] if processes > 1 else []) + \
        ([f"start{starts}"] if starts > 1 else [])
    if not tags:
        return path
    return path.with_name("-".join([path.stem, *tags]) + path.suffix)


class CPUProfiles:
    """``--profile FILE.pstats``: each bot process profiles its event loop's thread by its
    CPU time (``bot/ops/cpu_profile.py``, through ``NLK_CPU_PROFILE``), from when it is
    ready until it stops, into a file of its own (named as py-spy's are: ``profile_file``).
    No worker process is in it: their CPU is in the run's figures."""

    SUFFIX = ".pstats"

    def __init__(self, path: Path) -> None:
        self.path = path.resolve()
        self.starts = 0
        self.files: list[Path] = []

    def env(self, number: int, processes: int) -> dict[str, str]:
        """What process ``number`` of the current start is started with."""
        path = profile_file(self.path, number, processes, self.starts)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)  # an earlier run's is not this one's
        self.files.append(path)
        return {"NLK_CPU_PROFILE": str(path)}

    def report(self) -> None:
        """Say where each profile is (each is written as its process stops)."""
        for path in self.files:
            if path.is_file():
                say(f"--profile: the CPU profile of the bot's event loop is in {path} "
                    f"(python -m pstats {path})")
            else:
                say(f"--profile: the bot wrote no CPU profile into {path} (see bot.log)")
        self.files.clear()


def say(line: str) -> None:
    """A line for the person running the benchmark (on standard error: ``--json`` keeps
    standard output to the JSON object)."""
    print(line, file=sys.stderr, flush=True)


async def scrape_every(port: int, processes: int, seconds: float) -> None:
    """Scrape every process's ``/metrics`` as Prometheus would (but more often)."""
    import aiohttp

    async with aiohttp.ClientSession() as http:
        while True:
            for number in range(processes):
                async with http.get(f"http://127.0.0.1:{port + number}/metrics") as answer:
                    await answer.read()
            await asyncio.sleep(seconds)


def _total(measure: Any, pids: list[int]) -> Any:
    """A measure summed over the bot's processes (None if any is unknown)."""
    values = [measure(pid) for pid in pids]
    return None if any(v is None for v in values) else sum(values)


def rss_bytes(pid: int) -> int | None:
    """Resident memory of a process (Linux), or None where /proc is not available."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time a process has used (Linux), or None; with that of its children
    it has waited for (its AI workers that stopped), but not of those still running."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def tree_of(pid: int) -> list[int]:
    """A process and every living process under it (its workers: the AI's, the pictures')."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii") as stat:
                    parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            parents.setdefault(parent, []).append(int(entry))
    found, todo = [pid], list(parents.get(pid, []))
    while todo:
        child = todo.pop()
        found.append(child)
        todo += parents.get(child, [])
    return found


def tree_cpu_seconds(pid: int) -> float | None:
    """``cpu_seconds`` of a process and every living process under it."""
    total, *children = (cpu_seconds(p) for p in tree_of(pid))
    return None if total is None else total + sum(c or 0.0 for c in children)


def tree_rss_bytes(pid: int) -> int | None:
    """``rss_bytes`` of a process and every living process under it."""
    total, *children = (rss_bytes(p) for p in tree_of(pid))
    return None if total is None else total + sum(c or 0 for c in children)


def socket_ports(pid: int) -> set[int]:
    """The local TCP ports of a process's sockets (Linux): which connections are its own."""
    inodes = set()
    with contextlib.suppress(OSError):
        for fd in os.listdir(f"/proc/{pid}/fd"):
            with contextlib.suppress(OSError):
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
                if link.startswith("socket:["):
                    inodes.add(link[8:-1])
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError), open(table, encoding="ascii") as lines:
            for line in list(lines)[1:]:
                fields = line.split()
                if fields[9] in inodes:
                    ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


class ServerCPU:
    """The CPU time of the PostgreSQL backends serving the bot's connections, read from
    ``/proc`` (the server must run on this machine): its part of each interaction."""

    def __init__(self, server: str, pids: list[int]) -> None:
        self.server, self.pids = server, pids
        self.start: dict[int, float] = {}

    async def backends(self) -> dict[int, float]:
        import asyncpg

        ports = set().union(*(socket_ports(pid) for pid in self.pids))
        admin = await asyncpg.connect(self.server)
        try:
            rows = await admin.fetch("SELECT pid FROM pg_stat_activity WHERE client_port = "
                                     "ANY($1::int[])", sorted(ports))
        finally:
            await admin.close()
        return {row["pid"]: cpu for row in rows
                if (cpu := cpu_seconds(row["pid"])) is not None}

    async def begin(self) -> None:
        self.start = await self.backends()

    async def seconds(self) -> float | None:
        """Since ``begin``: backends opened since count whole, closed ones are lost."""
        end = await self.backends()
        if not end:
            return None
        return sum(cpu - self.start.get(pid, 0.0) for pid, cpu in end.items())


# --- keeping the harness light ------------------------------------------------------------


@contextlib.contextmanager
def no_full_collections() -> Iterator[None]:
    """No automatic full garbage collection in this process inside the block; one at its
    end. The fake keeps every interaction of a run (their tokens last 15 minutes), and a full
    collection scans all of them with the event loop stopped: at 100 tables, 0.2–0.3 s that
    would count as the bot's latency. Young objects are still collected as usual, and the
    garbage that reaches the oldest generation waits for the end of the block."""
    young, middle, old = gc.get_threshold()
    gc.set_threshold(young, middle, 1 << 30)
    try:
        yield
    finally:
        gc.set_threshold(young, middle, old)
        gc.collect()



class Housekeeper:
    """Keeps the fake's records bounded during a long run, and collects latency samples.

    The fake remembers everything (every interaction, every version of every message); at 100
    tables its garbage collection pauses would stall the fake and inflate the figures. Once a
    second this takes the latency sample of interactions answered more than ``keep`` seconds
    ago and lightens them (the event sent and the record of their edits), drops deleted and
    ephemeral messages first seen that long ago, and the middle versions of every message.

    An interaction itself is dropped only once its token has lapsed (15 minutes, as on
    Discord): the bot edits open hands and deletes turn pings through tokens long after it
    answered them. A bot that used a lapsed token would be refused, and the refusal would
    show in ``violations``.
    """

    def __init__(self, fake: FakeDiscord, keep: float = 60.0) -> None:
        self.fake = fake
        self.keep = keep
        self.samples: list[float] = []
        self.by_kind: dict[str, list[float]] = {}  # the same samples, by what was tapped
        # From ``since`` on (the fake's clock; None: not asked), the samples of the
        # interactions made since then, with when each was made.
        self.since: float | None = None
        self.later: list[tuple[float, float]] = []
        self.interactions = 0
        self.unanswered = 0
        self._first_seen: dict[int, float] = {}
        self._sampled: set[int] = set()  # interactions counted, kept while their token lasts

    def seen(self) -> int:
        """Every interaction so far, counted or not yet."""
        return self.interactions + sum(
            1 for ix_id in self.fake.state.interactions if ix_id not in self._sampled)

    def sweep(self, *, everything: bool = False) -> None:
        state = self.fake.state
        now = state.clock()
        horizon = float("inf") if everything else now - self.keep
        for ix in [ix for ix in state.interactions.values() if ix.created_at < horizon]:
            if ix.response is None and not everything:
                continue  # still in its acknowledgement window, or about to be refused
            if ix.id not in self._sampled:
                self._sampled.add(ix.id)
                self.interactions += 1
                if ix.response is None:
                    self.unanswered += 1
                else:
                    sample = (ix.response.at - ix.created_at) * 1000.0
                    self.samples.append(sample)
                    self.by_kind.setdefault(kind(ix.data), []).append(sample)
                    if self.since is not None and ix.created_at >= self.since:
                        self.later.append((ix.created_at, sample))
                ix.payload = {}
            ix.edits.clear()
            if everything or ix.expired:
                self._sampled.discard(ix.id)
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


COACH = "coach"  # a tap on a lesson's message: the coach's next step, or why not
PRACTICE, PRACTICE_HINT = "practice", "practice hint"  # a tap on a practice hand's message
TABLE_HINT = "hint"  # the Hint on one's hand at a real table (as the table's ids name it)
LEARNING_COMMANDS = ("learn", "practice")  # ``/nlk learn``, ``/nlk practice``
LEARNING_TARGET_MS = 50  # a coach step or a hint, answered at the 99th percentile (issue 34)
NAIVE_BOT = "tests.naive_bot"  # the yardstick: ``python -m tests.naive_bot``


def kind(data: dict[str, Any]) -> str:
    """What an interaction was: ``/`` and a command's name (and for ``/nlk learn`` and
    ``/nlk practice``, the subcommand's), a component's action at a table (``play``,
    ``draw``, ``hand``, ``hint``…), ``coach`` for a lesson's button, ``practice`` or
    ``practice hint`` for a practice hand's."""
    custom_id = data.get("custom_id")
    if not isinstance(custom_id, str):
        name = "/" + str(data.get("name", "?"))
        sub = (data.get("options") or [{}])[0]
        if sub.get("type") == 1 and sub.get("name") in LEARNING_COMMANDS:
            return f"{name} {sub['name']}"
        return name
    parts = custom_id.split(":")
    if parts[0] == lesson_ids.PREFIX:
        return COACH
    if parts[0] == practice_ids.PREFIX:
        return PRACTICE_HINT if parts[-1] == "hint" else PRACTICE
    return parts[3].split(".")[0] if len(parts) > 3 else parts[0]


async def lag_ticker(lags: list[float]) -> None:
    """How late a 5 ms timer fires in this process, again and again."""
    while True:
        started = time.perf_counter()
        await asyncio.sleep(0.005)
        lags.append((time.perf_counter() - started - 0.005) * 1000.0)


def percentiles(samples: list[float]) -> dict[str, float]:
    if not samples:
        return {"p50": 0.0, "p90": 0.0, "p95": 0.0, "p99": 0.0, "max": 0.0}
    ordered = sorted(samples)

    def at(q: float) -> float:
        # Nearest rank: the smallest sample with at least q of all samples at or below it.
        return round(ordered[max(0, math.ceil(q * len(ordered)) - 1)], 2)

    return {"p50": at(0.50), "p90": at(0.90), "p95": at(0.95), "p99": at(0.99),
            "max": round(ordered[-1], 2)}


# --- the run -----------------------------------------------------------------------------


async def run_load(tables: int = 100, players: int = 4, seed: int = 0, hands: int = 1, *,
                   think_ms: float = 0.0, timeout: float = 1800.0, database: str | None = None,
                   processes: int = 1, pictures: str = "on",
                   profile: Path | None = None, metrics: bool = False,
                   learners: int = 0, naive: bool = False,
                   restart_mid_hand: bool = False, rate_headers: bool = False
                   ) -> dict[str, Any]:
    """Run the benchmark; returns the report (keys starting with ``_`` are not printed).

    ``database``: a PostgreSQL server's URL to run on (in a new schema of its own, dropped
    afterwards) instead of a new SQLite file; ``pictures``: the server's card pictures;
    ``profile``: where py-spy's profile of the bot goes (it runs without a profiler if None);
    ``metrics``: the bot serves ``/metrics``, scraped every 5 seconds; ``learners``: that
    many people take the lesson, as many play practice hands and as many sit at tables whose
    server allows hints, beside the tables; ``naive``: the naive bot (``tests.naive_bot``)
    plays instead of ours, in memory (no database, metrics, learners or several processes);
    ``rate_headers``: the fake answers a channel's message requests with the rate-limit
    headers Discord sends (by default it sends none, and discord.py never waits on its own)."""
    if naive and (database or processes > 1 or metrics or learners):
        raise ValueError("the naive bot runs alone, in memory: no --database, --processes, "
                         "--metrics or --learners")
    if not 2 <= players <= 9:
        raise ValueError("NLK tables seat 2 to 9 players")
    if tables < 1 or hands < 1:
        raise ValueError("need at least one table and one hand")
    if learners < 0:
        raise ValueError("learners: none or more")
    if processes > 1 and not database:
        raise ValueError("several processes share a PostgreSQL database: give --database")
    think = think_ms / 1000.0
    async with contextlib.AsyncExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="nlk-load-")))
        url = None
        if database:
            url, _ = await stack.enter_async_context(postgres_schema(database))
        return await _run_load(folder, tables, players, seed, hands, think, timeout, url,
                               processes, pictures, profile, metrics, database, learners,
                               naive, restart_mid_hand, rate_headers)


async def _run_load(folder: Path, tables: int, players: int, seed: int, hands: int,
                    think: float, timeout: float, database: str | None, processes: int,
                    pictures: str, profile: Path | None, metrics: bool = False,
                    server: str | None = None, learners: int = 0, naive: bool = False,
                    restart_mid_hand: bool = False, rate_headers: bool = False
                    ) -> dict[str, Any]:
    sharded = processes > 1
    port = _free_port(processes) if metrics else None
    async with FakeDiscord(shards=processes if sharded else None) as fake, \
            bot_process(fake, folder, database, processes, profile, port,
                        NAIVE_BOT if naive else "bot") as pids, \
            asyncio.timeout(timeout):
        if rate_headers:
            fake.set_channel_rate_limit(advertise=True)
        scraper = asyncio.create_task(scrape_every(port, processes, 5.0)) if port else None
        try:
            with no_full_collections():
                report = await _play_tables(fake, pids, tables, players, seed, hands, think,
                                            timeout, processes, pictures, folder,
                                            ServerCPU(server, pids) if server else None,
                                            learners, restart_mid_hand)
        finally:
            if scraper is not None:
                scraper.cancel()
                await asyncio.gather(scraper, return_exceptions=True)
        if scraper is not None and scraper.done() and not scraper.cancelled() and \
                scraper.exception() is not None:
            raise AssertionError(f"a scrape failed: {scraper.exception()!r}")
        return {**report, "metrics": metrics, "naive": naive}


def _free_port(count: int) -> int:
    """The first of ``count`` consecutive free ports on 127.0.0.1."""
    import socket

    for first in random.Random().sample(range(20000, 60000), 200):
        with contextlib.ExitStack() as stack:
            try:
                for port in range(first, first + count):
                    stack.enter_context(socket.socket()).bind(("127.0.0.1", port))
            except OSError:
                continue
            return first
    raise RuntimeError("no free ports for the metrics")


async def _play_tables(fake: FakeDiscord, pids: Bots, tables: int, players: int,
                       seed: int, hands: int, think: float, timeout: float, processes: int,
                       pictures: str, folder: Path,
                       server_cpu: ServerCPU | None = None, learners: int = 0,
                       restart_mid_hand: bool = False) -> dict[str, Any]:
    sharded = processes > 1
    await set_pictures(fake, pictures)
    guilds = [fake.guild_id] + [fake.add_guild(f"Shard {n}", shard=n)
                                for n in range(1, processes)] if sharded else None
    # Learners: as many at tables whose server allows hints as in the lesson and in practice.
    hint_tables = math.ceil(learners / players)
    hints = await hints_server(fake, pictures, 0 if sharded else None) if learners else None
    housekeeper, lags = Housekeeper(fake), list[float]()
    sweeper = asyncio.create_task(housekeeper.run())
    ticker = asyncio.create_task(lag_ticker(lags))
    # One warm-up table pays for one-time costs (imports, caches, first queries)
    # before the baseline, and stays paused mid-hand while memory is measured; with
    # learners, one lesson and one practice hand too, played through.
    warm_up, midpoint = Midpoint(1), Midpoint(tables + hint_tables)
    warm = _driver(fake, tables, seed, 0.0, warm_up, guilds)  # numbered after the others
    jobs = [asyncio.create_task(play_table(warm, _names(tables, players), 1))]
    gate, stop = asyncio.Event(), asyncio.Event()
    gate.set()
    learning = fake.add_channel("nlk-learn", guild=hints) if learners else 0
    warm_learners = _learners(fake, 1 if learners else 0, seed + 1, 0.0, gate, learning,
                              "warm")
    stop.set()  # the warm-up learners play one round each
    learner_jobs = [asyncio.create_task(learner.run(stop)) for learner in warm_learners]
    await _until(warm_up.all_reached, jobs, timeout)
    if learner_jobs:
        await asyncio.wait(learner_jobs, timeout=timeout)
    stop.clear()
    await asyncio.sleep(1.0)  # let its table edits and pings land
    base_rss, base_cpu, base_count = _total(tree_rss_bytes, pids), _total(tree_cpu_seconds, pids), \
        housekeeper.seen()
    base_own = _total(cpu_seconds, pids)
    if server_cpu is not None:
        await server_cpu.begin()
    base_requests = Counter(fake.request_counts)
    started = time.perf_counter()
    jobs += [asyncio.create_task(play_table(_driver(fake, i, seed, think, midpoint, guilds),
                                            _names(i, players), hands))
             for i in range(tables)]
    jobs += [asyncio.create_task(play_table(_driver(fake, i, seed, think, midpoint, hints=hints),
                                            _names(i, players), hands))
             for i in range(tables + 1, tables + 1 + hint_tables)]  # after the warm-up table
    people = _learners(fake, learners, seed, think, gate, learning)
    learner_jobs += [asyncio.create_task(learner.run(stop)) for learner in people]
    await _until(midpoint.all_reached, jobs, timeout)
    gate.clear()  # the learners pause too while memory is measured
    await asyncio.sleep(1.0)
    mid_rss = _total(tree_rss_bytes, pids)
    if restart_mid_hand:
        await pids.restart()
        housekeeper.since = fake.state.clock()
    gate.set()
    warm_up.resume.set()
    midpoint.resume.set()
    results = await asyncio.gather(*jobs, return_exceptions=True)
    # The tables are done: each learner stops once they have finished a lesson or a hand.
    stop.set()
    for learner, job in zip(people, learner_jobs[len(warm_learners):], strict=True):
        await _until(learner.finished_one, [job], timeout)
        job.cancel()
    learned = await asyncio.gather(*learner_jobs, return_exceptions=True)
    seconds = time.perf_counter() - started
    # The last taps' follow-ups (turn pings, the end of a hand) may still be on their
    # way: let them land before the interactions are swept away for good.
    await asyncio.sleep(2.0)
    end_cpu = _total(tree_cpu_seconds, pids)
    end_own = _total(cpu_seconds, pids)
    db_cpu = await server_cpu.seconds() if server_cpu is not None else None
    requests = Counter(fake.request_counts)
    requests.subtract(base_requests)
    sweeper.cancel()
    ticker.cancel()
    housekeeper.sweep(everything=True)
    failures = [r for r in results if isinstance(r, BaseException)]
    learner_failures = [r for r in learned if isinstance(r, BaseException)
                        and not isinstance(r, asyncio.CancelledError)]
    bot_log = (folder / "bot.log").read_text(encoding="utf-8", errors="replace")
    counted = housekeeper.interactions - base_count
    memory = None if base_rss is None or mid_rss is None else \
        round((mid_rss - base_rss) / (tables + hint_tables) / 1024, 1)
    # Across a restart the processes measured at the start are gone: no CPU figure.
    cpu = None if base_cpu is None or end_cpu is None or counted <= 0 or \
        restart_mid_hand else round((end_cpu - base_cpu) * 1000 / counted, 2)
    own = None if cpu is None or base_own is None or end_own is None else \
        round((end_own - base_own) * 1000 / counted, 2)
    return {
        "tables": tables,
        "processes": processes,
        "interactions_per_second": round(counted / seconds, 1) if seconds > 0 else None,
        "players": players,
        "hands": hands,
        "think_ms": think * 1000.0,
        "interactions": housekeeper.interactions,
        "first_response_ms": percentiles(housekeeper.samples),
        "first_response_ms_by_kind": {
            name: {"count": len(samples), **percentiles(samples)}
            for name, samples in sorted(housekeeper.by_kind.items())},
        "memory_per_table_kb": memory,
        "bot_cpu_ms_per_interaction": cpu,
        "workers_cpu_ms_per_interaction": None if own is None or cpu is None else
        round(max(0.0, cpu - own), 2),
        "db_cpu_ms_per_interaction": None if db_cpu is None or counted <= 0 else
        round(db_cpu * 1000 / counted, 2),
        "seconds": round(seconds, 2),
        "rate_limited": len(fake.rate_limited),
        "violations": len(fake.violations),
        "failed_tables": len(failures),
        "unanswered": housekeeper.unanswered,
        "harness_lag_ms": percentiles(lags),
        "after_restart": _after_restart(housekeeper.later) if restart_mid_hand else None,
        "requests_per_interaction": {
            route: round(count / counted, 3) for route, count in sorted(requests.items())
            if count > 0 and counted > 0},
        "learners": learners,
        "learning": _learning(housekeeper.by_kind, people, hint_tables,
                              len(learner_failures)) if learners else None,
        "_failures": failures + learner_failures,
        "_violations": [str(v) for v in fake.violations],
        "_bot_log": bot_log,
    }


def _after_restart(later: list[tuple[float, float]]) -> dict[str, Any]:
    """The answers to the interactions made after the restart: all of them, and the first
    ten in the order they were made (the ones a cold start would slow)."""
    later = sorted(later)
    return {"first_response_ms": percentiles([ms for _at, ms in later]),
            "first_answers_ms": [round(ms, 2) for _at, ms in later[:10]]}


def _learning(by_kind: dict[str, list[float]], people: list[Learner], hint_tables: int,
              failed: int) -> dict[str, Any]:
    """What the learners did, and how fast their coach steps and hints were answered."""
    hints = by_kind.get(TABLE_HINT, []) + by_kind.get(PRACTICE_HINT, [])
    return {
        "hint_tables": hint_tables,
        "lessons_finished": sum(p.rounds for p in people if p.lesson),
        "practice_hands_finished": sum(p.rounds for p in people if not p.lesson),
        "failed_learners": failed,
        "coach_ms": {"count": len(by_kind.get(COACH, [])),
                     **percentiles(by_kind.get(COACH, []))},
        "hint_ms": {"count": len(hints), **percentiles(hints)},
    }


# --- restarts ----------------------------------------------------------------------------


async def _open_tables(fake: FakeDiscord, tables: int, seed: int) -> list[Message]:
    """N started two-player tables, each in its own channel, opened a few dozen at a time."""
    gate = asyncio.Semaphore(50)

    async def one(index: int) -> Message:
        async with gate:
            driver = ChannelDriver(fake, random.Random(seed * 100_003 + index),
                                   channel=fake.add_channel(f"nlk-{index:03d}"))
            host, guest = _names(index, 2)
            return await driver.seat_and_start(host, [guest], turn_timer=0)

    return list(await asyncio.gather(*(one(i) for i in range(tables))))


async def _until_quiet(fake: FakeDiscord, quiet: float, timeout: float) -> None:
    """Until the bot has sent no request for ``quiet`` seconds (or ``timeout`` passed)."""
    deadline = time.monotonic() + timeout
    last, since = -1, time.monotonic()
    while time.monotonic() < deadline:
        count = sum(fake.request_counts.values())
        if count != last:
            last, since = count, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return
        await asyncio.sleep(0.25)


class Phase:
    """Requests and 429s from the moment it is made until ``done()``."""

    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self.requests = Counter(fake.request_counts)
        self.limited = len(fake.rate_limited)
        self.started = time.monotonic()

    def done(self) -> dict[str, Any]:
        requests = Counter(self.fake.request_counts)
        requests.subtract(self.requests)
        return {"seconds": round(time.monotonic() - self.started, 2),
                "requests": {k: v for k, v in sorted(requests.items()) if v > 0},
                "rate_limited": len(self.fake.rate_limited) - self.limited}


def _make_idle(database: Path) -> None:
    """Every open table last changed long ago, as if the bot had been down for days."""
    db = sqlite3.connect(database)
    try:
        with db:
            db.execute("UPDATE tables SET active_at = 0 WHERE status IN "
                       "('lobby', 'playing', 'over')")
    finally:
        db.close()


async def run_restart(tables: int = 500, seed: int = 0, *, timeout: float = 1800.0
                      ) -> dict[str, Any]:
    """Open ``tables`` tables, restart the bot, then restart it with every table idle."""
    if tables < 1:
        raise ValueError("need at least one table")
    with tempfile.TemporaryDirectory(prefix="nlk-restart-") as tmp:
        folder = Path(tmp)
        async with FakeDiscord() as fake, asyncio.timeout(timeout):
            started = time.monotonic()
            async with bot_process(fake, folder):
                messages = await _open_tables(fake, tables, seed)
                await _until_quiet(fake, 3.0, 120.0)
            open_seconds = time.monotonic() - started
            phase = Phase(fake)
            async with bot_process(fake, folder):
                await _until_quiet(fake, 3.0, 300.0)
                resume = phase.done()
            _make_idle(folder / "load.sqlite3")
            phase = Phase(fake)
            async with bot_process(fake, folder):
                await _until_quiet(fake, 3.0, 300.0)
                idle_resume = phase.done()
                phase = Phase(fake)
                # The sweep runs a minute after the start and ends every table.
                await fake.wait_until(lambda: all(
                    "closed" in m.embeds[0].get("footer", {}).get("text", "")
                    for m in messages), timeout=300.0)
                await _until_quiet(fake, 3.0, 120.0)
                sweep = phase.done()
            bot_log = (folder / "bot.log").read_text(encoding="utf-8", errors="replace")
    return {"tables": tables, "open_seconds": round(open_seconds, 2), "resume": resume,
            "idle_resume": idle_resume, "sweep": sweep,
            "rate_limited": len(fake.rate_limited), "violations": len(fake.violations),
            "_violations": [str(v) for v in fake.violations], "_failures": [],
            "_bot_log": bot_log, "failed_tables": 0}


def public(report: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in report.items() if not k.startswith("_")}


def print_report(report: dict[str, Any], *, as_json: bool) -> None:
    """A benchmark's figures on standard output; what the fake refused and what the bot
    logged on standard error."""
    for violation in report["_violations"][:5]:
        print(f"the fake refused: {violation}", file=sys.stderr)
    if report["_bot_log"].strip() and not as_json:
        print("the bot logged:\n" + report["_bot_log"][-4000:], file=sys.stderr)
    if report.get("learning") and not as_json:
        print(learning_summary(report["learning"]), file=sys.stderr)
    print(json.dumps(public(report), indent=None if as_json else 2))


def learning_summary(learning: dict[str, Any]) -> str:
    """The coach steps' and the hints' first answers in one line each, against the target."""
    lines = []
    for name, key in (("coach steps", "coach_ms"), ("hints", "hint_ms")):
        ms = learning[key]
        if not ms["count"]:
            lines.append(f"{name}: none answered")
            continue
        verdict = "under" if ms["p99"] < LEARNING_TARGET_MS else "NOT under"
        lines.append(f"{name}: {ms['count']} answered, p50 / p90 / p99 / max "
                     f"{ms['p50']} / {ms['p90']} / {ms['p99']} / {ms['max']} ms "
                     f"(p99 {verdict} the target of {LEARNING_TARGET_MS} ms)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.load", description=__doc__.split(
        "\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hands", type=int, default=1)
    parser.add_argument("--think", type=float, default=0.0, metavar="MS",
                        help="mean pause before each tap (default 0: flat out)")
    parser.add_argument("--json", action="store_true", help="print only the JSON object")
    parser.add_argument("--pictures", choices=("on", "four-colour", "off"), default="on",
                        help="the server's card pictures (default: on, as a new server)")
    parser.add_argument("--timeout", type=float, default=1800.0,
                        help="give up after this many seconds (default 1800)")
    parser.add_argument("--database", metavar="URL",
                        help="run on this PostgreSQL server, in a new schema dropped "
                             "afterwards (default: a new SQLite file)")
    parser.add_argument("--processes", type=int, default=1, metavar="N",
                        help="run the bot as N processes, one shard each, on the --database "
                             "server (default 1)")
    parser.add_argument("--profile", type=Path, metavar="FILE", nargs="?",
                        const=Path(time.strftime("nlk-profile-%Y%m%d-%H%M%S.svg")),
                        help="profile the bot and its workers with py-spy (if installed) "
                             "into FILE: .svg, a flame graph (default: "
                             "nlk-profile-<date>-<time>.svg here), .json for speedscope, "
                             ".txt raw; the figures include its small cost; .pstats: "
                             "instead, the bot's event loop profiled by its CPU time "
                             "(it then runs about three times slower)")
    parser.add_argument("--metrics", action="store_true",
                        help="the bot serves NLK_METRICS, scraped every 5 s (to measure "
                             "what metrics cost)")
    parser.add_argument("--learners", type=int, default=0, metavar="N",
                        help="beside the tables, N people take the lesson, N play practice "
                             "hands and N sit at tables whose server allows hints, tapping "
                             "Hint now and then (default 0: the tables alone)")
    parser.add_argument("--restart", action="store_true",
                        help="measure restarts and the idle sweep instead of play")
    parser.add_argument("--restart-mid-hand", action="store_true",
                        help="stop and start the bot while every table waits mid-hand, "
                             "then play on: the answers after it are reported apart "
                             "(after_restart); no CPU figure")
    parser.add_argument("--rate-headers", action="store_true",
                        help="the fake answers a channel's message requests with Discord's "
                             "rate-limit headers, as Discord does (default: none, so "
                             "discord.py never waits out a spent bucket on its own)")
    against = parser.add_mutually_exclusive_group()
    against.add_argument("--naive", action="store_true",
                         help="run the naive bot (python -m tests.naive_bot) instead of ours: "
                              "the yardstick of issue 44")
    against.add_argument("--against-naive", action="store_true",
                         help="run ours, then the naive bot, with the same players; print "
                              "both and the ratios ours / naive")
    args = parser.parse_args(argv)
    if (args.naive or args.against_naive) and (args.restart or args.database or args.metrics
                                               or args.learners or args.processes > 1
                                               or args.restart_mid_hand):
        parser.error("the naive bot runs alone, in memory: no --restart, "
                     "--restart-mid-hand, --database, --processes, --metrics or --learners "
                     "with --naive or --against-naive")
    # Stopped by ``timeout`` (SIGTERM): unwind as on Ctrl-C, so the bot process is stopped
    # and a PostgreSQL run's schema dropped, instead of left behind.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(124))
    if args.restart:
        report = asyncio.run(run_restart(args.tables, args.seed, timeout=args.timeout))
    elif args.against_naive:
        reports = {}
        for name, naive in (("ours", False), ("naive", True)):
            say(f"--against-naive: running {'the naive bot' if naive else 'ours'}…")
            reports[name] = asyncio.run(run_load(
                args.tables, args.players, args.seed, args.hands, think_ms=args.think,
                timeout=args.timeout, pictures=args.pictures, naive=naive,
                profile=None if naive else args.profile, rate_headers=args.rate_headers))
        return print_against(reports["ours"], reports["naive"], as_json=args.json)
    else:
        report = asyncio.run(run_load(args.tables, args.players, args.seed, args.hands,
                                      think_ms=args.think, timeout=args.timeout,
                                      database=args.database, processes=args.processes,
                                      pictures=args.pictures, profile=args.profile,
                                      metrics=args.metrics, learners=args.learners,
                                      naive=args.naive,
                                      restart_mid_hand=args.restart_mid_hand,
                                      rate_headers=args.rate_headers))
    for failure in report["_failures"][:5]:
        print(f"table failed: {failure!r}", file=sys.stderr)
    print_report(report, as_json=args.json)
    return 0 if clean(report) else 1


def clean(report: dict[str, Any]) -> bool:
    """Nothing refused, limited or failed (the figures of a run that is not are suspect)."""
    return not (report["violations"] or report["rate_limited"] or report["failed_tables"]
                or (report.get("learning") or {}).get("failed_learners"))


LOBBY = ("/nlk", "join", "start")  # the lobby burst: /nlk new (and the settings), Join, Start


def ratio(ours: float | None, naive: float | None) -> float | None:
    return None if ours is None or not naive else round(ours / naive, 2)


def ratios(ours: dict[str, Any], naive: dict[str, Any]) -> dict[str, Any]:
    """Ours over the naive bot's, for what issue 44 compares: the first answers' percentiles,
    the lobby burst's median and 95th percentile per kind, and CPU per interaction (workers
    included)."""
    kinds_ours, kinds_naive = ours["first_response_ms_by_kind"], \
        naive["first_response_ms_by_kind"]
    return {
        "first_response_ms": {q: ratio(ours["first_response_ms"][q],
                                       naive["first_response_ms"][q])
                              for q in ("p50", "p90", "p99")},
        **{f"lobby_{q}": {kind: ratio(kinds_ours.get(kind, {}).get(q),
                                      kinds_naive.get(kind, {}).get(q)) for kind in LOBBY}
           for q in ("p50", "p95")},
        # The bot's processes with their workers (``tree_cpu_seconds``): the drawing is in
        # it once already.
        "bot_cpu_ms_per_interaction": ratio(ours["bot_cpu_ms_per_interaction"],
                                            naive["bot_cpu_ms_per_interaction"]),
        "memory_per_table_kb": ratio(ours["memory_per_table_kb"],
                                     naive["memory_per_table_kb"]),
    }


def print_against(ours: dict[str, Any], naive: dict[str, Any], *, as_json: bool) -> int:
    """Both runs' figures and the ratios, as one JSON object ({"ours", "naive", "ratios",
    "clean"}); without ``--json``, the ratios in words on standard error too."""
    for name, report in (("ours", ours), ("the naive bot", naive)):
        for failure in report["_failures"][:5]:
            print(f"{name}: table failed: {failure!r}", file=sys.stderr)
        for violation in report["_violations"][:5]:
            print(f"{name}: the fake refused: {violation}", file=sys.stderr)
    found = ratios(ours, naive)
    if not as_json:
        ms = found["first_response_ms"]
        print(f"ours / naive: first answer p50 {ms['p50']}, p90 {ms['p90']}, p99 {ms['p99']}; "
              "lobby p50 " + ", ".join(f"{k} {v}" for k, v in found["lobby_p50"].items())
              + "; lobby p95 " + ", ".join(f"{k} {v}" for k, v in found["lobby_p95"].items())
              + "; CPU per interaction (drawing included) "
              + f"{found['bot_cpu_ms_per_interaction']}",
              file=sys.stderr)
    both = clean(ours) and clean(naive)
    if not both and not as_json:
        print("a run was not clean (see above): its figures, and so the ratios, are suspect",
              file=sys.stderr)
    print(json.dumps({"ours": public(ours), "naive": public(naive), "ratios": found,
                      "clean": both}, indent=None if as_json else 2))
    return 0 if both else 1


if __name__ == "__main__":
    sys.exit(main())
