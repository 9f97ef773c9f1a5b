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


# --- rule numbers open the rule's text, privately, in the reader's language ------------------

def test_every_rule_the_bot_cites_is_in_the_book():
    """Coach lines, hints, forced moves and refusals cite rules by number: each number
    opens a paragraph, translated (no number cited anywhere is missing from the book)."""
    from rules import book, hint, lesson
    from rules.explain import RULES

    cited = set(RULES) | {r for s in range(lesson.STEPS + 1) for r in lesson.situation(s).rules}
    cited |= {"R3.2", "R3.3", "R4.2", "R4.4", "R4.5", "R4.8"}  # the hints' and told moves'
    assert hint.forced  # (their reasons cite from the set above)
    assert cited <= set(book.BOOK), cited - set(book.BOOK)
    for rule in book.BOOK:
        for lang in (Lang.HU, Lang.FR):
            assert book.text(rule, lang) != book.text(rule, Lang.EN), (rule, lang)


@pytest.mark.parametrize("locale", ["en-GB", "hu", "fr"])
async def test_nlk_rules_opens_one_rule_privately_with_autocomplete(fake_discord, tmp_path,
                                                                   locale):
    from rules import book
    from tests.nlk_driver import running_bot

    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    fake.add_user("ann")
    fake.set_locale("ann", locale)
    lang = {"en-GB": Lang.EN, "hu": Lang.HU, "fr": Lang.FR}[locale]
    async with running_bot(fake, path):
        ix = await fake.autocomplete("ann", None, "nlk", "rules", {"rule": "3.3"},
                                     focused="rule")
        await ix.wait_response()
        assert ix.choices[0]["value"] == "R3.3"
        assert all(len(c["name"]) <= 100 for c in ix.choices)
        ix = await fake.autocomplete("ann", None, "nlk", "rules", {"rule": ""}, focused="rule")
        await ix.wait_response()
        assert len(ix.choices) == len(book.BOOK) <= 25
        ix = await fake.slash("ann", None, "nlk", "rules", {"rule": "r3.3"})
        message = await ix.wait_message()
        assert message.ephemeral and "R3.3" in message.embeds[0]["title"]
        assert message.embeds[0]["description"] == book.text("R3.3", lang)
        ix = await fake.slash("ann", None, "nlk", "rules", {"rule": "R9.9"})
        refused = await ix.wait_response()
        assert refused.ephemeral and "R6.3" in refused.data["content"]
    assert not fake.public_messages()
    fake.assert_clean()


async def test_a_lesson_rule_button_opens_the_rule_and_leaves_the_lesson_as_it_was(
        fake_discord, tmp_path):
    from rules import book
    from tests.learners import coach_line
    from tests.nlk_driver import running_bot

    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    fake.add_user("dee")
    async with running_bot(fake, path):
        ix = await fake.slash("dee", None, "nlk", "learn")
        lesson = await ix.wait_message()
        rules = [b for b in lesson.buttons() if b.custom_id.split(":")[3].startswith("rule.")]
        assert [b.label for b in rules] == ["📖 R1.2", "📖 R3.1", "📖 R3.3"]
        before = coach_line(lesson)
        ix = await fake.click("dee", lesson, custom_id=rules[0].custom_id)
        opened = await ix.wait_message()
        assert opened.ephemeral and opened.embeds[0]["description"] == book.text("R1.2")
        assert coach_line(lesson) == before  # the lesson did not move
    assert not fake.public_messages()
    fake.assert_clean()


async def test_a_practice_hint_offers_its_rule(fake_discord, tmp_path):
    from rules import book
    from tests.learners import practice_way
    from tests.nlk_driver import running_bot

    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    fake.add_user("pia")
    async with running_bot(fake, path):
        ix = await fake.slash("pia", None, "nlk", "practice")
        message = await ix.wait_message()
        hint = practice_way(message, "hint")
        ix = await fake.click("pia", message, custom_id=hint.custom_id)
        await ix.wait_response()
        rules = [b for b in message.buttons() if b.custom_id.split(":")[3].startswith("rule.")]
        assert len(rules) == 1 and rules[0].label[2:] in message.embeds[0]["description"]
        ix = await fake.click("pia", message, custom_id=rules[0].custom_id)
        opened = await ix.wait_message()
        assert opened.embeds[0]["description"] == book.text(rules[0].label[2:])
    fake.assert_clean()
