"""Metrics an operator can read (issue 37): answer times from 1 ms and per kind of
interaction, handler errors counted, and 429s and errors at 0 from the start."""

from __future__ import annotations

import logging
import sys

from prometheus_client import generate_latest

from bot.ops.metrics import Metrics
from tests.bot.test_operations import sample


def scrape(metrics: Metrics) -> str:
    return generate_latest(metrics.registry).decode()


def test_counters_a_dashboard_reads_are_at_zero_from_the_start():
    text = scrape(Metrics())
    for scope in ("user", "global", "shared"):
        assert sample(text, "nlk_discord_ratelimited_total", scope=scope) == 0
    for logger in ("bot", "cogs", "discord"):
        assert sample(text, "nlk_handler_errors_total", logger=logger) == 0
    assert sample(text, "nlk_interaction_seconds_count", kind="component") == 0


def test_answer_times_are_read_from_one_millisecond_and_by_kind():
    metrics = Metrics()
    metrics._received(1, 100.0, "component")
    metrics._received(2, 100.0, "application_command")
    metrics._answered(1, 100.0015)  # 1.5 ms: the usual answer to a tap
    metrics._answered(2, 100.030)
    metrics._answered(3, 100.5)  # never received here: not counted
    text = scrape(metrics)
    bucket = "nlk_interaction_seconds_bucket"
    assert sample(text, bucket, kind="component", le="0.001") == 0
    assert sample(text, bucket, kind="component", le="0.002") == 1
    assert sample(text, bucket, kind="application_command", le="0.025") == 0
    assert sample(text, bucket, kind="application_command", le="0.05") == 1
    assert sample(text, "nlk_interaction_seconds_count") == 2


def test_errors_logged_with_a_traceback_are_counted_by_logger():
    metrics = Metrics()
    handler = metrics.count_errors(logging.getLogger("cogs"))
    try:
        log = logging.getLogger("cogs.answers.replies")
        try:
            raise RuntimeError("boom")
        except RuntimeError:
            log.error("unexpected error, code %s", "ABC123", exc_info=sys.exc_info())
        log.error("an error without a traceback is a refusal worded, not a fault")
        log.warning("a warning", exc_info=True)
    finally:
        logging.getLogger("cogs").removeHandler(handler)
    text = scrape(metrics)
    assert sample(text, "nlk_handler_errors_total", logger="cogs") == 1
    assert sample(text, "nlk_handler_errors_total", logger="bot") == 0


def test_the_gateway_latency_help_names_both_values_it_can_hold():
    text = scrape(Metrics())
    (help_line,) = [line for line in text.splitlines()
                    if line.startswith("# HELP nlk_gateway_latency_seconds")]
    assert "NaN: not connected" in help_line and "+Inf" in help_line


async def test_every_write_is_timed_once_whether_a_transaction_or_a_statement_alone(database):
    metrics = Metrics()
    metrics.time_transactions(database)
    async with database.transaction() as db:
        await db.execute("INSERT INTO bot_state (key, value) VALUES (?, ?)", ("a", "1"))
    await database.write("INSERT INTO bot_state (key, value) VALUES (?, ?)", ("b", "2"))
    assert sample(scrape(metrics), "nlk_db_transaction_seconds_count") == 2
