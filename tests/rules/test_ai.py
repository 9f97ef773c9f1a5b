"""AI players: legal moves only, reproducible, and deciding from one seat's view alone."""

import pickle
import random
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

import pytest

from rules import Action, Card, Event, Game, Variant, observe, pack
from rules.ai import DEFAULT_BUDGET_MS, LEVELS, choose
from rules.ai.base import Budget, rng_for
from rules.ai.heuristic import decide
from rules.ai.knowledge import read, sample_game
from rules.ai.strong import search

VARIANTS = [Variant(last, beat) for last in ("keep", "free") for beat in (False, True)]


def views_of(game):
    return [observe(game, s) for s in range(game.n)]


def heuristic_hand(n, seed, variant=None, stop=None):
    """A hand played by the heuristic, stopped after ``stop`` actions if given."""
    game = Game.deal(n, random.Random(seed), variant=variant)
    while not game.is_over and (stop is None or game.version < stop):
        game.apply(choose(observe(game, game.to_act), "heuristic", seed=seed))
    return game


def test_interface():
    assert LEVELS == ("random", "heuristic", "strong")
    assert DEFAULT_BUDGET_MS == {"random": 0, "heuristic": 50, "strong": 1000}


@pytest.mark.e2e  # whole hands at every table size: seconds
@pytest.mark.parametrize("n", range(2, 10))
def test_every_level_plays_only_legal_actions(n):
    """Whole hands, every player count and variant, the three levels sharing each table."""
    for i, variant in enumerate(VARIANTS):
        rng = random.Random(f"{n}:{i}")
        game = Game.deal(n, rng, variant=variant)
        levels = [LEVELS[(s + i) % 3] for s in range(n)]
        while not game.is_over:
            s = game.to_act
            view = observe(game, s)
            action = choose(view, levels[s], seed=i, budget_ms=3)
            assert isinstance(action, Action)
            assert action in view.legal, (levels[s], action, view.legal)
            game.apply(action, s)
        assert game.outcome() is not None


def test_from_positions_too():
    """Hands started from positions, where some cards are out of play or hands unknown."""
    c = Card.parse
    talon = [c(x) for x in ("9D", "7S", "KC", "JH", "8S")]
    collect = Game.from_collect_position([[c("QH")], [c("8C")], [c("TS")], [c("AD")]], talon, 0)
    shed = Game.from_shed_position(
        [[c("7S"), c("AH")], [c("9C"), c("KC"), c("8D")], [c("JS")], []], 1, 2)
    for game in (collect, shed):
        while not game.is_over:
            view = observe(game, game.to_act)
            for level in LEVELS:
                assert choose(view, level, seed=1, budget_ms=5) in view.legal
            game.apply(choose(view, "strong", seed=2, budget_ms=5))


@pytest.mark.e2e
@pytest.mark.parametrize("n", [2, 4, 6, 9])
def test_knowledge_is_the_real_table(n):
    """From the public history a seat rebuilds every stack, and every hand after a deal."""
    for seed in range(6):
        variant = VARIANTS[seed % 4]
        full = heuristic_hand(n, seed, variant)
        for stop in (0, full.version // 5, full.version // 2, full.version - 1):
            game = heuristic_hand(n, seed, variant, stop=stop)
            talon = set(game.talon)
            for view in views_of(game):
                know = read(view)
                assert know.complete
                assert [list(h) for h in know.held] == game.stacks
                if game.phase == "collect":
                    assert set(know.unseen) == talon
                sample = sample_game(view, know, random.Random(seed))
                assert sample.stacks == game.stacks
                assert sorted(sample.talon) == sorted(game.talon)
                assert (sample.phase, sample.to_act, sample.trump, sample.trick) == \
                    (game.phase, game.to_act, game.trump, game.trick)
                if view.my_turn:
                    assert sample.legal_actions() == game.legal_actions()


def test_samples_do_not_follow_the_real_talon():
    """The talon order a seat imagines is drawn from its seed, not read from the game."""
    game = heuristic_hand(6, 3, stop=10)
    view = observe(game, game.to_act)
    know = read(view)
    orders = {tuple(sample_game(view, know, random.Random(k)).talon) for k in range(20)}
    assert len(orders) == 20
    assert tuple(game.talon) not in orders


def _same_but_talon(n, seed, stop):
    """Two games with the same deal and actions whose undrawn talon is in a different order."""
    rng = random.Random(seed)
    deck = list(pack(n))
    rng.shuffle(deck)
    first = Game.from_deck(deck, 0)
    for _ in range(stop):
        first.apply(decide(first))
    drawn = n + sum(1 for e in observe(first, None).history if e.act == "draw")
    rest = deck[drawn:]
    other = list(reversed(rest)) if len(rest) > 1 else rest
    second = Game.from_deck(deck[:drawn] + other, 0)
    for _, action in first.actions:
        second.apply(action)
    return first, second


@pytest.mark.parametrize("n", [3, 6, 9])
def test_no_peeking_at_the_talon(n):
    """States that differ only in the talon's order give every level identical inputs and
    identical decisions, though the hands would go on differently."""
    for seed, stop in ((1, 3), (2, 9), (3, 20)):
        first, second = _same_but_talon(n, seed, stop)
        assert first.talon != second.talon
        assert first.phase == second.phase == "collect"
        seat = first.to_act
        v1, v2 = observe(first, seat), observe(second, seat)
        assert v1 == v2
        for level in ("random", "heuristic"):
            assert choose(v1, level, seed=seed) == choose(v2, level, seed=seed)
        # strong is compared under its step cap alone, free of the clock
        picks = {search(v, rng_for(v, "strong", seed), Budget(3000, 60)) for v in (v1, v2)}
        assert len(picks) == 1


def test_no_peeking_at_hidden_hands():
    """From a shed position the other hands are unknown: changing them changes nothing."""
    c = Card.parse
    mine = [c("8S"), c("KH"), c("9D")]
    a = Game.from_shed_position([mine, [c("AS"), c("QD")], [c("9C"), c("JH")]], 0, 0)
    b = Game.from_shed_position([mine, [c("9C"), c("JH")], [c("AS"), c("QD")]], 0, 0)
    va, vb = observe(a, 0), observe(b, 0)
    assert va == vb
    for seed in range(5):
        assert search(va, random.Random(seed), Budget(2000, 60)) == \
            search(vb, random.Random(seed), Budget(2000, 60))
        assert choose(va, "heuristic", seed=seed) == choose(vb, "heuristic", seed=seed)


def test_same_seed_same_choices():
    game = heuristic_hand(6, 11, stop=40)
    while game.phase == "collect" or len(game.legal_actions()) < 3:
        assert not game.is_over
        game.apply(decide(game))
    view = observe(game, game.to_act)
    for level in ("random", "heuristic"):
        assert len({choose(view, level, seed="s") for _ in range(5)}) == 1
    assert len({search(view, random.Random(7), Budget(4000, 60)) for _ in range(3)}) == 1
    # different seeds do explore differently: random play varies with the seed
    assert len({choose(view, "random", seed=k) for k in range(30)}) > 1


def test_budget_stops_the_search():
    game = heuristic_hand(9, 5, stop=30)
    view = observe(game, game.to_act)
    assert len(view.legal) >= 1
    budget = Budget(10**9, 0.05)
    assert search(view, random.Random(1), budget) in view.legal
    assert budget.exhausted
    # with no budget at all the search still answers: the rule of thumb, tried first
    expected = decide(sample_game(view, read(view), random.Random(0)))
    assert search(view, random.Random(1), Budget(0, 0)) == expected


def test_choose_refuses_a_seat_not_to_act():
    game = Game.deal(4, random.Random(1))
    other = (game.to_act + 1) % 4
    with pytest.raises(ValueError):
        choose(observe(game, other), "heuristic", seed=1)
    with pytest.raises(ValueError):
        choose(observe(game, game.to_act), "genius", seed=1)


def test_views_travel_to_a_process_pool():
    game = heuristic_hand(5, 8, stop=60)
    view = observe(game, game.to_act)
    assert pickle.loads(pickle.dumps(view)) == view
    with ProcessPoolExecutor(max_workers=1) as pool:
        remote = pool.submit(choose, view, "heuristic", seed=4).result()
        strong = pool.submit(choose, view, "strong", seed=4, budget_ms=20).result()
    assert remote == choose(view, "heuristic", seed=4)
    assert strong in view.legal


def test_heuristic_rules_of_thumb():
    c = Card.parse
    # beat as cheaply as possible, in suit before trumping
    game = Game.from_shed_position([[c("7S")], [c("9S"), c("KS"), c("7H")], [c("QD")], []], 1, 0)
    game.apply(Action.play(c("7S")))
    assert decide(game) == Action.play(c("9S"))
    # lead the weakest card, keeping trumps
    game = Game.from_shed_position([[c("7H"), c("9S"), c("QD")], [c("8C")], [], []], 1, 0)
    assert decide(game) == Action.play(c("9S"))
    # phase one: give a card that fits, to the biggest stack
    game = Game.from_collect_position(
        [[c("TS")], [c("9H")], [c("7C"), c("8D"), c("9C")], [c("KH")]], [c("KD"), c("QS")], 0)
    assert decide(game) == Action.give(c("TS"), 2)


def test_search_finds_what_the_rule_of_thumb_misses():
    """Leading the weakest card (10♥) loses this ending; leading J♦ wins: the player after
    must trump it and the third player must take it, so seat 0 goes out before seat 2."""
    c = Card.parse
    hands = [[c("TH"), c("JD")], [c("KH"), c("QC")], [c("TS")], []]
    game = Game.from_shed_position(hands, 3, 0)
    assert decide(game) == Action.play(c("TH"))
    for lead, loses in ((c("TH"), True), (c("JD"), False)):
        line = game.copy()
        line.apply(Action.play(lead))
        while not line.is_over:
            line.apply(decide(line))
        assert (line.loser == 0) is loses
    # A position has no deal to remember, so say where the cards are, as takes would.
    view = replace(observe(game, 0), history=tuple(
        Event(s, "take", card) for s, hand in enumerate(hands) for card in hand))
    assert read(view).complete
    for seed in range(5):
        assert search(view, random.Random(seed), Budget(3000, 60)) == Action.play(c("JD"))


def test_last_card_may_be_given_under_free():
    """R6.1 free: the drawer of the last card may give it; the rebuilt game agrees."""
    for seed in range(20):
        game = Game.deal(5, random.Random(seed), variant=Variant("free"))
        while game.talon or game.drawn is None:
            game.apply(decide(game))
        if len(game.legal_actions()) > 1:
            break
    else:
        raise AssertionError("no deal let the last card be given")
    view = observe(game, game.to_act)
    sample = sample_game(view, read(view), random.Random(1))
    assert sample.legal_actions() == game.legal_actions() == list(view.legal)
    for level in LEVELS:
        assert choose(view, level, seed=seed, budget_ms=10) in view.legal
    give = next(a for a in view.legal if a.act == "give")
    sample.apply(give)
    assert sample.phase == "shed" and sample.trump == give.card.suit
