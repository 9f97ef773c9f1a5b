"""``python -m rules play``: a hand in the terminal, typed moves, bad input re-asked."""

import io
import subprocess
import sys
from pathlib import Path

from rules import Card, Game, observe
from rules.play import play_hand, read_choice, table
from rules.variant import Variant

ROOT = Path(__file__).resolve().parent.parent


def scripted(answers):
    """An ``input`` stand-in: the given answers, then always the first choice."""
    queue = list(answers)

    def ask(prompt):
        return queue.pop(0) if queue else "1"
    return ask


def test_a_whole_hand_with_bad_input_re_asked():
    out = io.StringIO()
    code = play_hand(4, 0, "heuristic", "seed-1", None, Variant(),
                     scripted(["", "hello", "99", "play AS", "give QQ 1"]), out)
    text = out.getvalue()
    assert code == 0
    assert "The hand is over" in text
    assert text.count("Not possible:") == 5
    assert "choose a number from 1 to" in text
    assert "In the collect phase you give, draw or keep" in text
    assert "Your stack (bottom → top)" in text and "Your hand" in text


def test_typed_actions_and_numbers():
    game = Game.from_collect_position([[Card.parse("TS")], [Card.parse("9H")], [],
                                       [Card.parse("9C")]], [Card.parse("KD")], 0)
    view = observe(game, 0)
    assert str(read_choice("1", view)) == "give TS 1"
    assert str(read_choice("give ts 3", view)) == "give TS 3"
    assert str(read_choice(" draw ", view)) == "draw"
    try:
        read_choice("TS", view)  # fits two stacks: which one?
    except ValueError as error:
        assert "more than one stack" in str(error)
    else:
        raise AssertionError("an ambiguous card was accepted")
    shown = table(view)
    assert "talon: 1 card(s)" in shown and "top 10♠" in shown and "Seat 2: 0 card(s)" in shown


def test_quitting_and_running_out_of_input():
    out = io.StringIO()
    assert play_hand(3, 1, "random", "q", None, Variant(), scripted(["q"]), out) == 1

    def eof(prompt):
        raise EOFError
    out = io.StringIO()
    assert play_hand(3, 1, "random", "q", None, Variant(), eof, out) == 1
    assert "No more input" in out.getvalue()


def test_command_line_plays_a_hand():
    done = subprocess.run(
        [sys.executable, "-m", "rules", "play", "--players", "3", "--seed", "7", "--level",
         "strong", "--budget-ms", "5"],
        input="1\n" * 400, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "The hand is over" in done.stdout
    bad = subprocess.run([sys.executable, "-m", "rules", "play", "--players", "3", "--seat",
                          "5"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert bad.returncode == 2 and "--seat" in bad.stderr
