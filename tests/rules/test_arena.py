"""``python -m rules arena``: seat rotation, the report, and the command line."""

import json
import random

import pytest

from rules import Game, Variant, observe
from rules.ai import choose
from rules.ai.base import seeded
from rules.ai.random_player import pick
from rules.arena import Setup, percentile, play_hand, run_arena, wilson
from rules.cli import main


def test_wilson_interval():
    lo, hi = wilson(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    lo, hi = wilson(0, 400)
    assert lo == 0.0 and hi == pytest.approx(0.0095, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)


def test_percentile():
    values = sorted(float(v) for v in range(1, 101))
    assert percentile(values, 0.5) == 50.0
    assert percentile(values, 0.99) == 99.0
    assert percentile([], 0.5) == 0.0


def test_hands_rotate_the_seat_over_the_same_deals():
    setup = Setup(4, "t", "heuristic", "random", None, Variant())
    report = run_arena(setup, games=7, jobs=1)
    assert report["games"] == 8  # rounded up to whole deals: every seat plays each deal
    assert set(report) == {"players", "games", "player", "field", "budget_ms",
                           "field_budget_ms", "losses", "loss_rate", "ci95", "chance",
                           "decision_ms_p50", "decision_ms_p99"}
    assert 0 <= report["losses"] <= 8
    lo, hi = report["ci95"]
    assert lo <= report["loss_rate"] <= hi
    assert report["chance"] == 0.25 and report["budget_ms"] == 50
    assert report["field_budget_ms"] == 0  # the random level does not think
    lost, times = play_hand(setup, 0, 2)
    assert isinstance(lost, bool) and times and all(t >= 0 for t in times)


def test_processes_give_the_same_result():
    setup = Setup(3, "p", "heuristic", "random", None, Variant("free", True))
    one = run_arena(setup, games=6, jobs=1)
    two = run_arena(setup, games=6, jobs=2)
    assert one["losses"] == two["losses"]


def test_heuristic_beats_a_random_field():
    report = run_arena(Setup(6, "b", "heuristic", "random", None, Variant()), games=24)
    assert report["losses"] <= 2  # chance would be 4 of 24


def test_command_line(capsys):
    code = main(["arena", "--players", "3", "--games", "3", "--seed", "x", "--player",
                 "strong", "--field", "heuristic", "--budget-ms", "5", "--jobs", "1"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["players"] == 3 and report["games"] == 3 and report["budget_ms"] == 5
    assert report["player"] == "strong" and report["field"] == "heuristic"
    assert main(["arena", "--games", "0"]) == 2
    assert main(["arena", "--field-budget-ms", "-1"]) == 2


def test_the_field_may_think_for_another_time(capsys):
    """--field-budget-ms sets the field's budget only; the measured seat keeps its own."""
    setup = Setup(3, "f", "strong", "strong", 7, Variant(), field_budget_ms=2)
    assert setup.budget_of("strong", True) == 7 and setup.budget_of("strong", False) == 2
    assert Setup(3, "f", "strong", "heuristic", 7, Variant()).budget_of("heuristic", False) == 7
    assert Setup(3, "f", "strong", "heuristic", None, Variant()).budget_of("heuristic",
                                                                          False) == 50
    code = main(["arena", "--players", "3", "--games", "3", "--player", "strong", "--field",
                 "strong", "--budget-ms", "4", "--field-budget-ms", "1"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["budget_ms"] == 4 and report["field_budget_ms"] == 1


def test_random_seats_play_as_the_random_level_would():
    """The arena's shortcut for random seats picks exactly what ``choose`` picks."""
    game = Game.deal(5, random.Random(3))
    for _ in range(200):
        if game.is_over:
            break
        s = game.to_act
        quick = pick(game.legal_actions(), seeded("random", "x", s, game.version))
        assert quick == choose(observe(game, s), "random", seed="x")
        game.apply(quick)
