"""A fake Discord for driving a real discord.py bot in tests.

The fake speaks the gateway (zlib-stream JSON over a websocket) and the REST API
on 127.0.0.1, enforces Discord's limits and interaction rules, checks every request
body against the schema Discord publishes for its operation (``contract.py``), and
records what the bot did so tests can assert on it::

    async with FakeDiscord() as fake:
        with fake.patch_discord():
            ...  # start the bot
            await fake.wait_for_bot()
            ix = await fake.slash("alice", None, "nlk", subcommand="new")
            message = await ix.wait_message()
            fake.assert_clean()

A bot under test needs three things pointed at the fake: ``discord.http.Route.BASE``
(``fake.api_base``), ``DiscordWebSocket.DEFAULT_GATEWAY`` (the ``url`` from
``GET {api_base}/gateway``) and the token (``fake.token``). ``fake.env()`` has
them as environment variables for a bot run as a subprocess.

Rate limits are enforced by default: 50 requests a second per bot across
bot-token routes (``set_global_rate_limit``), 5 message creates/edits per 5 s per
channel (``set_channel_rate_limit``) and 5 message deletes per 5 s per channel
(``set_delete_rate_limit``). Every 429 lands in ``rate_limited``. Give the bot a small
``guild_ready_timeout`` (e.g. 0.05): discord.py always waits that long after the
last GUILD_CREATE before firing ``on_ready``.
"""

from tests.fakediscord.client import DiscordPatch, FakeDiscord
from tests.fakediscord.clock import Clock
from tests.fakediscord.errors import RateLimitHit, Violation
from tests.fakediscord.gateway import BotSession
from tests.fakediscord.interactions import Edit, Interaction, Response
from tests.fakediscord.models import (
    ALL_PERMISSIONS,
    DEFAULT_BOT_PERMISSIONS,
    DEFAULT_MEMBER_PERMISSIONS,
    DM_PERMISSIONS,
    EPHEMERAL,
    Attachment,
    Channel,
    ChannelType,
    Component,
    Guild,
    Message,
    MessageVersion,
    Perm,
    User,
)
from tests.fakediscord.state import CommandSync

__all__ = [
    "ALL_PERMISSIONS",
    "DEFAULT_BOT_PERMISSIONS",
    "DEFAULT_MEMBER_PERMISSIONS",
    "DM_PERMISSIONS",
    "EPHEMERAL",
    "Attachment",
    "BotSession",
    "Channel",
    "ChannelType",
    "Clock",
    "CommandSync",
    "Component",
    "DiscordPatch",
    "Edit",
    "FakeDiscord",
    "Guild",
    "Interaction",
    "Message",
    "MessageVersion",
    "Perm",
    "RateLimitHit",
    "Response",
    "User",
    "Violation",
]
