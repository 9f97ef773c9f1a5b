"""The load benchmark (``python -m tests.load``) runs, and at a tiny size the bot stays clean."""

import json

import pytest

from tests.load import public, run_load


@pytest.mark.e2e  # the bot in its own process, seconds of play
@pytest.mark.timeout(90)
async def test_three_small_tables_play_through_cleanly():
    report = await run_load(tables=3, players=2, seed=1, hands=1, think_ms=0, timeout=80)
    figures = public(report)
    assert json.loads(json.dumps(figures)) == figures  # it prints as one JSON object
    for key in ("tables", "players", "interactions", "first_response_ms", "memory_per_table_kb",
                "bot_cpu_ms_per_interaction", "seconds", "rate_limited", "violations"):
        assert key in figures, key
    assert set(figures["first_response_ms"]) == {"p50", "p90", "p99", "max"}
    assert figures["tables"] == 3 and figures["players"] == 2
    # What went wrong, said in full if anything did: the tables' errors, the bot's log.
    told = f"{report['_failures']!r}\n{report['_violations']}\n{report['_bot_log'][-3000:]}"
    assert report["_failures"] == [] and figures["failed_tables"] == 0, told
    assert figures["violations"] == 0, told
    assert figures["rate_limited"] == 0
    assert figures["unanswered"] == 0, told
    # Three two-player hands take well over a hundred taps, each answered.
    assert figures["interactions"] > 100
    ms = figures["first_response_ms"]
    assert 0 < ms["p50"] <= ms["p90"] <= ms["p99"] <= ms["max"] < 3000, (ms, told)
    assert figures["memory_per_table_kb"] is not None
    assert figures["bot_cpu_ms_per_interaction"] is not None
    assert figures["bot_cpu_ms_per_interaction"] > 0
