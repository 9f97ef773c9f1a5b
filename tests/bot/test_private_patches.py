"""The one private part of discord.py the bot patches, and why: discord.py has no public
switch to stop taking interactions while shutting down, so start-up wraps the gateway's
``INTERACTION_CREATE`` parser. These tests fail when discord.py changes what the wrapper
relies on."""

import logging

import discord.state

from bot.client import NLKBot
from bot.settings import Settings


def make_bot() -> NLKBot:
    return NLKBot(Settings(token="x", database=":memory:"), ai_processes=0)


async def test_discord_still_parses_interactions_through_the_table_the_bot_wraps():
    assert callable(getattr(discord.state.ConnectionState, "parse_interaction_create", None))
    bot = make_bot()
    parsers = bot._connection.parsers
    assert set(parsers) > {"INTERACTION_CREATE", "READY", "GUILD_CREATE"}
    wrapper = parsers["INTERACTION_CREATE"]
    assert wrapper.__name__ == "take_interaction"
    # What it wraps is discord.py's own parser of interactions, bound to the bot's state.
    wrapped = [cell.cell_contents for cell in wrapper.__closure__ or ()
               if getattr(cell.cell_contents, "__func__", None)
               is discord.state.ConnectionState.parse_interaction_create]
    assert [f.__self__ for f in wrapped] == [bot._connection]
    await bot.close()


async def test_while_shutting_down_an_interaction_is_not_taken(caplog):
    bot = make_bot()
    bot.accepting = False
    with caplog.at_level(logging.INFO, logger="bot.client"):
        # Not even looked at: a payload discord.py could not parse raises nothing.
        bot._connection.parsers["INTERACTION_CREATE"]({"id": "1"})
    assert "an interaction was not taken" in caplog.text
    await bot.close()
