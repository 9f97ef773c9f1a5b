"""A deal whose whole collect phase plays itself: no stack ever takes a card, so every draw
and every keep is the only move there is (about one two-player deal in ten thousand). The
Start's answer then shows the shed phase at once, and the hand goes on from there."""

from rules import Card, Game, Phase
from tests.helpers import table_id_of
from tests.nlk_driver import actor, database_rows, description, is_over, title

# Two players, the first dealer seat 0: no card drawn is ever one rank above a stack's top.
DECK = tuple(Card.parse(c) for c in (
    "9C", "JH", "AD", "JS", "JD", "KD", "TC", "TH", "KC", "JC", "AS", "TS",
    "QC", "9S", "KH", "9D", "KS", "9H", "QH", "TD", "QS", "AC", "AH", "QD"))


def collect_moves() -> int:
    """How many moves DECK's collect phase has, each the only move there is."""
    game = Game.from_deck(list(DECK), 0)
    moves = 0
    while game.phase is Phase.COLLECT:
        [only] = game.legal_actions()
        game.apply(only, game.to_act)
        moves += 1
    assert not game.is_over
    return moves


def test_the_deck_has_no_choice_in_its_collect_phase():
    # A draw and a keep for each card of the talon, but the last, whose draw ends the phase.
    assert collect_moves() == 2 * (len(DECK) - 2) - 1


async def test_a_start_whose_collect_phase_plays_itself_answers_with_the_shed_phase(nlk):
    fake, bot, driver, path = nlk
    bot.service.shuffle = lambda n, _seed: list(DECK)
    bot.service.choose_dealer = lambda n: 0
    table = await driver.seat_and_start("ann", ["bob"])
    assert title(table).startswith("NLK · hand 1 · shed · trump"), title(table)
    assert actor(table) in ("ann", "bob"), description(table)
    await driver.play_hand(table)
    assert is_over(table) and "loses this hand" in table.text()
    hands, actions = database_rows(path, table_id_of(table))
    moves = actions[hands[0]["id"]]
    collect = collect_moves()
    # Every move of the collect phase is stored as one that played itself; every tap after
    # it is a move of the shed phase.
    assert all(a["forced"] for a in moves[:collect])
    assert len([a for a in moves[collect:] if not a["forced"]]) == driver.actions
