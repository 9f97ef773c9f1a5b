"""A handled tap, and the buttons drawn for a change, are freed as soon as the bot lets go of
them, not left to Python's cyclic collector: discord.py's interaction and its answer keep
each other (``let_go``), as a view and its items do (``Buttons.add_item``), and each holds
more (the message tapped, its components, the member)."""

import gc
import random

import discord

from cogs.widgets.buttons import Buttons
from tests.learners import play_out
from tests.nlk_driver import actor


def interactions() -> int:
    """discord.py's interactions still in memory, whether reachable or not."""
    return sum(isinstance(o, discord.Interaction) for o in gc.get_objects())


def views() -> int:
    """The bot's views (a message's buttons) still in memory, whether reachable or not."""
    return sum(isinstance(o, Buttons) for o in gc.get_objects())


async def test_taps_and_buttons_are_freed_without_waiting_for_the_cyclic_collector(nlk):
    fake, bot, driver, path = nlk
    table = await driver.seat_and_start("ann", ["bob"])
    gc.collect()
    gc.disable()  # what only the cyclic collector frees stays, and is counted
    try:
        before, drawn = interactions(), views()
        taps = 0
        while taps < 6 and " · collect" in (table.embeds[0].get("title") or ""):
            moves = [b for b in table.buttons()
                     if b.custom_id.split(":")[3].split(".")[0] in ("give", "draw", "keep")]
            await driver.click(actor(table), table, custom_id=moves[0].custom_id)
            taps += 1
        left, buttons = interactions() - before, views() - drawn
    finally:
        gc.enable()
    assert taps == 6
    # The table keeps the newest tap's token for its follow-ups: one, not one per tap.
    assert left <= 2, left
    # Every change draws buttons for the table message, the hands and the ping: those sent
    # are not kept (a few may be held by what is still on its way or by the kept messages).
    assert buttons <= 6, buttons


async def test_a_practice_hands_taps_are_freed_without_waiting_for_the_cyclic_collector(nlk):
    """The practice's buttons are routed apart from the tables' (as the lesson's and the
    replays' are): their taps are let go of too."""
    fake, _bot, _driver, _path = nlk
    fake.add_user("pia")
    ix = await fake.slash("pia", None, "nlk", "practice", {"ai_players": 1})
    message = await ix.wait_message()
    gc.collect()
    gc.disable()
    try:
        before = interactions()
        message, taps, _hints = await play_out(fake, "pia", message, random.Random(5),
                                               stop_after=6, hint_chance=0.0)
        left = interactions() - before
    finally:
        gc.enable()
    # A practice deal is random, and most collect moves play themselves: about one hand in
    # 300 ends before the player's sixth choice. Three taps kept would already show.
    assert taps >= 3, taps
    assert left <= 2, left
