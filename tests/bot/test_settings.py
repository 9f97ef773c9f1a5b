"""Settings from the environment and .env; a missing token is one clear line and exit 1."""

import subprocess
import sys

import pytest

from bot.settings import SettingsError, load_settings

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]


def test_environment_wins_over_dotenv(tmp_path):
    env_file = tmp_path / ".env"
    env_file.write_text("# comment\nDISCORD_TOKEN='from-file'\nNLK_DATABASE=file.db\n"
                        "export LOG_LEVEL=debug\n")
    settings = load_settings({"DISCORD_TOKEN": "from-env"}, env_file)
    assert settings.token == "from-env"
    assert settings.database == "file.db"
    assert settings.log_level == "DEBUG"
    assert settings.dev_guild is None and settings.api_base is None


def test_all_settings_are_read(tmp_path):
    settings = load_settings({"DISCORD_TOKEN": "t", "NLK_DEV_GUILD": "123",
                              "DISCORD_API_BASE": "http://127.0.0.1:9/api/v10/"}, None)
    assert settings.dev_guild == 123
    assert settings.api_base == "http://127.0.0.1:9/api/v10"
    assert settings.database == "nlk.sqlite3"


@pytest.mark.parametrize("env", [{}, {"DISCORD_TOKEN": "  "}])
def test_missing_token_says_where_to_get_it_and_put_it(env):
    with pytest.raises(SettingsError, match="DISCORD_TOKEN.*developers.*\\.env"):
        load_settings(env, None)


@pytest.mark.parametrize(("key", "value"), [("NLK_DEV_GUILD", "abc"), ("LOG_LEVEL", "LOUD")])
def test_bad_values_are_refused_with_the_reason(key, value):
    with pytest.raises(SettingsError, match=key):
        load_settings({"DISCORD_TOKEN": "t", key: value}, None)


@pytest.mark.e2e  # the bot in its own process: seconds
def test_running_without_a_token_prints_one_line_and_exits_non_zero(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "bot"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and "DISCORD_TOKEN" in done.stderr
    assert "Traceback" not in done.stderr


async def test_sync_publishes_the_commands_globally_and_exits(fake_discord, tmp_path):
    import asyncio
    import os

    env = {**os.environ, **fake_discord.env(), "NLK_DATABASE": str(tmp_path / "nlk.sqlite3")}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "sync", cwd=ROOT, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    _, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, err.decode()
    (command,) = fake_discord.commands(global_=True)
    assert command["name"] == "nlk"
    subcommands = {o["name"] for o in command["options"]}
    assert subcommands == {"new", "hand", "leave", "remove", "end", "rules", "stats",
                           "export", "replay", "settings", "table", "cards", "learn",
                           "practice"}


@pytest.mark.e2e
def test_a_database_from_a_newer_bot_is_refused_at_start(tmp_path):
    import sqlite3

    path = tmp_path / "nlk.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = 99")
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "DISCORD_TOKEN": "x",
           "NLK_DATABASE": str(path), "DISCORD_API_BASE": "http://127.0.0.1:9/api/v10"}
    done = subprocess.run([sys.executable, "-m", "bot"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "newer version of the bot" in done.stderr and "Traceback" not in done.stderr
