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

Group DMs and user-installed apps
---------------------------------
``fake.add_group_dm(["alice", "bob", "carol"])`` makes a group DM (channel type 3;
the first name owns it) and ``fake.add_user_dm("alice", "bob")`` a DM between two
people. The bot is in neither, as on Discord:

* every bot-token request to such a channel (messages, the channel itself, typing,
  reactions...) is refused with 403 ``{"message": "Missing Access", "code": 50001}``,
  and no gateway message event comes from it; the app speaks there only through
  interaction tokens;
* ``fake.install_app("alice")`` adds the app to alice's account. Only a person who
  did can run a slash command there, and only one whose synced ``integration_types``
  include 1 (user install) and ``contexts`` include 2 (private channel); otherwise
  ``fake.slash`` raises AssertionError, as Discord would not offer the command;
* interactions from there have ``context`` 2, ``authorizing_integration_owners``
  ``{"1": "<installer id>"}``, a ``channel`` object, ``user`` and no ``guild_id`` or
  ``member``. A click on the app's message keeps the owners of the interaction that
  made that message, whoever clicks (anyone in the group DM may, installed or not).
  In servers the owners are ``{"0": "<guild id>"}`` and ``context`` is 0; in the DM
  with the bot, ``{"0": "0"}`` and 1;
* an interaction no guild installation authorises gets at most 5 follow-up messages:
  the sixth is refused with 400 40094;
* tokens live ``fake.set_token_ttl(seconds)`` (default 15 minutes, on the fake's
  clock, from dispatch): after that, callbacks, follow-ups and editing or deleting
  the original or a follow-up get 401 ``{"message": "Invalid Webhook Token",
  "code": 50027}``.

Counters: ``fake.channel_requests[channel_id]`` (bot requests per channel, refused or
not), ``fake.followup_counts()[interaction.id]``, and ``fake.refused[kind]`` (refused
requests by reason: ``group_dm_channel``, ``token_expired``, ``followup_limit``,
``command_not_available``, ``permission``...). ``tests/groupdm_member.py`` has a
group-DM member who sees and acts as a person does.
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
