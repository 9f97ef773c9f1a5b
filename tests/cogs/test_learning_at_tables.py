"""Newcomers meet the lesson where they are (issue 34, item 3), through the fake Discord: the
lobby's "New to NLK?" button opens the lesson privately, and a player's first refusal at a
real table (a button's, or a command's about that table) links it, once, even across a
restart. A server's ``hints`` setting puts a Hint on players' hands; a hand where one was
used is marked assisted in its moves log and its export (English, Hungarian and French)."""

import json
import random
import re
import sqlite3

import pytest

from tests.fakediscord import Perm
from tests.nlk_driver import Driver, actor, running_bot

LEARN = "New to NLK? Learn it (3 min)"
LINK = "New to NLK?"


async def test_the_lobby_opens_the_lesson_and_the_first_refusal_links_it_once(fake_discord,
                                                                                tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    for name in ("ann", "bob"):
        fake.add_user(name)
    async with running_bot(fake, path):
        driver = Driver(fake, random.Random(3))
        table = await driver.new_table("ann", seats=3)
        rows = table.components
        assert len(rows) <= 5 and sum(len(r["components"]) for r in rows) <= 25
        ix, opened = await driver.click("bob", table, LEARN, expect=4)
        lesson = await ix.wait_message()
        assert opened.ephemeral and lesson.ephemeral
        assert lesson.embeds[0]["title"].startswith("Learn NLK")
        assert any(b.custom_id.startswith("nlkl:") for b in lesson.buttons())
        # bob's first refusal at a table links the lesson, as a mention of /nlk learn …
        ix, refused = await driver.click("bob", table, "Start (host)", expect=4)
        assert refused.ephemeral and "Only the host" in refused.data["content"]
        assert LINK in refused.data["content"] and "</nlk learn:" in refused.data["content"]
        # … and only the first.
        ix, again = await driver.click("bob", table, "Cancel the table (host)", expect=4)
        assert "Only the host" in again.data["content"] and LINK not in again.data["content"]
    async with running_bot(fake, path):  # remembered across a restart
        ix, after = await driver.click("bob", table, "Start (host)", expect=4)
        assert "Only the host" in after.data["content"] and LINK not in after.data["content"]
    assert not [m for m in fake.public_messages() if m.id != table.id]


async def refused(fake, user, subcommand):
    """``/nlk <subcommand>`` in the fake's channel, answered privately: its words."""
    ix = await fake.slash(user, None, "nlk", subcommand)
    response = await ix.wait_response()
    assert response.type == 4 and response.ephemeral, response.data
    return response.data["content"]


async def test_a_first_refused_command_at_a_table_links_the_lesson_once(fake_discord,
                                                                         tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    for name in ("ann", "bob", "cy"):
        fake.add_user(name)
    async with running_bot(fake, path):
        driver = Driver(fake, random.Random(5))
        # No table in the channel: not a refusal at a table, and no link.
        said = await refused(fake, "bob", "hand")
        assert "no NLK table" in said and LINK not in said
        table = await driver.new_table("ann", seats=3)
        # bob's first refusal at a table, from a command, links the lesson …
        said = await refused(fake, "bob", "end")
        assert said.startswith("Only the host") and LINK in said and "</nlk learn:" in said
        # … once, whether the next refusal is a command's or a button's.
        said = await refused(fake, "bob", "leave")
        assert "not playing at this table" in said and LINK not in said
        ix, answer = await driver.click("bob", table, "Start (host)", expect=4)
        assert "Only the host" in answer.data["content"] and LINK not in answer.data["content"]
        # Someone first refused by a button is not linked again by a command.
        ix, answer = await driver.click("cy", table, "Start (host)", expect=4)
        assert LINK in answer.data["content"]
        said = await refused(fake, "cy", "end")
        assert said.startswith("Only the host") and LINK not in said
    async with running_bot(fake, path):  # remembered across a restart
        said = await refused(fake, "bob", "end")
        assert said.startswith("Only the host") and LINK not in said
    assert [m.id for m in fake.public_messages()] == [table.id]


HINT = {"en-GB": "Hint", "hu": "Tipp", "fr": "Conseil"}
ASSISTED = {"en-GB": "Assisted", "hu": "Tippel játszott", "fr": "Assistée"}


def hint_buttons(hand):
    return [b for b in hand.buttons() if b.custom_id.endswith(":hint")]


@pytest.mark.parametrize("locale", ["en-GB", "hu", "fr"])
async def test_hints_at_a_real_table_follow_the_server_setting(fake_discord, tmp_path, locale):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    fake.add_user("owner", permissions=Perm.MANAGE_GUILD)
    for name in ("ann", "bob"):
        fake.add_user(name)
        fake.set_locale(name, locale)
    async with running_bot(fake, path):
        driver = Driver(fake, random.Random(4))
        # Off by default: the hand of the player to act has no Hint.
        table = await driver.seat_and_start("ann", ["bob"])
        ix = await fake.click(actor(table), table, custom_id=next(
            b.custom_id for b in table.buttons() if b.custom_id.endswith(":hand")))
        assert not hint_buttons(await ix.wait_message())
        await (await fake.slash("ann", None, "nlk", "end")).wait_response()
        ix = await fake.slash("owner", None, "nlk", "settings", {"hints": True})
        assert (await ix.wait_response()).ephemeral
        # On: a hint on one's turn says the move and why, privately, and marks the hand.
        table = await driver.seat_and_start("ann", ["bob"])
        who = actor(table)
        ix = await fake.click(who, table, custom_id=next(
            b.custom_id for b in table.buttons() if b.custom_id.endswith(":hand")))
        hand = await ix.wait_message()
        (hint,) = hint_buttons(hand)
        assert HINT[locale] in hint.label
        ix = await fake.click(who, hand, custom_id=hint.custom_id)
        answer = await ix.wait_response()
        assert answer.ephemeral and answer.data["content"].startswith("💡")
        assert "(R" in answer.data["content"]
        # Each rule it cites opens, privately, with a "📖 R4.2" button below it.
        cited = dict.fromkeys(re.findall(r"\((R[1-6]\.[0-9])\)", answer.data["content"]))
        said = await ix.wait_message()
        assert [b.label for b in said.buttons()] == [f"📖 {rule}" for rule in cited]
        ix = await fake.click("ann", table, custom_id=next(
            b.custom_id for b in table.buttons() if b.custom_id.endswith(":moves")))
        moves = await ix.wait_message()
        assert ASSISTED[locale] in moves.embeds[0]["description"]
        if locale == "en-GB":  # the export says so too (one language: a whole hand is slow)
            await driver.play_hand(table)
            ix = await fake.slash("ann", None, "nlk", "export")
            (attachment,) = (await ix.wait_message()).attachments
            assert json.loads(attachment.data)["assisted"] is True
    db = sqlite3.connect(path)
    try:
        assert db.execute("SELECT assisted FROM hands ORDER BY id").fetchall() == [(0,), (1,)]
    finally:
        db.close()
