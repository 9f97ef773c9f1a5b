"""``.env`` through python-dotenv, and the operator settings (LOG_FORMAT, NLK_METRICS)."""

from __future__ import annotations

import pytest

from bot.settings import SettingsError, load_settings


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
