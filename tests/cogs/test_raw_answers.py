"""Answers to taps that read nothing of what Discord answers with (``cogs.transport.raw``):
the message tapped shows the answer all the same."""

import discord

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
