"""Gateway payloads shaped like Discord's: READY, GUILD_CREATE and interactions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tests.fakediscord.models import Channel, Guild, Role, User

if TYPE_CHECKING:
    from tests.fakediscord.interactions import Interaction
    from tests.fakediscord.state import State

API_VERSION = 10
ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024
# GATEWAY_PRESENCE | GATEWAY_GUILD_MEMBERS | GATEWAY_MESSAGE_CONTENT | APPLICATION_COMMAND_BADGE
APPLICATION_FLAGS = (1 << 12) | (1 << 14) | (1 << 18) | (1 << 23)

OPTION_STRING, OPTION_INTEGER, OPTION_BOOLEAN, OPTION_USER = 3, 4, 5, 6
OPTION_CHANNEL, OPTION_ROLE, OPTION_MENTIONABLE, OPTION_NUMBER = 7, 8, 9, 10
OPTION_ATTACHMENT = 11


def ready(
    state: State,
    session_id: str,
    resume_url: str,
    shard: list[int] | None,
    guild_ids: list[int] | None = None,
) -> dict[str, Any]:
    guilds = state.guilds if guild_ids is None else guild_ids
    data: dict[str, Any] = {
        "v": API_VERSION,
        "user": {**state.bot.to_dict(), "verified": True, "mfa_enabled": False, "email": None},
        "guilds": [{"id": str(g), "unavailable": True} for g in guilds],
        "session_id": session_id,
        "session_type": "normal",
        "resume_gateway_url": resume_url,
        "application": {"id": str(state.application_id), "flags": APPLICATION_FLAGS},
        "private_channels": [],
        "relationships": [],
        "presences": [],
        "guild_join_requests": [],
        "geo_ordered_rtc_regions": ["rotterdam"],
        "user_settings": {},
    }
    if shard is not None:
        data["shard"] = shard
    return data


def guild_create(state: State, guild: Guild) -> dict[str, Any]:
    channels = [state.channels[c] for c in guild.channel_ids]
    return {
        "id": str(guild.id),
        "name": guild.name,
        "icon": None,
        "splash": None,
        "discovery_splash": None,
        "banner": None,
        "description": None,
        "owner_id": str(guild.owner_id),
        "afk_channel_id": None,
        "afk_timeout": 300,
        "verification_level": 0,
        "default_message_notifications": 1,
        "explicit_content_filter": 0,
        "mfa_level": 0,
        "nsfw_level": 0,
        "premium_tier": 0,
        "premium_subscription_count": 0,
        "premium_progress_bar_enabled": False,
        "preferred_locale": guild.locale,
        "system_channel_id": None,
        "system_channel_flags": 0,
        "rules_channel_id": None,
        "public_updates_channel_id": None,
        "safety_alerts_channel_id": None,
        "vanity_url_code": None,
        "application_id": None,
        "features": [],
        "roles": [r.to_dict() for r in guild.roles.values()],
        "emojis": [],
        "stickers": [],
        "soundboard_sounds": [],
        "joined_at": guild.members[state.bot.id].joined_at,
        "large": False,
        "unavailable": False,
        "lazy": True,
        "member_count": len(guild.members),
        "max_members": 500000,
        "max_video_channel_users": 25,
        "members": [m.to_dict() for m in guild.members.values()],
        "channels": [c.to_dict() for c in channels if not c.is_thread],
        "threads": [c.to_dict() for c in channels if c.is_thread and not c.archived],
        "voice_states": [],
        "presences": [],
        "stage_instances": [],
        "guild_scheduled_events": [],
        "embedded_activities": [],
        "incidents_data": None,
    }


def guild_update(state: State, guild: Guild) -> dict[str, Any]:
    """A guild as GUILD_UPDATE and ``GET /guilds/{id}`` carry it: no members or channels."""
    data = guild_create(state, guild)
    for key in ("members", "channels", "threads", "voice_states", "presences", "joined_at"):
        data.pop(key, None)
    data.pop("large", None)
    return data


def members_chunk(guild: Guild, request: dict[str, Any]) -> dict[str, Any]:
    """Answer REQUEST_GUILD_MEMBERS (op 8) with one chunk."""
    members = list(guild.members.values())
    if request.get("user_ids"):
        wanted = {int(u) for u in request["user_ids"]}
        members = [m for m in members if m.user.id in wanted]
    elif request.get("query"):
        members = [m for m in members if m.user.name.lower().startswith(request["query"].lower())]
    if request.get("limit"):
        members = members[: request["limit"]]
    chunk: dict[str, Any] = {
        "guild_id": str(guild.id),
        "members": [m.to_dict() for m in members],
        "chunk_index": 0,
        "chunk_count": 1,
    }
    if request.get("nonce"):
        chunk["nonce"] = request["nonce"]
    return chunk


# -- interactions ------------------------------------------------------------------


def interaction(state: State, ix: Interaction) -> dict[str, Any]:
    """The INTERACTION_CREATE envelope every interaction type shares."""
    guild, channel, user = ix.guild, ix.channel, ix.user
    perms = guild.permissions_for(user.id) if guild else 0
    bot_perms = state.bot_permissions(channel)
    payload: dict[str, Any] = {
        "id": str(ix.id),
        "application_id": str(state.application_id),
        "type": ix.type,
        "data": ix.data,
        "channel_id": str(channel.id),
        "channel": {**channel.to_dict(), "permissions": str(perms)},
        "token": ix.token,
        "version": 1,
        "app_permissions": str(bot_perms),
        "locale": user.locale,
        "entitlements": [],
        "entitlement_sku_ids": [],
        "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
    }
    if guild is not None:
        payload.update(
            guild_id=str(guild.id),
            guild={"id": str(guild.id), "locale": guild.locale, "features": []},
            guild_locale=guild.locale,
            member=guild.members[user.id].to_dict(permissions=perms),
            authorizing_integration_owners=dict(ix.owners),
            context=ix.context,
        )
    else:
        # Outside guilds: ``user``, not ``member``; context 1 (the bot's DM) or 2 (a
        # group DM or another private channel, reachable only by a user install).
        payload.update(
            user=user.to_dict(),
            authorizing_integration_owners=dict(ix.owners),
            context=ix.context,
        )
    if ix.source is not None:
        payload["message"] = ix.source.to_dict()
    return payload


def resolve_user(state: State, value: Any) -> User:
    if isinstance(value, User):
        return value
    if isinstance(value, str) and not value.isdigit():
        found = state.user_named(value)
    else:
        found = state.users.get(int(value))
    if found is None:
        raise ValueError(f"unknown user {value!r}")
    return found


class Resolved:
    """Builds the ``resolved`` object that accompanies user/role/channel values."""

    def __init__(self, state: State, guild: Guild | None) -> None:
        self.state, self.guild = state, guild
        self.data: dict[str, dict[str, Any]] = {}

    def user(self, user: User) -> str:
        self.data.setdefault("users", {})[str(user.id)] = user.to_dict()
        if self.guild and user.id in self.guild.members:
            member = self.guild.members[user.id]
            perms = self.guild.permissions_for(user.id)
            self.data.setdefault("members", {})[str(user.id)] = member.to_dict(
                with_user=False, permissions=perms
            )
        return str(user.id)

    def role(self, role: Role) -> str:
        self.data.setdefault("roles", {})[str(role.id)] = role.to_dict()
        return str(role.id)

    def channel(self, channel: Channel) -> str:
        data = {**channel.to_dict(), "permissions": str(0)}
        self.data.setdefault("channels", {})[str(channel.id)] = data
        return str(channel.id)

    def attachment(self, raw: tuple[str, bytes]) -> str:
        """A file the user attached to the command (``(filename, data)``): uploaded as
        Discord does before the command is sent, and resolved by its id."""
        filename, data = raw
        stored = self.state.upload(filename, data)
        self.data.setdefault("attachments", {})[str(stored.id)] = stored.to_dict()
        return str(stored.id)

    def value(self, kind: int, raw: Any) -> Any:
        if kind == OPTION_ATTACHMENT:
            return self.attachment(raw)
        if kind == OPTION_USER or (kind == OPTION_MENTIONABLE and not isinstance(raw, Role)):
            return self.user(resolve_user(self.state, raw))
        if kind in (OPTION_ROLE, OPTION_MENTIONABLE):
            role = raw if isinstance(raw, Role) else self.guild.roles[int(raw)]  # type: ignore[union-attr]
            return self.role(role)
        if kind == OPTION_CHANNEL:
            return self.channel(raw if isinstance(raw, Channel) else self.state.channel(int(raw)))
        if kind == OPTION_INTEGER:
            return int(raw)
        if kind == OPTION_NUMBER:
            return float(raw)
        if kind == OPTION_BOOLEAN:
            return bool(raw)
        return str(raw)


def _infer_type(value: Any) -> int:
    if isinstance(value, bool):
        return OPTION_BOOLEAN
    if isinstance(value, int):
        return OPTION_INTEGER
    if isinstance(value, float):
        return OPTION_NUMBER
    if isinstance(value, User):
        return OPTION_USER
    if isinstance(value, Channel):
        return OPTION_CHANNEL
    if isinstance(value, Role):
        return OPTION_ROLE
    return OPTION_STRING


def command_data(
    state: State,
    guild: Guild | None,
    name: str,
    path: list[str],
    options: dict[str, Any],
    *,
    focused: str | None = None,
) -> dict[str, Any]:
    """``data`` for a chat-input command, checked against the synced definition if any.

    A real client cannot invoke a subcommand or option that was never synced, so
    a mismatch raises ValueError in the test rather than reaching the bot.
    """
    command = state.find_command(guild.id if guild else None, name)
    definitions: list[dict[str, Any]] | None = command["options"] if command else None
    chain: list[tuple[str, int]] = []
    for depth, part in enumerate(path):
        kind = 2 if depth < len(path) - 1 else 1
        if definitions is not None:
            match = next(
                (o for o in definitions if o["name"] == part and o["type"] in (1, 2)), None
            )
            if match is None:
                raise ValueError(
                    f"/{name} has no subcommand {part!r}; synced: {_names(definitions)}"
                )
            kind, definitions = match["type"], match.get("options", [])
        chain.append((part, kind))
    if definitions and any(o["type"] in (1, 2) for o in definitions):
        raise ValueError(f"/{name} {' '.join(path)} needs a subcommand: {_names(definitions)}")

    resolved = Resolved(state, guild)
    leaf: list[dict[str, Any]] = []
    for option_name, raw in options.items():
        definition = None
        if definitions is not None:
            definition = next((o for o in definitions if o["name"] == option_name), None)
            if definition is None or definition["type"] in (1, 2):
                raise ValueError(f"/{name} {' '.join(path)} has no option {option_name!r}")
        kind = definition["type"] if definition else _infer_type(raw)
        entry: dict[str, Any] = {"name": option_name, "type": kind}
        if option_name == focused:
            entry.update(value=str(raw), focused=True)
        else:
            entry["value"] = resolved.value(kind, raw)
            choices = (definition or {}).get("choices")
            if choices and entry["value"] not in [c["value"] for c in choices]:
                raise ValueError(f"{entry['value']!r} is not a choice of option {option_name!r}")
        leaf.append(entry)
    for definition in definitions or ():
        if definition.get("required") and definition["name"] not in options and focused is None:
            raise ValueError(
                f"/{name} {' '.join(path)} is missing required option {definition['name']!r}"
            )

    nested = leaf
    for part, kind in reversed(chain):
        nested = [{"name": part, "type": kind, "options": nested}]
    data: dict[str, Any] = {
        "id": command["id"] if command else str(state.ids.next()),
        "name": name,
        "type": 1,
        "options": nested,
    }
    if command and command.get("guild_id"):
        data["guild_id"] = command["guild_id"]
    if resolved.data:
        data["resolved"] = resolved.data
    return data


def _names(definitions: list[dict[str, Any]]) -> list[str]:
    return [o["name"] for o in definitions]


def component_data(
    state: State, guild: Guild | None, component: dict[str, Any], values: list[Any] | None
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "custom_id": component["custom_id"],
        "component_type": component["type"],
    }
    if isinstance(component.get("id"), int):
        data["id"] = component["id"]
    if values is None:
        return data
    kind = component["type"]
    if kind == 3:
        data["values"] = [str(v) for v in values]
        return data
    resolved = Resolved(state, guild)
    option_kind = {5: OPTION_USER, 6: OPTION_ROLE, 7: OPTION_MENTIONABLE, 8: OPTION_CHANNEL}[kind]
    data["values"] = [resolved.value(option_kind, v) for v in values]
    data["resolved"] = resolved.data
    return data


def modal_submit_data(modal: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
    """What Discord sends back when a user fills in and submits ``modal``."""
    unused = set(values)

    def submitted(c: dict[str, Any]) -> dict[str, Any]:
        custom_id = str(c.get("custom_id"))
        unused.discard(custom_id)
        out: dict[str, Any] = {"type": c["type"], "id": c.get("id"), "custom_id": custom_id}
        if c["type"] == 4:
            value = str(values.get(custom_id, c.get("value") or ""))
            if c.get("required", True) and not value:
                raise ValueError(f"text input {custom_id!r} is required")
            if len(value) > c.get("max_length", 4000) or len(value) < c.get("min_length", 0):
                raise ValueError(f"text input {custom_id!r} length out of bounds")
            out["value"] = value
        else:
            out["values"] = [str(v) for v in values.get(custom_id, [])]
        return out

    components: list[dict[str, Any]] = []
    for top in modal.get("components", []):
        if top["type"] == 1:
            components.append(
                {
                    "type": 1,
                    "id": top.get("id"),
                    "components": [submitted(c) for c in top["components"]],
                }
            )
        elif top["type"] == 18:
            components.append(
                {"type": 18, "id": top.get("id"), "component": submitted(top["component"])}
            )
        else:
            components.append({"type": top["type"], "id": top.get("id")})
    if unused:
        raise ValueError(f"modal {modal.get('custom_id')!r} has no inputs {sorted(unused)}")
    return {"custom_id": modal["custom_id"], "components": components}
