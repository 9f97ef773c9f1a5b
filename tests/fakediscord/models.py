"""The fake's world: users, guilds, channels and messages, plus their Discord JSON."""

from __future__ import annotations

import datetime as dt
import enum
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

DISCORD_EPOCH_MS = 1420070400000

# Message flags the fake cares about.
SUPPRESS_EMBEDS = 1 << 2
EPHEMERAL = 1 << 6
LOADING = 1 << 7
SUPPRESS_NOTIFICATIONS = 1 << 12
COMPONENTS_V2 = 1 << 15


class ChannelType(enum.IntEnum):
    TEXT = 0
    DM = 1
    GROUP_DM = 3
    CATEGORY = 4
    NEWS_THREAD = 10
    PUBLIC_THREAD = 11
    PRIVATE_THREAD = 12

    @property
    def is_thread(self) -> bool:
        return self in (
            ChannelType.NEWS_THREAD,
            ChannelType.PUBLIC_THREAD,
            ChannelType.PRIVATE_THREAD,
        )


class Perm(enum.IntFlag):
    """The permission bits a card-game bot is likely to look at."""

    CREATE_INSTANT_INVITE = 1 << 0
    KICK_MEMBERS = 1 << 1
    BAN_MEMBERS = 1 << 2
    ADMINISTRATOR = 1 << 3
    MANAGE_CHANNELS = 1 << 4
    MANAGE_GUILD = 1 << 5
    ADD_REACTIONS = 1 << 6
    VIEW_CHANNEL = 1 << 10
    SEND_MESSAGES = 1 << 11
    SEND_TTS_MESSAGES = 1 << 12
    MANAGE_MESSAGES = 1 << 13
    EMBED_LINKS = 1 << 14
    ATTACH_FILES = 1 << 15
    READ_MESSAGE_HISTORY = 1 << 16
    MENTION_EVERYONE = 1 << 17
    USE_EXTERNAL_EMOJIS = 1 << 18
    CHANGE_NICKNAME = 1 << 26
    MANAGE_ROLES = 1 << 28
    USE_APPLICATION_COMMANDS = 1 << 31
    MANAGE_THREADS = 1 << 34
    CREATE_PUBLIC_THREADS = 1 << 35
    CREATE_PRIVATE_THREADS = 1 << 36
    SEND_MESSAGES_IN_THREADS = 1 << 38


ALL_PERMISSIONS = (1 << 51) - 1

DEFAULT_MEMBER_PERMISSIONS = (
    Perm.CREATE_INSTANT_INVITE
    | Perm.ADD_REACTIONS
    | Perm.VIEW_CHANNEL
    | Perm.SEND_MESSAGES
    | Perm.EMBED_LINKS
    | Perm.ATTACH_FILES
    | Perm.READ_MESSAGE_HISTORY
    | Perm.USE_EXTERNAL_EMOJIS
    | Perm.CHANGE_NICKNAME
    | Perm.USE_APPLICATION_COMMANDS
    | Perm.CREATE_PUBLIC_THREADS
    | Perm.SEND_MESSAGES_IN_THREADS
)

DEFAULT_BOT_PERMISSIONS = (
    DEFAULT_MEMBER_PERMISSIONS
    | Perm.MANAGE_MESSAGES
    | Perm.MANAGE_THREADS
    | Perm.CREATE_PRIVATE_THREADS
    | Perm.MENTION_EVERYONE
)

# What an app may do in a DM with a user (Discord's fixed DM permission set).
DM_PERMISSIONS = (
    Perm.ADD_REACTIONS
    | Perm.VIEW_CHANNEL
    | Perm.SEND_MESSAGES
    | Perm.SEND_TTS_MESSAGES
    | Perm.EMBED_LINKS
    | Perm.ATTACH_FILES
    | Perm.READ_MESSAGE_HISTORY
    | Perm.MENTION_EVERYONE
    | Perm.USE_EXTERNAL_EMOJIS
    | Perm.USE_APPLICATION_COMMANDS
)

# Discord's locales: valid for users, guilds and command localizations.
LOCALES = frozenset(
    [
        "id",
        "da",
        "de",
        "en-GB",
        "en-US",
        "es-ES",
        "es-419",
        "fr",
        "hr",
        "it",
        "lt",
        "hu",
        "nl",
        "no",
        "pl",
        "pt-BR",
        "ro",
        "fi",
        "sv-SE",
        "vi",
        "tr",
        "cs",
        "el",
        "bg",
        "ru",
        "uk",
        "hi",
        "th",
        "zh-CN",
        "ja",
        "zh-TW",
        "ko",
    ]
)


class Snowflakes:
    """Strictly increasing ids that still decode to a plausible creation time."""

    def __init__(self) -> None:
        self._last = 0

    def next(self, shard: tuple[int, int] | None = None) -> int:
        """The next id; with ``shard`` (id, count), one whose guild would be on that shard
        (its timestamp moves on by a few milliseconds at most)."""
        value = (int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22
        self._last = value if value > self._last else self._last + 1
        if shard is not None:
            index, count = shard
            ms = self._last >> 22
            ms += (index - ms) % count
            self._last = max(ms << 22, self._last)
        return self._last


def iso_now() -> str:
    return dt.datetime.now(dt.UTC).isoformat()


@dataclass(eq=False)
class User:
    id: int
    name: str
    bot: bool = False
    global_name: str | None = None
    locale: str = "en-US"

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "username": self.name,
            "discriminator": "0",
            "global_name": self.global_name if self.global_name is not None else self.name,
            "avatar": None,
            "public_flags": 0,
            "flags": 0,
            "banner": None,
            "accent_color": None,
            "avatar_decoration_data": None,
            "primary_guild": None,
        }
        if self.bot:
            data["bot"] = True
            data["global_name"] = None
        return data


@dataclass(eq=False)
class Role:
    id: int
    guild_id: int
    name: str
    permissions: int
    position: int = 0
    managed: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "name": self.name,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "position": self.position,
            "permissions": str(self.permissions),
            "managed": self.managed,
            "mentionable": False,
            "flags": 0,
        }


@dataclass(eq=False)
class Member:
    user: User
    guild_id: int
    roles: list[int] = field(default_factory=list)
    joined_at: str = field(default_factory=iso_now)
    nick: str | None = None

    def to_dict(self, *, with_user: bool = True, permissions: int | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {
            "roles": [str(r) for r in self.roles],
            "nick": self.nick,
            "avatar": None,
            "banner": None,
            "joined_at": self.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "flags": 0,
            "communication_disabled_until": None,
        }
        if with_user:
            data["user"] = self.user.to_dict()
        if permissions is not None:
            data["permissions"] = str(permissions)
        return data


@dataclass(eq=False)
class Guild:
    id: int
    name: str
    owner_id: int
    roles: dict[int, Role] = field(default_factory=dict)
    members: dict[int, Member] = field(default_factory=dict)
    channel_ids: list[int] = field(default_factory=list)
    locale: str = "en-US"

    def permissions_for(self, user_id: int) -> int:
        """Guild-level permissions: @everyone plus the member's roles."""
        if user_id == self.owner_id:
            return ALL_PERMISSIONS
        value = self.roles[self.id].permissions
        member = self.members.get(user_id)
        for role_id in member.roles if member else ():
            value |= self.roles[role_id].permissions
        return ALL_PERMISSIONS if value & Perm.ADMINISTRATOR else value


@dataclass(eq=False)
class Channel:
    id: int
    type: ChannelType
    name: str
    guild_id: int | None
    parent_id: int | None = None
    position: int = 0
    topic: str | None = None
    owner_id: int | None = None
    archived: bool = False
    locked: bool = False
    member_ids: set[int] = field(default_factory=set)
    recipients: list[User] = field(default_factory=list)
    last_message_id: int | None = None
    message_count: int = 0
    created_at: str = field(default_factory=iso_now)
    deleted: bool = False
    # A private channel the bot is not in (a group DM, or a DM between two people):
    # a user-installed app reaches it only through interactions.
    without_bot: bool = False
    # Permission overwrites as Discord sends them: [{"id", "type", "allow", "deny"}].
    overwrites: list[dict[str, Any]] = field(default_factory=list)

    @property
    def is_thread(self) -> bool:
        return self.type.is_thread

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    def to_dict(self) -> dict[str, Any]:
        last = str(self.last_message_id) if self.last_message_id else None
        if self.type == ChannelType.DM:
            return {
                "id": str(self.id),
                "type": 1,
                "last_message_id": last,
                "recipients": [u.to_dict() for u in self.recipients],
                "flags": 0,
            }
        if self.type == ChannelType.GROUP_DM:
            return {
                "id": str(self.id),
                "type": 3,
                "name": self.name or None,
                "icon": None,
                "owner_id": str(self.owner_id),
                "last_message_id": last,
                "recipients": [u.to_dict() for u in self.recipients],
                "flags": 0,
            }
        data: dict[str, Any] = {
            "id": str(self.id),
            "type": int(self.type),
            "guild_id": str(self.guild_id),
            "name": self.name,
            "parent_id": str(self.parent_id) if self.parent_id else None,
            "flags": 0,
            "rate_limit_per_user": 0,
            "last_message_id": last,
        }
        if self.is_thread:
            data.update(
                owner_id=str(self.owner_id),
                message_count=self.message_count,
                member_count=len(self.member_ids),
                total_message_sent=self.message_count,
                thread_metadata={
                    "archived": self.archived,
                    "locked": self.locked,
                    "auto_archive_duration": 1440,
                    "archive_timestamp": self.created_at,
                    "create_timestamp": self.created_at,
                    "invitable": True,
                },
            )
        else:
            data.update(
                position=self.position,
                permission_overwrites=[dict(o) for o in self.overwrites],
                nsfw=False,
                topic=self.topic,
            )
        return data


@dataclass(eq=False)
class Attachment:
    id: int
    filename: str
    data: bytes
    url: str
    content_type: str | None = None
    description: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "filename": self.filename,
            "size": len(self.data),
            "url": self.url,
            "proxy_url": self.url,
        }
        if self.content_type:
            data["content_type"] = self.content_type
        if self.description:
            data["description"] = self.description
        return data


@dataclass(frozen=True)
class Component:
    """A clickable thing on a message, as the user would see it."""

    type: int
    custom_id: str | None
    label: str | None
    style: int | None
    disabled: bool
    url: str | None
    placeholder: str | None
    options: tuple[dict[str, Any], ...]
    row: int
    raw: dict[str, Any]

    @property
    def is_button(self) -> bool:
        return self.type == 2

    @property
    def is_select(self) -> bool:
        return self.type in (3, 5, 6, 7, 8)

    @classmethod
    def from_raw(cls, raw: dict[str, Any], row: int) -> Component:
        return cls(
            type=raw["type"],
            custom_id=raw.get("custom_id"),
            label=raw.get("label"),
            style=raw.get("style"),
            disabled=bool(raw.get("disabled", False)),
            url=raw.get("url"),
            placeholder=raw.get("placeholder"),
            options=tuple(raw.get("options", ())),
            row=row,
            raw=raw,
        )


def walk_components(components: list[dict[str, Any]]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(top_level_index, component)`` for every component, depth first."""

    def inner(node: dict[str, Any], top: int) -> Iterator[tuple[int, dict[str, Any]]]:
        yield top, node
        for child in node.get("components", ()):
            yield from inner(child, top)
        if isinstance(node.get("component"), dict):
            yield from inner(node["component"], top)
        if isinstance(node.get("accessory"), dict):
            yield from inner(node["accessory"], top)

    for index, node in enumerate(components):
        yield from inner(node, index)


def embed_text(embed: dict[str, Any]) -> list[str]:
    parts = [embed.get("title"), embed.get("description")]
    for f in embed.get("fields", ()):
        parts += [f.get("name"), f.get("value")]
    parts.append((embed.get("footer") or {}).get("text"))
    parts.append((embed.get("author") or {}).get("name"))
    return [p for p in parts if p]


def component_text(components: list[dict[str, Any]]) -> list[str]:
    parts: list[str | None] = []
    for _, c in walk_components(components):
        parts += [c.get("label"), c.get("placeholder"), c.get("content")]
        for option in c.get("options", ()):
            parts += [option.get("label"), option.get("description")]
    return [p for p in parts if p]


@dataclass
class MessageVersion:
    """One state a message was in; every edit appends a new one."""

    content: str
    embeds: list[dict[str, Any]]
    components: list[dict[str, Any]]
    flags: int
    attachments: list[Attachment]
    allowed_mentions: dict[str, Any] | None
    mentions: list[User]
    mention_roles: list[int]
    mention_everyone: bool
    via: str
    at: float
    edited_timestamp: str | None = None

    def text(self, *, components: bool = True) -> str:
        parts = [self.content] if self.content else []
        for embed in self.embeds:
            parts += embed_text(embed)
        if components:
            parts += component_text(self.components)
        return "\n".join(parts)


@dataclass(eq=False)
class Message:
    id: int
    channel_id: int
    guild_id: int | None
    author: User
    versions: list[MessageVersion]
    type: int = 0
    timestamp: str = field(default_factory=iso_now)
    visible_to: int | None = None
    interaction_id: int | None = None
    interaction_token: str | None = None
    webhook_id: int | None = None
    application_id: int | None = None
    interaction_metadata: dict[str, Any] | None = None
    message_reference: dict[str, Any] | None = None
    tts: bool = False
    deleted: bool = False
    reactions: dict[str, set[int]] = field(default_factory=dict)

    # -- the current version -------------------------------------------------
    @property
    def current(self) -> MessageVersion:
        return self.versions[-1]

    @property
    def content(self) -> str:
        return self.current.content

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return self.current.embeds

    @property
    def components(self) -> list[dict[str, Any]]:
        return self.current.components

    @property
    def flags(self) -> int:
        return self.current.flags

    @property
    def attachments(self) -> list[Attachment]:
        return self.current.attachments

    @property
    def allowed_mentions(self) -> dict[str, Any] | None:
        return self.versions[0].allowed_mentions

    @property
    def pinged_user_ids(self) -> list[int]:
        """Users notified when the message was created (edits never notify)."""
        return [] if self.ephemeral else [u.id for u in self.versions[0].mentions]

    @property
    def mentioned_user_ids(self) -> list[int]:
        """Users highlighted in the current version."""
        return [u.id for u in self.current.mentions]

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def loading(self) -> bool:
        return bool(self.flags & LOADING)

    @property
    def edited(self) -> bool:
        return len(self.versions) > 1

    # -- helpers for assertions ----------------------------------------------
    def text(self, *, components: bool = True) -> str:
        """Content, embed text and (by default) visible component text, flattened."""
        return self.current.text(components=components)

    def all_text(self) -> str:
        """Text of every version this message ever had, for leak checks."""
        return "\n".join(v.text() for v in self.versions)

    def interactive(self) -> list[Component]:
        return [
            Component.from_raw(c, row)
            for row, c in walk_components(self.components)
            if c.get("type") in (2, 3, 5, 6, 7, 8)
        ]

    def buttons(self) -> list[Component]:
        return [c for c in self.interactive() if c.is_button]

    def selects(self) -> list[Component]:
        return [c for c in self.interactive() if c.is_select]

    def find_component(
        self,
        custom_id: str | None = None,
        *,
        label: str | None = None,
        prefix: str | None = None,
        type: int | None = None,
    ) -> Component:
        """The single component matching all given criteria, or an AssertionError."""
        found = [
            c
            for c in self.interactive()
            if (custom_id is None or c.custom_id == custom_id)
            and (label is None or c.label == label)
            and (prefix is None or (c.custom_id or "").startswith(prefix))
            and (type is None or c.type == type)
        ]
        if len(found) != 1:
            available = [(c.label, c.custom_id) for c in self.interactive()]
            raise AssertionError(
                f"expected exactly one component matching custom_id={custom_id!r} "
                f"label={label!r} prefix={prefix!r} on message {self.id}, found {len(found)}; "
                f"available (label, custom_id): {available}"
            )
        return found[0]

    def find_button(
        self, label: str | None = None, *, custom_id: str | None = None, prefix: str | None = None
    ) -> Component:
        return self.find_component(custom_id, label=label, prefix=prefix, type=2)

    def can_be_seen_by(self, user_id: int) -> bool:
        return not self.deleted and (self.visible_to is None or self.visible_to == user_id)

    # -- wire format ---------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        v = self.current
        data: dict[str, Any] = {
            "id": str(self.id),
            "type": self.type,
            "channel_id": str(self.channel_id),
            "author": self.author.to_dict(),
            "content": v.content,
            "timestamp": self.timestamp,
            "edited_timestamp": v.edited_timestamp,
            "tts": self.tts,
            "mention_everyone": v.mention_everyone,
            "mentions": [u.to_dict() for u in v.mentions],
            "mention_roles": [str(r) for r in v.mention_roles],
            "attachments": [a.to_dict() for a in v.attachments],
            "embeds": v.embeds,
            "components": v.components,
            "pinned": False,
            "flags": v.flags,
        }
        if self.reactions:
            data["reactions"] = [
                {"emoji": parse_emoji(key), "count": len(users), "me": True, "burst_colors": []}
                for key, users in self.reactions.items()
                if users
            ]
        if self.webhook_id:
            data["webhook_id"] = str(self.webhook_id)
        if self.application_id:
            data["application_id"] = str(self.application_id)
        if self.interaction_metadata:
            data["interaction_metadata"] = self.interaction_metadata
        if self.message_reference:
            data["message_reference"] = self.message_reference
        return data


_CUSTOM_EMOJI = re.compile(r"^<?a?:?(?P<name>[A-Za-z0-9_]+):(?P<id>\d+)>?$")


def parse_emoji(key: str) -> dict[str, Any]:
    match = _CUSTOM_EMOJI.match(key)
    if match:
        return {"id": match["id"], "name": match["name"]}
    return {"id": None, "name": key}
