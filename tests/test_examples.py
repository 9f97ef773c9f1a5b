"""The examples in the modules' docstrings hold: they are documentation a reader trusts."""

import doctest
import importlib
from pathlib import Path

import pytest

MODULES = ["rules.i18n", "rules.cards", "rules.actions", "rules.deal", "rules.engine",
           "rules.variant", "rules.explain", "rules.hint", "rules.phase", "rules.session",
           "rules.events",
           "bot.cluster.shards", "bot.tasks", "cogs.widgets.ids", "cogs.i18n.mentions",
           "cogs.transport.mentions", "cogs.replay.ids", "bot.tables.table",
           "cogs.i18n.translator", "rules.lesson", "cogs.lesson.ids", "rules.practice",
           "cogs.practice.ids", "cogs.live.tokens", "rules.book", "cogs.answers.rulebook"]


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_in_the_docstrings_hold(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0, f"{name} has no examples: take it off the list"
    assert result.failed == 0


def test_every_module_with_examples_is_checked():
    root = Path(__file__).resolve().parent.parent
    with_examples = {".".join(path.relative_to(root).with_suffix("").parts)
                     for folder in ("rules", "bot", "cogs")
                     for path in (root / folder).rglob("*.py")
                     if ">>> " in path.read_text(encoding="utf-8")}
    assert with_examples == set(MODULES)
