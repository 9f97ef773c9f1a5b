"""R1: seats, cards and packs."""

import pytest

from rules import Card, CardError, DealError, Game, lowest_rank, pack
from rules.cards import show


@pytest.mark.parametrize(("players", "size", "low"), [
    (2, 24, 9), (3, 28, 8), (4, 32, 7), (5, 36, 6), (6, 40, 5), (7, 44, 4), (8, 48, 3), (9, 52, 2),
])
def test_r1_2_pack_has_the_n_plus_4_highest_ranks(players, size, low):
    cards = pack(players)
    assert len(cards) == size == len(set(cards))
    assert lowest_rank(players) == low
    assert min(c.rank for c in cards) == low and max(c.rank for c in cards) == 14
    assert all(sum(1 for c in cards if c.suit == s) == players + 4 for s in range(4))


@pytest.mark.parametrize("players", [0, 1, 10, "6", True])
def test_r6_3_only_two_to_nine_players(players):
    with pytest.raises(DealError, match="R6.3"):
        pack(players)


@pytest.mark.parametrize(("text", "out"), [("TD", "TD"), ("td", "TD"), ("10d", "TD"),
                                           ("10D", "TD"), (" as ", "AS"), ("2c", "2C")])
def test_r1_3_card_notation_reads_loosely_and_writes_upper_case(text, out):
    card = Card.parse(text)
    assert str(card) == out
    assert Card.parse(str(card)) is card
    assert eval(repr(card)) is card


@pytest.mark.parametrize("text", ["", "1D", "TX", "10", "KDD", "ZZ", None, 12])
def test_r1_3_unreadable_cards_are_refused_with_the_rule(text):
    with pytest.raises(CardError, match="R1.3"):
        Card.parse(text)


def test_r1_3_screens_show_ten_as_10_with_suit_symbols():
    assert Card.parse("TD").display == "10♦"
    assert show([Card.parse("AS"), Card.parse("9C")]) == "A♠ 9♣"


def test_r1_1_next_seat_wraps_round_in_seat_order():
    # Dealer 3 of 4: the deal starts at seat 0 (= 3 + 1 mod 4) and seat 0 moves first.
    game = Game.from_deck(pack(4), dealer=3)
    assert game.to_act == 0
    game = Game.from_deck(pack(4), dealer=1)
    assert game.to_act == 2


def test_cards_survive_pickling_as_the_same_objects():
    import pickle

    card = Card.parse("QH")
    assert pickle.loads(pickle.dumps(card)) is card


def test_a_deals_commitment_is_the_sha256_of_its_seed_and_the_seed_fixes_the_deck():
    import hashlib

    from rules import commitment, shuffled_deck

    assert commitment("4f1c2a") == hashlib.sha256(b"4f1c2a").hexdigest()
    assert shuffled_deck(4, "4f1c2a") == shuffled_deck(4, "4f1c2a")
    assert sorted(shuffled_deck(4, "4f1c2a")) == sorted(pack(4))


def test_every_rules_error_is_one_documented_family_rooted_in_value_error():
    import inspect

    from rules import errors

    classes = [c for _, c in inspect.getmembers(errors, inspect.isclass)
               if c.__module__ == errors.__name__]
    assert errors.InputError in classes and len(classes) >= 11
    for cls in classes:
        assert issubclass(cls, errors.NLKError) and issubclass(cls, ValueError)
        assert cls.__doc__ and "\n" not in cls.__doc__.strip()
    refused = errors.DoesNotFit("R3.2", "It does not fit.")
    assert (refused.rule, refused.message) == ("R3.2", "It does not fit.")
