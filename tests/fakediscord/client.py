"""The test-facing API: start a fake Discord, act as users, inspect what the bot did."""

from __future__ import annotations

import logging
import random
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

import discord.gateway
import discord.http
import yarl
from aiohttp import web

from tests.fakediscord import payloads
from tests.fakediscord.clock import Clock
from tests.fakediscord.errors import RateLimitHit, Violation
from tests.fakediscord.gateway import BotSession, Gateway
from tests.fakediscord.interactions import (
    APPLICATION_COMMAND,
    AUTOCOMPLETE,
    MESSAGE_COMPONENT,
    MODAL_SUBMIT,
    TOKEN_LIFETIME,
    Interaction,
)
from tests.fakediscord.models import LOCALES, Channel, ChannelType, Guild, Member, Message, User
from tests.fakediscord.ratelimit import (
    DELETE_LIMIT,
    DELETE_PER,
    GLOBAL_LIMIT,
    GLOBAL_PER,
    MESSAGE_LIMIT,
    MESSAGE_PER,
    ChannelRateLimiter,
    GlobalRateLimiter,
)
from tests.fakediscord.server import API, Failure, Hold, RestAPI
from tests.fakediscord.state import CommandSync, State

log = logging.getLogger("fakediscord")

UserRef = int | str | User
ChannelRef = int | Channel | None
MessageRef = int | Message
# A permission integer, or anything with an integer ``value`` (discord.Permissions).
Permissions = int | discord.Permissions


class DiscordPatch:
    """Points discord.py's REST base and default gateway at the fake; undo with restore()."""

    def __init__(self, api_base: str, gateway_url: str) -> None:
        self._http, self._ws = discord.http.Route, discord.gateway.DiscordWebSocket
        self._saved = (self._http.BASE, self._ws.DEFAULT_GATEWAY)
        self._http.BASE = api_base
        self._ws.DEFAULT_GATEWAY = yarl.URL(gateway_url)

    def restore(self) -> None:
        self._http.BASE, self._ws.DEFAULT_GATEWAY = self._saved

    def __enter__(self) -> DiscordPatch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.restore()


class FakeDiscord:
    """A Discord the real discord.py client can connect to over 127.0.0.1.

    It starts with one guild (``guild_id``) holding one text channel
    (``channel_id``). Everything it stores survives bot restarts.
    """

    def __init__(
        self,
        *,
        token: str = "fake-bot-token",
        bot_name: str = "nlk-bot",
        guild_name: str = "Test Server",
        channel_name: str = "general",
        host: str = "127.0.0.1",
        port: int = 0,
        clock: Clock | Callable[[], float] | None = None,
        shards: int | None = None,
        max_concurrency: int = 1,
    ) -> None:
        self.clock = clock if isinstance(clock, Clock) else Clock(clock) if clock else Clock()
        self.token = token
        self.host, self.port = host, port
        self.state = State(self.clock, bot_name=bot_name)
        self.gateway = Gateway(self.state, token)
        self.state.set_emitter(self.gateway.broadcast)
        # Sharded as Discord shards a big bot (None: one session gets everything).
        self.gateway.shard_count = shards
        self.gateway.max_concurrency = max_concurrency
        self.limiter = ChannelRateLimiter(self.clock)
        self.delete_limiter = ChannelRateLimiter(
            self.clock, DELETE_LIMIT, DELETE_PER, bucket="channel-message-deletes"
        )
        self.global_limiter = GlobalRateLimiter(self.clock)
        self.rest = RestAPI(
            self.state,
            self.gateway,
            self.limiter,
            token,
            global_limiter=self.global_limiter,
            delete_limiter=self.delete_limiter,
        )
        guild = self.state.add_guild(guild_name, None if shards is None else (0, shards))
        self.guild_id = guild.id
        self.channel_id = self.state.add_channel(guild, channel_name, ChannelType.TEXT).id
        self._runner: web.AppRunner | None = None

    # -- lifecycle --------------------------------------------------------------
    async def start(self) -> FakeDiscord:
        # A short shutdown timeout: a bot left connected must not stall teardown.
        self._runner = web.AppRunner(self.rest.build_app(), access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.state.base_url = self.url
        self.gateway.url = f"ws://{self.host}:{self.port}/gateway"
        log.info("fake Discord listening on %s", self.url)
        return self

    async def stop(self) -> None:
        await self.gateway.close_all()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeDiscord:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def api_base(self) -> str:
        return self.url + API

    @property
    def gateway_url(self) -> str:
        return self.gateway.url

    @property
    def bot_id(self) -> int:
        return self.state.bot.id

    @property
    def application_id(self) -> int:
        return self.state.application_id

    def env(self) -> dict[str, str]:
        """Environment variables for a bot started as a subprocess."""
        return {
            "DISCORD_API_BASE": self.api_base,
            "DISCORD_GATEWAY_URL": self.gateway_url,
            "DISCORD_TOKEN": self.token,
        }

    def late(self, most: float, seed: int = 0) -> None:
        """Carry out and answer every request from now on late, each by up to ``most``
        seconds in all, at random (0: on time again): requests overtake each other."""
        rng = random.Random(seed)

        def lag() -> tuple[float, float]:
            total = rng.uniform(0, most)
            carried = rng.uniform(0, total)
            return carried, total - carried

        self.rest.latency = lag if most > 0 else None

    def hold(self, method: str, path: str, *, answer: bool = False) -> Hold:
        """Make requests ``method`` to a path matching the regex ``path`` wait for ``release()``
        (with ``answer``: carry them out, and hold only the answer)."""
        hold = Hold(method.upper(), re.compile(path), answer)
        self.rest.holds.append(hold)
        return hold

    def fail(self, method: str, path: str, *, status: int = 500, code: int = 0,
             message: str = "500: Internal Server Error", times: int = 1) -> Failure:
        """Refuse the next ``times`` requests ``method`` to a path matching the regex ``path``
        with this error (a passing outage, or a permission lost between two checks)."""
        failure = Failure(method.upper(), re.compile(path), status, code, message, times)
        self.rest.failures.append(failure)
        return failure

    @property
    def request_counts(self) -> Counter[str]:
        """Requests received per route, keyed like ``rate_limit_counts``."""
        return self.state.request_counts

    def patch_discord(self) -> DiscordPatch:
        """Point in-process discord.py at this fake now; use as a context manager to undo."""
        return DiscordPatch(self.api_base, self.gateway_url)

    def set_channel_rate_limit(
        self, limit: int = MESSAGE_LIMIT, per: float = MESSAGE_PER, *, advertise: bool = False
    ) -> None:
        """Tune the per-channel message limit (creates and edits share it).

        By default successful responses carry no bucket headers, so discord.py cannot
        throttle pre-emptively and every burst shows up in ``rate_limited``.
        """
        self.limiter.configure(limit, per)
        self.rest.advertise_ratelimits = advertise

    def set_webhook_rate_limit(self, limit: int | None, per: float = 5.0) -> None:
        """A bucket of ``limit`` requests per ``per`` seconds for each interaction token's
        follow-ups, edits and deletes, advertised in every answer as Discord does (None:
        none, as by default: Discord publishes no figure for it)."""
        self.rest.webhook_limiter = None if limit is None else \
            ChannelRateLimiter(self.clock, limit, per, bucket="webhook-token")

    def set_delete_rate_limit(self, limit: int = DELETE_LIMIT, per: float = DELETE_PER) -> None:
        """Tune the per-channel message delete bucket (default 5 per 5 s)."""
        self.delete_limiter.configure(limit, per)

    def set_global_rate_limit(self, limit: int = GLOBAL_LIMIT, per: float = GLOBAL_PER) -> None:
        """Tune the per-bot global limit (default 50 requests per second).

        Requests under ``/interactions/`` and ``/webhooks/`` never count.
        """
        self.global_limiter.configure(limit, per)

    # -- what went wrong -----------------------------------------------------------
    @property
    def violations(self) -> list[Violation]:
        return self.state.violations

    @property
    def rate_limited(self) -> list[RateLimitHit]:
        """Every 429 the fake sent, oldest first (clear it once a test has checked it)."""
        return self.state.rate_limited

    @property
    def rate_limit_counts(self) -> Counter[str]:
        """429s sent per route, keyed like ``"PATCH /channels/{channel_id}/messages/{message_id}"``.

        A global 429 counts under the route that was refused.
        """
        return Counter(hit.route for hit in self.state.rate_limited)

    @property
    def command_syncs(self) -> list[CommandSync]:
        """Every accepted bulk overwrite of commands (``guild_id`` None for global)."""
        return self.state.command_syncs

    def command_sync_count(self, guild: int | None = None, *, global_: bool = False) -> int:
        """Bulk overwrites for ``guild`` (default guild) or, with ``global_``, global ones."""
        scope = None if global_ else guild or self.guild_id
        return sum(1 for sync in self.state.command_syncs if sync.guild_id == scope)

    def assert_clean(self) -> None:
        """Fail if the bot sent anything Discord would have refused or rate limited."""
        problems = [str(v) for v in self.violations] + [
            f"429 ({h.scope}) on {h.method} {h.path} (retry after {h.retry_after:.2f}s)"
            for h in self.rate_limited
        ]
        assert not problems, "the bot misbehaved:\n  " + "\n  ".join(problems)

    # -- the world -------------------------------------------------------------------
    def guild(self, ref: int | Guild | None = None) -> Guild:
        if isinstance(ref, Guild):
            return ref
        return self.state.guilds[ref or self.guild_id]

    def channel(self, ref: ChannelRef = None) -> Channel:
        """A channel or thread by id (default: the default channel), deleted ones included."""
        if isinstance(ref, Channel):
            return ref
        try:
            return self.state.channels[int(ref or self.channel_id)]
        except KeyError:
            raise AssertionError(f"no channel with id {ref}") from None

    def user(self, ref: UserRef) -> User:
        return payloads.resolve_user(self.state, ref)

    def add_guild(self, name: str, *, shard: int | None = None) -> int:
        """A guild (with ``shard``, one whose id puts it on that shard)."""
        count = self.gateway.shard_count
        if shard is not None and count is None:
            raise ValueError("this fake is not sharded: FakeDiscord(shards=N)")
        guild = self.state.add_guild(name, None if shard is None else (shard, count or 1))
        self.state.emit("GUILD_CREATE", payloads.guild_create(self.state, guild))
        return guild.id

    def add_channel(
        self,
        name: str,
        *,
        guild: int | None = None,
        type: int = ChannelType.TEXT,
        parent: ChannelRef = None,
        topic: str | None = None,
    ) -> int:
        """A text channel, or a thread (type 11/12) under ``parent`` (default channel)."""
        kind = ChannelType(type)
        parent_channel = self.channel(parent) if kind.is_thread else None
        owner = self.bot_id if kind.is_thread else None
        channel = self.state.add_channel(
            self.guild(guild), name, kind, parent=parent_channel, owner_id=owner, topic=topic
        )
        return channel.id

    def add_user(
        self,
        name: str,
        *,
        guild: int | None = None,
        permissions: int = 0,
        global_name: str | None = None,
    ) -> int:
        """A human member; ``permissions`` are granted on top of @everyone via a role."""
        user = self.state.new_user(name, global_name=global_name)
        self._ensure_member(user, self.guild(guild), permissions)
        return user.id

    def dm_channel(self, user: UserRef) -> int:
        """The DM channel between the bot and ``user`` (for slash commands in DMs)."""
        return self.state.dm_channel(self.user(user)).id

    # -- user-installed apps and group DMs ----------------------------------------------
    def add_group_dm(self, members: list[UserRef], *, name: str = "") -> int:
        """A group DM (type 3) of ``members`` (names are created on first use); the first
        one owns it. The bot is not in it: its channel requests there get 403 50001."""
        people = []
        for ref in members:
            if isinstance(ref, str) and not ref.isdigit() and self.state.user_named(ref) is None:
                self.state.new_user(ref)
            people.append(self.user(ref))
        if not people:
            raise ValueError("a group DM needs at least one member")
        return self.state.add_group_dm(people[0], people[1:], name).id

    def add_user_dm(self, one: UserRef, other: UserRef) -> int:
        """The DM between two people; the app reaches it like a group DM (context 2)."""
        for ref in (one, other):
            if isinstance(ref, str) and not ref.isdigit() and self.state.user_named(ref) is None:
                self.state.new_user(ref)
        return self.state.add_user_dm(self.user(one), self.user(other)).id

    def install_app(self, user: UserRef) -> None:
        """``user`` adds the app to their account (a user install)."""
        if isinstance(user, str) and not user.isdigit() and self.state.user_named(user) is None:
            self.state.new_user(user)
        self.state.user_installs.add(self.user(user).id)

    def uninstall_app(self, user: UserRef) -> None:
        self.state.user_installs.discard(self.user(user).id)

    def set_token_ttl(self, seconds: float = TOKEN_LIFETIME) -> None:
        """How long an interaction token lives (Discord: 15 minutes); measured on the
        fake's clock from the moment the interaction was dispatched."""
        self.state.token_ttl = float(seconds)

    @property
    def channel_requests(self) -> Counter[int]:
        """Bot-token requests per channel id, refused or not (any ``/channels/{id}`` route)."""
        return self.state.channel_requests

    @property
    def refused(self) -> Counter[str]:
        """Refused requests by reason (``Violation.kind``): ``group_dm_channel``,
        ``token_expired``, ``followup_limit``, ``permission``, ``rate_limit``..."""
        return self.state.refused

    def followup_counts(self) -> dict[int, int]:
        """Follow-up messages each interaction created, by interaction id."""
        return {i: len(ix.followups) for i, ix in self.state.interactions.items()}

    def _check_command_allowed(self, user: User, channel: Channel, command: str) -> None:
        """What Discord's client lets a person run outside servers.

        In a group DM (context 2) only a person who installed the app sees its commands,
        and only those whose ``integration_types`` include a user install (1) and whose
        ``contexts`` include 2. Discord's defaults: ``integration_types`` [0] (guild),
        ``contexts`` every context.
        """
        if not channel.without_bot:
            return
        reason = None
        found = self.state.find_command(None, command)
        if user.id not in self.state.user_installs:
            reason = f"{user.name} has not installed the app"
        elif found is None:
            reason = f"/{command} is not a global command"
        elif 1 not in (found.get("integration_types") or [0]):
            reason = f"/{command} is not installable to a user (integration_types)"
        elif 2 not in (found.get("contexts") or [0, 1, 2]):
            reason = f"/{command} is not allowed in private channels (contexts)"
        if reason is not None:
            self.state.refused["command_not_available"] += 1
            raise AssertionError(f"{reason}: Discord offers no /{command} in this group DM")

    def add_role(self, name: str, permissions: int, *, guild: int | None = None) -> int:
        return self.state.add_role(self.guild(guild), name, int(permissions)).id

    def grant(self, user: UserRef, permissions: int, *, guild: int | None = None) -> None:
        """Give an existing member extra guild permissions (e.g. Perm.MANAGE_CHANNELS)."""
        g = self.guild(guild)
        member = self._ensure_member(self.user(user), g, 0)
        member.roles.append(self.state.permission_role(g, int(permissions)).id)
        self.state.emit("GUILD_MEMBER_UPDATE", {"guild_id": str(g.id), **member.to_dict()})

    def set_bot_permissions(
        self, channel: ChannelRef, permissions: Permissions | None, *, guild: int | None = None
    ) -> None:
        """Set what the bot may do in ``channel`` or, with ``channel=None``, guild-wide.

        ``permissions`` is a permission integer or a ``discord.Permissions``; ``None``
        restores the default (``DEFAULT_BOT_PERMISSIONS`` via the bot's role). A
        channel setting wins over the guild one; threads follow their parent. The
        bot sees the change as role/channel overwrite updates, and interactions
        carry it as ``app_permissions``.
        """
        value = None if permissions is None else int(getattr(permissions, "value", permissions))
        if channel is None:
            self.state.set_bot_permissions(self.guild(guild), None, value)
            return
        ch = self.channel(channel)
        owner = self.state.guild_of(ch)
        if owner is None:
            raise ValueError("the bot's permissions in a DM are fixed by Discord")
        self.state.set_bot_permissions(owner, ch, value)

    def bot_permissions(self, channel: ChannelRef = None) -> int:
        """The bot's effective permissions in ``channel``, as sent in ``app_permissions``."""
        return self.state.bot_permissions(self.channel(channel))

    def set_locale(self, user: UserRef, locale: str) -> None:
        """The client language of ``user``, sent as ``locale`` in their interactions."""
        self.user(user).locale = _locale(locale)

    def set_guild_locale(self, locale: str, *, guild: int | None = None) -> None:
        """The guild's preferred locale (``guild_locale`` in interactions)."""
        g = self.guild(guild)
        g.locale = _locale(locale)
        self.state.emit("GUILD_UPDATE", payloads.guild_update(self.state, g))

    def delete_message(self, message: MessageRef) -> None:
        """Delete a message as a moderator would; the bot gets MESSAGE_DELETE.

        Later edits of it by the bot (channel or interaction routes) get 404 10008.
        """
        msg = self.find_message(message)
        if msg.visible_to is not None:
            raise AssertionError("nobody but the bot can delete an ephemeral message")
        if msg.deleted:
            raise AssertionError(f"message {msg.id} is already deleted")
        self.state.delete_message(msg)

    def dismiss(self, user: UserRef, message: MessageRef) -> None:
        """The user taps "Dismiss message" under an ephemeral message they can see.

        Discord sends the bot no event; the message is gone for good, so later edits of it
        through any interaction token get 404 10008 Unknown Message.
        """
        msg = self.find_message(message)
        viewer = self.user(user)
        if msg.visible_to is None:
            raise AssertionError("only ephemeral messages can be dismissed")
        if msg.visible_to != viewer.id:
            raise AssertionError(f"{viewer.name} cannot see message {msg.id}")
        if msg.deleted:
            raise AssertionError(f"message {msg.id} is already gone")
        self.state.delete_message(msg)

    def _ensure_member(self, user: User, guild: Guild, permissions: int) -> Member:
        member = guild.members.get(user.id)
        if member is None:
            roles = [self.state.permission_role(guild, int(permissions)).id] if permissions else []
            member = self.state.add_member(guild, user, roles)
        return member

    def _actor(self, ref: UserRef, channel: Channel) -> User:
        """The acting user, created (and joined to the guild) on first mention by name.

        Raises AssertionError if that user could not even open ``channel``.
        """
        if isinstance(ref, str) and not ref.isdigit() and self.state.user_named(ref) is None:
            self.state.new_user(ref)
        user = self.user(ref)
        guild = self.state.guild_of(channel)
        if guild is not None:
            self._ensure_member(user, guild, 0)
        if channel.deleted or not self.state.can_see(user.id, channel):
            raise AssertionError(f"{user.name} cannot open #{channel.name or channel.id}")
        return user

    # -- acting as users ---------------------------------------------------------------
    async def slash(
        self,
        user: UserRef,
        channel: ChannelRef,
        command: str,
        subcommand: str | None = None,
        options: dict[str, Any] | None = None,
    ) -> Interaction:
        """Invoke ``/command [group] [subcommand] options...``; subcommand may be "group sub"."""
        ch = self.channel(channel)
        actor, guild = self._actor(user, ch), self.state.guild_of(ch)
        self._check_command_allowed(actor, ch, command)
        path = subcommand.split() if subcommand else []
        data = payloads.command_data(self.state, guild, command, path, options or {})
        label = "/" + " ".join([command, *path])
        ix = Interaction(
            self.state,
            type=APPLICATION_COMMAND,
            user=actor,
            channel=ch,
            guild=guild,
            data=data,
            label=label,
        )
        return await self._dispatch(ix)

    async def slash_dm(
        self,
        user: UserRef,
        command: str,
        subcommand: str | None = None,
        options: dict[str, Any] | None = None,
    ) -> Interaction:
        """Invoke a (global) slash command in the user's DM with the bot.

        The payload has no ``guild_id``, a type 1 channel and ``user`` instead of
        ``member``, as Discord sends it.
        """
        if self.state.find_command(None, command) is None and any(
            self.state.find_command(g, command) for g in self.state.guilds
        ):
            raise ValueError(f"/{command} is a guild command; it cannot be used in a DM")
        if isinstance(user, str) and not user.isdigit() and self.state.user_named(user) is None:
            self.state.new_user(user)
        return await self.slash(user, self.dm_channel(user), command, subcommand, options)

    async def autocomplete(
        self,
        user: UserRef,
        channel: ChannelRef,
        command: str,
        subcommand: str | None = None,
        options: dict[str, Any] | None = None,
        *,
        focused: str,
    ) -> Interaction:
        """Type into option ``focused``; the bot answers with choices (``ix.choices``)."""
        ch = self.channel(channel)
        actor, guild = self._actor(user, ch), self.state.guild_of(ch)
        path = subcommand.split() if subcommand else []
        data = payloads.command_data(
            self.state, guild, command, path, options or {}, focused=focused
        )
        ix = Interaction(
            self.state,
            type=AUTOCOMPLETE,
            user=actor,
            channel=ch,
            guild=guild,
            data=data,
            label=f"autocomplete {focused}",
        )
        return await self._dispatch(ix)

    async def click(
        self,
        user: UserRef,
        message: MessageRef,
        custom_id: str | None = None,
        *,
        label: str | None = None,
        prefix: str | None = None,
    ) -> Interaction:
        """Press a button, found by exact custom_id, label or custom_id prefix."""
        msg = self._visible_message(user, message)
        button = msg.find_component(custom_id, label=label, prefix=prefix, type=2)
        if button.style == 5:
            raise AssertionError(
                f"{button.label!r} is a link button; clicking it sends no interaction"
            )
        return await self._component(
            user, msg, button.raw, None, f"click {button.label!r} ({button.custom_id})"
        )

    async def select(
        self, user: UserRef, message: MessageRef, custom_id: str, values: list[Any]
    ) -> Interaction:
        """Pick ``values`` in a select menu, checked against its options and bounds."""
        msg = self._visible_message(user, message)
        menu = msg.find_component(custom_id)
        if not menu.is_select:
            raise AssertionError(f"{custom_id!r} is not a select menu")
        low, high = menu.raw.get("min_values", 1), menu.raw.get("max_values", 1)
        if not low <= len(values) <= high:
            raise AssertionError(
                f"select {custom_id!r} takes {low}..{high} values, got {len(values)}"
            )
        if menu.type == 3:
            values = [str(v) for v in values]  # option values are always strings
            offered = [o["value"] for o in menu.options]
            missing = [v for v in values if v not in offered]
            if missing:
                raise AssertionError(
                    f"select {custom_id!r} does not offer {missing}; options: {offered}"
                )
        return await self._component(
            user, msg, menu.raw, list(values), f"select {values} in {custom_id}"
        )

    async def forge_component(
        self,
        user: UserRef,
        custom_id: str,
        *,
        channel: ChannelRef = None,
        message: MessageRef | None = None,
        component_type: int = 2,
        values: list[Any] | None = None,
    ) -> Interaction:
        """Send a component interaction the bot's messages may never have offered.

        Nothing is checked against a real component: ``custom_id`` is arbitrary and
        ``message`` may lack it, belong to another channel, or be an id the fake
        does not know. ``channel`` defaults to the message's channel (else the
        default channel). Without a known message the interaction carries a
        phantom message that does not exist, so UPDATE_MESSAGE answers get 10008.
        ``component_type`` 2 is a button; 3 and 5-8 are selects and take ``values``.
        """
        msg: Message | None = None
        if isinstance(message, Message) or (
            message is not None and int(message) in self.state.messages
        ):
            msg = self.find_message(message)
        if channel is None and msg is not None:
            channel = msg.channel_id
        ch = self.channel(channel)
        if msg is None:
            msg = self._phantom_message(ch, None if message is None else int(message))
        if component_type != 2 and values is None:
            raise ValueError("a select interaction needs values")
        actor, guild = self._actor(user, ch), self.state.guild_of(ch)
        component = {"type": component_type, "custom_id": custom_id}
        data = payloads.component_data(
            self.state, guild, component, None if component_type == 2 else list(values or [])
        )
        ix = Interaction(
            self.state,
            type=MESSAGE_COMPONENT,
            user=actor,
            channel=ch,
            guild=guild,
            data=data,
            source=msg,
            label=f"forged {custom_id!r} on message {msg.id}",
        )
        return await self._dispatch(ix)

    def _phantom_message(self, channel: Channel, ident: int | None) -> Message:
        version = self.state._version(
            channel,
            content="",
            embeds=[],
            components=[],
            flags=0,
            attachments=[],
            allowed_mentions=None,
            replied_to=None,
            via="phantom",
        )
        return Message(
            id=ident or self.state.ids.next(),
            channel_id=channel.id,
            guild_id=channel.guild_id,
            author=self.state.bot,
            versions=[version],
            deleted=True,  # it never existed, so nothing can edit it
        )

    async def submit_modal(self, opened: Interaction, values: dict[str, Any]) -> Interaction:
        """Fill in and submit the modal the bot answered ``opened`` with."""
        if opened.modal is None:
            raise AssertionError(f"{opened!r} was not answered with a modal")
        data = payloads.modal_submit_data(opened.modal, values)
        ix = Interaction(
            self.state,
            type=MODAL_SUBMIT,
            user=opened.user,
            channel=opened.channel,
            guild=opened.guild,
            data=data,
            source=opened.source,
            label=f"submit modal {opened.modal['custom_id']}",
        )
        return await self._dispatch(ix)

    async def say(
        self,
        user: UserRef,
        channel: ChannelRef,
        content: str,
        *,
        reply_to: MessageRef | None = None,
    ) -> Message:
        """Post a plain message as a human would."""
        ch = self.channel(channel)
        payload: dict[str, Any] = {"content": content}
        if reply_to is not None:
            payload["message_reference"] = {"message_id": str(self.find_message(reply_to).id)}
        return self.state.create_message(ch, payload, [], author=self._actor(user, ch), via="user")

    def _visible_message(self, user: UserRef, ref: MessageRef) -> Message:
        msg = self.find_message(ref)
        actor = self._actor(user, self.channel(msg.channel_id))
        if not msg.can_be_seen_by(actor.id):
            raise AssertionError(
                f"{actor.name} cannot see message {msg.id}, so cannot use its components"
            )
        return msg

    async def _component(
        self,
        user: UserRef,
        msg: Message,
        component: dict[str, Any],
        values: list[Any] | None,
        label: str,
    ) -> Interaction:
        if component.get("disabled"):
            raise AssertionError(f"{label}: the component is disabled")
        ch = self.channel(msg.channel_id)
        actor, guild = self._actor(user, ch), self.state.guild_of(ch)
        data = payloads.component_data(self.state, guild, component, values)
        ix = Interaction(
            self.state,
            type=MESSAGE_COMPONENT,
            user=actor,
            channel=ch,
            guild=guild,
            data=data,
            source=msg,
            label=label,
        )
        return await self._dispatch(ix)

    async def _dispatch(self, ix: Interaction) -> Interaction:
        # Only the session of the guild's shard gets it (DMs: shard 0's); during a
        # hand-over (``handover``) every ready session of that shard does.
        sessions = self.gateway.ready_sessions(ix.guild.id if ix.guild is not None else None)
        if not sessions:
            raise AssertionError("no bot is connected and ready; await fake.wait_for_bot() first")
        ix.payload = payloads.interaction(self.state, ix)
        self.state.interactions[ix.id] = ix
        self.state.interactions_by_token[ix.token] = ix
        ix.created_at = self.clock()  # the 3 second window starts now
        for session in sessions if self.gateway.handover else sessions[:1]:
            session.dispatch("INTERACTION_CREATE", ix.payload)
        self.state.changed()
        return ix

    # -- waiting -----------------------------------------------------------------------
    async def wait_for_bot(
        self, timeout: float = 10.0, *, after: BotSession | None = None, shard: int | None = None
    ) -> BotSession:
        """Wait until a bot has identified and processed READY and its guilds (with
        ``shard``: a session of that shard).

        Pass the previous session as ``after`` when waiting for a restarted bot.
        """
        floor = after.number if after else 0

        def ready() -> BotSession | None:
            session = self.gateway.active(shard=shard)
            return session if session and session.number > floor else None

        session: BotSession = await self.state.wait_until(ready, timeout, "a bot to connect")
        return session

    async def wait_for_disconnect(self, session: BotSession, timeout: float = 10.0) -> None:
        await self.state.wait_until(lambda: session.closed, timeout, f"{session!r} to disconnect")

    async def wait_until(
        self, predicate: Callable[[], Any], timeout: float = 3.0, what: str = "a condition"
    ) -> Any:
        """Re-check ``predicate`` whenever anything changes; return its first truthy value."""
        return await self.state.wait_until(predicate, timeout, what)

    async def wait_for_message(
        self,
        predicate: Callable[[Message], bool] = lambda m: True,
        *,
        channel: ChannelRef = None,
        timeout: float = 3.0,
    ) -> Message:
        """The first message created from now on in ``channel`` that matches."""
        ch = self.channel(channel)
        start = len(self.state.channel_messages[ch.id])

        def match() -> Message | None:
            fresh = self.state.channel_messages[ch.id][start:]
            return next((m for m in fresh if predicate(m)), None)

        found: Message = await self.state.wait_until(match, timeout, f"a new message in #{ch.name}")
        return found

    # -- queries -------------------------------------------------------------------------
    def messages(
        self, channel: ChannelRef = None, *, include_deleted: bool = False
    ) -> list[Message]:
        """Every message in ``channel`` (ephemerals included), oldest first."""
        found = self.state.channel_messages[self.channel(channel).id]
        return list(found) if include_deleted else [m for m in found if not m.deleted]

    def all_messages(self) -> list[Message]:
        return sorted(
            (m for m in self.state.messages.values() if not m.deleted), key=lambda m: m.id
        )

    def public_messages(self, channel: ChannelRef = None) -> list[Message]:
        return [m for m in self.messages(channel) if m.visible_to is None]

    def visible_to(self, user: UserRef, channel: ChannelRef = None) -> list[Message]:
        """What ``user`` sees in ``channel``: public messages plus their own ephemerals."""
        uid = self.user(user).id
        if not self.state.can_see(uid, self.channel(channel)):
            return []
        return [m for m in self.messages(channel) if m.can_be_seen_by(uid)]

    def ephemerals_for(self, user: UserRef) -> list[Message]:
        uid = self.user(user).id
        return [m for m in self.all_messages() if m.visible_to == uid]

    def last_message(
        self, channel: ChannelRef = None, *, visible_to: UserRef | None = None
    ) -> Message:
        found = (
            self.visible_to(visible_to, channel) if visible_to else self.public_messages(channel)
        )
        if not found:
            raise AssertionError(f"no messages in #{self.channel(channel).name}")
        return found[-1]

    def find_message(self, ref: MessageRef) -> Message:
        if isinstance(ref, Message):
            return ref
        try:
            return self.state.messages[int(ref)]
        except KeyError:
            raise AssertionError(f"no message with id {ref}") from None

    @property
    def interactions(self) -> list[Interaction]:
        return list(self.state.interactions.values())

    @property
    def sessions(self) -> list[BotSession]:
        return list(self.gateway.sessions)

    def commands(self, guild: int | None = None, *, global_: bool = False) -> list[dict[str, Any]]:
        """Synced commands: for ``guild`` (default guild) or, with ``global_``, global ones."""
        scope = None if global_ else guild or self.guild_id
        return list(self.state.commands.get(scope, {}).values())

    # -- gateway trouble -------------------------------------------------------------------
    async def disconnect_bot(self, code: int = 4000) -> None:
        """Drop the bot's socket like a network failure; discord.py will RESUME."""
        session = self.gateway.active()
        if session:
            await self.gateway.drop(session, code)

    async def request_reconnect(self) -> None:
        """Send op 7 RECONNECT to the bot, as Discord does during deploys."""
        session = self.gateway.active()
        if session:
            await self.gateway.reconnect(session)


def _locale(locale: str) -> str:
    if locale not in LOCALES:
        raise ValueError(f"{locale!r} is not a Discord locale; one of {sorted(LOCALES)}")
    return locale
