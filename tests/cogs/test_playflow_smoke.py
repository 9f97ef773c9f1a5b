"""The play-flow benchmark (``python -m tests.playflow``) runs, and a short game plays clean."""

import json

import pytest

from tests.load import public
from tests.playflow import run_playflow


@pytest.mark.e2e  # the bot in its own process, seconds of play
@pytest.mark.timeout(150)
async def test_a_short_play_flow_run_reports_every_figure():
    report = await run_playflow(people=2, ai=0, hands=1, pace=0.2, reaction=0.1, settle=2.0,
                                timeout=130)
    figures = public(report)
    assert json.loads(json.dumps(figures)) == figures  # it prints as one JSON object
    assert report["_failure"] is None and not figures["failed"]
    for key in ("people", "ai", "hands", "pace_s", "phases", "wasted_taps", "stale_pings",
                "refused_taps", "table_message", "seconds", "rate_limited", "violations"):
        assert key in figures, key
    edits = figures["table_message"]
    assert set(edits) == {"channel_edits", "repeated", "gaps_over_1_5_s"}
    assert edits["channel_edits"] > 0  # a move made from a hand shows in a paced edit
    assert 0 <= edits["repeated"] < edits["channel_edits"]
    assert set(figures["phases"]) == {"collect", "shed"}
    for phase in figures["phases"].values():
        assert set(phase) == {"decisions", "taps_per_decision", "no_choice_turns",
                              "no_choice_taps", "table_lag_s"}
        assert set(phase["table_lag_s"]) == {"p50", "p90", "max", "n"}
    shed = figures["phases"]["shed"]
    assert shed["decisions"] > 0 and shed["taps_per_decision"] >= 1.0
    assert shed["table_lag_s"]["n"] > 0
    assert figures["phases"]["collect"]["no_choice_taps"] == 0
    assert figures["stale_pings"] == 0
    assert figures["violations"] == 0 and figures["rate_limited"] == 0
