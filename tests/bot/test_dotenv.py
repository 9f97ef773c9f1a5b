"""``.env`` through python-dotenv, and the operator settings (LOG_FORMAT, NLK_METRICS)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.settings import SettingsError, load_settings

ROOT = Path(__file__).resolve().parents[2]


def test_dotenv_quoting_export_and_comments(tmp_path):
    env_file = tmp_path / ".env"
    env_file.write_text(
        "# the bot's settings\n"
        "export DISCORD_TOKEN='abc#def'  # a comment after a quoted value\n"
        'NLK_DATABASE="my file.sqlite3"\n'
        "LOG_FORMAT=json # inline comment\n"
        "NLK_METRICS=127.0.0.1:9100\n"
        "LOG_LEVEL=\n", encoding="utf-8")
    settings = load_settings({}, env_file)
    assert settings.token == "abc#def"
    assert settings.database == "my file.sqlite3"
    assert settings.log_format == "json"
    assert settings.metrics == ("127.0.0.1", 9100)
    assert settings.log_level == "INFO"


def test_real_environment_variables_win_over_dotenv(tmp_path):
    env_file = tmp_path / ".env"
    env_file.write_text("DISCORD_TOKEN=file\nLOG_FORMAT=json\n", encoding="utf-8")
    settings = load_settings({"DISCORD_TOKEN": "env", "LOG_FORMAT": "text"}, env_file)
    assert (settings.token, settings.log_format) == ("env", "text")


def test_a_bad_dotenv_value_gets_the_usual_one_line_error(tmp_path):
    env_file = tmp_path / ".env"
    env_file.write_text('DISCORD_TOKEN=t\nNLK_DEV_GUILD="my server"\n', encoding="utf-8")
    with pytest.raises(SettingsError, match=r"^NLK_DEV_GUILD must be a server id"):
        load_settings({}, env_file)


def test_an_unreadable_dotenv_is_one_line(tmp_path):
    env_file = tmp_path / ".env"
    env_file.write_bytes(b"DISCORD_TOKEN=\xff\xfe\n")
    with pytest.raises(SettingsError, match=r"^can't read .*\.env"):
        load_settings({}, env_file)


@pytest.mark.parametrize("key, value, words", [
    ("LOG_FORMAT", "yaml", "LOG_FORMAT must be text or json"),
    ("NLK_METRICS", "9100x", "NLK_METRICS must be HOST:PORT"),
    ("NLK_METRICS", "localhost", "NLK_METRICS must be HOST:PORT"),
    ("NLK_METRICS", "localhost:70000", "NLK_METRICS must be HOST:PORT"),
])
def test_bad_operator_settings_are_refused_with_the_reason(key, value, words):
    with pytest.raises(SettingsError, match=words):
        load_settings({"DISCORD_TOKEN": "t", key: value}, None)


def test_metrics_without_a_host_listen_everywhere():
    assert load_settings({"DISCORD_TOKEN": "t", "NLK_METRICS": ":9100"}, None).metrics == \
        ("0.0.0.0", 9100)


@pytest.mark.parametrize("line", ['NLK_DATABASE="/srv/nlk/nlk.sqlite3', "this is not a setting"])
def test_a_dotenv_line_that_does_not_parse_is_named_and_refused(tmp_path, line):
    env_file = tmp_path / ".env"
    env_file.write_text(f"DISCORD_TOKEN=secret-token\n{line}\nLOG_LEVEL=INFO\n",
                        encoding="utf-8")
    with pytest.raises(SettingsError) as refused:
        load_settings({}, env_file)
    said = str(refused.value)
    assert said.startswith(f"{env_file}, line 2") and "\n" not in said
    assert ("the NLK_DATABASE setting" in said) == line.startswith("NLK_DATABASE")
    assert "secret-token" not in said and "/srv/nlk" not in said  # names, never values


@pytest.mark.e2e  # runs the bot in its own process: about a second
def test_a_dotenv_that_does_not_parse_stops_the_start_and_creates_nothing(tmp_path):
    """Issue 37: an unclosed quote made python-dotenv skip the line with a warning, and the
    bot started on a new, empty nlk.sqlite3 in the current folder."""
    (tmp_path / ".env").write_text('DISCORD_TOKEN=x\nNLK_DATABASE="/srv/nlk/nlk.sqlite3\n',
                                   encoding="utf-8")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(ROOT),
           "DISCORD_API_BASE": "http://127.0.0.1:9/api/v10"}
    done = subprocess.run([sys.executable, "-m", "bot"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 1, done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("error: .env, line 2 (the NLK_DATABASE setting)"), done.stderr
    assert "Traceback" not in done.stderr and "could not parse" not in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [".env"]  # no nlk.sqlite3
