"""The guided first hand (``rules/lesson.py``): a script the engine accepts move by move,
whose coach names every rule a first-timer needs, offers the move it asks for, and explains
every other tap without playing it."""

from rules import lesson
from rules.actions import TAKE, Act, Action
from rules.lesson import STEPS, coach_words, judge, situation, wrong_words
from rules.phase import Phase
from rules.play import Words


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
    # Step 2 wants "keep A♥": giving it is allowed, so the coach says what it would do.
    allowed = judge(2, Action.parse("give AH 1"))
    assert not allowed.right and allowed.refusal is None and allowed.rule == "R3.2"
    said = wrong_words(allowed, "en", ("You", "Eszter", "Bence"))
    assert "not played" in said
    assert said.startswith("Giving A♥ to Eszter would put it on their K♣, and you would draw "
                           "again. (R3.2)")
    # Step 7 wants the trump J♦ on 9♣: A♥ does not beat it, and the engine says why.
    here = situation(7)
    refused = judge(7, Action.parse("play AH"))
    assert not refused.right and refused.rule == "R4.2"
    assert "(R4.2)" in wrong_words(refused, "hu") and "(R4.2)" in wrong_words(refused, "fr")
    assert judge(5, TAKE).rule == "R4.4"  # nothing to take when you lead
    assert situation(7).game.version == here.game.version  # nothing was played


def test_each_allowed_wrong_tap_says_what_that_move_would_have_done() -> None:
    """Issue 45: not one sentence for every off-script move, but the move's own: every
    other button of every step gets a sentence naming its cards, in every language."""
    seen = set()
    for step in range(STEPS):
        here = situation(step)
        for action in here.options:
            if action == here.wanted:
                continue
            verdict = judge(step, action)
            assert verdict.refusal is None and verdict.would is not None, (step, action)
            for lang in ("en", "hu", "fr"):
                said = wrong_words(verdict, lang)
                assert "{" not in said and f"({verdict.rule})" in said
                if action.card is not None:
                    assert Words(lang).card(action.card) in said, said
            seen.add(verdict.would.text)
    assert len(seen) >= 5, seen  # give, draw, keep, beat, trump, take: each its own


def test_the_lesson_offers_only_legal_moves() -> None:
    """As real tables do (issue 45: it offered A♥ where it could not beat)."""
    for step in range(STEPS):
        here = situation(step)
        assert set(here.options) == set(here.game.legal_actions()), step
    assert Action.parse("play AH") not in situation(7).options


def test_the_lesson_teaches_what_newcomers_had_to_guess() -> None:
    """Issue 45: a fit across suits said explicitly, two stack gives in a row, the pack's
    size by player count, a trick's size fixed when led (and smaller later), who leads
    after a take of the only card, and the footer's variants."""
    en = {step: coach_words(situation(step).coach) for step in range(STEPS + 1)}
    told = {step: " ".join(coach_words(t.coach) for t in situation(step).told if t.coach)
            for step in range(STEPS + 1)}
    every = " ".join([*en.values(), *told.values()])
    # A fit across suits: K♣ on Eszter's Q♥, and the coach says the suits don't matter.
    give = situation(1)
    assert give.wanted == Action.parse("give KC 1")
    top = give.game.stacks[1][-1]
    assert str(top)[1] != "C" and "whatever the suits" in en[1]
    # Two stack gives in a row, before drawing, then the draw.
    gives = [s for s in range(STEPS) if situation(s).wanted is not None
             and situation(s).wanted.act == Act.GIVE and situation(s).game.drawn is None
             and not situation(s).game.has_drawn]
    assert len(gives) >= 2 and gives[1] == gives[0] + 1
    # The pack by player count (R1.2), the variants in the footer (R6.1, R6.2).
    assert "(R1.2)" in en[0] and "28 cards" in en[0] and "7s with four" in en[0]
    assert "“last card kept”" in every and "“trump any time”" in every
    # Who leads after a take of the only card, by name (R4.7).
    assert "Bence, leads the next one (R4.7)" in every
    # A trick's size (R4.3): three when led, still three after Bence went out in it, two
    # for the trick led afterwards.
    last = situation(STEPS - 1)
    assert last.game.trick == [] and last.game.in_count == 2
    assert "just two cards (R4.3)" in en[STEPS - 1]
    assert "still needs three cards" in every
    named = {rule for step in range(STEPS + 1) for rule in situation(step).rules}
    assert {"R1.2", "R3.1", "R4.3", "R4.7", "R6.1", "R6.2"} <= named
