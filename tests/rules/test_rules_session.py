"""Who deals: the first dealer is random (R2.1), then the loser deals (R5.1)."""

import random

import pytest

from rules import DealError
from rules.session import dealer_after_reseat, first_dealer


def test_r2_1_first_dealer_comes_from_the_injected_chooser():
    assert first_dealer(4, lambda n: n - 1) == 3
    rng = random.Random(5)
    assert {first_dealer(6, rng.randrange) for _ in range(200)} == set(range(6))


def test_r2_1_a_chooser_that_answers_outside_the_table_is_refused():
    with pytest.raises(DealError, match="from 0 to 3"):
        first_dealer(4, lambda n: n)
    with pytest.raises(DealError, match="R6.3"):
        first_dealer(1, lambda n: 0)


def test_r5_1_a_loser_who_is_still_seated_deals_at_their_new_seat():
    assert dealer_after_reseat(2, [10, 11, 12, 13], [10, 11, 12, 13]) == 2
    assert dealer_after_reseat(2, [10, 11, 12, 13], [14, 12, 10]) == 1


def test_r5_1_r1_1_when_the_loser_left_the_next_remaining_player_in_seat_order_deals():
    # 12 lost and left; 13 left too; going round from 12's old seat, 10 is next.
    assert dealer_after_reseat(2, [10, 11, 12, 13], [11, 10, 14]) == 1
    assert dealer_after_reseat(0, [10, 11, 12], [12, 11]) == 1


def test_r2_1_when_nobody_from_the_last_hand_stays_the_table_starts_afresh():
    assert dealer_after_reseat(1, [10, 11], [20, 21, 22]) is None
    with pytest.raises(DealError):
        dealer_after_reseat(4, [10, 11], [10, 11])
