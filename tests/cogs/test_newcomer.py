"""What a newcomer meets in their first hour: refusals that never crash, the right words for a
loser who left, a closed table that looks closed, a confirmed End table, move buttons that say
whose move they are, and commands published where they belong."""

import inspect
import logging
import random
import string

import pytest

from bot import errors
from bot.client import NLKBot
from bot.settings import Settings
from cogs import render
from cogs.answers.replies import REPLIES, sentence
from rules import Variant
from rules.engine import Event
from rules.i18n import Lang
from tests.nlk_driver import (
    Driver,
    actor,
    description,
    is_over,
    running_bot,
)


def _placeholders(template: str) -> set[str]:
    return {field for _text, field, _spec, _conv in string.Formatter().parse(template) if field}


def _required(cls: type[errors.Refusal]) -> dict[str, object]:
    """The arguments ``cls`` can't be built without, each with a sample value."""
    samples: dict[str, object] = {"name": "ann", "seats": 4, "value": 3, "missing": "Embed Links",
                                  "rule": "R3.2", "message": "not one higher",
                                  "table_id": 1, "message_id": None,
                                  "number": 3, "table": 42, "hand": "42.9"}
    params = inspect.signature(cls.__init__).parameters.values()
    return {p.name: samples[p.name] for p in params
            if p.name not in ("self", "reason", "details") and p.default is p.empty
            and p.kind is not p.VAR_KEYWORD}


@pytest.mark.parametrize("lang", list(Lang))
@pytest.mark.parametrize("key", list(REPLIES), ids=str)
def test_every_refusal_built_with_what_its_constructor_asks_for_reads_whole(key, lang):
    """The crash class of ``NotSeated(turn_of=None)``: a refusal built with only what its
    class requires, a missing name left out, is worded without a hole or an error."""
    cls, reason = key if isinstance(key, tuple) else (key, "")
    kwargs = _required(cls)
    if "reason" in inspect.signature(cls.__init__).parameters:
        kwargs["reason"] = reason
    # Optional names given as None, as a call site does when nobody is to act.
    optional = {p.name: None for p in inspect.signature(cls.__init__).parameters.values()
                if p.kind is p.KEYWORD_ONLY and p.default is None}
    refusal = cls(**kwargs, **optional)
    assert all(v is not None for v in refusal.details.values())
    text = sentence(refusal, lang)
    assert text and "None" not in text and "{" not in text and "}" not in text


def test_a_refusal_sentence_asks_only_for_what_its_class_requires():
    """Every placeholder of a refusal's sentence is an argument its class can't be built
    without (or the timer's minimum, which the replies fill in themselves)."""
    for key, template in REPLIES.items():
        cls, reason = key if isinstance(key, tuple) else (key, "")
        wanted = _placeholders(template) - {"minimum", "choices"}  # both filled in by replies
        required = set(_required(cls)) | ({"name"} if (cls, reason) == (errors.NotAway,
                                                                          "remove") else set())
        assert wanted <= required, (key, wanted - required)
    # NotAway's "remove" sentence names the seat: without a name it says the general one.
    assert errors.NotAway("remove", name=None).reason == ""


def test_not_seated_names_whoever_is_to_act_only_when_someone_is():
    assert sentence(errors.NotSeated(turn_of=None)) == "You're not playing at this table."
    assert sentence(errors.NotSeated(turn_of="bob")) == \
        "You're not playing at this table. It's bob's turn."


async def answer(fake, user, subcommand, options=None):
    ix = await fake.slash(user, None, "nlk", subcommand, options)
    return await ix.wait_response()


async def test_not_seated_in_the_lobby_between_hands_and_after_the_end(nlk):
    fake, bot, driver, path = nlk
    table = await driver.new_table("ann", seats=2)
    response = await answer(fake, "zed", "hand")  # the lobby: nobody is to act
    said, link = response.data["content"].split("\n")  # zed's first refusal at a table …
    assert response.ephemeral and said == "You're not playing at this table."
    assert link.startswith("New to NLK?")  # … links the lesson, once (the others: none)
    await driver.click("bob", table, "Join")
    await driver.click("ann", table, "Start (host)")
    response = await answer(fake, "zed", "hand")  # mid-hand: whose turn it is
    assert response.data["content"] == \
        f"You're not playing at this table. It's {actor(table)}'s turn."
    ix = await fake.click("ann", table, label="My stack")
    assert (await ix.wait_response()).ephemeral
    old_hand = await ix.wait_message()
    await driver.play_hand(table)
    response = await answer(fake, "zed", "hand")  # between hands
    assert response.data["content"] == "You're not playing at this table."
    # The host ends the table (End table asks first); an old hand's Refresh then says the
    # table is closed, to its player and to anyone else.
    ix, asked = await driver.click("ann", table, "End table", expect=4)
    assert asked.ephemeral and "can't be undone" in asked.data["content"]
    await driver.click("ann", await ix.wait_message(), "End the table")
    await fake.wait_until(lambda: table.buttons() == [], timeout=5)
    ix, refreshed = await driver.click("ann", old_hand, "Refresh")
    assert "This table is closed." in str(refreshed.data)
    assert [b.label for b in old_hand.buttons()] == []
    response = await answer(fake, "zed", "hand")
    assert "no NLK table" in response.data["content"]
    assert "did not respond" not in str(fake.violations)


async def test_end_table_asks_first_and_announces_the_end(nlk):
    fake, bot, driver, path = nlk
    table = await driver.seat_and_start("ann", ["bob"])
    await driver.play_hand(table)
    ix, refused = await driver.click("bob", table, "End table", expect=4)
    assert refused.ephemeral and "Only the host" in refused.data["content"]
    ix, asked = await driver.click("ann", table, "End table", expect=4)
    question = await ix.wait_message()
    assert [b.label for b in question.buttons()] == ["End the table", "Don't end it"]
    ix, kept = await driver.click("ann", question, "Don't end it")
    assert "goes on" in kept.data["content"] and question.buttons() == []
    assert any(b.label == "Next hand" for b in table.buttons())  # nothing changed
    ix, asked = await driver.click("ann", table, "End table", expect=4)
    question = await ix.wait_message()
    ix, done = await driver.click("ann", question, "End the table")
    assert done.data["content"] == "You ended the table."
    await fake.wait_until(lambda: any("was ended by ann" in m.content
                                      for m in fake.public_messages()), timeout=5)
    await fake.wait_until(lambda: table.buttons() == [], timeout=5)
    assert question.buttons() == []  # answered: the question can't be tapped twice
    assert sum("was ended by" in m.content for m in fake.public_messages()) == 1


async def test_a_table_ended_mid_hand_shows_nobody_to_act(nlk):
    fake, bot, driver, path = nlk
    table = await driver.seat_and_start("ann", ["bob", "cy"])
    assert "▶" in table.text()
    response = await answer(fake, "ann", "end")
    assert not response.ephemeral and "was ended by ann" in response.data["content"]
    await fake.wait_until(lambda: table.buttons() == [], timeout=5)
    assert "▶" not in table.text()


async def test_collect_buttons_on_the_table_say_whose_move_they_are(nlk):
    fake, bot, driver, path = nlk
    table = await driver.seat_and_start("ann", ["bob", "cy"])
    name = actor(table)
    moves = [b.label for b in table.buttons() if b.label not in ("My stack", "Moves",
                                                                  "Fair deal")]
    assert moves and all(label.startswith(f"{name}: ") for label in moves), moves
    pings = [m for m in fake.public_messages() if "your turn" in m.content and not m.deleted]
    if pings:  # the actor's own ping keeps the short labels
        labels = [b.label for b in pings[-1].buttons()]
        assert not any(label.startswith(f"{name}: ") for label in labels), labels


def test_no_choice_is_said_once_per_seat_line():
    from rules import Card

    drew8, drew9 = Card.parse("8D"), Card.parse("9H")
    turn = render.Turn(0, ((1, Event(0, "draw", drew8)), (2, Event(0, "give", drew8, 1)),
                           (3, Event(0, "draw", drew9)), (4, Event(0, "keep", drew9))))
    kinds = {1: "forced", 3: "forced"}
    text = render.turn_text(turn, ("ann", "bob"), kinds)
    assert text.count("no choice") == 1, text
    assert text == "drew 8♦️✱, gave it to bob, drew 9♥️✱, kept it · ✱ no choice"
    every = render.turn_text(turn, ("ann", "bob"), {1: "forced", 2: "forced", 3: "forced",
                                                    4: "forced"})
    assert every.count("no choice") == 1 and "✱" not in every


async def test_the_timer_option_offers_only_what_is_allowed_and_a_table_comes_first(nlk):
    fake, bot, driver, path = nlk
    [command] = fake.commands(guild=fake.guild_id)
    new = next(o for o in command["options"] if o["name"] == "new")
    timer = next(o for o in new["options"] if o["name"] == "turn_timer")
    values = [c["value"] for c in timer["choices"]]
    assert 0 in values and all(v == 0 or 15 <= v <= 3600 for v in values)
    with pytest.raises(ValueError, match="not a choice"):  # the picker offers no 5 s
        await fake.slash("ann", None, "nlk", "new", {"turn_timer": 5})
    table = await driver.new_table("ann", seats=3)
    # A value no picker offers (an old client, a forged call) is still refused, but a
    # channel that already has a table says that first.
    with pytest.raises(errors.TableExists):
        await bot.service.create(fake.guild_id, table.channel_id, 222, "bob",
                                 3, Variant(), 5)
    with pytest.raises(errors.BadSetting):
        await bot.service.create(fake.guild_id, 1, 222, "bob", 3, Variant(), 5)


async def test_a_loser_who_left_is_told_who_deals(fake_discord, tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    driver = Driver(fake, random.Random(2))  # this deal is lost by bob or cy (see test_bot_seats)
    async with running_bot(fake, path):
        table = await driver.seat_and_start("ann", ["bob", "cy", "dee"])
        for name in ("bob", "cy"):
            await answer(fake, name, "leave")
        await driver.play_hand(table)
        assert is_over(table)
        loser = next(n for n in ("bob", "cy")
                     if f"**{n} loses this hand** and has left" in description(table))
        response = await answer(fake, loser, "hand")
        said = str(response.data["embeds"])
        assert "You lost this hand and have left: **dee** deals the next." in said
        assert "you deal the next one" not in said
    fake.assert_clean()


async def test_sync_with_a_development_server_publishes_there_only(fake_discord, tmp_path,
                                                                   caplog):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    settings = Settings(token=fake.token, database=str(path), dev_guild=fake.guild_id,
                        api_base=fake.api_base, log_level="INFO")
    with caplog.at_level(logging.INFO, logger="bot.client"):
        async with NLKBot(settings, sync_only=True, ai_processes=0) as bot:
            await bot.login(fake.token)  # as ``python -m bot sync`` does
    assert fake.command_sync_count(global_=True) == 0
    assert fake.command_sync_count(guild=fake.guild_id) == 1
    assert f"synced 1 command(s) to server {fake.guild_id}" in caplog.text


async def test_a_bot_with_no_command_published_says_how_to_publish(fake_discord, tmp_path,
                                                                   caplog):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    with caplog.at_level(logging.WARNING, logger="bot.client"):
        async with running_bot(fake, path, dev_guild=None):
            pass
    assert "no slash commands are published" in caplog.text
    assert "python -m bot sync" in caplog.text
    caplog.clear()  # once published globally, a start says nothing
    settings = Settings(token=fake.token, database=str(path), api_base=fake.api_base)
    async with NLKBot(settings, sync_only=True, ai_processes=0) as bot:
        await bot.login(fake.token)
    with caplog.at_level(logging.WARNING, logger="bot.client"):
        async with running_bot(fake, path, dev_guild=None):
            pass
    assert "no slash commands are published" not in caplog.text
