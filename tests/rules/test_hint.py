"""The Hint and the forced-move explanation: reasons derived from the move and the position."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator

import pytest

from rules import hint as H
from rules.actions import Act, Action
from rules.cards import RANK, SUIT, Card
from rules.engine import Game
from rules.phase import Phase


def positions(seed: int, players: int) -> Iterator[tuple[Game, list[Action]]]:
    """Every position of one randomly played hand, with its legal moves."""
    rng = random.Random(seed)
    game = Game.deal(players, rng)
    for _ in range(2000):
        if game.is_over:
            return
        legal = game.legal_actions()
        yield game, legal
        game.apply(rng.choice(legal))


def check_reason(game: Game, action: Action, reason: H.Reason) -> None:
    """The facts a reason states hold in the position."""
    seat = game.to_act
    values = dict(reason.cards)
    legal = game.legal_actions()
    if reason.text.startswith("You had to"):
        assert legal == [action]
    if reason.text in (H.GIVE_STACK, H.GIVE_DRAWN):
        assert action.act == Act.GIVE and reason.seat == action.to
        assert Card(game.stacks[action.to][-1]) == values["top"] and values["card"] == action.card
        assert (game.drawn is not None) == (reason.text == H.GIVE_DRAWN)
    if reason.text == H.BEAT_IN_SUIT:
        card, top = values["card"], values["top"]
        assert SUIT[card] == SUIT[top] and RANK[card] > RANK[top]
        cheaper = [a for a in legal if a.card is not None and SUIT[a.card] == SUIT[values["top"]]
                   and RANK[a.card] < RANK[values["card"]]]
        assert cheaper == []
    if reason.text == H.BEAT_HIGH:
        assert SUIT[values["card"]] == SUIT[values["top"]]
        assert any(a.card is not None and SUIT[a.card] == SUIT[values["top"]]
                   and RANK[a.card] < RANK[values["card"]] for a in legal)
    if reason.text == H.TRUMP_NO_SUIT:
        top = game.trick[-1]
        assert SUIT[values["card"]] == game.trump != SUIT[top]
        assert not any(SUIT[c] == SUIT[top] and RANK[c] > RANK[top] for c in game.stacks[seat])
    if reason.text == H.TRUMP_CHOICE:
        top = game.trick[-1]
        assert any(SUIT[c] == SUIT[top] and RANK[c] > RANK[top] for c in game.stacks[seat])
    if reason.text == H.FORCED_DRAW:  # issue 45: never said after a give of the drawn card
        assert not game.has_drawn and game.stacks[seat]
        assert not any(a.act == Act.GIVE for a in legal)
    if reason.text == H.FORCED_DRAW_AGAIN:
        assert game.has_drawn and game.drawn is None
        assert game.history()[-1].act == Act.GIVE and game.history()[-1].seat == seat
    if reason.text == H.FORCED_DRAW_EMPTY:
        assert not game.has_drawn and not game.stacks[seat]
    if reason.text == H.FORCED_TAKE:
        assert values["top"] == Card(game.trick[-1]) and values["bottom"] == Card(game.trick[0])
    if reason.text == H.TAKE_COSTLY:
        assert action.act == Act.TAKE and values["bottom"] == Card(game.trick[0])
    if reason.text == H.FORCED_KEEP:
        assert values["card"] == game.drawn
        assert not any(a.act == Act.GIVE for a in legal)
    if reason.text == H.FORCED_PLAY:
        assert len(game.stacks[seat]) == 1 and not game.trick
    if reason.text == H.LEAD_WEAK:
        trump = game.trump
        keys = [RANK[c] + (20 if SUIT[c] == trump else 0) for c in game.stacks[seat]]
        assert RANK[values["card"]] + (20 if SUIT[values["card"]] == trump else 0) == min(keys)


def test_every_reason_is_derived_and_true_across_random_hands() -> None:
    seen: set[str] = set()
    for seed in range(12):
        for game, legal in positions(seed, 3 + seed % 4):
            if len(legal) == 1:
                reason = H.forced(game)
                check_reason(game, legal[0], reason)
                seen.add(reason.text)
                assert H.why(game, legal[0]) == reason
                continue
            with pytest.raises(ValueError):
                H.forced(game)
            for action in legal:
                reason = H.why(game, action)
                check_reason(game, action, reason)
                seen.add(reason.text)
    expected = {H.GIVE_STACK, H.GIVE_DRAWN, H.DRAW_NOW, H.KEEP_CHOICE, H.BEAT_IN_SUIT, H.BEAT_HIGH,
                H.TRUMP_NO_SUIT, H.TRUMP_CHOICE, H.TAKE_COSTLY, H.LEAD_WEAK, H.LEAD_OTHER,
                H.FORCED_DRAW, H.FORCED_DRAW_AGAIN, H.FORCED_DRAW_EMPTY, H.FORCED_KEEP,
                H.FORCED_TAKE,
                H.FORCED_PLAY}
    assert seen == expected


@pytest.mark.parametrize("lang", ["en", "hu", "fr"])
def test_reasons_are_worded_with_their_rule_in_each_language(lang: str) -> None:
    game = next(g for g, legal in positions(5, 4)
                if g.phase is Phase.COLLECT and g.drawn is not None
                and any(a.act == Act.GIVE for a in legal))
    give = next(a for a in game.legal_actions() if a.act == Act.GIVE)
    reason = H.why(game, give)
    words = reason.words(game.names, lang)
    assert words.endswith("(R3.2)") and "{" not in words
    assert (words == reason.words(game.names, "en")) == (lang == "en")  # translated


def test_a_hint_is_a_legal_move_with_its_reason_and_answers_in_time() -> None:
    timings = []
    for index, (game, legal) in enumerate(positions(21, 4)):
        if len(timings) >= 40:
            break
        if len(legal) == 1 or index % 3:
            continue
        start = time.perf_counter()
        given = H.suggest(game, seed=len(timings))
        timings.append(time.perf_counter() - start)
        assert given.action in legal
        assert given.reason == H.why(game, given.action)
    # the search's budget is 25 ms of steps; a generous bound keeps a busy machine green
    timings.sort()
    assert timings[len(timings) // 2] < 0.1


def test_no_hint_when_the_hand_is_over() -> None:
    game = Game.deal(3, random.Random(2))
    rng = random.Random(2)
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    with pytest.raises(ValueError):
        H.suggest(game)


def test_the_others_moves_are_told_from_what_everyone_sees() -> None:
    seen: set[str] = set()
    for seed in range(6):
        for game, legal in positions(seed, 3 + seed % 3):
            action = random.Random(seed).choice(legal)
            told = H.told(game, action)
            values = dict(told.reason.cards)
            seen.add(told.reason.text)
            assert told.mover == game.to_act
            if told.reason.text == H.TOLD_GIVE:
                assert told.to == action.to and values["top"] == Card(game.stacks[action.to][-1])
            if told.reason.text == H.TOLD_KEEP_FORCED:
                assert legal == [action]
            if told.reason.text == H.TOLD_TRUMP:
                assert SUIT[values["card"]] == game.trump != SUIT[values["top"]]
            if told.reason.text == H.TOLD_BEAT:
                assert SUIT[values["card"]] == SUIT[values["top"]]
            if told.reason.text == H.TOLD_OUT:
                assert len(game.stacks[told.mover]) == 1
            if told.reason.text == H.TOLD_TAKE:
                assert values["bottom"] == Card(game.trick[0])
            for lang in ("en", "hu", "fr"):
                words = told.words(game.names, lang)
                assert "{" not in words and words.endswith(f"({told.reason.rule})")
                assert game.names[told.mover] in words
    assert seen == {H.TOLD_GIVE, H.TOLD_KEEP_FORCED, H.TOLD_KEEP, H.TOLD_DRAW, H.TOLD_BEAT,
                    H.TOLD_TRUMP, H.TOLD_TAKE, H.TOLD_LEAD, H.TOLD_OUT}
