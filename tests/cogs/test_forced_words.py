"""A move that plays itself at a real table says why, in words (issue 34, item 4): in the
moves log, to the player ("You had to draw") and to everyone else ("ann had to draw"), and
in the player's own answer; in English, Hungarian and French."""

import random

import pytest

from bot.db.records import Mark
from cogs.render.history import log_lines, own_forced
from rules import Action, Card, Game
from rules.hint import forced, forced_event
from rules.i18n import Lang
from tests.helpers import table_for

DRAW_WHY = {Lang.EN: "had to draw", Lang.HU: "húz", Lang.FR: "pioch"}


def forced_table():
    """ann's Ten fits on nobody's stack, so her draw plays itself, and the 8♣︎ she draws
    fits nowhere either, so its keep plays itself too; as ``_play_forced`` marks them."""
    game = Game.from_collect_position([[Card.parse("TH")], [Card.parse("QS")],
                                       [Card.parse("KD")]],
                                      [Card.parse(c) for c in ("8C", "QH", "9C")], 0,
                                      names=("ann", "bob", "cy"))
    table = table_for(game)
    for _ in range(2):
        assert len(game.legal_actions()) == 1
        table.marks[len(game.history())] = Mark.FORCED
        game.apply(game.legal_actions()[0])
    return table


@pytest.mark.parametrize("lang", [Lang.EN, Lang.HU, Lang.FR])
def test_the_moves_log_says_why_a_move_played_itself(lang):
    table = forced_table()
    own = log_lines(table, table.seat_view(0), lang)
    others = log_lines(table, table.seat_view(1), lang)
    why_own = [line for line in own if line.startswith("↳")]
    why_others = [line for line in others if line.startswith("↳")]
    assert len(why_own) == 2 and len(why_others) == 2, own
    assert all("(R3.3)" in line for line in why_own + why_others)
    assert why_own != why_others  # "You had to …" for ann, "ann had to …" for the others
    assert all("ann" in line for line in why_others)
    assert not any("ann" in line for line in why_own)
    assert "8♣" in why_own[1] and "8♣" in why_others[1]
    if lang is Lang.EN:
        assert why_own[0] == ("↳ *You had to draw: no top card of your stack fits on another "
                              "stack, and drawing is compulsory. (R3.3)*")
        assert why_others[1].startswith("↳ *ann had to keep 8♣")
    # ann's own answer to the tap before them says the same, to her alone.
    assert own_forced(table, 1000, lang) == [line[3:-1] for line in why_own]
    assert own_forced(table, 1001, lang) == []


def test_a_forced_moves_reason_is_the_one_its_position_gives():
    """Over random hands: every move that would play itself at a real table (a lone legal
    collect move) is explained from its event exactly as ``forced`` explains it from the
    position before it."""
    seen = 0
    for seed in range(30):
        game = Game.deal(3 + seed % 5, random.Random(seed))
        rng = random.Random(seed)
        while not game.is_over and game.phase.value == "collect":
            legal = game.legal_actions()
            if len(legal) == 1:
                before, at = forced(game), len(game.history())
                game.apply(legal[0])
                found = forced_event(game.history(), at)  # the move's first event is marked
                assert found is not None and found[0] == before
                seen += 1
            else:
                game.apply(rng.choice(legal))
    assert seen > 50


def test_moves_that_never_play_themselves_have_no_forced_reason():
    assert forced_event(Game.deal(3, random.Random(1)).history(), 0) is None
    assert Action.parse("draw").act == "draw"


def again_table():
    """Issue 45: ann (seat 0) draws 9♣, which fits on bob's 8♥; she gives it, and her next
    draw plays itself: after a give of a drawn card she must draw again (R3.3), while her
    own top card, J♠, fits on cy's 10♦ (a stack give, no longer allowed once she drew)."""
    game = Game.from_collect_position([[Card.parse("JS")], [Card.parse("8H")],
                                       [Card.parse("TD")]],
                                      [Card.parse(c) for c in ("9C", "KH", "AC")], 0,
                                      names=("ann", "bob", "cy"))
    table = table_for(game)
    game.apply(Action.parse("draw"))
    game.apply(Action.parse("give 9C 1"))
    assert game.legal_actions() == [Action.parse("draw")]  # the draw plays itself
    table.marks[len(game.history())] = Mark.FORCED
    game.apply(Action.parse("draw"))
    return table


@pytest.mark.parametrize("lang", [Lang.EN, Lang.HU, Lang.FR])
def test_a_draw_after_giving_the_drawn_card_says_draw_again_not_nothing_fits(lang):
    table = again_table()
    own = [line for line in log_lines(table, table.seat_view(0), lang) if line.startswith("↳")]
    others = [line for line in log_lines(table, table.seat_view(1), lang)
              if line.startswith("↳")]
    nothing_fits = forced(Game.from_collect_position(
        [[Card.parse("TH")], [Card.parse("QS")], [Card.parse("KD")]],
        [Card.parse("8C")], 0)).words(("a", "b", "c"), lang)
    assert len(own) == 1 and len(others) == 1, own
    assert nothing_fits[:-7] not in own[0]  # not "no top card of your stack fits"
    assert own[0] != others[0] and "ann" in others[0] and "(R3.3)" in own[0]
    if lang is Lang.EN:
        assert own[0] == ("↳ *You had to draw again: you gave away the card you drew, and "
                          "after giving a drawn card you must draw again. (R3.3)*")
        assert others[0] == ("↳ *ann had to draw again: after giving away a drawn card, a "
                             "player must draw again. (R3.3)*")
    assert own_forced(table, 1000, lang) == [own[0][3:-1]]


def test_a_forced_draw_from_an_empty_stack_says_the_stack_is_empty():
    """ann gave her only card away before drawing: nothing of hers can fit anywhere, as her
    stack is empty, and the position's reason says that, from the events too."""
    game = Game.from_collect_position([[Card.parse("JS")], [Card.parse("TD")],
                                       [Card.parse("8H")]],
                                      [Card.parse(c) for c in ("KH", "AC")], 0)
    game.apply(Action.parse("give JS 1"))
    before, at = forced(game), len(game.history())
    assert "empty" in before.words(game.names)
    game.apply(Action.parse("draw"))
    found = forced_event(game.history(), at)
    assert found is not None and found[0] == before
    assert "empty" in found[1].words(game.names)
