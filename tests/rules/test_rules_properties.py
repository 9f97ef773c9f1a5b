"""Invariants over random hands of 2–9 players and both variants (like perft for chess)."""

import random
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import Action, Card, Game, IllegalAction, Variant, observe, pack
from rules.replay import dumps, parse
from rules.views import state_json

hands = st.tuples(
    st.integers(2, 9),
    st.integers(0, 2**32),
    st.sampled_from(["keep", "free"]),
    st.booleans(),
)
SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def every_card(game):
    cards = [c for s in game.stacks for c in s] + list(game.talon) + list(game.trick)
    if game.drawn is not None:
        cards.append(game.drawn)
    return cards


def candidate_actions(game):
    """Every action of the right shape for this game, legal or not."""
    cards = pack(game.n)
    yield from (Action("draw"), Action("keep"), Action("take"))
    for c in cards:
        yield Action.play(c)
        for to in range(game.n):
            yield Action.give(c, to)


def played_out(players, seed, last_card, must_beat):
    rng = random.Random(seed)
    game = Game.deal(players, rng, variant=Variant(last_card, must_beat))
    return game, rng


@pytest.mark.e2e  # hundreds of random hands: seconds (CI runs them)
@SETTINGS
@given(hands)
def test_listed_actions_apply_others_are_refused_and_no_card_is_made_or_lost(spec):
    game, rng = played_out(*spec)
    full = sorted(pack(game.n))
    steps = 0
    while not game.is_over:
        legal = game.legal_actions()
        assert legal, "a hand that is not over always offers an action"
        if steps % 7 == 0:  # the full refusal sweep is slow: do it on every 7th step
            before = state_json(game)
            for action in candidate_actions(game):
                if action not in legal:
                    try:
                        game.apply(action)
                    except IllegalAction as refused:
                        assert refused.rule.startswith("R") and refused.message
                    else:
                        raise AssertionError(f"{action} applied but was not listed")
            assert state_json(game) == before and game.legal_actions() == legal
        action = legal[rng.randrange(len(legal))]
        version = game.version
        game.apply(action)
        assert game.version == version + 1
        out_cards = sorted(every_card(game))
        if game.phase == "collect":
            assert out_cards == full  # nothing is set aside before phase two
        else:
            assert len(out_cards) == len(set(out_cards)) and set(out_cards) <= set(full)
        steps += 1
    outcome = game.outcome()
    assert sorted(outcome.order) == list(range(game.n))
    assert outcome.order[-1] == outcome.loser
    assert [s for s in range(game.n) if game.stacks[s]] in ([], [outcome.loser])


@pytest.mark.e2e
@SETTINGS
@given(hands)
def test_cards_in_play_only_leave_through_full_tricks(spec):
    game, rng = played_out(*spec)
    set_aside = 0
    while not game.is_over:
        legal = game.legal_actions()
        trick_before = len(game.trick)
        size = game.trick_size
        action = legal[rng.randrange(len(legal))]
        game.apply(action)
        if game.phase != "collect":
            in_play = sum(len(s) for s in game.stacks) + len(game.trick)
            if action.act == "play" and trick_before + 1 == size and not game.trick:
                set_aside += size
            if not game.is_over:
                assert in_play + set_aside == len(pack(game.n))


@pytest.mark.e2e
@SETTINGS
@given(hands)
def test_exported_replay_reproduces_every_hand(spec):
    game, rng = played_out(*spec)
    while not game.is_over:
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    again, result = parse(__import__("json").loads(dumps(game))).run()
    assert result["error"] is None and state_json(again) == state_json(game)


@pytest.mark.e2e
@settings(SETTINGS, max_examples=30)
@given(hands)
def test_no_view_shows_another_seats_hand_or_the_talon_order(spec):
    game, rng = played_out(*spec)
    step = 0
    while not game.is_over:
        step += 1
        if step % 11:  # views copy the whole public history: sample the steps
            pass
        elif game.phase == "shed":
            for seat in [None, *range(game.n)]:
                view = observe(game, seat)
                others = {c for s in range(game.n) if s != seat for c in game.stacks[s]}
                assert not others & set(view.own)
                assert view.tops == (None,) * game.n
                assert view.counts == tuple(len(s) for s in game.stacks)
                assert view.legal == () or seat == game.to_act
        else:
            # Shuffling the rest of the talon changes nothing any seat can see.
            twin = game.copy()
            random.Random(spec[1]).shuffle(twin.talon)
            for seat in [None, *range(game.n)]:
                assert observe(game, seat) == observe(twin, seat)
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])


def test_the_public_view_holds_no_hand():
    game = Game.deal(4, random.Random(2))
    while game.phase == "collect":
        game.apply(game.legal_actions()[-1])
    view = observe(game, None)
    assert view.own == () and view.legal == ()
    assert sum(view.counts) == sum(len(s) for s in game.stacks)
    assert all(isinstance(e.card, Card) for e in view.history)


def test_rules_imports_no_discord_aiosqlite_or_asyncio():
    """Every module of ``rules`` (found by walking the package, so new ones count) in a fresh
    interpreter, where nothing else has imported the bot's libraries yet. ``__main__`` runs
    the command line when imported; it only imports ``rules.cli``, which is covered."""
    code = (
        "import importlib, json, pkgutil, sys, rules\n"
        "names = sorted(m.name for m in pkgutil.walk_packages(rules.__path__, 'rules.')\n"
        "               if not m.name.endswith('__main__'))\n"
        "for name in names:\n"
        "    importlib.import_module(name)\n"
        "bad = {'discord', 'aiosqlite', 'asyncio'} & {m.split('.')[0] for m in sys.modules}\n"
        "print(json.dumps({'modules': names, 'bad': sorted(bad)}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    found = __import__("json").loads(done.stdout)
    assert found["bad"] == [], found
    expected = {"rules.ai", "rules.ai.base", "rules.ai.heuristic", "rules.ai.knowledge",
                "rules.ai.random_player", "rules.ai.strong", "rules.arena", "rules.cli",
                "rules.engine", "rules.play", "rules.replay", "rules.session",
                "rules.simulate", "rules.views"}
    assert expected <= set(found["modules"])


@pytest.mark.e2e  # subprocesses: seconds
def test_simulate_is_reproducible_and_reports_its_figures():
    import json

    def run():
        done = subprocess.run([sys.executable, "-m", "rules", "simulate", "--players", "6",
                               "--games", "20", "--seed", "7"], capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    first, second = run(), run()
    keys = {"players", "games", "actions", "seconds", "games_per_second", "actions_per_second",
            "losses"}
    assert set(first) == keys
    assert first["games"] == 20 and sum(first["losses"]) == 20 and len(first["losses"]) == 6
    assert (first["actions"], first["losses"]) == (second["actions"], second["losses"])


@pytest.mark.e2e
def test_verify_checks_a_seed_against_its_commitment():
    import hashlib
    import json

    seed = "4f1c2a"
    digest = hashlib.sha256(seed.encode()).hexdigest()
    ok = subprocess.run([sys.executable, "-m", "rules", "verify", seed, digest, "--players",
                         "4"], capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0 and json.loads(ok.stdout)["ok"] is True
    assert len(json.loads(ok.stdout)["deck"]) == 32
    bad = subprocess.run([sys.executable, "-m", "rules", "verify", seed, "0" * 64],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 1 and json.loads(bad.stdout)["ok"] is False
