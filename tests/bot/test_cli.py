"""The command line answers: every ``--help`` exits 0 with no token, ``--version`` prints the
version, and a usage error is one line with exit 2; run as deployed, in its own process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def bot(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "bot", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("command", [[], ["run"], ["sync"], ["cluster"], ["copy-database"]])
def test_every_help_exits_0_without_a_token(tmp_path, command):
    done = bot(*command, "--help", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: python -m bot {' '.join(command)}".rstrip()), \
        done.stdout
    assert "DISCORD_TOKEN is not set" not in done.stdout + done.stderr
    assert done.stderr == ""


def test_the_top_help_names_every_command(tmp_path):
    done = bot("--help", cwd=tmp_path)
    for command in ("run", "sync", "cluster", "copy-database", "--version"):
        assert command in done.stdout
    sync = " ".join(bot("sync", "--help", cwd=tmp_path).stdout.split())
    assert "--clear-guild" in sync
    # As it does (and the README says): to NLK_DEV_GUILD's server when set (issue 37).
    assert "to the server NLK_DEV_GUILD names if it is set" in sync and "else globally" in sync
    assert "--processes" in bot("cluster", "--help", cwd=tmp_path).stdout


def test_version_prints_the_installed_version(tmp_path):
    from importlib import metadata

    done = bot("--version", cwd=tmp_path)
    assert done.returncode == 0
    assert done.stdout == f"nlk-bot {metadata.version('nlk-bot')}\n"


@pytest.mark.parametrize("args, words", [
    (["serve"], "invalid choice: 'serve'"),
    (["cluster"], "--processes"),
    (["cluster", "--processes", "0"], "must be at least 1"),
    (["cluster", "--processes", "two"], "not a whole number"),
    (["copy-database", "a.sqlite3"], "target"),
    (["sync", "--clear-guild", "my-server"], "a server id is digits"),
    (["--frobnicate"], "--frobnicate"),
])
def test_a_usage_error_is_one_line_and_exit_2(tmp_path, args, words):
    done = bot(*args, cwd=tmp_path)
    assert done.returncode == 2, done
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("error: ") and words in done.stderr, done.stderr
    assert "--help" in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""


def test_without_a_token_the_bot_still_says_so_in_one_line(tmp_path):
    done = bot("cluster", "--processes", "2", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith("error: DISCORD_TOKEN is not set")
    assert done.stderr.count("\n") == 1
