"""The guided first hand (``rules/lesson.py``): a script the engine accepts move by move,
whose coach names every rule a first-timer needs, offers the move it asks for, and explains
every other tap without playing it."""

from rules import lesson
from rules.actions import TAKE, Action
from rules.lesson import STEPS, judge, situation, wrong_words
from rules.phase import Phase


def test_the_script_is_a_hand_the_engine_plays_to_its_end() -> None:
    end = situation(STEPS)
    assert end.finished and end.game.is_over
    outcome = end.game.outcome()
    assert outcome is not None
    assert outcome.loser == 1 and outcome.order[:2] == (2, lesson.LEARNER)


def test_every_step_offers_its_move_and_names_a_rule() -> None:
    for step in range(STEPS):
        here = situation(step)
        assert here.game.to_act == lesson.LEARNER
        assert here.wanted in here.options, step
        assert here.coach.rules and all(r.startswith("R") for r in here.coach.rules)
        assert "{button}" in here.coach.text, step  # the coach points at a button
        assert judge(step, here.wanted).right


def test_the_coach_names_every_rule_a_first_timer_needs() -> None:
    named = {rule for step in range(STEPS + 1) for rule in situation(step).rules}
    assert {"R3.2", "R3.3", "R3.4", "R4.2", "R4.5", "R4.8", "R4.9"} <= named


def test_collect_comes_before_shed_and_the_skip_lands_on_the_shed() -> None:
    assert situation(lesson.SHED - 1).game.phase is Phase.COLLECT
    assert situation(lesson.SHED).game.phase is Phase.SHED
    assert [situation(s).chapter for s in range(STEPS)] == \
        [0] * lesson.SHED + [1] * (STEPS - lesson.SHED)


def test_a_wrong_tap_is_explained_and_changes_nothing() -> None:
    # Step 2 wants "keep A♥": giving it is allowed, so the coach says so.
    allowed = judge(2, Action.parse("give AH 1"))
    assert not allowed.right and allowed.refusal is None and allowed.rule == "R3.3"
    assert "not played" in wrong_words(allowed)
    # Step 6 wants the trump J♦ on 9♣: A♥ does not beat it, and the engine says why.
    here = situation(6)
    refused = judge(6, Action.parse("play AH"))
    assert not refused.right and refused.rule == "R4.2"
    assert "(R4.2)" in wrong_words(refused, "hu") and "(R4.2)" in wrong_words(refused, "fr")
    assert judge(4, TAKE).rule == "R4.4"  # nothing to take when you lead
    assert situation(6).game.version == here.game.version  # nothing was played
