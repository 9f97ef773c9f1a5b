"""A handled tap is freed as soon as the bot lets go of it, not left to Python's cyclic
collector: discord.py's interaction and its answer keep each other, and each tap's
interaction holds the message tapped, its components and the member (``let_go``)."""

import gc

import discord

from tests.nlk_driver import actor


def interactions() -> int:
    """discord.py's interactions still in memory, whether reachable or not."""
    return sum(isinstance(o, discord.Interaction) for o in gc.get_objects())


async def test_taps_are_freed_without_waiting_for_the_cyclic_collector(nlk):
    fake, bot, driver, path = nlk
    table = await driver.seat_and_start("ann", ["bob"])
    gc.collect()
    gc.disable()  # what only the cyclic collector frees stays, and is counted
    try:
        before = interactions()
        taps = 0
        while taps < 6 and " · collect" in (table.embeds[0].get("title") or ""):
            moves = [b for b in table.buttons()
                     if b.custom_id.split(":")[3].split(".")[0] in ("give", "draw", "keep")]
            await driver.click(actor(table), table, custom_id=moves[0].custom_id)
            taps += 1
        left = interactions() - before
    finally:
        gc.enable()
    assert taps == 6
    # The table keeps the newest tap's token for its follow-ups: one, not one per tap.
    assert left <= 2, left
