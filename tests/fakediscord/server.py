"""The REST API under ``/api/v10``: the routes a discord.py bot actually calls."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.fakediscord import contract, interactions
from tests.fakediscord.errors import (
    APIError,
    FormErrors,
    RateLimitHit,
    Violation,
    missing_access,
    missing_permissions,
    not_author,
    unknown,
    unknown_message,
)
from tests.fakediscord.gateway import DAILY_IDENTIFIES, Gateway
from tests.fakediscord.limits import bad_length
from tests.fakediscord.models import (
    COMPONENTS_V2,
    SUPPRESS_EMBEDS,
    SUPPRESS_NOTIFICATIONS,
    Channel,
    ChannelType,
    Message,
    Perm,
)
from tests.fakediscord.payloads import guild_create
from tests.fakediscord.ratelimit import ChannelRateLimiter, GlobalRateLimiter
from tests.fakediscord.state import State
from tests.fakediscord.wire import Body, json_response, no_content, read_body

log = logging.getLogger("fakediscord.rest")

API = "/api/v10"
CHANNEL_FLAGS = SUPPRESS_EMBEDS | SUPPRESS_NOTIFICATIONS | COMPONENTS_V2
# Routes authorised by the interaction token itself rather than the bot token.
TOKEN_ROUTES = ("/webhooks/", "/interactions/")
# What a request carried, kept for the violation record if it is refused.
PAYLOAD = web.RequestKey("payload", object)
INTERACTION = web.RequestKey("interaction", interactions.Interaction)


def snowflake(request: web.Request, name: str) -> int:
    try:
        return int(request.match_info[name])
    except ValueError:
        errors = FormErrors()
        errors.add((name,), "NUMBER_TYPE_COERCE", "Value is not snowflake.")
        raise APIError(400, 50035, "Invalid Form Body", errors=errors) from None


@dataclass
class Hold:
    """Requests matching ``method`` and ``path`` wait until released (to test in-flight work).

    With ``answer``, the request is carried out at once and only its answer waits: the bot
    has not heard back yet, but Discord has done it.
    """

    method: str
    path: re.Pattern[str]
    answer: bool = False
    reached: asyncio.Event = field(default_factory=asyncio.Event)
    released: asyncio.Event = field(default_factory=asyncio.Event)
    count: int = 0

    def release(self) -> None:
        self.released.set()


@dataclass
class Failure:
    """The next ``times`` requests matching ``method`` and ``path`` are refused with this
    error, as Discord does now and then (a 5xx, or a permission taken away between checks)."""

    method: str
    path: re.Pattern[str]
    status: int
    code: int
    message: str
    times: int
    count: int = 0


class RestAPI:
    """Route handlers. Every refusal becomes a :class:`Violation` in the middleware."""

    def __init__(
        self,
        state: State,
        gateway: Gateway,
        limiter: ChannelRateLimiter,
        token: str,
        *,
        global_limiter: GlobalRateLimiter | None = None,
        delete_limiter: ChannelRateLimiter | None = None,
    ) -> None:
        self.state = state
        self.gateway = gateway
        self.limiter = limiter
        self.global_limiter = global_limiter or GlobalRateLimiter(state.clock)
        self.delete_limiter = delete_limiter or ChannelRateLimiter(
            state.clock, bucket="channel-message-deletes"
        )
        self.token = token
        self.advertise_ratelimits = False
        # A bucket per interaction token (keyed by it), off unless set.
        self.webhook_limiter: ChannelRateLimiter | None = None
        self.holds: list[Hold] = []
        self.failures: list[Failure] = []
        # Each request is carried out after the first delay and answered after the second
        # (seconds; None: at once): requests sent in order then apply, and are answered, in
        # any order, as Discord's may.
        self.latency: Callable[[], tuple[float, float]] | None = None

    def build_app(self) -> web.Application:
        app = web.Application(middlewares=[self.middleware], client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway", self.gateway.handle)
        app.router.add_get("/gateway/", self.gateway.handle)
        app.router.add_get("/attachments/{channel_id}/{attachment_id}/{filename}", self.attachment)
        for method, path, handler in self.routes():
            app.router.add_route(method, API + path, handler)
        app.router.add_route("*", "/{tail:.*}", self.unknown_route)
        return app

    def routes(self) -> list[tuple[str, str, Any]]:
        app, guild, channel, message = "{app_id}", "{guild_id}", "{channel_id}", "{message_id}"
        hook = "/webhooks/{app_id}/{token}"
        return [
            ("GET", "/gateway", self.get_gateway),
            ("GET", "/gateway/bot", self.get_gateway_bot),
            ("GET", "/users/@me", self.get_me),
            ("POST", "/users/@me/channels", self.create_dm),
            ("GET", "/users/{user_id}", self.get_user),
            ("GET", "/oauth2/applications/@me", self.get_application),
            ("GET", "/applications/@me", self.get_application),
            ("GET", f"/applications/{app}/commands", self.get_commands),
            ("PUT", f"/applications/{app}/commands", self.put_commands),
            ("POST", f"/applications/{app}/commands", self.post_command),
            ("GET", f"/applications/{app}/guilds/{guild}/commands", self.get_commands),
            ("PUT", f"/applications/{app}/guilds/{guild}/commands", self.put_commands),
            ("POST", f"/applications/{app}/guilds/{guild}/commands", self.post_command),
            ("POST", "/interactions/{interaction_id}/{token}/callback", self.interaction_callback),
            ("POST", hook, self.webhook_execute),
            ("GET", hook + "/messages/{ref}", self.webhook_get),
            ("PATCH", hook + "/messages/{ref}", self.webhook_edit),
            ("DELETE", hook + "/messages/{ref}", self.webhook_delete),
            ("GET", f"/channels/{channel}", self.get_channel),
            ("PATCH", f"/channels/{channel}", self.modify_channel),
            ("DELETE", f"/channels/{channel}", self.delete_channel),
            ("GET", f"/channels/{channel}/messages", self.list_messages),
            ("POST", f"/channels/{channel}/messages", self.create_message),
            ("POST", f"/channels/{channel}/messages/bulk-delete", self.bulk_delete),
            ("GET", f"/channels/{channel}/messages/{message}", self.get_message),
            ("PATCH", f"/channels/{channel}/messages/{message}", self.edit_message),
            ("DELETE", f"/channels/{channel}/messages/{message}", self.delete_message),
            (
                "PUT",
                f"/channels/{channel}/messages/{message}/reactions/{{emoji}}/@me",
                self.add_reaction,
            ),
            (
                "DELETE",
                f"/channels/{channel}/messages/{message}/reactions/{{emoji}}/@me",
                self.remove_reaction,
            ),
            ("POST", f"/channels/{channel}/messages/{message}/threads", self.create_thread),
            ("POST", f"/channels/{channel}/threads", self.create_thread),
            ("PUT", f"/channels/{channel}/thread-members/{{user_id}}", self.thread_member_add),
            (
                "DELETE",
                f"/channels/{channel}/thread-members/{{user_id}}",
                self.thread_member_remove,
            ),
            ("POST", f"/channels/{channel}/typing", self.typing),
            ("GET", f"/guilds/{guild}", self.get_guild),
            ("GET", f"/guilds/{guild}/channels", self.get_guild_channels),
            ("GET", f"/guilds/{guild}/roles", self.get_roles),
            ("GET", f"/guilds/{guild}/members", self.list_members),
            ("GET", f"/guilds/{guild}/members/{{user_id}}", self.get_member),
        ]

    # -- plumbing -----------------------------------------------------------------
    @web.middleware
    async def middleware(self, request: web.Request, handler: Any) -> web.StreamResponse:
        path = request.path
        bot_route = path.startswith(API) and not path.startswith(
            tuple(API + p for p in TOKEN_ROUTES)
        )
        try:
            authorised = request.headers.get("Authorization") == f"Bot {self.token}"
            if bot_route and path != API + "/gateway" and not authorised:
                raise APIError(401, 0, "401: Unauthorized", kind="auth")
            if bot_route and (limited := self._throttle_global(request)) is not None:
                return limited
            if path.startswith(API):
                self.state.request_counts[self._route(request)] += 1
            if bot_route:
                self._private_channel(request)
            held = [h for h in self.holds if h.method == request.method and h.path.search(path)]
            for hold in held:
                if not hold.answer:
                    hold.count += 1
                    hold.reached.set()
                    await hold.released.wait()
            for failure in self.failures:
                if failure.count < failure.times and failure.method == request.method \
                        and failure.path.search(path):
                    failure.count += 1
                    raise APIError(failure.status, failure.code, failure.message,
                                   kind="injected")
            lag = self.latency() if self.latency is not None and path.startswith(API) and \
                not path.startswith(API + "/gateway") else None
            if lag is not None:
                await asyncio.sleep(lag[0])
            response: web.StreamResponse = await handler(request)
            if lag is not None:
                await asyncio.sleep(lag[1])
            for hold in held:
                if hold.answer:
                    hold.count += 1
                    hold.reached.set()
                    await hold.released.wait()
            return response
        except APIError as exc:
            self._violation(request, exc)
            return json_response(exc.body(), status=exc.status)
        except web.HTTPException:
            raise
        except Exception:
            log.exception("the fake failed handling %s %s", request.method, path)
            bug = APIError(400, 0, "fake Discord raised; see the log", kind="fake_bug")
            self._violation(request, bug)
            return json_response(bug.body(), status=bug.status)

    def _private_channel(self, request: web.Request) -> None:
        """Count a bot request to a channel; refuse it in a group DM (403 50001).

        The bot is never a member of a group DM (or of a DM between two people): a
        user-installed app reaches one only
        through interaction tokens, so any ``/channels/{id}…`` request (messages, the
        channel itself, typing, reactions…) is Missing Access, as on Discord.
        """
        raw = request.match_info.get("channel_id")
        if raw is None or not raw.isdigit():
            return
        channel_id = int(raw)
        self.state.channel_requests[channel_id] += 1
        channel = self.state.channels.get(channel_id)
        if channel is not None and channel.without_bot:
            raise APIError(403, 50001, "Missing Access", kind="group_dm_channel")

    def _violation(self, request: web.Request, exc: APIError) -> None:
        violation = Violation(
            method=request.method,
            path=request.path_qs,
            status=exc.status,
            code=exc.code,
            message=exc.message,
            kind=exc.kind,
            errors=list(exc.errors.flat) if exc.errors else [],
            payload=request.get(PAYLOAD),
        )
        log.warning("refused %s", violation)
        self.state.violations.append(violation)
        self.state.refused[exc.kind] += 1
        ix = request.get(INTERACTION)
        if ix is not None:
            ix.rejections.append(violation)
        self.state.changed()

    async def _body(self, request: web.Request) -> Body:
        body = await read_body(request)
        request[PAYLOAD] = body.payload
        contract.check(request.method, request.path, body.payload)
        return body

    def _throttle(
        self, request: web.Request, channel_id: int, limiter: ChannelRateLimiter | None = None
    ) -> web.Response | None:
        limiter = limiter or self.limiter
        retry_after = limiter.retry_after(channel_id)
        if retry_after is None:
            return None
        hit = self._hit(request, channel_id, retry_after, "shared")
        return limiter.too_many(hit)

    def _throttle_global(self, request: web.Request) -> web.Response | None:
        retry_after = self.global_limiter.retry_after()
        if retry_after is None:
            return None
        return self.global_limiter.too_many(self._hit(request, None, retry_after, "global"))

    def _route(self, request: web.Request) -> str:
        """The request's route template, e.g. ``PATCH /channels/{channel_id}/messages/…``."""
        resource = request.match_info.route.resource
        template = resource.canonical if resource is not None else request.path
        return f"{request.method} {template.removeprefix(API)}"

    def _hit(
        self, request: web.Request, channel_id: int | None, retry_after: float, scope: str
    ) -> RateLimitHit:
        route = self._route(request)
        hit = RateLimitHit(
            request.method,
            request.path,
            channel_id,
            retry_after,
            self.state.clock(),
            scope=scope,
            route=route,
        )
        self.state.rate_limited.append(hit)
        log.warning("rate limited (%s) %s for %.3fs", scope, route, retry_after)
        self.state.changed()
        return hit

    def _can_view(self, channel: Channel) -> int:
        """The bot's permissions in ``channel``; 50001 if it cannot even see it."""
        perms = self.state.bot_permissions(channel)
        if not perms & Perm.VIEW_CHANNEL:
            raise missing_access()
        return perms

    def _check_send(self, channel: Channel, body: Body) -> None:
        """What Discord checks before the bot posts in a channel.

        Simplification: Discord itself drops the embeds of a message sent without
        Embed Links in some cases; the fake refuses the whole message (403 50013)
        so a bot that ignores the permission is noticed.
        """
        perms = self._can_view(channel)
        send = Perm.SEND_MESSAGES_IN_THREADS if channel.is_thread else Perm.SEND_MESSAGES
        if not perms & send:
            raise missing_permissions()
        if body.payload.get("embeds") and not perms & Perm.EMBED_LINKS:
            raise missing_permissions()
        if body.files and not perms & Perm.ATTACH_FILES:
            raise missing_permissions()

    def _message_response(self, message: Message, channel_id: int) -> web.Response:
        headers = None
        if self.advertise_ratelimits:
            headers = self.limiter.headers(channel_id, self.limiter.per)
        return json_response(message.to_dict(), headers=headers)

    async def unknown_route(self, request: web.Request) -> web.Response:
        log.warning(
            "UNKNOWN ROUTE %s %s - the fake does not implement it", request.method, request.path
        )
        raise APIError(404, 0, "404: Not Found", kind="unknown_route")

    # -- gateway, users, application --------------------------------------------
    async def get_gateway(self, request: web.Request) -> web.Response:
        return json_response({"url": self.gateway.url})

    async def get_gateway_bot(self, request: web.Request) -> web.Response:
        gateway = self.gateway
        limit = {
            "total": DAILY_IDENTIFIES,
            "remaining": max(DAILY_IDENTIFIES - 1 - gateway.identifies, 0),
            "reset_after": 86_400_000,
            "max_concurrency": gateway.max_concurrency,
        }
        return json_response(
            {"url": gateway.url, "shards": gateway.shard_count or 1, "session_start_limit": limit}
        )

    async def get_me(self, request: web.Request) -> web.Response:
        me = {
            **self.state.bot.to_dict(),
            "verified": True,
            "mfa_enabled": False,
            "email": None,
            "locale": "en-US",
        }
        return json_response(me)

    async def get_user(self, request: web.Request) -> web.Response:
        user = self.state.users.get(snowflake(request, "user_id"))
        if user is None:
            raise unknown("User", 10013)
        return json_response(user.to_dict())

    async def create_dm(self, request: web.Request) -> web.Response:
        body = await self._body(request)
        user = self.state.users.get(int(body.payload.get("recipient_id", 0)))
        if user is None:
            raise unknown("User", 10013)
        return json_response(self.state.dm_channel(user).to_dict())

    async def get_application(self, request: web.Request) -> web.Response:
        bot = self.state.bot
        return json_response(
            {
                "id": str(self.state.application_id),
                "name": bot.name,
                "icon": None,
                "description": "",
                "summary": "",
                "type": None,
                "bot_public": False,
                "bot_require_code_grant": False,
                "verify_key": "0" * 64,
                "flags": 0,
                "owner": {
                    "id": "1",
                    "username": "owner",
                    "discriminator": "0",
                    "avatar": None,
                    "global_name": None,
                },
                "team": None,
                "bot": bot.to_dict(),
                "interactions_endpoint_url": None,
                "redirect_uris": [],
                "tags": [],
                "approximate_guild_count": len(self.state.guilds),
            }
        )

    def _app_scope(self, request: web.Request) -> int | None:
        if snowflake(request, "app_id") != self.state.application_id:
            raise APIError(403, 50001, "Missing Access", kind="permission")
        if "guild_id" not in request.match_info:
            return None
        guild_id = snowflake(request, "guild_id")
        if guild_id not in self.state.guilds:
            raise unknown("Guild", 10004)
        return guild_id

    async def get_commands(self, request: web.Request) -> web.Response:
        scope = self._app_scope(request)
        return json_response(list(self.state.commands.get(scope, {}).values()))

    async def put_commands(self, request: web.Request) -> web.Response:
        scope = self._app_scope(request)
        body = await self._body(request)
        return json_response(self.state.put_commands(scope, body.payload))

    async def post_command(self, request: web.Request) -> web.Response:
        scope = self._app_scope(request)
        body = await self._body(request)
        return json_response(self.state.upsert_command(scope, body.payload), status=201)

    # -- interactions and their webhooks ---------------------------------------
    async def interaction_callback(self, request: web.Request) -> web.Response:
        ix = interactions.lookup(
            self.state, request.match_info["token"], snowflake(request, "interaction_id")
        )
        request[INTERACTION] = ix
        body = await self._body(request)
        result = interactions.callback(self.state, ix, body.payload, body.files)
        if request.query.get("with_response") in ("1", "true", "True"):
            return json_response(result)
        return no_content()

    def _hook(self, request: web.Request) -> interactions.Interaction:
        if snowflake(request, "app_id") != self.state.application_id:
            raise unknown("Webhook", 10015)
        ix = interactions.lookup(self.state, request.match_info["token"])
        request[INTERACTION] = ix
        return ix

    def _token_limited(self, request: web.Request) -> web.Response | None:
        """A 429 if the token's webhook bucket (when one is set) is spent."""
        if self.webhook_limiter is None:
            return None
        token = request.match_info["token"]
        retry_after = self.webhook_limiter.take(token)
        if retry_after is None:
            return None
        return self.webhook_limiter.too_many(self._hit(request, None, retry_after, "shared"),
                                             token)

    def _token_headers(self, request: web.Request) -> dict[str, str] | None:
        if self.webhook_limiter is None:
            return None
        return self.webhook_limiter.headers(request.match_info["token"],
                                            self.webhook_limiter.per)

    async def webhook_execute(self, request: web.Request) -> web.Response:
        ix = self._hook(request)
        if (limited := self._token_limited(request)) is not None:
            return limited
        body = await self._body(request)
        message = interactions.followup(self.state, ix, body.payload, body.files)
        if request.query.get("wait") in ("1", "true", "True"):
            return json_response(message.to_dict(), headers=self._token_headers(request))
        return no_content(self._token_headers(request))

    async def webhook_get(self, request: web.Request) -> web.Response:
        ix = self._hook(request)
        return json_response(
            interactions.target(self.state, ix, request.match_info["ref"]).to_dict()
        )

    async def webhook_edit(self, request: web.Request) -> web.Response:
        ix = self._hook(request)
        if (limited := self._token_limited(request)) is not None:
            return limited
        body = await self._body(request)
        message = interactions.edit(
            self.state, ix, request.match_info["ref"], body.payload, body.files
        )
        return json_response(message.to_dict(), headers=self._token_headers(request))

    async def webhook_delete(self, request: web.Request) -> web.Response:
        ix = self._hook(request)
        if (limited := self._token_limited(request)) is not None:
            return limited
        interactions.delete(self.state, ix, request.match_info["ref"])
        return no_content(self._token_headers(request))

    # -- channels and messages ----------------------------------------------------
    def _message(self, request: web.Request) -> Message:
        channel = self.state.channel(snowflake(request, "channel_id"))
        message = self.state.message_in(channel, snowflake(request, "message_id"))
        if message is None:
            raise unknown_message()
        self._can_view(channel)
        if message.visible_to is not None:
            # Ephemeral messages only exist for the interaction token that made them.
            raise APIError(404, 10008, "Unknown Message", kind="ephemeral")
        return message

    async def get_channel(self, request: web.Request) -> web.Response:
        return json_response(self.state.channel(snowflake(request, "channel_id")).to_dict())

    async def modify_channel(self, request: web.Request) -> web.Response:
        channel = self.state.channel(snowflake(request, "channel_id"))
        payload = (await self._body(request)).payload
        for key in ("name", "topic", "archived", "locked"):
            if key in payload:
                setattr(channel, key, payload[key])
        self.state.emit(
            "THREAD_UPDATE" if channel.is_thread else "CHANNEL_UPDATE", channel.to_dict()
        )
        self.state.changed()
        return json_response(channel.to_dict())

    async def delete_channel(self, request: web.Request) -> web.Response:
        channel = self.state.channel(snowflake(request, "channel_id"))
        self.state.delete_channel(channel)
        return json_response(channel.to_dict())

    async def list_messages(self, request: web.Request) -> web.Response:
        channel = self.state.channel(snowflake(request, "channel_id"))
        if not self._can_view(channel) & Perm.READ_MESSAGE_HISTORY:
            return json_response([])  # Discord answers an empty history, not an error
        found = [
            m
            for m in self.state.channel_messages[channel.id]
            if not m.deleted and m.visible_to is None
        ]
        query = request.query
        limit = max(1, min(int(query.get("limit", 50)), 100))
        if "before" in query:
            found = [m for m in found if m.id < int(query["before"])]
        if "after" in query:
            found = [m for m in found if m.id > int(query["after"])][:limit]
        if "around" in query:
            around = int(query["around"])
            older = [m for m in found if m.id <= around][-(limit // 2 + 1) :]
            found = older + [m for m in found if m.id > around][: limit - len(older)]
        found = found[-limit:]
        return json_response([m.to_dict() for m in reversed(found)])

    async def create_message(self, request: web.Request) -> web.StreamResponse:
        channel_id = snowflake(request, "channel_id")
        if (limited := self._throttle(request, channel_id)) is not None:
            return limited
        channel = self.state.channel(channel_id)
        body = await self._body(request)
        self._check_send(channel, body)
        payload = body.payload
        reference = payload.get("message_reference")
        if reference and self.state.messages.get(int(reference.get("message_id", 0))) is None:
            errors = FormErrors()
            errors.add(
                ("message_reference",), "MESSAGE_REFERENCE_UNKNOWN_MESSAGE", "Unknown message"
            )
            errors.raise_if_any()
        flags = (payload.get("flags") or 0) & CHANNEL_FLAGS
        message = self.state.create_message(channel, payload, body.files, flags=flags)
        return self._message_response(message, channel_id)

    async def get_message(self, request: web.Request) -> web.Response:
        channel = self.state.channel(snowflake(request, "channel_id"))
        if not self._can_view(channel) & Perm.READ_MESSAGE_HISTORY:
            raise missing_access()  # Discord needs Read Message History to fetch one message
        return json_response(self._message(request).to_dict())

    async def edit_message(self, request: web.Request) -> web.StreamResponse:
        channel_id = snowflake(request, "channel_id")
        if (limited := self._throttle(request, channel_id)) is not None:
            return limited
        message = self._message(request)
        if message.author is not self.state.bot:
            raise not_author()
        body = await self._body(request)
        self.state.edit_message(message, body.payload, body.files, via="channel_edit")
        return self._message_response(message, channel_id)

    async def delete_message(self, request: web.Request) -> web.StreamResponse:
        channel_id = snowflake(request, "channel_id")
        if (limited := self._throttle(request, channel_id, self.delete_limiter)) is not None:
            return limited
        message = self._message(request)
        channel = self.state.channel(channel_id)
        if message.author is not self.state.bot and not (
            self.state.bot_permissions(channel) & Perm.MANAGE_MESSAGES
        ):
            raise missing_permissions()
        self.state.delete_message(message)
        if self.advertise_ratelimits:
            headers = self.delete_limiter.headers(channel_id, self.delete_limiter.per)
            return web.Response(status=204, headers=headers)
        return no_content()

    async def bulk_delete(self, request: web.Request) -> web.Response:
        channel = self.state.channel(snowflake(request, "channel_id"))
        ids = (await self._body(request)).payload.get("messages", [])
        if not 2 <= len(ids) <= 100:
            errors = FormErrors()
            errors.add(
                ("messages",), "BASE_TYPE_BAD_LENGTH", "Must be between 2 and 100 in length."
            )
            errors.raise_if_any()
        for ident in ids:
            message = self.state.message_in(channel, int(ident))
            if message is not None and message.visible_to is None:
                self.state.delete_message(message)
        return no_content()

    async def add_reaction(self, request: web.Request) -> web.Response:
        message = self._message(request)
        message.reactions.setdefault(request.match_info["emoji"], set()).add(self.state.bot.id)
        self.state.changed()
        return no_content()

    async def remove_reaction(self, request: web.Request) -> web.Response:
        message = self._message(request)
        message.reactions.get(request.match_info["emoji"], set()).discard(self.state.bot.id)
        self.state.changed()
        return no_content()

    async def create_thread(self, request: web.Request) -> web.Response:
        parent = self.state.channel(snowflake(request, "channel_id"))
        payload = (await self._body(request)).payload
        guild = self.state.guild_of(parent)
        if guild is None or parent.is_thread:
            raise APIError(400, 50024, "Cannot execute action on this channel type", kind="thread")
        errors = FormErrors()
        bad_length(errors, ("name",), payload.get("name"), 1, 100)
        errors.raise_if_any()
        starter = None
        if "message_id" in request.match_info:
            starter = self.state.message_in(parent, snowflake(request, "message_id"))
            if starter is None:
                raise unknown_message()
        kind = ChannelType.PUBLIC_THREAD if starter else ChannelType(payload.get("type", 12))
        thread = self.state.add_channel(
            guild,
            payload["name"],
            kind,
            parent=parent,
            owner_id=self.state.bot.id,
            ident=starter.id if starter else None,
        )
        return json_response(thread.to_dict(), status=201)

    async def thread_member_add(self, request: web.Request) -> web.Response:
        thread = self.state.channel(snowflake(request, "channel_id"))
        ref = request.match_info["user_id"]
        thread.member_ids.add(self.state.bot.id if ref == "@me" else int(ref))
        self.state.changed()
        return no_content()

    async def thread_member_remove(self, request: web.Request) -> web.Response:
        thread = self.state.channel(snowflake(request, "channel_id"))
        ref = request.match_info["user_id"]
        thread.member_ids.discard(self.state.bot.id if ref == "@me" else int(ref))
        self.state.changed()
        return no_content()

    async def typing(self, request: web.Request) -> web.Response:
        self.state.channel(snowflake(request, "channel_id"))
        return no_content()

    # -- guilds ---------------------------------------------------------------------
    def _guild(self, request: web.Request) -> Any:
        guild = self.state.guilds.get(snowflake(request, "guild_id"))
        if guild is None:
            raise unknown("Guild", 10004)
        return guild

    async def get_guild(self, request: web.Request) -> web.Response:
        data = guild_create(self.state, self._guild(request))
        for key in (
            "members",
            "channels",
            "threads",
            "voice_states",
            "presences",
            "joined_at",
            "large",
        ):
            data.pop(key, None)
        return json_response(data)

    async def get_guild_channels(self, request: web.Request) -> web.Response:
        guild = self._guild(request)
        channels = [self.state.channels[c] for c in guild.channel_ids]
        return json_response([c.to_dict() for c in channels if not c.is_thread])

    async def get_roles(self, request: web.Request) -> web.Response:
        return json_response([r.to_dict() for r in self._guild(request).roles.values()])

    async def list_members(self, request: web.Request) -> web.Response:
        members = list(self._guild(request).members.values())
        limit = int(request.query.get("limit", 1))
        return json_response([m.to_dict() for m in members[:limit]])

    async def get_member(self, request: web.Request) -> web.Response:
        member = self._guild(request).members.get(snowflake(request, "user_id"))
        if member is None:
            raise unknown("Member", 10007)
        return json_response(member.to_dict())

    async def attachment(self, request: web.Request) -> web.Response:
        found = self.state.attachments.get(snowflake(request, "attachment_id"))
        if found is None:
            raise APIError(404, 0, "404: Not Found", kind="unknown")
        return web.Response(
            body=found.data, content_type=found.content_type or "application/octet-stream"
        )
