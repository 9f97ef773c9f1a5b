"""Log lines an operator can use: JSON for log shippers, each line naming its process and
shards in a cluster, and secrets redacted in both formats."""

from __future__ import annotations

import json
import logging

import pytest

from bot.cluster.shards import Shards
from bot.logs import setup_logging
from bot.settings import Settings

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GhIjKl.abcdefghijklmnopqrstuvwxyz0123456789AB"


@pytest.fixture
def root_logging():
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def lines(capsys) -> list[str]:
    return capsys.readouterr().err.splitlines()


def test_json_is_one_object_a_line_with_secrets_redacted(root_logging, capsys):
    setup_logging(Settings(token=TOKEN, log_format="json"))
    log = logging.getLogger("bot.test")
    log.info("posting to /interactions/123/%s/callback as %s", "aW50ZXJhY3Rpb24", TOKEN)
    try:
        raise RuntimeError(f"refused {TOKEN}\nsecond line")
    except RuntimeError:
        log.exception("it failed")
    first, second = (json.loads(line) for line in lines(capsys))
    assert first["level"] == "INFO" and first["logger"] == "bot.test"
    assert first["message"] == "posting to /interactions/123/[redacted]/callback as [redacted]"
    assert "process" not in first and "shards" not in first
    assert second["message"] == "it failed"
    assert "RuntimeError: refused [redacted]" in second["traceback"]
    assert TOKEN not in json.dumps(second)


def test_in_a_cluster_every_line_names_its_process_and_shards(root_logging, capsys):
    setup_logging(Settings(token=TOKEN, shards=Shards.parse("1/2"), process=2))
    logging.getLogger("discord.gateway").warning("Can't keep up")
    logging.getLogger("bot.client").info("resumed %d open table(s)", 3)
    text = lines(capsys)
    assert len(text) == 2
    assert all(" [process 2, shards 1/2] " in line for line in text), text
    assert text[1].endswith("INFO [process 2, shards 1/2] bot.client: resumed 3 open table(s)")


def test_json_in_a_cluster_carries_process_and_shards_as_fields(root_logging, capsys):
    setup_logging(Settings(token=TOKEN, shards=Shards.parse("0-1/4"), process=1,
                           log_format="json", log_level="WARNING"))
    logging.getLogger("bot").info("not shown")
    logging.getLogger("bot").warning("shown")
    (line,) = lines(capsys)
    record = json.loads(line)
    assert (record["process"], record["shards"], record["message"]) == (1, "0-1/4", "shown")


@pytest.mark.parametrize("method, path, route", [
    ("POST", "/api/v10/interactions/1234567890123/aW50ZXJhY3Rpb246dG9rZW4/callback",
     "POST /interactions/{id}/{token}/callback"),
    ("PATCH", "/api/v10/webhooks/123456789012345/aW50ZXJhY3Rpb24/messages/@original",
     "PATCH /webhooks/{id}/{token}/messages/@original"),
    ("GET", "/api/v10/channels/98765432101234/messages/12345678901234",
     "GET /channels/{id}/messages/{id}"),
    ("GET", "/api/v10/users/@me", "GET /users/@me"),
])
def test_metric_routes_carry_no_ids_or_tokens(method, path, route):
    from bot.ops.metrics import route as metric_route

    assert metric_route(method, path) == route


def test_the_cluster_launcher_speaks_json_too(capsys):
    from bot.cluster.processes import Cluster

    Cluster([Shards.parse("0/1")], json_lines=True).say("process 1 (shards 0/1) is up")
    Cluster([Shards.parse("0/1")]).say("all processes stopped")
    first, second = capsys.readouterr().out.splitlines()
    record = json.loads(first)
    assert (record["logger"], record["message"]) == ("cluster", "process 1 (shards 0/1) is up")
    assert second == "cluster: all processes stopped"
