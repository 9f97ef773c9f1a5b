"""The load benchmark's operator figures: with metrics served and scraped, and on PostgreSQL
the server's CPU time per interaction, read from /proc."""

import pytest

from tests.backends import SERVER, needs_postgres
from tests.load import public, run_load


@pytest.mark.e2e
@needs_postgres()
@pytest.mark.timeout(120)
async def test_a_small_run_on_postgresql_with_metrics_reports_both_cpus():
    report = await run_load(tables=2, players=2, seed=2, hands=1, think_ms=0, timeout=100,
                            database=SERVER, metrics=True)
    figures = public(report)
    told = f"{report['_failures']!r}\n{report['_bot_log'][-3000:]}"
    assert figures["failed_tables"] == 0 and figures["violations"] == 0, told
    assert figures["metrics"] is True
    assert figures["bot_cpu_ms_per_interaction"] > 0
    # The bot's PostgreSQL backends did some work for each interaction, less than the bot.
    assert 0 < figures["db_cpu_ms_per_interaction"] < figures["bot_cpu_ms_per_interaction"]
