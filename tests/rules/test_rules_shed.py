"""R4 phase two (shed) and R6.2."""

import pytest

from rules import TAKE, DoesNotBeat, HandOver, NotYourTurn, WrongStep
from rules.views import state_json
from tests.rules.rules_helpers import act, collect, play_all, shed


def test_r4_1_players_without_cards_are_out_at_once_in_seat_order_from_the_leader():
    game = collect(["AD", "", "TS", ""], "7H", to_act=2, last_card="free")
    play_all(game, "draw; keep")
    assert game.phase == "shed"
    assert game.out == [3, 1]  # from the leader (seat 2) round: 3, 0, 1
    assert game.to_act == 2


def test_r4_1_a_single_player_holding_cards_loses_at_once():
    game = shed(["", "AS KS", "", ""], "H", to_act=0)
    assert game.is_over
    assert game.outcome().loser == 1
    assert game.outcome().order == (0, 2, 3, 1)


@pytest.mark.parametrize(("top", "card", "beats"), [
    ("9S", "TS", True), ("9S", "8S", False), ("9S", "AD", False), ("9S", "7H", True),
    ("9H", "TH", True), ("9H", "AS", False), ("AS", "7H", True),
])
def test_r4_2_beats_higher_in_suit_or_any_trump_over_a_non_trump(top, card, beats):
    game = shed([top, f"{card} KC", "QC", "JC"], "H")
    play_all(game, f"play {top}")
    assert (act(f"play {card}") in game.legal_actions()) == beats


def test_r4_3_trick_size_is_fixed_when_led():
    game = shed(["9S TC", "TS", "JS AC", "QS KC"], "H")
    play_all(game, "play 9S; play TS")  # seat 1 is out; the trick still needs 4 cards
    assert game.out == [1] and game.trick_size == 4
    play_all(game, "play JS")
    assert game.to_act == 3 and game.trick_size == 4
    play_all(game, "play QS")
    assert game.trick == [] and game.to_act == 3  # full at 4: seat 3 leads


def test_r4_4_the_leader_must_lead_and_cannot_take():
    game = shed(["9S TC", "TS", "JS", "QS"], "H")
    assert TAKE not in game.legal_actions()
    with pytest.raises(WrongStep, match="R4.4"):
        game.apply(TAKE)
    assert set(game.legal_actions()) == {act("play 9S"), act("play TC")}


def test_r4_5_taking_is_always_allowed_and_takes_the_bottom_card():
    game = shed(["9S TC", "TS QD", "JS", "QS KH"], "H")
    play_all(game, "play 9S; play TS")
    assert TAKE in game.legal_actions()  # seat 2 could beat with JS but may take
    play_all(game, "take")
    assert "9S" in map(str, game.stacks[2])
    assert list(map(str, game.trick)) == ["TS"]
    assert game.to_act == 3


def test_r4_5_trumping_is_allowed_even_when_one_could_beat_in_suit():
    game = shed(["9S TC", "TS 7H", "JS", "QS"], "H")
    play_all(game, "play 9S")
    assert {act("play TS"), act("play 7H"), TAKE} == set(game.legal_actions())


def test_r6_2_must_beat_in_suit_forbids_trumping_when_one_can_beat_in_suit():
    game = shed(["9S TC", "TS 7H", "JS", "QS"], "H", must_beat_in_suit=True)
    play_all(game, "play 9S")
    assert set(game.legal_actions()) == {act("play TS"), TAKE}
    with pytest.raises(DoesNotBeat, match="R6.2"):
        game.apply(act("play 7H"))


def test_r6_2_must_beat_in_suit_still_allows_trumping_without_a_higher_card_of_the_suit():
    game = shed(["9S TC", "8S 7H", "JS", "QS"], "H", must_beat_in_suit=True)
    play_all(game, "play 9S")
    assert set(game.legal_actions()) == {act("play 7H"), TAKE}


def test_r4_5_a_player_may_play_to_the_same_trick_several_times():
    game = shed(["9S QS", "TS AC", "JS KD"], "H")
    play_all(game, "play 9S; play TS; take")  # seat 2 takes 9S; trick: TS; seat 0 plays
    play_all(game, "play QS")
    assert game.trick_seats == [1, 0]


def test_r4_6_full_trick_is_set_aside_and_its_completer_leads():
    game = shed(["9S AC", "TS KC", "JS QC"], "H")
    play_all(game, "play 9S; play TS; play JS")
    assert game.trick == [] and game.to_act == 2


def test_r4_6_if_the_completer_went_out_the_next_player_in_leads():
    game = shed(["9S AC", "TS KC", "JS"], "H")
    play_all(game, "play 9S; play TS; play JS")  # seat 2 completes the trick with its last card
    assert game.out == [2]
    assert game.to_act == 0


def test_r4_7_taking_the_only_card_empties_the_trick_and_the_next_player_leads():
    game = shed(["9S AC", "TS KC", "JS QC"], "H")
    play_all(game, "play 9S; take")
    assert game.trick == [] and game.to_act == 2 and game.trick_size == 0


def test_r4_8_a_player_who_plays_their_last_card_is_out_and_skipped():
    game = shed(["9S AC", "TS", "JS QC", "KS QD"], "H")
    play_all(game, "play 9S; play TS")
    assert game.out == [1]
    play_all(game, "take; take")  # seat 2 takes 9S, seat 3 takes TS: trick empty
    assert game.to_act == 0  # seat 1 is skipped
    with pytest.raises(NotYourTurn, match="R4.8"):
        game.apply(act("play AC"), seat=1)


def test_r4_9_hand_ends_when_one_player_is_in_even_mid_trick():
    game = shed(["9S", "TS", "JS KC", "QS AD"], "H")
    play_all(game, "play 9S; play TS")
    assert game.out == [0, 1] and not game.is_over
    play_all(game, "play JS; play QS")  # trick of 4 full: seat 3 leads
    assert not game.is_over and game.to_act == 3
    play_all(game, "play AD")  # seat 3's last card: only seat 2 is left in
    assert game.is_over and game.outcome().loser == 2
    game = shed(["9S", "TS", "JS"], "H")
    play_all(game, "play 9S; play TS")  # the trick of 3 is not full, yet the hand is over
    assert game.is_over and game.outcome().loser == 2 and game.outcome().order == (0, 1, 2)
    assert game.to_act is None and game.legal_actions() == []


def test_r4_9_a_hand_ended_mid_trick_leaves_the_trick_as_it_lay():
    game = shed(["9S", "TS", "JS"], "H")
    play_all(game, "play 9S; play TS")
    state = state_json(game)
    assert state["phase"] == "over" and state["trick"] == ["9S", "TS"]
    assert state["loser"] == 2 and state["to_act"] is None and state["legal"] == []


def test_r4_9_a_trick_filled_as_the_hand_ends_is_set_aside_as_usual():
    game = shed(["9S", "TS KC", "JS"], "H")
    play_all(game, "play 9S; play TS; play JS")  # seat 2's last card fills the trick of 3
    state = state_json(game)
    assert state["phase"] == "over" and state["trick"] == [] and state["loser"] == 1
    assert state["out"] == [0, 2]


def test_r4_9_two_players_one_card_each_the_leader_wins_whatever_the_other_holds():
    game = shed(["7S", "AH", "", ""], "H", to_act=0)
    play_all(game, "play 7S")
    assert game.is_over and game.outcome().loser == 1


def test_after_the_hand_every_action_is_refused():
    game = shed(["9S", "TS", "JS"], "H")
    play_all(game, "play 9S; play TS")
    before = state_json(game)
    with pytest.raises(HandOver, match="R4.9"):
        game.apply(TAKE)
    assert state_json(game) == before


def test_shed_refusals_explain_and_change_nothing():
    game = shed(["9S TC", "TS 8S", "JS", "QS"], "H")
    play_all(game, "play 9S")
    before = state_json(game)
    with pytest.raises(DoesNotBeat, match=r"8♠ doesn't beat 9♠") as refused:
        game.apply(act("play 8S"))
    assert refused.value.rule == "R4.2"
    with pytest.raises(Exception, match="not in your hand"):
        game.apply(act("play AS"))
    with pytest.raises(WrongStep, match="R4.5"):
        game.apply(act("draw"))
    assert state_json(game) == before
