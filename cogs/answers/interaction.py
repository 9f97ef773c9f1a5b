"""Small facts about an interaction that every handler asks, answered once."""

from __future__ import annotations

import logging

import discord

from bot.errors import InputError
from cogs.client import Interaction
from cogs.i18n.translator import lang_of, list_of, t
from cogs.transport.posts import ChannelPosts
from rules.i18n import N_

log = logging.getLogger(__name__)


def display_name(user: discord.abc.User) -> str:
    return (getattr(user, "display_name", None) or user.name)[:64]


def let_go(interaction: Interaction) -> None:
    """A tap is handled: its answer (discord.py's ``InteractionResponse``) lets go of the
    interaction. The two keep each other, so each interaction, with all it holds (the message
    tapped and its components, the member), was otherwise freed only by Python's cyclic
    collector, and waited for it: under load, about half of what that collector found.
    Whether the tap was answered (``response.is_done()``) is still known; nothing answers a
    tap after its handler (a later message goes through its token)."""
    interaction.response._parent = None  # type: ignore[assignment]


def is_moderator(interaction: Interaction) -> bool:
    perms = interaction.permissions
    return bool(perms.manage_channels or perms.administrator)


def is_ephemeral(interaction: Interaction) -> bool:
    """Whether the tap was on a message only its player sees (their hand, the moves)."""
    message = interaction.message
    return message is not None and message.flags.ephemeral


def place_of(interaction: Interaction) -> int:
    """Where the interaction came from, as a place: its server, or (in a group DM or a DM,
    where there is no server) the conversation itself. ``Table.place`` is the same for its
    table."""
    if interaction.channel_id is None:
        raise InputError("dm")
    return interaction.guild_id if interaction.guild_id is not None else \
        interaction.channel_id


def server_of(interaction: Interaction) -> int:
    """The server the interaction came from, for what only a server has (its settings,
    seasons, moderators); a group DM or a DM is told so."""
    if interaction.guild_id is None:
        raise InputError("server_only")
    return interaction.guild_id


def missing_permissions(interaction: Interaction) -> list[str]:
    """What the bot lacks to run a table in this channel (it posts pings and exports)."""
    perms = interaction.app_permissions
    in_thread = isinstance(interaction.channel, discord.Thread)
    needed = {N_("Send Messages in Threads") if in_thread else N_("Send Messages"):
              perms.send_messages_in_threads if in_thread else perms.send_messages,
              N_("Embed Links"): perms.embed_links, N_("Attach Files"): perms.attach_files}
    return [name for name, has in needed.items() if not has]


async def tell_refusal(interaction: Interaction, posts: ChannelPosts) -> None:
    """If Discord refused one of the bot's posts in this channel since (a permission was
    taken away), tell whoever uses the table next, once, what the bot needs."""
    said = posts.untold_refusal(interaction.channel_id)
    if said is None or not interaction.response.is_done():
        return
    missing = missing_permissions(interaction)
    if missing and missing[0].startswith("Send Messages"):
        missing = missing[:1]  # Discord takes the others away with it: it alone is missing
    if not interaction.app_permissions.view_channel:
        missing = [N_("View Channel")]
    lang = lang_of(interaction)  # only this person reads it
    _, ngettext = t(lang).gettext, t(lang).ngettext
    needs = (ngettext("The bot needs this permission here: **{missing}**. Ask someone who can "
                      "manage this channel to give it.",
                      "The bot needs these permissions here: **{missing}**. Ask someone who "
                      "can manage this channel to give them.", len(missing)).format(
                          missing=list_of([_(name) for name in missing], lang))
             if missing else _("The bot seems to have the permissions it needs again now."))
    try:
        # Not Discord's own words ("Missing Permissions"): they are English in every server,
        # and the sentence after says what is missing.
        await interaction.followup.send(
            _("The bot couldn't post in this channel, so turn pings or table updates may be "
              "missing. {needs}").format(needs=needs),
            ephemeral=True)
    except discord.HTTPException:
        log.warning("could not tell about a refused post", exc_info=True)
