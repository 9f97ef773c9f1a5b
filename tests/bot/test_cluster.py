"""``python -m bot cluster``: processes dealt the shards, one restarted when it dies, all
stopped by SIGTERM with exit 0; shards as the fake Discord deals them, as Discord does."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import sys

import pytest

from bot.cluster.processes import ClusterError, plan, recommended_shards
from bot.settings import Settings
from tests.backends import SERVER, database_target
from tests.fakediscord import FakeDiscord
from tests.nlk_driver import ROOT

UP = re.compile(r"cluster: process (\d+) \(shards (\S+)\) is up \(pid (\d+)\)")


class Launcher:
    """The cluster as an operator runs it, its output read line by line."""

    def __init__(self, fake: FakeDiscord, database: str, *args: str) -> None:
        self.fake = fake
        self.database = database
        self.args = args
        self.lines: list[str] = []
        self.process: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None

    async def start(self, **extra: str) -> Launcher:
        env = {**os.environ, **self.fake.env(), "NLK_DATABASE": self.database,
               "NLK_DEV_GUILD": str(self.fake.guild_id), "LOG_LEVEL": "WARNING", **extra}
        env.pop("NLK_SHARDS", None)
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "cluster", *self.args, cwd=ROOT, env=env,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
            start_new_session=True)  # its own process group: a failed test kills them all
        self._reader = asyncio.create_task(self._read())
        return self

    async def _read(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        while line := await self.process.stdout.readline():
            self.lines.append(line.decode().rstrip())
            self.fake.state.changed()

    def up(self) -> list[tuple[int, str, int]]:
        """(process number, shards, pid) for each "is up" line so far."""
        return [(int(m[1]), m[2], int(m[3])) for line in self.lines if (m := UP.match(line))]

    async def wait_for(self, what, timeout: float = 40.0, name: str = "a line"):
        return await self.fake.wait_until(what, timeout, name)

    async def stop(self) -> int:
        assert self.process is not None
        if self.process.returncode is None:
            self.process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(self.process.wait(), 40)
        if self._reader is not None:
            await self._reader
        return code

    async def kill(self) -> None:
        """Kill the launcher and every bot process it started (after a failure)."""
        if self.process is not None:
            # The launcher's group, then each bot's (a bot runs in a group of its own).
            for group in [self.process.pid, *(pid for _n, _shards, pid in self.up())]:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(group, signal.SIGKILL)
            await self.process.wait()


@pytest.mark.e2e
async def test_a_cluster_restarts_a_dead_process_and_stops_cleanly_on_sigterm(tmp_path):
    """On PostgreSQL two processes share the shards; without a PostgreSQL server to test
    against, one process owns both on SQLite."""
    backend = "postgresql" if SERVER else "sqlite"
    processes = 1 if backend == "sqlite" else 2
    expected = {1: "0-1/2"} if processes == 1 else {1: "0/2", 2: "1/2"}
    async with FakeDiscord(shards=2) as fake, database_target(backend, tmp_path) as target:
        launcher = await Launcher(fake, target, "--processes", str(processes),
                                  "--shards", "2").start()
        try:
            await launcher.wait_for(lambda: len(launcher.up()) == processes,
                                    name="the processes to come up")
            assert {n: shards for n, shards, _pid in launcher.up()} == expected
            assert fake.gateway.active(shard=0) and fake.gateway.active(shard=1)
            last = fake.gateway.sessions[-1]
            dying = launcher.up()[-1]
            os.kill(dying[2], signal.SIGKILL)  # a child dies
            await launcher.wait_for(lambda: len(launcher.up()) == processes + 1, 60,
                                    "the restart")
            assert any(f"process {dying[0]} " in line and "was killed by signal 9" in line
                       and "restarting it" in line for line in launcher.lines), launcher.lines
            assert launcher.up()[-1][:2] == dying[:2] and launcher.up()[-1][2] != dying[2]
            await fake.wait_for_bot(shard=int(re.split(r"[-/]", dying[1])[0]), after=last)
            code = await launcher.stop()
        finally:
            await launcher.kill()
        assert code == 0, launcher.lines
        assert launcher.lines[-1] == "cluster: all processes stopped", launcher.lines
        assert not any("Traceback" in line for line in launcher.lines), launcher.lines
        # Every IDENTIFY came in its turn, the restarted process's too.
        assert fake.violations == []
        assert fake.gateway.identifies == 2 + (2 if processes == 1 else 1)


def test_several_processes_need_a_database_they_can_share():
    settings = Settings(token="x", database="nlk.sqlite3")
    with pytest.raises(ClusterError, match="postgresql://"):
        plan(settings, 2, 4)
    assert [str(part) for part in plan(settings, 1, 4)] == ["0-3/4"]
    postgres = Settings(token="x", database="postgresql://nlk@db/nlk")
    assert [str(part) for part in plan(postgres, 2, 3)] == ["0-1/3", "2/3"]
    with pytest.raises(ClusterError, match="at least one"):
        plan(postgres, 4, 3)


@pytest.mark.e2e
async def test_a_process_that_never_comes_up_stops_the_cluster_with_exit_1(tmp_path):
    async with FakeDiscord(shards=2) as fake:
        launcher = await Launcher(fake, str(tmp_path / "nlk.sqlite3"), "--processes", "1",
                                  "--shards", "2").start(DISCORD_TOKEN="not-the-token")
        try:
            code = await asyncio.wait_for(launcher.process.wait(), 60)
            await launcher._reader
        finally:
            await launcher.kill()
    assert code == 1, launcher.lines
    assert any("Discord refused the token" in line for line in launcher.lines)
    assert launcher.lines[-1] == "error: process 1 (shards 0-1/2) exited with 1 before it " \
        "came up: stopping the cluster", launcher.lines


async def test_a_cluster_asks_discord_how_many_shards_to_run(tmp_path):
    async with FakeDiscord(shards=3) as fake:
        settings = Settings(token=fake.token, api_base=fake.api_base)
        assert await recommended_shards(settings) == 3
        with pytest.raises(ClusterError, match="refused the token"):
            await recommended_shards(Settings(token="wrong", api_base=fake.api_base))
