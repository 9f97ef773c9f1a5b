"""Answers to taps that read nothing of what Discord answers with (``cogs.transport.raw``):
the message tapped shows the answer all the same."""

import discord

from tests.helpers import table_id_of, to_the_shed_phase
from tests.nlk_driver import actor


async def test_taps_on_the_table_message_and_on_a_ping_are_answered_without_reading_back(
        nlk, monkeypatch):
    """A move tapped on the table message, and one tapped on a turn ping, are answered by
    editing the message tapped without discord.py's ``edit_message`` (which builds the whole
    message Discord answers with, never read): the message shows the move all the same."""
    fake, bot, driver, path = nlk
    used: list[str] = []
    real = discord.InteractionResponse.edit_message

    async def counted(self, **fields):
        used.append("edit_message")
        return await real(self, **fields)

    monkeypatch.setattr(discord.InteractionResponse, "edit_message", counted)
    table = await driver.seat_and_start("ann", ["bob"])
    for where in ("table", "ping"):
        name = actor(table)
        user = fake.user(name).id
        if where == "ping":
            await fake.wait_until(lambda u=user: any(
                not m.deleted and u in m.pinged_user_ids and m.buttons()
                for m in fake.public_messages()), timeout=10)
            tapped = [m for m in fake.public_messages()
                      if not m.deleted and user in m.pinged_user_ids and m.buttons()][-1]
        else:
            tapped = table
        moves = [b for b in tapped.buttons()
                 if b.custom_id.split(":")[3].split(".")[0] in ("give", "draw", "keep")]
        before = len(tapped.versions)
        await driver.click(name, tapped, custom_id=moves[0].custom_id)
        assert len(tapped.versions) == before + 1  # the answer edited it
    assert used == []


async def test_answers_ask_discord_for_no_message_back_but_the_table_message_s_id(
        nlk, monkeypatch):
    """An answer to a tap (a move on the table message, **My hand**, a move on the hand)
    asks Discord for nothing back (no ``with_response``: Discord answers 204, with nothing to
    parse); only ``/nlk new``'s answer, the table message whose id the bot keeps, asks for
    it, and the bot reads that message's id from it."""
    from discord.webhook.async_ import AsyncWebhookAdapter

    fake, bot, driver, path = nlk
    asked: list[tuple[str, bool]] = []
    real = AsyncWebhookAdapter.request

    async def spied(self, route, session, **fields):
        if route.path.endswith("/callback"):
            asked.append((route.url, bool((fields.get("params") or {}).get("with_response"))))
        return await real(self, route, session, **fields)

    monkeypatch.setattr(AsyncWebhookAdapter, "request", spied)
    table = await driver.new_table("ann", seats=2)
    assert asked == [(asked[0][0], True)]
    cog = bot.get_cog("NLK")
    stored = await cog.service.get(table_id_of(table))
    assert stored.message_id == table.id  # read from Discord's answer
    await driver.click("bob", table, "Join")
    await driver.click("ann", table, "Start (host)")
    await to_the_shed_phase(driver, table)
    name = actor(table)
    hand = await driver.open_hand(name, table)
    moves = [b for b in hand.buttons() if ":play." in (b.custom_id or "")
             or ":take" in (b.custom_id or "")]
    await driver.click(name, hand, custom_id=moves[0].custom_id)
    assert len(asked) > 5
    assert [with_response for _url, with_response in asked[1:]] == [False] * (len(asked) - 1)
