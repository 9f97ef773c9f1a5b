"""The one place that turns errors into replies: polite refusals, and a code for the rest."""

from __future__ import annotations

import logging
import secrets
from typing import Any

import discord

from bot.errors import Refusal

log = logging.getLogger("cogs.errors")


async def say(interaction: discord.Interaction[Any], text: str) -> None:
    """An ephemeral sentence, as the first answer or as a follow-up."""
    try:
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)
    except discord.HTTPException:
        log.warning("could not tell user %s: %s", interaction.user.id, text, exc_info=True)


def describe(error: BaseException) -> tuple[str, bool]:
    """``(sentence, expected)``: refusals speak for themselves; anything else gets a code."""
    if isinstance(error, Refusal):
        return str(error), True
    if isinstance(error, discord.app_commands.CheckFailure):
        return "You can't use that command here.", True
    code = secrets.token_hex(3).upper()
    log.error("unexpected error, code %s", code, exc_info=error)
    return (f"Sorry — something went wrong on our side (code {code}). Please try again; if it "
            "keeps happening, give that code to the bot's admin.", False)


async def reply_error(interaction: discord.Interaction[Any], error: BaseException) -> None:
    text, _ = describe(error)
    await say(interaction, text)
