"""Issue 45 at the table message and in practice: what a newcomer reads explains itself."""

from __future__ import annotations

import dataclasses
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


def with_buttons(message, *custom_ids):
    """``message`` as the fake shows it, with a row of buttons it was not sent with: what a
    button of an earlier hand at the same move number would be, or a damaged id (Discord
    answers only the buttons a message has)."""
    message.current.components.append({"type": 1, "components": [
        {"type": 2, "style": 2, "label": custom_id, "custom_id": custom_id}
        for custom_id in custom_ids]})
    return message


async def test_a_refusal_at_a_real_table_opens_the_rule_it_cites(fake_discord, tmp_path):
    """A tap refused by the rules at a real table cites "(R3.3)", and its private answer
    carries "📖 R3.3": a persistent button that opens that rule's text privately, in the
    reader's language, for whoever taps it, after a restart too; a rule button naming no
    rule is answered politely."""
    from rules import book
    from tests.nlk_driver import Driver, actor, running_bot

    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    fake.add_user("zed")
    fake.set_locale("zed", "hu")
    async with running_bot(fake, path):
        driver = Driver(fake, random.Random(6))
        table = await driver.seat_and_start("ann", ["bob"])
        move = next(b.custom_id for b in table.buttons() if b.custom_id.split(":")[2] != "-")
        prefix = move.rsplit(":", 1)[0]  # nlk:<table>:<version> of the player's moves
        table_id = int(prefix.split(":")[1])
        player = actor(table)
        assert player in ("ann", "bob")
        # A take in the collect phase, at the table's version: refused by R3.3.
        ix = await fake.click(player, with_buttons(table, f"{prefix}:take"),
                              custom_id=f"{prefix}:take")
        refused = await ix.wait_message()
        assert refused.ephemeral and "(R3.3)" in refused.content
        [button] = [b for b in refused.buttons() if b.label.startswith("📖")]
        assert button.label == "📖 R3.3" and button.custom_id == f"nlk:{table_id}:-:rule.R3.3"
        ix = await fake.click(player, refused, custom_id=button.custom_id)
        opened = await ix.wait_message()
        assert opened.ephemeral and "R3.3" in opened.embeds[0]["title"]
        assert opened.embeds[0]["description"] == book.text("R3.3", Lang.EN)
    async with running_bot(fake, path):  # the button outlives the bot that sent it
        # Anyone may tap it: a Hungarian spectator reads the rule in Hungarian.
        ix = await fake.forge_component("zed", button.custom_id, message=refused)
        opened = await ix.wait_message()
        assert opened.ephemeral and opened.embeds[0]["description"] == book.text("R3.3",
                                                                                 Lang.HU)
        bad = [f"nlk:{table_id}:-:{act}" for act in ("rule.R9.9", "rule.<R3.3>", "rule")]
        with_buttons(table, *bad)
        for custom_id in bad:
            ix = await fake.click("bob", table, custom_id=custom_id)
            said = await ix.wait_message()
            assert said.ephemeral and "names no rule of NLK" in said.content, custom_id
    assert len(button.custom_id) <= 100
    fake.assert_clean()


# --- see what happened ----------------------------------------------------------------------

def test_a_finished_hand_shows_its_last_plays_and_who_went_out():
    from rules.views import observe

    table = finished_table()
    game = table.game
    embed = render.table_embed(table, Lang.EN)
    names = [f.name for f in embed.fields]
    assert "Last plays" in names and names.index("Last plays") < names.index("Finishing order")
    plays = embed.fields[names.index("Last plays")].value
    last = game.history()[-1]
    assert render.card_text(last.card, Lang.EN) in plays  # the play that ended the hand
    # The moves log says who dealt and who went out, each once.
    log = render.log_lines(table, observe(game, None), Lang.EN)
    dealer = game.names[game.dealer]
    assert any(line.startswith(f"↳ *{dealer} dealt, so ") and "(R3.1)" in line
               for line in log)
    outs = [line for line in log if "played their last card" in line]
    assert len(outs) == sum(1 for seat in game.out if game.stacks[seat] == []) >= 1
    assert all("(R4.8)" in line for line in outs)


def test_the_first_turn_says_who_dealt_and_why_that_player_starts():
    game = Game.deal(4, random.Random(9), names=("ann", "bob", "cy", "dee"), dealer=2)
    table = table_for(game)
    status = render.table_embed(table, Lang.EN).description or ""
    assert "cy dealt, so dee, the player after the dealer, moves first (R3.1)." in status
    while not any(e.act == "keep" for e in game.history()):
        game.apply(game.legal_actions()[-1])
    assert "dealt, so" not in (render.table_embed(table, Lang.EN).description or "")


def test_practice_tells_the_whole_round_and_a_hint_keeps_it():
    from rules import practice

    hand = practice.deal(4, "heuristic", "round")
    hand, made = practice.advance(hand)
    ai_moves = 0
    while ai_moves == 0:  # the player's taps until the AI seats have moved
        hand = practice.play(hand, practice.replay(hand).legal_actions()[-1])
        before = len(hand.moves)
        hand, made = practice.advance(hand)
        ai_moves = sum(1 for seat, _ in made if seat != practice.PLAYER)
    assert ai_moves >= 3
    seen = practice.recent(hand)
    assert practice.recent(practice.hinted(hand)) == seen  # a hint tells the same again
    game = practice.replay(hand)
    assert seen.start <= len(game.history()) - (len(hand.moves) - before)
    from cogs.practice.handler import round_lines
    lines = round_lines(game, seen.start, seen.forced, game.names, Lang.EN)
    ai_seats = {seat for seat, _ in made if seat != practice.PLAYER}
    assert {game.names[s] for s in ai_seats} <= {line.split(":")[0] for line in lines}


async def test_a_practice_hint_does_not_wipe_the_ai_moves(fake_discord, tmp_path):
    from tests.learners import description, practice_moves, practice_way
    from tests.nlk_driver import running_bot

    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    fake.add_user("pia")
    async with running_bot(fake, path):
        ix = await fake.slash("pia", None, "nlk", "practice")
        message = await ix.wait_message()
        told = ""
        for _tap in range(12):  # pia's taps until the AI seats have moved (a drawn card
            # may stay pia's to give or keep, and a deal may let pia move twice)
            ix = await fake.click("pia", message,
                                  custom_id=practice_moves(message)[-1].custom_id)
            await ix.wait_response()
            told = description(message).split("\n\n")[0]
            if "AI 1" in told:
                break
        assert "AI 1" in told and "AI 3" in told, told
        ix = await fake.click("pia", message, custom_id=practice_way(message, "hint").custom_id)
        await ix.wait_response()
        assert description(message).split("\n\n")[0] == told
        ix = await fake.click("pia", message, custom_id=practice_way(message, "moves")
                              .custom_id)
        log = await ix.wait_message()
        assert log.ephemeral and "dealt, so" in log.embeds[0]["description"]
        assert told.split("\n")[-1] in log.embeds[0]["description"]
    fake.assert_clean()


# --- rated hands: short stand-ins don't void a hand of people, and stats say what counts ---

@pytest.mark.parametrize("lang", list(Lang))
def test_the_stats_say_what_counts_as_a_rated_hand(lang):
    from bot.guilds.service import LeaderboardPage, PlayerStats
    from cogs.render import stats
    from rules.i18n import translator

    rated = translator(lang).gettext(stats.RATED)
    embed, _view = stats.leaderboard(LeaderboardPage([], 0, 1, 1), lang)
    assert rated in (embed.description or "")
    card = stats.player("ann", PlayerStats(None, [], []), lang)
    assert rated in (card.description or "")
    if lang is Lang.EN:
        assert "a stand-in playing a turn or two" in rated and "AI seat" in rated


def test_an_ai_seats_moves_and_a_stand_ins_are_marked_apart():
    from bot.db.records import Mark
    from cogs.render.text import marks

    for lang in Lang:
        shown = marks(lang)
        assert "🤖" in shown[Mark.AI] and "🤖" not in shown[Mark.STAND_IN]
        assert "⏱" in shown[Mark.STAND_IN]


# --- friends at a table: the host is told what she can do, not to ask its host --------------

async def test_the_host_is_not_told_to_ask_the_host(fake_discord, tmp_path):
    import random as rnd

    from tests.nlk_driver import Driver, running_bot

    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    driver = Driver(fake, rnd.Random(3))
    async with running_bot(fake, path):
        table = await driver.new_table("ann", seats=3)
        said = {}
        for who in ("ann", "bob"):
            ix = await fake.slash(who, None, "nlk", "new")
            said[who] = (await ix.wait_response()).data["content"]
        assert "You already opened an NLK table here" in said["ann"]
        assert "its host can cancel it" in said["bob"]
        await driver.click("bob", table, "Join")
        await driver.click("ann", table, "Start (host)")
        for who in ("ann", "bob"):
            ix = await fake.slash(who, None, "nlk", "new")
            said[who] = (await ix.wait_response()).data["content"]
        assert "You host this channel's NLK table" in said["ann"] and "ask" not in said["ann"]
        assert "ask its host" in said["bob"]
    fake.assert_clean()


@pytest.mark.parametrize("lang", list(Lang))
def test_every_host_only_button_says_host(lang):
    """Issue 45: "Add AI" refused a non-host without saying so on the button, beside
    "Start (host)"."""
    from cogs.widgets.ids import Seating
    from rules.i18n import translator
    from tests.cogs.test_rough_edges import AI, ANN, _lobby

    host = translator(lang).gettext("(host)")
    view = render.table_view(_lobby([ANN, AI]), lang)
    only_host = {Seating.START, Seating.CANCEL, Seating.ADD_AI, Seating.REMOVE_AI}
    labels = [b.label for b in view.children
              if b.custom_id.split(":")[3].split(".")[0] in only_host]
    assert len(labels) == 5 and all(host in label for label in labels), labels


@pytest.mark.parametrize("lang", list(Lang))
def test_a_group_dm_lobby_says_who_can_open_tables_and_how_to_add_the_app(lang):
    from rules.i18n import translator
    from tests.cogs.test_rough_edges import ANN, _lobby

    _ = translator(lang).gettext
    server = render.table_embed(_lobby([ANN]), lang)
    group = render.table_embed(dataclasses.replace(_lobby([ANN]), guild_id=None), lang)
    said = [f.value for f in group.fields if f.name == _("In a group DM")]
    assert said and "`/nlk new`" in said[0] and "**" in said[0]
    assert not [f for f in server.fields if f.name == _("In a group DM")]
