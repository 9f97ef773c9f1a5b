"""RULES.md §8: the nlk-replay/1 format and ``python -m rules replay``."""

import json
import random
import subprocess
import sys

import pytest

from rules import Game, Variant
from rules.replay import Replay, dumps, parse, read_records, replay_of
from rules.views import state_json
from tests.rules.rules_helpers import deck

EXAMPLE = {
    "format": "nlk-replay/1",
    "players": ["Ann", "Bob", "Cy", "Dee"],
    "variant": {"last_card": "keep", "must_beat_in_suit": False},
    "dealer": 3,
    "deck": [str(c) for c in deck(4, "QH 8C TS AD 9D 7S KC JH 8S 9H QC")],
    "actions": [{"seat": 0, "act": "draw"}, {"seat": 0, "act": "give", "card": "9D", "to": 1},
                {"seat": 0, "act": "draw"}, {"seat": 0, "act": "give", "card": "7S", "to": 3},
                {"seat": 0, "act": "draw"}, {"seat": 0, "act": "keep"}],
}


def run_cli(text, *args):
    return subprocess.run([sys.executable, "-m", "rules", "replay", *args, "-"], input=text,
                          capture_output=True, text=True, timeout=60)


def test_replay_prints_the_state_after_the_actions():
    done = run_cli(json.dumps(EXAMPLE))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["phase"] == "collect" and result["to_act"] == 1 and result["applied"] == 6
    assert result["cards"][0] == ["QH", "KC"] and result["cards"][3] == ["AD", "7S"]
    assert result["legal"] == [{"act": "draw"}] and result["error"] is None
    assert result["talon"] == 32 - 4 - 3 and result["trump"] is None


def test_replay_stops_at_the_first_refused_action_with_index_rule_and_message():
    bad = dict(EXAMPLE, actions=[*EXAMPLE["actions"], {"seat": 1, "act": "give", "card": "9D",
                                                       "to": 2}, {"seat": 1, "act": "draw"}])
    done = run_cli(json.dumps(bad))
    assert done.returncode == 1
    result = json.loads(done.stdout)
    assert result["applied"] == 6
    assert result["error"]["index"] == 6 and result["error"]["rule"] == "R3.2"
    assert "9♦" in result["error"]["message"] and "Cy" in result["error"]["message"]


def test_replay_refuses_an_action_by_the_wrong_seat():
    bad = dict(EXAMPLE, actions=[{"seat": 2, "act": "draw"}])
    result = json.loads(run_cli(json.dumps(bad)).stdout)
    assert result["error"]["rule"] == "R3.1" and result["applied"] == 0


def test_json_lines_give_one_result_per_record_in_order():
    lines = [json.dumps(dict(EXAMPLE, actions=EXAMPLE["actions"][:k])) for k in (0, 2, 6)]
    done = run_cli("\n".join(lines) + "\n")
    results = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["applied"] for r in results] == [0, 2, 6]


@pytest.mark.parametrize(("text", "reason"), [
    ("{not json", "bad JSON"),
    (json.dumps(dict(EXAMPLE, deck=EXAMPLE["deck"][:-1])), "missing"),
    (json.dumps(dict(EXAMPLE, deck=[*EXAMPLE["deck"][:-1], "QH"])), "twice"),
    (json.dumps(dict(EXAMPLE, deck=[*EXAMPLE["deck"][:-1], "2C"])), "not in the pack"),
    (json.dumps(dict(EXAMPLE, variant={"trumps": "none"})), "unknown variant key"),
    (json.dumps(dict(EXAMPLE, variant={"last_card": "maybe"})), "R6.1"),
    (json.dumps(dict(EXAMPLE, players=["Solo"])), "R6.3"),
    (json.dumps(dict(EXAMPLE, dealer=9)), "dealer"),
    (json.dumps(dict(EXAMPLE, actions=[{"seat": 0, "act": "fly"}])), "unknown action"),
    (json.dumps(dict(EXAMPLE, actions=[{"seat": 0, "act": "play", "card": "ZZ"}])), "R1.3"),
    (json.dumps(dict(EXAMPLE, format="nlk-replay/9")), "format"),
    ("", "no replay"),
    ("[1, 2]", "JSON object"),
])
def test_malformed_input_exits_2_with_a_plain_reason_and_no_traceback(text, reason):
    done = run_cli(text)
    assert done.returncode == 2
    assert reason in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_a_malformed_line_among_good_ones_still_replays_the_good_ones():
    done = run_cli(json.dumps(EXAMPLE) + "\n{oops\n" + json.dumps(EXAMPLE) + "\n")
    assert done.returncode == 2
    assert len(done.stdout.splitlines()) == 2 and "line 2" in done.stderr


def test_replay_reads_a_file_and_a_missing_file_is_a_plain_error(tmp_path):
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(EXAMPLE, indent=2))
    ok = subprocess.run([sys.executable, "-m", "rules", "replay", str(path)],
                        capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0 and json.loads(ok.stdout)["applied"] == 6
    missing = subprocess.run([sys.executable, "-m", "rules", "replay", str(tmp_path / "no")],
                             capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and "can't read" in missing.stderr
    assert "Traceback" not in missing.stderr


def test_positions_start_a_replay_in_either_phase():
    collect = {"players": 4, "position": {"phase": "collect", "stacks": [["QH"], ["8C"], ["TS"],
               ["AD"]], "talon": ["9D", "7S"], "to_act": 0},
               "actions": [{"seat": 0, "act": "draw"}, {"seat": 0, "act": "give", "card": "9D",
                                                        "to": 1}]}
    shed = {"players": ["A", "B", "C"], "position": {"phase": "shed", "hands": [["9S", "AC"],
            ["TS"], ["JS"]], "trump": "H", "to_act": 0},
            "actions": [{"seat": 0, "act": "play", "card": "9S"}]}
    done = run_cli(json.dumps(collect) + "\n" + json.dumps(shed) + "\n")
    assert done.returncode == 0, done.stderr
    first, second = (json.loads(line) for line in done.stdout.splitlines())
    assert first["cards"][1] == ["8C", "9D"] and first["legal"] == [{"act": "draw"}]
    assert second["phase"] == "shed" and second["trick"] == ["9S"] and second["trick_size"] == 3
    assert second["legal"] == [{"act": "play", "card": "TS"}, {"act": "take"}]


def test_the_drawer_of_a_free_last_card_is_reported_correctly_in_over_state():
    obj = {"players": 2, "position": {"phase": "shed", "hands": [["9S"], ["TS"]], "trump": "H",
                                      "to_act": 0}, "actions": [{"act": "play", "card": "9S"}]}
    result = json.loads(run_cli(json.dumps(obj)).stdout)
    assert result["phase"] == "over" and result["loser"] == 1 and result["out"] == [0]
    assert result["to_act"] is None and result["legal"] == []


@pytest.mark.parametrize("players", range(2, 10))
def test_exported_replay_reproduces_the_hand(players):
    rng = random.Random(players)
    game = Game.deal(players, rng, variant=Variant("free", True))
    while not game.is_over:
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    again, result = parse(json.loads(dumps(game))).run()
    assert result["error"] is None
    assert state_json(again) == state_json(game)
    assert again.outcome() == game.outcome()


def test_replay_objects_round_trip():
    replay = parse(EXAMPLE)
    assert isinstance(replay, Replay)
    assert parse(replay.to_json()) == replay
    game, _ = replay.run()
    assert replay_of(game) == replay


def test_read_records_accepts_a_pretty_printed_single_object():
    records = list(read_records(json.dumps(EXAMPLE, indent=2)))
    assert len(records) == 1 and records[0].replay is not None
