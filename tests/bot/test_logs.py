"""No token in the logs: not the bot's, not a player's interaction token, at any level."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import os
import sys
from pathlib import Path

import pytest

from bot.logs import REDACTED, RedactSecrets, redact_logs
from bot.settings import Settings, load_settings
from tests.nlk_driver import Driver

ROOT = Path(__file__).resolve().parents[2]
BOT_TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GabcDe.abcdefghijklmnopqrstuvwxyz0123456789AB"
INTERACTION_TOKEN = "aW50ZXJhY3Rpb246MTIzNDU2Nzg5MDEyMzQ1Njc4OmFiY2RlZmdoaWprbG1ub3A"


def record(msg: str, *args: object, exc_info: object = None) -> logging.LogRecord:
    return logging.LogRecord("discord.http", logging.DEBUG, __file__, 1, msg, args or None,
                             exc_info)  # type: ignore[arg-type]


def redacted(rec: logging.LogRecord, secrets: list[str] | None = None) -> str:
    RedactSecrets(secrets or [BOT_TOKEN]).filter(rec)
    return logging.Formatter("%(message)s").format(rec)


@pytest.mark.parametrize("msg, args", [
    ("%s %s with %s has returned %s",
     ("POST", f"https://discord.com/api/v10/interactions/1234/{INTERACTION_TOKEN}/callback",
      '{"type": 4}', 204)),
    ("%s %s with %s has returned %s",
     ("PATCH", f"https://discord.com/api/v10/webhooks/5678/{INTERACTION_TOKEN}/messages/"
               "@original", None, 200)),
    ("POST https://discord.com/api/v10/webhooks/5678/%s", (INTERACTION_TOKEN,)),
    ("For Shard ID %s: WebSocket Event: %s",
     (None, {"t": "INTERACTION_CREATE", "d": {"id": "1", "token": INTERACTION_TOKEN}})),
    ("received %s", (json.dumps({"d": {"token": INTERACTION_TOKEN, "type": 2}}),)),
])
def test_interaction_tokens_in_arguments_are_redacted(msg, args):
    rec = record(msg, *args)
    text = redacted(rec)
    assert INTERACTION_TOKEN not in text and REDACTED in text
    assert rec.args is None and rec.getMessage() == text  # formatted once, stored back


@pytest.mark.parametrize("msg, args", [
    ("identifying with %s", ({"op": 2, "d": {"token": BOT_TOKEN}},)),
    ("headers: %s", ({"Authorization": f"Bot {BOT_TOKEN}"},)),
    ("token is %s", (BOT_TOKEN,)),
])
def test_the_bot_token_is_redacted(msg, args):
    text = redacted(record(msg, *args))
    assert BOT_TOKEN not in text and REDACTED in text


def test_the_exact_bot_token_is_redacted_whatever_its_shape():
    assert "s3cret" not in redacted(record("token %s!", "s3cret"), ["s3cret"])


def test_a_token_in_a_traceback_is_redacted():
    try:
        raise RuntimeError(f"POST /interactions/1/{INTERACTION_TOKEN}/callback failed")
    except RuntimeError:
        rec = record("request failed", exc_info=sys.exc_info())
    text = redacted(rec)
    assert INTERACTION_TOKEN not in text and "RuntimeError" in text


def test_harmless_messages_pass_unchanged():
    for message in ("Bot connected to the gateway", "table 12: hand 3 move 40",
                    "shard ID None has connected to Gateway (Session ID: abc123)."):
        assert redacted(record("%s", message)) == message


def test_every_root_handler_gets_the_filter_and_every_logger_passes_through_it():
    root = logging.getLogger("nlk-test-root")
    root.propagate = False
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    root.addHandler(handler)
    try:
        redact_logs([BOT_TOKEN], root)
        child = logging.getLogger("nlk-test-root.discord.gateway")
        child.setLevel(logging.DEBUG)
        child.debug("event %s", {"token": INTERACTION_TOKEN})
        child.error("login with %s", BOT_TOKEN)
    finally:
        root.removeHandler(handler)
    assert INTERACTION_TOKEN not in stream.getvalue() and BOT_TOKEN not in stream.getvalue()
    assert stream.getvalue().count(REDACTED) == 2


def test_settings_repr_hides_the_token():
    settings = load_settings({"DISCORD_TOKEN": BOT_TOKEN}, None)
    assert BOT_TOKEN not in repr(settings) and BOT_TOKEN not in str(settings)
    assert settings.token == BOT_TOKEN
    assert "nlk.sqlite3" in repr(Settings(token=BOT_TOKEN))


async def test_a_debug_run_shows_no_token(fake_discord, tmp_path):
    """The bot at DEBUG, as deployed, answering a slash command: every payload is logged,
    no token is."""
    fake = fake_discord
    env = {**os.environ, **fake.env(), "NLK_DATABASE": str(tmp_path / "nlk.sqlite3"),
           "NLK_DEV_GUILD": str(fake.guild_id), "LOG_LEVEL": "DEBUG"}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", cwd=ROOT, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    try:
        await fake.wait_for_bot(timeout=30)
        table = await Driver(fake).seat_and_start("ann", ["bob"])
        assert table is not None
        process.terminate()
        output, _ = await asyncio.wait_for(process.communicate(), 20)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    log = output.decode()
    assert "INTERACTION_CREATE" in log and "DEBUG" in log  # payloads were logged
    assert fake.token not in log
    tokens = {ix.token for ix in fake.state.interactions_by_token.values()}
    assert tokens and not [t for t in tokens if t in log]


@pytest.mark.e2e  # the bot in its own process: seconds
def test_an_unreachable_api_at_debug_shows_no_token(tmp_path):
    import subprocess

    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(ROOT),
           "DISCORD_TOKEN": BOT_TOKEN, "NLK_DATABASE": str(tmp_path / "nlk.sqlite3"),
           "DISCORD_API_BASE": "http://127.0.0.1:9/api/v10", "LOG_LEVEL": "DEBUG"}
    done = subprocess.run([sys.executable, "-m", "bot"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "can't reach Discord" in done.stderr
    assert BOT_TOKEN not in done.stderr + done.stdout
