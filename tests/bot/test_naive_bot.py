"""The naive bot (``tests/naive_bot.py``), the load benchmark's yardstick: the load driver
plays whole hands against it unchanged (``python -m tests.load --naive``), and the ratios
``--against-naive`` prints are ours over its figures."""

import json
import os
import subprocess
import sys

import pytest

from rules import Game
from rules.cards import pack
from tests.load import cpu_seconds, main, print_against, public, ratios, run_load, tree_cpu_seconds
from tests.naive_bot import Table, hand_message


def told(report):
    return f"{report['_failures']!r}\n{report['_violations']}\n{report['_bot_log'][-3000:]}"


@pytest.mark.e2e  # the naive bot in its own process, seconds of play
@pytest.mark.timeout(60)
async def test_two_small_tables_play_a_hand_against_the_naive_bot_cleanly():
    report = await run_load(tables=2, players=2, seed=1, hands=1, think_ms=0, timeout=50,
                            pictures="off", naive=True)
    figures = public(report)
    assert figures["naive"] is True
    assert report["_failures"] == [] and figures["failed_tables"] == 0, told(report)
    assert figures["unanswered"] == 0 and figures["violations"] == 0, told(report)
    assert figures["rate_limited"] == 0, told(report)
    # Two two-player hands and their lobbies take well over fifty taps, each answered.
    assert figures["interactions"] > 50
    kinds = figures["first_response_ms_by_kind"]
    assert {"/nlk", "join", "start", "hand", "play"} <= set(kinds), kinds
    assert kinds["join"]["count"] == 3  # one for each table, and the warm-up's
    # Phase-two moves from a hand edit the table message through a token, nothing else.
    requests = figures["requests_per_interaction"]
    assert set(requests) <= {"POST /interactions/{interaction_id}/{token}/callback",
                             "PATCH /webhooks/{app_id}/{token}/messages/{ref}"}, requests
    assert figures["bot_cpu_ms_per_interaction"] > 0
    assert figures["db_cpu_ms_per_interaction"] is None  # no database


def test_the_naive_bot_runs_alone():
    for extra in (["--learners", "2"], ["--database", "postgresql://x"], ["--metrics"],
                  ["--restart"]):
        with pytest.raises(SystemExit) as refused:
            main(["--naive", "--tables", "1", *extra])
        assert refused.value.code == 2, extra


def test_a_hand_too_big_for_buttons_is_played_from_a_select_per_suit():
    # Two players, 24 cards: the leader holds 22 and may lead any of them.
    cards = list(pack(2))
    game = Game.from_shed_position([cards[:22], cards[22:]], trump=0, to_act=0,
                                   names=["ann", "bob"])
    table = Table(7, 1, 11, 2, game.variant, [(11, "ann"), (12, "bob")], game, number=1)
    embed, view = hand_message(table, 11)
    selects = [item.item for item in view.children if hasattr(item.item, "options")]
    offered = sorted(o.value for s in selects for o in s.options)
    assert offered == sorted(str(c) for c in cards[:22])
    assert all(s.custom_id.startswith("nlks:7:0:play.") for s in selects)
    assert "Your lead" in embed.fields[0].value
    # The other player sees their cards and no controls but Refresh.
    embed, view = hand_message(table, 12)
    assert [item.item.label for item in view.children] == ["Refresh"]
    assert embed.fields[0].value == "Not your turn yet."


def test_ratios_are_ours_over_the_naive_bots():
    def report(p50, p99, cpu, join):
        return {"first_response_ms": {"p50": p50, "p90": p99, "p99": p99, "max": p99},
                "first_response_ms_by_kind": {"/nlk": {"p50": p50, "p95": p99},
                                              "join": {"p50": join, "p95": join * 2},
                                              "start": {"p50": 0.0}},
                "bot_cpu_ms_per_interaction": cpu, "memory_per_table_kb": None}

    found = ratios(report(10.0, 40.0, 6.0, 3.0), report(5.0, 100.0, 4.0, 6.0))
    assert found["first_response_ms"] == {"p50": 2.0, "p90": 0.4, "p99": 0.4}
    assert found["bot_cpu_ms_per_interaction"] == 1.5
    # The bot's CPU figure holds its drawing workers' already (their part of it is told
    # apart): counted once, not added again.
    drawing = report(10.0, 40.0, 6.0, 3.0) | {"workers_cpu_ms_per_interaction": 1.5}
    naive = report(5.0, 100.0, 4.0, 6.0) | {"workers_cpu_ms_per_interaction": 0.0}
    assert ratios(drawing, naive)["bot_cpu_ms_per_interaction"] == 1.5
    # No naive figure to divide by: no ratio, rather than a made-up one.
    assert found["lobby_p50"] == {"/nlk": 2.0, "join": 0.5, "start": None}
    assert found["lobby_p95"] == {"/nlk": 0.4, "join": 0.5, "start": None}
    assert found["memory_per_table_kb"] is None


def test_ratios_from_a_run_that_was_not_clean_are_marked_suspect(capsys):
    def report(failed):
        return {"first_response_ms": {"p50": 1.0, "p90": 2.0, "p99": 3.0, "max": 4.0},
                "first_response_ms_by_kind": {}, "bot_cpu_ms_per_interaction": 1.0,
                "memory_per_table_kb": 1.0, "violations": 0, "rate_limited": 0,
                "failed_tables": failed, "learning": None, "_failures": [],
                "_violations": [], "_bot_log": ""}

    assert print_against(report(0), report(0), as_json=True) == 0
    assert json.loads(capsys.readouterr().out)["clean"] is True
    assert print_against(report(3), report(0), as_json=True) == 1
    said = json.loads(capsys.readouterr().out)
    assert said["clean"] is False and said["ours"]["failed_tables"] == 3
    assert said["ratios"]["first_response_ms"]["p99"] == 1.0


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="CPU times are read from /proc (Linux)")
def test_the_bots_cpu_figure_holds_its_workers_cpu():
    """What ``bot_cpu_ms_per_interaction`` is made of: a process's CPU with that of the
    processes under it (its drawing workers), so a worker's CPU is in it once."""
    worker = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time\n"
         "while time.process_time() < 0.3: pass\n"
         "print('done', flush=True)\n"
         "sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert worker.stdout is not None and worker.stdout.readline() == b"done\n"
        own, tree = cpu_seconds(os.getpid()), tree_cpu_seconds(os.getpid())
        assert own is not None and tree is not None
        assert tree - own >= 0.25  # the worker's 0.3 s of CPU, counted under the bot
    finally:
        worker.kill()
        worker.wait()
