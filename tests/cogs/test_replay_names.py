"""A replay names AI seats in the reader's words, as the table does (issue 37: a Hungarian
replay said "AI 1 (heuristic)" where the table said "Gép 1")."""

from __future__ import annotations

import json

import pytest

from bot.guilds.replays import Opened
from cogs.replay.step import step_embed
from rules import Game, shuffled_deck
from rules.i18n import Lang, stored_ai_name
from rules.replay import replay_of
from rules.steps import landmarks, step_of


@pytest.mark.parametrize("lang, ai, strong", [(Lang.EN, "AI 1", "AI 2 (strong)"),
                                              (Lang.HU, "Gép 1", "Gép 2 (erős)"),
                                              (Lang.FR, "IA 1", "IA 2 (forte)")])
def test_a_replay_names_ai_seats_in_the_readers_words(lang, ai, strong):
    names = ("Éva", stored_ai_name(1, "heuristic"), stored_ai_name(2, "strong"))
    game = Game.from_deck(shuffled_deck(3, "5"), 1, names=names)
    while not game.is_over:
        game.apply(game.legal_actions()[0])
    replay = replay_of(game)
    marks = landmarks(replay)
    for opened in (Opened("h1", replay, 4, 1), Opened("f" + "0" * 32, replay)):
        embed = step_embed(opened, marks, step_of(replay, marks.last), lang)
        shown = json.dumps(embed.to_dict(), ensure_ascii=False)
        assert ("heuristic" not in shown and "(strong)" not in shown) or lang is Lang.EN
        assert ai in shown and strong in shown
        step = step_embed(opened, marks, step_of(replay, 0), lang)
        assert ai in step.description  # the deal: the dealer, an AI seat, named


def test_the_replay_picture_names_ai_seats_in_the_readers_words():
    from cogs.pictures.replay import replay_scene
    from rules import Game, Variant, shuffled_deck
    from rules.i18n import Lang, stored_ai_name

    game = Game.from_deck(shuffled_deck(3, "5"), 0,
                          names=["ann", stored_ai_name(1, "heuristic"), "cy"],
                          variant=Variant("free", True))
    scene, alt = replay_scene(game, Lang.HU, False)
    assert "Gép 1" in scene.seats[1].label and "Gép 1" in alt
    assert "AI 1" not in scene.seats[1].label and "AI 1" not in alt
