"""The fake's memory: everything outlives bot connections, restarts and kills."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import mimetypes
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tests.fakediscord import limits
from tests.fakediscord.clock import Clock
from tests.fakediscord.errors import (
    APIError,
    FormErrors,
    Path,
    RateLimitHit,
    Violation,
    empty_message,
    unknown_channel,
)
from tests.fakediscord.models import (
    ALL_PERMISSIONS,
    COMPONENTS_V2,
    DEFAULT_BOT_PERMISSIONS,
    DEFAULT_MEMBER_PERMISSIONS,
    DM_PERMISSIONS,
    LOADING,
    SUPPRESS_EMBEDS,
    Attachment,
    Channel,
    ChannelType,
    Guild,
    Member,
    Message,
    MessageVersion,
    Perm,
    Role,
    Snowflakes,
    User,
    iso_now,
)
from tests.fakediscord.wire import UploadedFile

if TYPE_CHECKING:
    from tests.fakediscord.interactions import Interaction

# Gateway intents that gate the events the fake emits.
GUILDS = 1 << 0
GUILD_MEMBERS = 1 << 1
GUILD_MESSAGES = 1 << 9
DIRECT_MESSAGES = 1 << 12

# wait_until also polls, so predicates over the bot's own state work too.
POLL_INTERVAL = 0.01

_USER_MENTION = re.compile(r"<@!?(\d+)>")
_ROLE_MENTION = re.compile(r"<@&(\d+)>")

Emitter = Callable[[str, dict[str, Any], int], None]


@dataclass
class CommandSync:
    """One accepted bulk overwrite of application commands (``guild_id`` None: global)."""

    guild_id: int | None
    names: list[str]
    at: float


class State:
    """Users, guilds, channels, messages, commands and interactions."""

    def __init__(self, clock: Clock, *, bot_name: str) -> None:
        self.clock = clock
        self.ids = Snowflakes()
        self.users: dict[int, User] = {}
        self.guilds: dict[int, Guild] = {}
        self.channels: dict[int, Channel] = {}
        self.messages: dict[int, Message] = {}
        self.channel_messages: dict[int, list[Message]] = {}
        self.attachments: dict[int, Attachment] = {}
        self.commands: dict[int | None, dict[tuple[str, int], dict[str, Any]]] = {}
        self.interactions: dict[int, Interaction] = {}
        self.interactions_by_token: dict[str, Interaction] = {}
        self.violations: list[Violation] = []
        self.rate_limited: list[RateLimitHit] = []
        # Requests received per route template (``"PATCH /channels/{channel_id}/…"``).
        self.request_counts: Counter[str] = Counter()
        self.command_syncs: list[CommandSync] = []
        # User-installed apps (see ``tests/fakediscord/__init__.py``): who installed the
        # app to their account, how long interaction tokens live, requests the bot made
        # per channel id (any ``/channels/{channel_id}…`` route), and refusals by kind.
        self.user_installs: set[int] = set()
        self.token_ttl = 15 * 60.0
        self.channel_requests: Counter[int] = Counter()
        self.refused: Counter[str] = Counter()
        # The bot's permissions where a test set them: per channel, and per guild.
        self.bot_channel_permissions: dict[int, int] = {}
        self.bot_guild_permissions: dict[int, int] = {}
        self.base_url = ""
        self.bot = self.new_user(bot_name, bot=True)
        self.application_id = self.bot.id  # modern apps share the id
        self._emit: Emitter = lambda event, data, intent: None
        self._pulse = asyncio.Event()

    # -- change notification ---------------------------------------------------
    def set_emitter(self, emit: Emitter) -> None:
        self._emit = emit

    def emit(self, event: str, data: dict[str, Any], intent: int = GUILDS) -> None:
        self._emit(event, data, intent)

    def changed(self) -> None:
        """Wake everything waiting in :meth:`wait_until`."""
        self._pulse.set()
        self._pulse = asyncio.Event()

    async def wait_until(self, predicate: Callable[[], Any], timeout: float, what: str) -> Any:
        """Re-check ``predicate`` on every change (and every few ms, for bot-side state)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not (result := predicate()):
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(f"timed out after {timeout:.2f}s waiting for {what}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._pulse.wait(), min(remaining, POLL_INTERVAL))
        return result

    # -- users, guilds and channels ------------------------------------------
    def new_user(self, name: str, *, bot: bool = False, global_name: str | None = None) -> User:
        user = User(self.ids.next(), name, bot=bot, global_name=global_name)
        self.users[user.id] = user
        return user

    def user_named(self, name: str) -> User | None:
        return next((u for u in self.users.values() if u.name == name), None)

    def add_guild(self, name: str, shard: tuple[int, int] | None = None) -> Guild:
        guild = Guild(self.ids.next(shard), name, owner_id=0)
        guild.roles[guild.id] = Role(
            guild.id, guild.id, "@everyone", int(DEFAULT_MEMBER_PERMISSIONS)
        )
        bot_role = Role(
            self.ids.next(), guild.id, self.bot.name, int(DEFAULT_BOT_PERMISSIONS), 1, True
        )
        guild.roles[bot_role.id] = bot_role
        guild.members[self.bot.id] = Member(self.bot, guild.id, [bot_role.id])
        self.guilds[guild.id] = guild
        return guild

    def add_role(self, guild: Guild, name: str, permissions: int) -> Role:
        role = Role(self.ids.next(), guild.id, name, permissions, position=len(guild.roles))
        guild.roles[role.id] = role
        self.emit("GUILD_ROLE_CREATE", {"guild_id": str(guild.id), "role": role.to_dict()})
        return role

    def permission_role(self, guild: Guild, permissions: int) -> Role:
        """A role granting exactly ``permissions``, created the first time it is needed."""
        name = f"perms-{permissions:x}"
        existing = next((r for r in guild.roles.values() if r.name == name), None)
        return existing or self.add_role(guild, name, permissions)

    def add_member(self, guild: Guild, user: User, roles: list[int]) -> Member:
        member = Member(user, guild.id, roles)
        guild.members[user.id] = member
        self.emit(
            "GUILD_MEMBER_ADD", {"guild_id": str(guild.id), **member.to_dict()}, GUILD_MEMBERS
        )
        return member

    def add_channel(
        self,
        guild: Guild | None,
        name: str,
        type: ChannelType,
        *,
        parent: Channel | None = None,
        owner_id: int | None = None,
        topic: str | None = None,
        ident: int | None = None,
    ) -> Channel:
        if type.is_thread and parent is None:
            raise ValueError("threads need a parent channel")
        channel = Channel(
            ident or self.ids.next(),
            type,
            name,
            guild.id if guild else None,
            parent_id=parent.id if parent else None,
            position=len(guild.channel_ids) if guild else 0,
            topic=topic,
            owner_id=owner_id if type.is_thread else None,
        )
        if type.is_thread:
            channel.member_ids.add(owner_id or self.bot.id)
        elif guild:
            channel.overwrites = self._bot_overwrites(guild, channel)
        self.channels[channel.id] = channel
        self.channel_messages[channel.id] = []
        if guild:
            guild.channel_ids.append(channel.id)
            if type.is_thread:
                self.emit("THREAD_CREATE", {**channel.to_dict(), "newly_created": True})
            else:
                self.emit("CHANNEL_CREATE", channel.to_dict())
        return channel

    def dm_channel(self, user: User) -> Channel:
        for channel in self.channels.values():
            if (
                channel.type == ChannelType.DM
                and not channel.without_bot
                and channel.recipients[0] is user
            ):
                return channel
        channel = Channel(self.ids.next(), ChannelType.DM, "", None, recipients=[user])
        self.channels[channel.id] = channel
        self.channel_messages[channel.id] = []
        return channel

    def add_group_dm(self, owner: User, members: list[User], name: str = "") -> Channel:
        """A group DM (type 3) of ``owner`` and ``members``; the bot is never a recipient."""
        people = list(dict.fromkeys([owner, *members]))
        if len(people) > 10:
            raise ValueError("a group DM holds at most 10 people")
        channel = Channel(
            self.ids.next(),
            ChannelType.GROUP_DM,
            name,
            None,
            owner_id=owner.id,
            recipients=people,
            without_bot=True,
        )
        self.channels[channel.id] = channel
        self.channel_messages[channel.id] = []
        return channel

    def add_user_dm(self, one: User, other: User) -> Channel:
        """The DM between two people (type 1, context 2 for the app): the bot is not in it."""
        for channel in self.channels.values():
            if (
                channel.without_bot
                and channel.type == ChannelType.DM
                and {u.id for u in channel.recipients} == {one.id, other.id}
            ):
                return channel
        channel = Channel(
            self.ids.next(), ChannelType.DM, "", None, recipients=[one, other], without_bot=True
        )
        self.channels[channel.id] = channel
        self.channel_messages[channel.id] = []
        return channel

    def channel(self, channel_id: int) -> Channel:
        channel = self.channels.get(channel_id)
        if channel is None or channel.deleted:
            raise unknown_channel()
        return channel

    def delete_channel(self, channel: Channel) -> None:
        """Forget the channel for the bot; tests can still read its messages."""
        channel.deleted = True
        guild = self.guild_of(channel)
        if guild:
            guild.channel_ids.remove(channel.id)
        self.emit("THREAD_DELETE" if channel.is_thread else "CHANNEL_DELETE", channel.to_dict())
        self.changed()

    def can_see(self, user_id: int, channel: Channel) -> bool:
        """Whether a user can open ``channel`` at all (private threads and DMs are closed)."""
        if channel.type in (ChannelType.DM, ChannelType.GROUP_DM):
            return any(u.id == user_id for u in channel.recipients)
        if channel.type == ChannelType.PRIVATE_THREAD and user_id not in channel.member_ids:
            guild = self.guild_of(channel)
            return bool(guild and guild.permissions_for(user_id) & Perm.MANAGE_THREADS)
        return True

    def guild_of(self, channel: Channel) -> Guild | None:
        return self.guilds.get(channel.guild_id) if channel.guild_id else None

    # -- the bot's permissions -----------------------------------------------------
    def bot_permissions(self, channel: Channel) -> int:
        """The bot's permissions in ``channel``, as Discord sends them in ``app_permissions``.

        Threads have no overwrites of their own and use their parent's. Like Discord,
        without View Channel nothing is allowed, and without the right to send
        (Send Messages, or Send Messages in Threads in a thread) embeds, files,
        TTS and @everyone are implicitly denied too.
        """
        if channel.type in (ChannelType.DM, ChannelType.GROUP_DM):
            # For a group DM this is the ``app_permissions`` of a user-installed app;
            # the bot's own channel requests there are refused all the same.
            return int(DM_PERMISSIONS)
        guild = self.guild_of(channel)
        if guild is None:
            return 0
        source = self.channels[channel.parent_id] if channel.is_thread else channel
        value = self._bot_channel_value(guild, source)
        if value & Perm.ADMINISTRATOR:
            return ALL_PERMISSIONS
        if not value & Perm.VIEW_CHANNEL:
            return 0
        send = Perm.SEND_MESSAGES_IN_THREADS if channel.is_thread else Perm.SEND_MESSAGES
        if not value & send:
            value &= ~(Perm.SEND_TTS_MESSAGES | Perm.MENTION_EVERYONE)
            value &= ~(Perm.EMBED_LINKS | Perm.ATTACH_FILES)
        return int(value)

    def _bot_channel_value(self, guild: Guild, channel: Channel) -> int:
        if channel.id in self.bot_channel_permissions:
            return self.bot_channel_permissions[channel.id]
        if guild.id in self.bot_guild_permissions:
            return self.bot_guild_permissions[guild.id]
        return guild.permissions_for(self.bot.id)

    def set_bot_permissions(self, guild: Guild, channel: Channel | None, value: int | None) -> None:
        """Set (``None``: reset) the bot's permissions in one channel, or guild-wide.

        Guild-wide, the bot's own role gets ``value``; per channel the bot gets a
        member overwrite. Where @everyone grants more than ``value``, an overwrite
        denies the rest, so discord.py's ``permissions_for(guild.me)`` agrees with
        what the fake enforces.
        """
        if channel is None:
            if value is None:
                self.bot_guild_permissions.pop(guild.id, None)
            else:
                self.bot_guild_permissions[guild.id] = value
            role = next(r for r in guild.roles.values() if r.managed and r.name == self.bot.name)
            role.permissions = int(DEFAULT_BOT_PERMISSIONS) if value is None else value
            self.emit("GUILD_ROLE_UPDATE", {"guild_id": str(guild.id), "role": role.to_dict()})
        elif channel.is_thread:
            raise ValueError("threads take their permissions from their parent channel")
        elif value is None:
            self.bot_channel_permissions.pop(channel.id, None)
        else:
            self.bot_channel_permissions[channel.id] = value
        for channel_id in guild.channel_ids:
            other = self.channels[channel_id]
            if other.is_thread:
                continue
            overwrites = self._bot_overwrites(guild, other)
            if overwrites != other.overwrites:
                other.overwrites = overwrites
                self.emit("CHANNEL_UPDATE", other.to_dict())
        self.changed()

    def _bot_overwrites(self, guild: Guild, channel: Channel) -> list[dict[str, Any]]:
        base = guild.permissions_for(self.bot.id)
        wanted = self._bot_channel_value(guild, channel)
        if wanted == base or base & Perm.ADMINISTRATOR:
            return []
        allow, deny = wanted & ~base, base & ~wanted
        return [{"id": str(self.bot.id), "type": 1, "allow": str(allow), "deny": str(deny)}]

    # -- messages ----------------------------------------------------------------
    def create_message(
        self,
        channel: Channel,
        payload: dict[str, Any],
        files: list[UploadedFile],
        *,
        author: User | None = None,
        via: str = "channel",
        visible_to: int | None = None,
        flags: int = 0,
        errors_prefix: Path = (),
        interaction: Interaction | None = None,
        type: int = 0,
        allow_empty: bool = False,
    ) -> Message:
        """Validate and store a new message, then tell connected bots about it."""
        errors = FormErrors(errors_prefix)
        limits.check_message(payload, errors)
        attachments = self._attachments(channel, payload, files, [], errors)
        errors.raise_if_any()
        if channel.archived:
            raise APIError(400, 50083, "Thread is archived", kind="thread")

        author = author or self.bot
        reference = payload.get("message_reference")
        referenced = self.messages.get(int(reference["message_id"])) if reference else None
        version = self._version(
            channel,
            content=payload.get("content") or "",
            embeds=payload.get("embeds") or [],
            components=payload.get("components") or [],
            flags=flags,
            attachments=attachments,
            allowed_mentions=payload.get("allowed_mentions"),
            replied_to=referenced.author if referenced else None,
            via=via,
        )
        if (
            not allow_empty
            and _is_empty(version)
            and not payload.get("poll")
            and not payload.get("sticker_ids")
        ):
            raise empty_message()

        message = Message(
            id=self.ids.next(),
            channel_id=channel.id,
            guild_id=channel.guild_id,
            author=author,
            versions=[version],
            type=type,
            visible_to=visible_to,
            tts=bool(payload.get("tts")),
        )
        if reference and referenced:
            message.message_reference = {
                "type": 0,
                "message_id": str(referenced.id),
                "channel_id": str(referenced.channel_id),
                "guild_id": str(referenced.guild_id) if referenced.guild_id else None,
            }
            message.type = 19
        if interaction is not None:
            interaction.stamp(message)
        self.messages[message.id] = message
        self.channel_messages[channel.id].append(message)
        if visible_to is None:
            channel.last_message_id = message.id
            channel.message_count += 1
            self._emit_message("MESSAGE_CREATE", message)
        self.changed()
        return message

    def edit_message(
        self,
        message: Message,
        payload: dict[str, Any],
        files: list[UploadedFile],
        *,
        via: str,
        errors_prefix: Path = (),
        finish_loading: bool = False,
    ) -> Message:
        """Apply a partial update, keeping the previous version for later inspection."""
        channel = self.channels[message.channel_id]
        old = message.current
        payload = dict(payload)
        # Only SUPPRESS_EMBEDS can be toggled by an edit; other flags stick.
        flags = old.flags
        if payload.get("flags") is not None:
            flags = (flags & ~SUPPRESS_EMBEDS) | (payload["flags"] & SUPPRESS_EMBEDS)
            payload["flags"] = payload["flags"] | (flags & COMPONENTS_V2)
        else:
            payload["flags"] = flags
        if finish_loading:
            flags &= ~LOADING
        errors = FormErrors(errors_prefix)
        limits.check_message(payload, errors)
        attachments = old.attachments
        if "attachments" in payload or files:
            attachments = self._attachments(channel, payload, files, old.attachments, errors)
        errors.raise_if_any()

        content = payload.get("content", old.content)
        version = self._version(
            channel,
            content=content or "",
            embeds=(payload["embeds"] or []) if "embeds" in payload else old.embeds,
            components=(payload["components"] or []) if "components" in payload else old.components,
            flags=flags,
            attachments=attachments,
            allowed_mentions=payload.get("allowed_mentions", old.allowed_mentions),
            replied_to=None,
            via=via,
        )
        if not version.flags & LOADING and _is_empty(version):
            raise empty_message()
        version.edited_timestamp = old.edited_timestamp if finish_loading else iso_now()
        message.versions.append(version)
        if message.visible_to is None:
            self._emit_message("MESSAGE_UPDATE", message)
        self.changed()
        return message

    def delete_message(self, message: Message) -> None:
        message.deleted = True
        if message.visible_to is None:
            data = {"id": str(message.id), "channel_id": str(message.channel_id)}
            if message.guild_id:
                data["guild_id"] = str(message.guild_id)
            self.emit("MESSAGE_DELETE", data, self._message_intent(message))
        self.changed()

    def message_in(self, channel: Channel, message_id: int) -> Message | None:
        message = self.messages.get(message_id)
        if message is None or message.deleted or message.channel_id != channel.id:
            return None
        return message

    def _version(
        self,
        channel: Channel,
        *,
        content: str,
        embeds: list[dict[str, Any]],
        components: list[dict[str, Any]],
        flags: int,
        attachments: list[Attachment],
        allowed_mentions: dict[str, Any] | None,
        replied_to: User | None,
        via: str,
    ) -> MessageVersion:
        users, roles, everyone = self._mentions(channel, content, allowed_mentions, replied_to)
        return MessageVersion(
            content=content,
            embeds=[{"type": "rich", **copy.deepcopy(e)} for e in embeds],
            components=_number_components(copy.deepcopy(components)),
            flags=flags,
            attachments=list(attachments),
            allowed_mentions=allowed_mentions,
            mentions=users,
            mention_roles=roles,
            mention_everyone=everyone,
            via=via,
            at=self.clock(),
        )

    def _mentions(
        self,
        channel: Channel,
        content: str,
        allowed: dict[str, Any] | None,
        replied_to: User | None,
    ) -> tuple[list[User], list[int], bool]:
        """Who a message pings, following Discord's ``allowed_mentions`` rules."""
        parse = None if allowed is None else allowed.get("parse", [])
        user_ids = list(dict.fromkeys(int(m) for m in _USER_MENTION.findall(content)))
        role_ids = list(dict.fromkeys(int(m) for m in _ROLE_MENTION.findall(content)))
        if parse is not None and "users" not in parse:
            explicit = {int(u) for u in allowed.get("users", [])}  # type: ignore[union-attr]
            user_ids = [u for u in user_ids if u in explicit]
        if parse is not None and "roles" not in parse:
            explicit = {int(r) for r in allowed.get("roles", [])}  # type: ignore[union-attr]
            role_ids = [r for r in role_ids if r in explicit]
        if replied_to is not None and (allowed is None or allowed.get("replied_user")):
            user_ids.append(replied_to.id)
        everyone = ("@everyone" in content or "@here" in content) and (
            parse is None or "everyone" in parse
        )
        guild = self.guild_of(channel)
        roles = [r for r in role_ids if guild and r in guild.roles]
        users = [self.users[u] for u in dict.fromkeys(user_ids) if u in self.users]
        return users, roles, everyone

    def _attachments(
        self,
        channel: Channel,
        payload: dict[str, Any],
        files: list[UploadedFile],
        existing: list[Attachment],
        errors: FormErrors,
    ) -> list[Attachment]:
        """Keep listed existing attachments and add uploaded files, as Discord does."""
        spec = payload.get("attachments")
        by_index = {f.index: f for f in files}
        if spec is None:
            return [*existing, *(self._store_file(channel, f, None, None) for f in files)]
        result: list[Attachment] = []
        for i, item in enumerate(spec):
            ident = int(item.get("id", -1))
            old = next((a for a in existing if a.id == ident), None)
            if old is not None:
                result.append(old)
            elif ident in by_index:
                upload = by_index.pop(ident)
                result.append(
                    self._store_file(channel, upload, item.get("filename"), item.get("description"))
                )
            else:
                errors.add(("attachments", i, "id"), "ATTACHMENT_NOT_FOUND", "Unknown attachment")
        # Files that the attachments list did not mention are still attached.
        result += [self._store_file(channel, f, None, None) for f in by_index.values()]
        return result

    def upload(self, filename: str, data: bytes) -> Attachment:
        """A file a user attaches to a slash command: Discord keeps it at a URL before the
        interaction arrives (in no channel yet)."""
        ident = self.ids.next()
        url = f"{self.base_url}/attachments/0/{ident}/{filename}"
        kind = mimetypes.guess_type(filename)[0] or "application/octet-stream"
        attachment = Attachment(ident, filename, data, url, kind, None)
        self.attachments[ident] = attachment
        return attachment

    def _store_file(
        self, channel: Channel, upload: UploadedFile, filename: str | None, description: str | None
    ) -> Attachment:
        ident = self.ids.next()
        name = filename or upload.filename
        url = f"{self.base_url}/attachments/{channel.id}/{ident}/{name}"
        # Discord names an upload's type from its file name, whatever the part said.
        kind = mimetypes.guess_type(name)[0] or upload.content_type
        attachment = Attachment(ident, name, upload.data, url, kind, description)
        self.attachments[ident] = attachment
        return attachment

    def _message_intent(self, message: Message) -> int:
        return GUILD_MESSAGES if message.guild_id else DIRECT_MESSAGES

    def _emit_message(self, event: str, message: Message) -> None:
        channel = self.channels.get(message.channel_id)
        if channel is not None and channel.without_bot:
            return  # no gateway events from a channel the bot is not in
        data = message.to_dict()
        if message.guild_id:
            data["guild_id"] = str(message.guild_id)
            member = self.guilds[message.guild_id].members.get(message.author.id)
            if member:
                data["member"] = member.to_dict(with_user=False)
        self.emit(event, data, self._message_intent(message))

    # -- application commands ---------------------------------------------------
    def put_commands(self, guild_id: int | None, payload: Any) -> list[dict[str, Any]]:
        """Bulk overwrite, keeping ids stable for commands that keep their name."""
        if not isinstance(payload, list):
            errors = FormErrors()
            errors.add((), "LIST_TYPE_CONVERT", "Only iterables may be used in a ListType")
            errors.raise_if_any()
        errors = FormErrors()
        for i, cmd in enumerate(payload):
            limits.check_command(cmd, errors, (i,))
        if len(payload) > 100:
            errors.add((), "BASE_TYPE_MAX_LENGTH", "Must be 100 or fewer in length.")
        errors.raise_if_any()
        old = self.commands.get(guild_id, {})
        new: dict[tuple[str, int], dict[str, Any]] = {}
        for cmd in payload:
            key = (cmd["name"], cmd.get("type", 1))
            previous = old.get(key)
            new[key] = self._command(cmd, guild_id, previous["id"] if previous else None)
        self.commands[guild_id] = new
        self.command_syncs.append(
            CommandSync(guild_id, [cmd["name"] for cmd in payload], self.clock())
        )
        self.changed()
        return list(new.values())

    def upsert_command(self, guild_id: int | None, cmd: dict[str, Any]) -> dict[str, Any]:
        errors = FormErrors()
        limits.check_command(cmd, errors, ())
        errors.raise_if_any()
        bucket = self.commands.setdefault(guild_id, {})
        key = (cmd["name"], cmd.get("type", 1))
        previous = bucket.get(key)
        bucket[key] = self._command(cmd, guild_id, previous["id"] if previous else None)
        self.changed()
        return bucket[key]

    def _command(
        self, cmd: dict[str, Any], guild_id: int | None, ident: str | None
    ) -> dict[str, Any]:
        stored = {
            "type": 1,
            "description": "",
            "options": [],
            "default_member_permissions": None,
            "nsfw": False,
            "name_localizations": None,
            "description_localizations": None,
            **copy.deepcopy(cmd),
            "id": ident or str(self.ids.next()),
            "application_id": str(self.application_id),
            "version": str(self.ids.next()),
        }
        if guild_id is not None:
            stored["guild_id"] = str(guild_id)
        return stored

    def find_command(self, guild_id: int | None, name: str, type: int = 1) -> dict[str, Any] | None:
        for scope in (guild_id, None):
            found = self.commands.get(scope, {}).get((name, type))
            if found:
                return found
        return None


def _is_empty(version: MessageVersion) -> bool:
    return not (version.content or version.embeds or version.components or version.attachments)


def _number_components(components: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Give every component a numeric ``id`` like Discord does when none is supplied."""
    used: set[int] = set()

    def collect(nodes: list[dict[str, Any]]) -> None:
        for node in nodes:
            if isinstance(node.get("id"), int):
                used.add(node["id"])
            collect(node.get("components", []))
            collect(
                [c for c in (node.get("accessory"), node.get("component")) if isinstance(c, dict)]
            )

    counter = 0

    def assign(nodes: list[dict[str, Any]]) -> None:
        nonlocal counter
        for node in nodes:
            if not isinstance(node.get("id"), int):
                counter += 1
                while counter in used:
                    counter += 1
                node["id"] = counter
            assign(node.get("components", []))
            assign(
                [c for c in (node.get("accessory"), node.get("component")) if isinstance(c, dict)]
            )

    collect(components)
    assign(components)
    return components
