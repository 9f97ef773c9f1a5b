"""``Game.check``: asking whether an action is allowed, without applying it."""

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import (
    DRAW,
    KEEP,
    TAKE,
    CardNotHeld,
    DoesNotBeat,
    DoesNotFit,
    Game,
    HandOver,
    IllegalAction,
    NotYourTurn,
    Variant,
    WrongStep,
)
from rules.views import state_json
from tests.rules.rules_helpers import act, collect, play_all, shed

hands = st.tuples(st.integers(2, 9), st.integers(0, 2**32), st.sampled_from(["keep", "free"]),
                  st.booleans())


def snapshot(game):
    return (game.version, state_json(game), list(game.events), list(game.actions),
            [list(s) for s in game.stacks], list(game.talon))


@pytest.mark.e2e  # hundreds of random hands: seconds (CI runs it)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hands)
def test_check_passes_every_legal_action_and_changes_nothing(spec):
    players, seed, last_card, must_beat = spec
    rng = random.Random(seed)
    game = Game.deal(players, rng, variant=Variant(last_card, must_beat))
    while not game.is_over:
        before = snapshot(game)
        legal = list(game.legal_actions())
        for action in legal:
            assert game.check(action) is None
            assert game.check(action, game.to_act) is None
        other = (game.to_act + 1) % game.n
        refusal = game.check(legal[0], other)
        assert isinstance(refusal, NotYourTurn)  # R3.1 / R4.5 / R4.8
        assert refusal.rule in ("R3.1", "R4.5", "R4.8")
        for probe in (DRAW, KEEP, TAKE, act("play AS"), act("give AS 0")):
            if probe not in legal:
                assert isinstance(game.check(probe), IllegalAction)
        assert snapshot(game) == before
        assert game.legal_actions() == legal
        game.apply(legal[rng.randrange(len(legal))])
    assert isinstance(game.check(DRAW), HandOver)


@pytest.mark.parametrize(("make", "script", "probe", "seat", "kind", "rule"), [
    # R3.2: a give onto a stack whose top is not one rank below.
    (lambda: collect(["9C", "JD", "KD", "QC"], "AS KS"), "", "give 9C 1", None, DoesNotFit,
     "R3.2"),
    # R3.3: playing belongs to the shed phase.
    (lambda: collect(["9C", "JD", "KD", "QC"], "AS KS"), "", "play 9C", None, WrongStep,
     "R3.3"),
    # R3.3: after a draw only the drawn card may be given.
    (lambda: collect(["QH", "8C", "TS", "AD"], "9D 7S KC"), "draw", "give QH 1", None,
     CardNotHeld, "R3.3"),
    # R3.1: turns go round in seat order.
    (lambda: collect(["9C", "JD", "KD", "QC"], "AS KS"), "", "draw", 2, NotYourTurn, "R3.1"),
    # R4.2: the card must beat the top of the trick.
    (lambda: shed(["9S TC", "TS 8S", "JS", "QS"], "H"), "play 9S", "play 8S", None,
     DoesNotBeat, "R4.2"),
    # R4.4: the leader has nothing to take.
    (lambda: shed(["9S TC", "TS 8S", "JS", "QS"], "H"), "", "take", None, WrongStep, "R4.4"),
    # R6.2: at a must-beat-in-suit table, no trumping while a higher card of the suit is held.
    (lambda: shed(["9S TC", "TS 7H", "JS", "QS"], "H", must_beat_in_suit=True), "play 9S",
     "play 7H", None, DoesNotBeat, "R6.2"),
])
def test_check_names_the_rule_an_action_breaks(make, script, probe, seat, kind, rule):
    game = play_all(make(), script)
    before = snapshot(game)
    refusal = game.check(act(probe), seat)
    assert isinstance(refusal, kind) and refusal.rule == rule
    assert refusal.message and refusal.message[-1] in ".!"
    assert snapshot(game) == before
    with pytest.raises(kind) as raised:  # apply refuses with the very same explanation
        game.apply(act(probe), seat)
    assert (raised.value.rule, raised.value.message) == (rule, refusal.message)
    assert snapshot(game) == before


def test_check_refuses_anything_once_the_hand_is_over():
    """R4.9: with one player left in, nobody acts any more."""
    game = shed(["9S", "TS AC"], "H")
    play_all(game, "play 9S")
    assert game.is_over
    refusal = game.check(TAKE, 1)
    assert isinstance(refusal, HandOver) and refusal.rule == "R4.9"
