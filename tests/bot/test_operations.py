"""The bot as an operator runs it, in its own process against the fake Discord: a scrape
during play, health, JSON logs with one line for each step of its life, nothing left behind
after SIGKILL, and the commands registered in one place."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import sys
import time
from pathlib import Path

import aiohttp
import pytest

from bot.client import NLKBot
from bot.ops.metrics import Metrics
from bot.ops.server import MetricsServer
from bot.settings import Settings
from tests.backends import SERVER, database_target
from tests.bot.test_cluster import Launcher
from tests.fakediscord import FakeDiscord
from tests.nlk_driver import ROOT, Driver, running_bot, spawn_bot

pytestmark = pytest.mark.e2e


def free_ports(count: int = 1) -> int:
    """The first of ``count`` consecutive free TCP ports on 127.0.0.1."""
    rng = random.Random()
    for _ in range(200):
        first = rng.randrange(20000, 60000)
        with contextlib.ExitStack() as stack:
            try:
                for port in range(first, first + count):
                    s = stack.enter_context(socket.socket())
                    s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return first
    raise AssertionError("no free ports")


async def get(url: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as http, http.get(url) as answer:
        return answer.status, await answer.text()


def sample(text: str, name: str, **labels: str) -> float:
    """The value of one sample in Prometheus text (the sum over samples matching labels)."""
    total, found = 0.0, False
    for line in text.splitlines():
        if line.startswith("#") or not line.startswith(name):
            continue
        head, _, value = line.rpartition(" ")
        if head.split("{")[0] != name:
            continue
        if all(f'{key}="{want}"' in head for key, want in labels.items()):
            total, found = total + float(value), True
    assert found, f"no {name} {labels} in the scrape"
    return total


def descendants(pid: int) -> dict[int, str]:
    """Every living process under ``pid``: pid → its start time (to tell a reused pid)."""
    children: dict[int, list[int]] = {}
    started: dict[int, str] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
        started[int(entry)] = fields[19]
    found, todo = {}, list(children.get(pid, []))
    while todo:
        child = todo.pop()
        found[child] = started[child]
        todo += children.get(child, [])
    return found


def alive(processes: dict[int, str]) -> list[int]:
    """Those of ``processes`` still running (not zombies, and not a new process reusing
    the pid)."""
    left = []
    for pid, start in processes.items():
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[19] == start and fields[0] != "Z":
            left.append(pid)
    return left


async def until_gone(processes: dict[int, str], seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while (left := alive(processes)) and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    return left


async def test_a_scrape_during_play_shows_the_metrics_growing(fake_discord, tmp_path):
    fake, port = fake_discord, free_ports()
    base = f"http://127.0.0.1:{port}"
    log_path = tmp_path / "bot.log"
    with open(log_path, "wb") as log:
        process = await spawn_bot(fake, tmp_path / "nlk.sqlite3", stderr=log, env={
            "NLK_METRICS": f"127.0.0.1:{port}", "LOG_FORMAT": "json", "LOG_LEVEL": "INFO"})
    try:
        await fake.wait_for_bot(timeout=30)
        await fake.wait_until(lambda: "ready:" in log_path.read_text(), 10, "ready")
        status, text = await get(f"{base}/healthz")
        assert (status, text) == (200, "ok\n")
        driver = Driver(fake, random.Random(3))
        table = await driver.seat_and_start("ann", ["bob"])
        status, first = await get(f"{base}/metrics")
        assert status == 200
        await driver.play_hand(table)
        _, second = await get(f"{base}/metrics")
        for name, labels in [
                ("nlk_interactions_total", {"kind": "component"}),
                ("nlk_interaction_seconds_count", {}),
                # Taps are answered asking for nothing back: Discord's 204.
                ("nlk_discord_requests_total",
                 {"route": "POST /interactions/{id}/{token}/callback", "status": "204"}),
                ("nlk_db_transaction_seconds_count", {})]:
            assert sample(second, name, **labels) > sample(first, name, **labels), name
        assert sample(second, "nlk_interactions_total", kind="application_command") >= 1
        assert sample(second, "nlk_tables_live") == 1
        # A new server shows card pictures: the hand drew some, and keeps them to send again.
        assert sample(first, "nlk_picture_cache_bytes") < sample(second, "nlk_picture_cache_bytes")
        assert sample(second, "nlk_pictures_waiting") >= 0
        # (+Inf until discord.py's first heartbeat is acknowledged: the fake's come every 41 s)
        assert sample(second, "nlk_gateway_latency_seconds") >= 0
        for standard in ("process_cpu_seconds_total", "process_resident_memory_bytes",
                         "python_info", "python_gc_collections_total"):
            assert f"\n{standard}" in second, standard
        assert "nlk_discord_ratelimited_total" in second
        assert fake.token not in second and "/interactions/1" not in second
        process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(process.wait(), 30) == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    lines = log_path.read_text().splitlines()
    records = [json.loads(line) for line in lines]  # every line is one JSON object
    assert all({"time", "level", "logger", "message"} <= set(r) for r in records)
    messages = [r["message"] for r in records if r["logger"] == "bot" or
                r["logger"].startswith("bot.")]
    for start in ("starting nlk-bot ", "ready: ", "SIGTERM: shutting down", "stopped"):
        assert sum(m.startswith(start) for m in messages) == 1, (start, messages)
    assert messages[-1] == "stopped"
    assert fake.token not in log_path.read_text()


async def test_health_is_503_with_the_reason(fake_discord, tmp_path):
    """Before the gateway is connected, and when the database fails; 200 in between."""
    port = free_ports()
    url = f"http://127.0.0.1:{port}/healthz"
    waiting = NLKBot(Settings(token="x"))
    server = MetricsServer(waiting, Metrics(), "127.0.0.1", port)
    await server.start()
    try:
        assert await get(url) == (503, "unhealthy: the gateway is not connected yet\n")
    finally:
        await server.stop()
        await waiting.close()
    async with running_bot(fake_discord, tmp_path / "nlk.sqlite3") as bot:
        server = MetricsServer(bot, Metrics(), "127.0.0.1", port)
        await server.start()
        try:
            assert await get(url) == (200, "ok\n")
            assert bot.db is not None
            broken = bot.db.one

            async def fails(sql: str, params: object = ()) -> None:
                raise OSError("disk I/O error")

            bot.db.one = fails  # type: ignore[method-assign]
            assert await get(url) == (503, "unhealthy: the database failed: disk I/O error\n")
            bot.db.one = broken  # type: ignore[method-assign]
            assert (await get(url))[0] == 200
        finally:
            await server.stop()


async def test_a_sigkilled_bot_leaves_nothing_running(fake_discord, tmp_path):
    """The AI players' worker processes go with the bot, without a leaked-semaphore
    warning."""
    fake = fake_discord
    fake.set_channel_rate_limit(limit=200, per=5.0)
    log_path = tmp_path / "bot.log"
    with open(log_path, "wb") as log:
        process = await spawn_bot(fake, tmp_path / "nlk.sqlite3", stderr=log, stdout=log)
    try:
        await fake.wait_for_bot(timeout=30)
        driver = Driver(fake, random.Random(2), humans={"ann"})
        table = await driver.new_table("ann", seats=2)
        await driver.click("ann", table, "Add strong AI (host)")
        await driver.click("ann", table, "Start (host)")
        # Ann plays until the AI seat's turn, which it thinks in a worker process.
        playing = asyncio.create_task(driver.play_hand(table))
        try:
            await fake.wait_until(lambda: descendants(process.pid) or playing.done(), 60,
                                  "an AI worker")
        finally:
            playing.cancel()
            await asyncio.gather(playing, return_exceptions=True)
        before = descendants(process.pid)
        assert before
        os.kill(process.pid, signal.SIGKILL)
        await process.wait()
        left = await until_gone(before, 10)
        assert left == [], f"left behind: {left}"
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    text = log_path.read_text()
    assert "leaked semaphore" not in text and "resource_tracker" not in text, text


async def test_a_sigkilled_cluster_leaves_nothing_running(tmp_path):
    """Each process serves its metrics on PORT + i − 1, every line labelled with its shards,
    and names itself in every log line; when the launcher is SIGKILLed its processes shut
    down by themselves."""
    processes = 2 if SERVER else 1
    backend = "postgresql" if SERVER else "sqlite"
    port = free_ports(processes)
    async with FakeDiscord(shards=2) as fake, database_target(backend, tmp_path) as target:
        launcher = await Launcher(fake, target, "--processes", str(processes),
                                  "--shards", "2").start(
            NLK_METRICS=f"127.0.0.1:{port}", LOG_LEVEL="INFO")
        try:
            await launcher.wait_for(lambda: len(launcher.up()) == processes,
                                    name="the processes to come up")
            for number, shards, _pid in launcher.up():
                status, text = await get(f"http://127.0.0.1:{port + number - 1}/metrics")
                assert status == 200
                samples = [line for line in text.splitlines() if not line.startswith("#")]
                assert samples and all(f'shards="{shards}"' in line for line in samples)
                await launcher.wait_for(lambda n=number, s=shards: any(
                    f"[process {n}, shards {s}]" in line and "ready: " in line
                    for line in launcher.lines), 20, "a named ready line")
            own = [line for line in launcher.lines if " INFO " in line or " WARNING " in line]
            assert own and all("[process " in line for line in own), own
            assert launcher.process is not None
            before = descendants(launcher.process.pid)
            assert len(before) >= processes
            os.kill(launcher.process.pid, signal.SIGKILL)
            await launcher.process.wait()
            left = await until_gone(before, 30)
            assert left == [], f"left behind: {left}"
        finally:
            await launcher.kill()


async def run_bot(fake: FakeDiscord, database: Path, *args: str,
                  **env: str) -> tuple[int, str]:
    environment = {key: value for key, value in {
        **os.environ, **fake.env(), "NLK_DATABASE": str(database), "LOG_LEVEL": "INFO",
        **env}.items() if value}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", *args, cwd=ROOT, env=environment,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    output, _ = await asyncio.wait_for(process.communicate(), 60)
    return process.returncode or 0, output.decode()


def names(fake: FakeDiscord, guild: int | None) -> list[str]:
    return [command["name"] for command in fake.state.commands.get(guild, {}).values()]


async def test_commands_registered_twice_are_named_and_cleared(fake_discord, tmp_path):
    fake, database, guild = fake_discord, tmp_path / "nlk.sqlite3", fake_discord.guild_id
    # The README's path: try it on a development server, then publish globally.
    code, _ = await run_bot(fake, database, "sync", NLK_DEV_GUILD=str(guild))
    assert code == 0 and names(fake, guild) == ["nlk"]
    code, _ = await run_bot(fake, database, "sync")
    assert code == 0 and names(fake, None) == ["nlk"] and names(fake, guild) == ["nlk"]

    async def start_and_stop() -> str:
        log_path = tmp_path / "run.log"
        with open(log_path, "wb") as log:
            process = await spawn_bot(fake, database, stderr=log, env={
                "NLK_DEV_GUILD": "", "LOG_LEVEL": "INFO"})
        try:
            await fake.wait_until(lambda: "ready: " in log_path.read_text(), 30, "ready")
        finally:
            process.send_signal(signal.SIGTERM)
            await asyncio.wait_for(process.wait(), 30)
        return log_path.read_text()

    warned = [line for line in (await start_and_stop()).splitlines()
              if "registered both globally and for server" in line]
    assert len(warned) == 1 and f"server {guild}" in warned[0]
    assert f"--clear-guild {guild}" in warned[0]

    code, output = await run_bot(fake, database, "sync", "--clear-guild", str(guild))
    assert code == 0, output
    assert names(fake, guild) == [] and names(fake, None) == ["nlk"]
    assert f"removed the commands registered for server {guild}" in output
    assert "registered both globally" not in await start_and_stop()


async def test_clearing_a_server_the_bot_is_not_in_is_one_line(fake_discord, tmp_path):
    code, output = await run_bot(fake_discord, tmp_path / "nlk.sqlite3", "sync",
                                 "--clear-guild", "123456789012345678", LOG_LEVEL="WARNING")
    assert code == 1
    assert output.startswith("error: ") and output.count("\n") == 1, output
    assert "123456789012345678" in output and "not in that server" in output
    assert "Traceback" not in output


async def test_a_metrics_port_in_use_is_one_line_and_exit_1(fake_discord, tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, output = await run_bot(fake_discord, tmp_path / "nlk.sqlite3",
                                     NLK_METRICS=f"127.0.0.1:{port}", LOG_LEVEL="WARNING")
    assert code == 1, output
    assert output.startswith(f"error: can't serve metrics on 127.0.0.1:{port} (NLK_METRICS)")
    assert output.count("\n") == 1 and "Traceback" not in output, output
