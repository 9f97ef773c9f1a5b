"""R2 deal and R3 phase one (collect), with the RULES.md §7 worked example."""

import random

import pytest

from rules import (
    DRAW,
    KEEP,
    CardNotHeld,
    DoesNotFit,
    Game,
    IllegalAction,
    NotYourTurn,
    WrongStep,
)
from rules.session import first_dealer, next_dealer
from rules.views import state_json
from tests.rules.rules_helpers import act, cards, collect, deck, play_all

EXAMPLE_DECK = "QH 8C TS AD 9D 7S KC JH 8S 9H QC"


def example_game():
    return Game.from_deck(deck(4, EXAMPLE_DECK), dealer=3, names=["Ann", "Bob", "Cy", "Dee"])


def tops(game):
    return " ".join(str(s[-1]) for s in game.stacks)


def test_section_7_worked_example():
    game = example_game()
    assert tops(game) == "QH 8C TS AD"
    assert game.to_act == 0
    # Seat 0: QH fits nowhere, so only a draw is open.
    assert game.legal_actions() == [DRAW]
    play_all(game, "draw; give 9D 1; draw; give 7S 3; draw")
    assert game.legal_actions() == [KEEP]  # KC fits only on its own QH
    play_all(game, "keep")
    assert tops(game) == "KC 9D TS 7S"
    # Seat 1: 9D fits nowhere; draws JH, which fits on TS, but keeps it.
    assert game.legal_actions() == [DRAW]
    play_all(game, "draw")
    assert act("give JH 2") in game.legal_actions()
    play_all(game, "keep")
    assert tops(game) == "KC JH TS 7S"
    # Seat 2: TS fits nowhere; 8S and 9H go to seat 3; TS now fits there but seat 2 has drawn.
    play_all(game, "draw; give 8S 3; draw; give 9H 3; draw")
    with pytest.raises(CardNotHeld, match="R3.3"):
        game.apply(act("give TS 3"))
    assert act("give QC 1") in game.legal_actions()
    play_all(game, "keep")
    assert tops(game) == "KC JH QC 9H"
    assert game.to_act == 3


def test_r2_1_first_dealer_is_drawn_from_the_injected_random():
    dealers = {Game.deal(5, random.Random(seed)).dealer for seed in range(60)}
    assert dealers == set(range(5))
    assert Game.deal(5, random.Random(3)).start == Game.deal(5, random.Random(3)).start


def test_r2_2_deal_starts_left_of_dealer_and_the_rest_is_the_talon():
    game = Game.from_deck(deck(4, "QH 8C TS AD 9D"), dealer=1)
    assert [s[0] for s in game.stacks] == cards("TS AD QH 8C")
    assert len(game.talon) == 32 - 4
    game.apply(DRAW)
    assert str(game.drawn) == "9D"


def test_r3_1_seat_after_dealer_moves_first_and_turns_go_round():
    game = Game.from_deck(deck(4, "QH 8C TS AD 9D 7S KC JH"), dealer=3)
    seen = []
    for _ in range(6):
        seen.append(game.to_act)
        game.apply(DRAW)
        if game.drawn is not None:
            game.apply(KEEP)
    assert seen[:5] == [0, 1, 2, 3, 0]


def test_r3_2_card_fits_one_rank_above_suit_ignored():
    game = collect(["9S", "8H", "KD", "QC"], "AS KS")
    assert act("give 9S 1") in game.legal_actions()
    assert act("give 9S 3") not in game.legal_actions()


def test_r3_2_lowest_rank_fits_on_an_ace_sevens_with_four_players():
    game = collect(["7S", "AH", "KD", "QC"], "AS KS")
    assert game.legal_actions() == [act("give 7S 1"), DRAW]


def test_r3_2_twos_fit_on_aces_with_nine_players():
    game = collect(["2S", "AH", "KD", "QC", "3C", "4C", "5C", "6C", "7C"], "AS")
    assert act("give 2S 1") in game.legal_actions()


def test_r3_2_nothing_fits_on_an_empty_stack_and_never_on_your_own():
    game = collect(["9S 8S", "", "TD", "QC"], "AS KS")
    assert game.legal_actions() == [DRAW]
    game = collect(["8H", "9S", "KD", "QC"], "AS KS", to_act=1)
    with pytest.raises(DoesNotFit, match="R3.2"):
        game.apply(act("give 9S 1"), seat=1)


def test_r3_2_refusal_names_the_card_the_player_and_their_top():
    game = collect(["9C", "JD", "KD", "QC"], "AS KS")
    game.names = ("Ann", "Bob", "Cy", "Dee")
    with pytest.raises(DoesNotFit) as refused:
        game.apply(act("give 9C 1"))
    assert refused.value.rule == "R3.2"
    assert refused.value.message == (
        "You can't give 9♣ to Bob: a card must be exactly one rank above their top card (J♦).")


def test_r3_3_stack_gives_chain_and_may_empty_the_stack():
    game = collect(["9S TD", "9H", "8C", "QC"], "AS KS")
    play_all(game, "give TD 1; give 9S 2")
    assert game.stacks[0] == [] and game.legal_actions() == [DRAW]



def test_r3_3_giving_the_drawn_card_means_drawing_again():
    game = collect(["QH", "8C", "TS", "AD"], "9D 7S KC")
    play_all(game, "draw; give 9D 1")
    assert game.legal_actions() == [DRAW]
    with pytest.raises(WrongStep, match="R3.3"):
        game.apply(KEEP)
    assert game.to_act == 0


def test_r3_3_a_drawn_card_that_fits_nowhere_must_be_kept():
    game = collect(["QH", "8C", "TS", "AD"], "AS KC")
    play_all(game, "draw")
    assert game.legal_actions() == [KEEP]


def test_r3_3_nobody_is_obliged_to_give():
    game = collect(["QH", "8C", "TS", "AD"], "9D AS")
    play_all(game, "draw")
    assert act("give 9D 1") in game.legal_actions() and KEEP in game.legal_actions()
    play_all(game, "keep")
    assert game.to_act == 1 and str(game.stacks[0][-1]) == "9D"


def test_r3_3_draw_is_compulsory_before_keep():
    game = collect(["QH", "8C", "TS", "AD"], "9D AS")
    with pytest.raises(WrongStep, match="R3.3"):
        game.apply(KEEP)


def test_r3_4_last_card_is_kept_sets_trump_and_its_drawer_leads():
    game = collect(["QH", "8C", "TS", "AD"], "9D 7H", to_act=2)
    play_all(game, "draw; keep")
    assert game.phase == "collect" and game.to_act == 3
    play_all(game, "draw")  # seat 3 draws the last card: phase one ends at once
    assert game.phase == "shed"
    assert game.trump == "SHDC".index("H")
    assert game.to_act == 3
    assert sorted(map(str, game.stacks[3])) == ["7H", "AD"]


def test_r3_4_last_card_cannot_be_given_under_keep():
    # 7H would fit on seat 0's AD, but it is the last card: it is kept (R6.1 keep).
    game = collect(["AD", "8C", "TS", "QH"], "7H", to_act=1)
    play_all(game, "draw")
    assert "7H" in map(str, game.stacks[1]) and game.phase == "shed"


def test_r6_1_free_last_card_may_be_given_and_its_drawer_still_leads():
    game = collect(["AD", "8C", "TS", "QH"], "7H", to_act=1, last_card="free")
    play_all(game, "draw")
    assert game.phase == "collect"
    assert game.legal_actions() == [act("give 7H 0"), KEEP]
    play_all(game, "give 7H 0")
    assert game.phase == "shed"
    assert game.trump == "SHDC".index("H")
    assert game.to_act == 1
    assert "7H" in map(str, game.stacks[0])


def test_r6_1_free_drawer_who_gave_everything_away_is_out_and_next_leads():
    game = collect(["AD", "", "TS", "QH"], "7H", to_act=1, last_card="free")
    play_all(game, "draw; give 7H 0")
    assert game.out == [1]
    assert game.to_act == 2


def test_refused_action_leaves_the_state_untouched():
    game = example_game()
    before = state_json(game)
    for bad in ["keep", "give QH 1", "play QH", "take", "give 9D 1"]:
        with pytest.raises(IllegalAction):
            game.apply(act(bad))
        assert state_json(game) == before
    with pytest.raises(NotYourTurn, match="R3.1"):
        game.apply(DRAW, seat=2)
    assert state_json(game) == before


def test_version_counts_applied_actions():
    game = example_game()
    assert game.version == 0
    play_all(game, "draw; give 9D 1; draw")
    assert game.version == 3


def test_r5_1_the_loser_deals_the_next_hand():
    rng = random.Random(11)
    dealer = first_dealer(5, rng.randrange)
    for _ in range(4):
        game = Game.deal(5, rng, dealer=dealer)
        assert game.dealer == dealer
        while not game.is_over:
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])
        outcome = game.outcome()
        assert sorted(outcome.order) == list(range(5)) and outcome.order[-1] == outcome.loser
        dealer = next_dealer(outcome)
        assert dealer == outcome.loser
