"""Newcomers meet the lesson where they are (issue 34, item 3), through the fake Discord: the
lobby's "New to NLK?" button opens the lesson privately, and a player's first refusal at a
real table links it, once, even across a restart."""

import random

from tests.nlk_driver import Driver, running_bot

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
