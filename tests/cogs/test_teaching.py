"""Issue 45 at the table message and in practice: what a newcomer reads explains itself."""

from __future__ import annotations

import random

import pytest

from bot.db.records import TableStatus
from cogs import render
from cogs.render.info import fair_message
from rules import Game
from rules.i18n import Lang
from tests.helpers import table_for


def finished_table():
    rng = random.Random(4)
    game = Game.deal(3, rng, names=("ann", "bob", "cy"))
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    return table_for(game, status=TableStatus.PLAYING)


@pytest.mark.parametrize("lang", list(Lang))
def test_the_fair_deal_line_says_what_it_proves_and_the_command_is_behind_its_button(lang):
    table = finished_table()
    embed = render.table_embed(table, lang)
    fair = [f for f in embed.fields if table.seed in f.value]
    assert len(fair) == 1
    line = fair[0].value
    assert "python -m" not in line and "\n" not in line  # one line, no command
    assert "**" in line  # it names the button that checks it
    if lang is Lang.EN:
        assert "nobody could pick the cards" in line
    private = fair_message(table, lang).description or ""
    assert f"python -m rules verify {table.seed}" in private
