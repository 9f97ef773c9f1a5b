"""``python -m rules play``: a hand in the terminal, typed moves, bad input re-asked."""

import io
import subprocess
import sys
from pathlib import Path

import pytest

from rules import Card, Game, observe
from rules.play import play_hand, read_choice, table
from rules.variant import Variant

ROOT = Path(__file__).resolve().parents[2]


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
    assert "talon: 1 card." in shown and "top 10♠" in shown and "Seat 2: 0 cards" in shown


def test_quitting_and_running_out_of_input():
    out = io.StringIO()
    assert play_hand(3, 1, "random", "q", None, Variant(), scripted(["q"]), out) == 1

    def eof(prompt):
        raise EOFError
    out = io.StringIO()
    assert play_hand(3, 1, "random", "q", None, Variant(), eof, out) == 1
    assert "No more input" in out.getvalue()


@pytest.mark.e2e  # a whole hand in a subprocess: seconds
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


def test_the_game_opens_with_how_to_play_and_says_the_result_once():
    out = io.StringIO()
    assert play_hand(4, 0, "heuristic", "seed-1", None, Variant(), scripted([]), out) == 0
    text = out.getvalue()
    intro = text.split("\n\n")[0].splitlines()
    assert intro[0].startswith("How to play") and 4 <= len(intro) <= 8
    assert "TD is 10♦" in text and "Collect phase" in intro[1] and "give 9D 1" in text
    ending = text[text.index("The hand is over"):]
    assert ending.count("lost") == 1 and "You lose" not in ending and "safe" not in ending


def test_ctrl_c_leaves_with_one_line_and_status_130(monkeypatch, capsys):
    from rules.cli import main

    def interrupted(prompt):
        raise KeyboardInterrupt
    monkeypatch.setattr("builtins.input", interrupted)
    assert main(["play", "--players", "3", "--seed", "7", "--level", "random"]) == 130
    captured = capsys.readouterr()
    assert captured.out.rstrip().endswith("\nInterrupted: the hand is left unfinished.")
    assert captured.err == ""


def test_ctrl_c_in_a_real_process_prints_no_traceback():
    import os
    import signal
    import time

    # ``python -m rules play``, with Ctrl-C as a terminal gives it: a test runner started in
    # the background ignores SIGINT, and its children would inherit that.
    command = ("import runpy, signal, sys; "
               "signal.signal(signal.SIGINT, signal.default_int_handler); "
               "sys.argv[1:] = ['play', '--players', '3', '--seed', '7', '--level', 'random']; "
               "runpy.run_module('rules', run_name='__main__', alter_sys=True)")
    proc = subprocess.Popen([sys.executable, "-c", command], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    seen = b""
    deadline = time.monotonic() + 60
    while b"Your move" not in seen and time.monotonic() < deadline:
        chunk = os.read(proc.stdout.fileno(), 4096)
        if not chunk:
            break
        seen += chunk
    assert b"Your move" in seen
    # Ctrl-C, and again if need be, as a person would: a signal that lands after the prompt
    # is written but before the read begins waits for the read to end, and closing the
    # input here (``communicate``) would end it as an end of input instead.
    for _ in range(30):
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=2)
            break
        except subprocess.TimeoutExpired:
            continue
    rest, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert b"Traceback" not in err and err.strip() == b""
    assert rest.strip() == b"Interrupted: the hand is left unfinished."


def test_end_of_input_leaves_with_one_line_and_no_traceback():
    done = subprocess.run([sys.executable, "-m", "rules", "play", "--players", "3", "--seed",
                           "7", "--level", "random"], input="", capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert done.returncode == 1 and done.stderr == ""
    assert done.stdout.rstrip().endswith("\nNo more input: the hand is left unfinished.")


class FakeTerminal(io.StringIO):
    def __init__(self, tty):
        super().__init__()
        self.tty = tty

    def isatty(self):
        return self.tty


def test_keys_typed_while_the_ai_thinks_are_discarded_only_at_a_terminal(monkeypatch):
    termios = __import__("pytest").importorskip("termios")
    from rules.play import discard_typeahead

    flushed = []
    monkeypatch.setattr(termios, "tcflush", lambda stream, which: flushed.append(which))
    discard_typeahead(FakeTerminal(tty=False))
    discard_typeahead(None)
    assert flushed == []
    discard_typeahead(FakeTerminal(tty=True))
    assert flushed == [termios.TCIFLUSH]

    def broken(stream, which):
        raise termios.error(25, "Inappropriate ioctl for device")
    monkeypatch.setattr(termios, "tcflush", broken)
    discard_typeahead(FakeTerminal(tty=True))  # a terminal that can't flush is no error


def test_each_prompt_first_discards_typeahead(monkeypatch):
    from rules import play

    calls = []
    monkeypatch.setattr(play, "discard_typeahead", lambda stream: calls.append("flush"))
    monkeypatch.setattr("builtins.input", lambda prompt: calls.append("ask") or "1")
    assert play.ask_terminal("Your move: ") == "1"
    assert calls == ["flush", "ask"]


def _refused(lang, answers):
    """The "Not possible" lines of a hand played in ``lang`` with ``answers`` typed first."""
    out = io.StringIO()
    play_hand(4, 0, "heuristic", "seed-1", None, Variant(), scripted(answers), out, lang)
    return [line for line in out.getvalue().splitlines()
            if line.startswith(("Not possible:", "Nem lehet:", "Impossible\u202f:"))]


def test_a_refused_move_speaks_the_players_language_with_its_rule_number():
    # "play AS" in the collect phase breaks R3.3; "give QQ 1" names no card (R1.3).
    english = _refused("en", ["play AS", "give QQ 1"])
    assert english[0] == ("Not possible: In the collect phase you give, draw or keep; playing "
                          "and taking come in the shed phase (R3.3). Try again.")
    assert "“QQ” is not a card" in english[1] and "(R1.3)" in english[1]
    # What was typed is quoted as each language quotes: „QQ” in Hungarian, « QQ » in French.
    for lang, start, card in (("hu", "Nem lehet: A körödnek ebben a részében", "„QQ” nem lap"),
                              ("fr", "Impossible\u202f: Ce coup ne correspond pas",
                               "«\u202fQQ\u202f» n’est pas")):
        rule, typo = _refused(lang, ["play AS", "give QQ 1"])
        assert rule.startswith(start) and "(R3.3)" in rule, rule
        assert typo.startswith(start.split(":")[0]) and card in typo and "(R1.3)" in typo
        for line in (rule, typo):  # not a word of the engine's English
            assert "collect phase" not in line and "is not a card" not in line, line
            assert "shed phase" not in line and " you " not in line, line


def test_every_rule_the_engine_refuses_by_has_a_translated_sentence():
    import re

    from rules.explain import RULES

    explain = (ROOT / "rules" / "explain.py").read_text(encoding="utf-8")
    wording = explain[explain.index("def refusal("):explain.index("RULES: dict")]
    cited = set(re.findall(r'"(R\d\.\d)"', wording))
    assert cited and cited <= set(RULES), cited - set(RULES)
