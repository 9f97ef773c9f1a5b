"""Interactions: the record a test holds, and the rules for answering one.

Discord's rules enforced here:

* the first callback must arrive within 3 seconds of dispatch (else 10062);
* there is exactly one initial callback (a second one gets 40060);
* the interaction token works for followups and edits for 15 minutes
  (``State.token_ttl``; after it, 401 50027 "Invalid Webhook Token"), and only
  after the interaction was acknowledged (else 10015);
* a token can only touch the messages of its own interaction;
* an interaction no guild installation authorises (a user-installed app, e.g. in a
  group DM) gets at most 5 follow-up messages; the sixth is refused (400 40094).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tests.fakediscord import limits
from tests.fakediscord.errors import (
    FormErrors,
    Violation,
    already_acknowledged,
    followup_limit,
    invalid_webhook_token,
    unknown_interaction,
    unknown_message,
    unknown_webhook,
)
from tests.fakediscord.models import (
    COMPONENTS_V2,
    EPHEMERAL,
    LOADING,
    SUPPRESS_EMBEDS,
    SUPPRESS_NOTIFICATIONS,
    Channel,
    ChannelType,
    Guild,
    Message,
    User,
)
from tests.fakediscord.wire import UploadedFile

if TYPE_CHECKING:
    from tests.fakediscord.state import State

APPLICATION_COMMAND = 2
MESSAGE_COMPONENT = 3
AUTOCOMPLETE = 4
MODAL_SUBMIT = 5

ACK_WINDOW = 3.0
TOKEN_LIFETIME = 15 * 60.0
USER_INSTALL_FOLLOWUPS = 5

# Interaction contexts (``context`` in the payload, ``contexts`` on a command).
GUILD_CONTEXT = 0
BOT_DM_CONTEXT = 1
PRIVATE_CHANNEL_CONTEXT = 2
# Installation types (keys of ``authorizing_integration_owners``, ``integration_types``).
GUILD_INSTALL = "0"
USER_INSTALL = "1"

CHANNEL_MESSAGE = 4
DEFERRED_CHANNEL_MESSAGE = 5
DEFERRED_UPDATE_MESSAGE = 6
UPDATE_MESSAGE = 7
AUTOCOMPLETE_RESULT = 8
MODAL = 9

RESPONSE_FLAGS = EPHEMERAL | SUPPRESS_EMBEDS | SUPPRESS_NOTIFICATIONS | COMPONENTS_V2

CALLBACK_NAMES = {
    CHANNEL_MESSAGE: "CHANNEL_MESSAGE_WITH_SOURCE",
    DEFERRED_CHANNEL_MESSAGE: "DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE",
    DEFERRED_UPDATE_MESSAGE: "DEFERRED_UPDATE_MESSAGE",
    UPDATE_MESSAGE: "UPDATE_MESSAGE",
    AUTOCOMPLETE_RESULT: "APPLICATION_COMMAND_AUTOCOMPLETE_RESULT",
    MODAL: "MODAL",
}


@dataclass
class Response:
    """The initial response the bot gave to an interaction."""

    type: int
    data: dict[str, Any] | None
    message: Message | None
    at: float

    @property
    def name(self) -> str:
        return CALLBACK_NAMES.get(self.type, str(self.type))

    @property
    def ephemeral(self) -> bool:
        return bool(self.message and self.message.ephemeral)

    @property
    def deferred(self) -> bool:
        return self.type in (DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE_MESSAGE)


@dataclass
class Edit:
    """A change the bot made to a message through an interaction token."""

    message: Message
    payload: dict[str, Any]
    via: str
    at: float


class Interaction:
    """One interaction sent to the bot, and everything the bot did with its token."""

    def __init__(
        self,
        state: State,
        *,
        type: int,
        user: User,
        channel: Channel,
        guild: Guild | None,
        data: dict[str, Any],
        source: Message | None = None,
        label: str = "",
    ) -> None:
        self.state = state
        self.id = state.ids.next()
        self.token = f"itk.{self.id}"
        self.type = type
        self.user = user
        self.channel = channel
        self.guild = guild
        self.data = data
        self.source = source
        self.label = label
        # Who authorised the app here: ``{"0": guild id}`` for a guild install,
        # ``{"1": user id}`` for a user install. A click inherits its message's owners.
        self.owners: dict[str, str] = owners_for(state, self)
        self.payload: dict[str, Any] = {}
        self.created_at = state.clock()
        self.response: Response | None = None
        self.original: Message | None = None
        self.followups: list[Message] = []
        self.edits: list[Edit] = []
        self.rejections: list[Violation] = []
        self.modal: dict[str, Any] | None = None
        self.choices: list[dict[str, Any]] | None = None

    def __repr__(self) -> str:
        return f"<Interaction {self.id} {self.describe()}>"

    def describe(self) -> str:
        return f"{self.label} by {self.user.name}"

    # -- what tests await ------------------------------------------------------
    async def wait_until(
        self,
        predicate: Callable[[Interaction], Any],
        timeout: float = 3.0,
        what: str = "a condition",
    ) -> Any:
        return await self.state.wait_until(lambda: predicate(self), timeout, f"{what} on {self!r}")

    async def wait_response(self, timeout: float = ACK_WINDOW) -> Response:
        """The initial response, or an AssertionError: the user saw "This interaction failed"."""
        try:
            await self.state.wait_until(lambda: self.response is not None, timeout, "a response")
        except AssertionError:
            refused = "".join(f"\n  refused: {v}" for v in self.rejections)
            raise AssertionError(
                f"{self.describe()} got no initial response within {timeout:.1f}s; "
                f"the user would see 'This interaction failed'.{refused}"
            ) from None
        assert self.response is not None
        return self.response

    async def wait_message(self, timeout: float = ACK_WINDOW) -> Message:
        """The message the initial response created or updated (loading, if deferred)."""
        response = await self.wait_response(timeout)
        if response.message is None:
            raise AssertionError(f"{self.describe()} was answered with {response.name}, no message")
        return response.message

    async def wait_followups(self, count: int = 1, timeout: float = 3.0) -> list[Message]:
        await self.wait_until(
            lambda ix: len(ix.followups) >= count, timeout, f"{count} followup(s)"
        )
        return self.followups

    @property
    def messages(self) -> list[Message]:
        """Messages this interaction created: the original response and followups."""
        own = [self.original] if self.original and self.original.interaction_id == self.id else []
        return list(dict.fromkeys(own + self.followups))

    @property
    def expired(self) -> bool:
        return self.state.clock() - self.created_at > self.state.token_ttl

    @property
    def context(self) -> int:
        if self.guild is not None:
            return GUILD_CONTEXT
        if self.channel.type == ChannelType.DM and not self.channel.without_bot:
            return BOT_DM_CONTEXT
        return PRIVATE_CHANNEL_CONTEXT

    @property
    def user_installed(self) -> bool:
        """No guild installation authorises this interaction: the follow-up cap applies."""
        return GUILD_INSTALL not in self.owners

    def stamp(self, message: Message) -> None:
        """Mark a message as created by this interaction, like Discord's metadata."""
        message.interaction_id = self.id
        message.interaction_token = self.token
        message.webhook_id = message.application_id = self.state.application_id
        metadata: dict[str, Any] = {
            "id": str(self.id),
            "type": self.type,
            "user": self.user.to_dict(),
            "authorizing_integration_owners": dict(self.owners),
        }
        if self.type == APPLICATION_COMMAND:
            metadata["name"] = self.data.get("name", "")
            metadata["command_type"] = self.data.get("type", 1)
        if self.source is not None:
            metadata["interacted_message_id"] = str(self.source.id)
        if self.original is not None:
            metadata["original_response_message_id"] = str(self.original.id)
        message.interaction_metadata = metadata


def owners_for(state: State, ix: Interaction) -> dict[str, str]:
    """``authorizing_integration_owners`` as Discord computes it for ``ix``."""
    if ix.source is not None and ix.source.interaction_id in state.interactions:
        # A click on the app's message: authorised by whoever authorised that message,
        # whether or not the clicking person installed the app.
        return dict(state.interactions[ix.source.interaction_id].owners)
    if ix.guild is not None:
        return {GUILD_INSTALL: str(ix.guild.id)}
    if ix.channel.type == ChannelType.DM and not ix.channel.without_bot:
        owners = {GUILD_INSTALL: "0"}  # the bot's own DM: the bot user is there
        if ix.user.id in state.user_installs:
            owners[USER_INSTALL] = str(ix.user.id)
        return owners
    return {USER_INSTALL: str(ix.user.id)}


# -- the rules -------------------------------------------------------------------

_ALLOWED_CALLBACKS = {
    APPLICATION_COMMAND: {CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, MODAL},
    MESSAGE_COMPONENT: {
        CHANNEL_MESSAGE,
        DEFERRED_CHANNEL_MESSAGE,
        DEFERRED_UPDATE_MESSAGE,
        UPDATE_MESSAGE,
        MODAL,
    },
    AUTOCOMPLETE: {AUTOCOMPLETE_RESULT},
    MODAL_SUBMIT: {
        CHANNEL_MESSAGE,
        DEFERRED_CHANNEL_MESSAGE,
        DEFERRED_UPDATE_MESSAGE,
        UPDATE_MESSAGE,
    },
}


def callback(
    state: State, ix: Interaction, body: dict[str, Any], files: list[UploadedFile]
) -> dict[str, Any]:
    """Handle ``POST /interactions/{id}/{token}/callback``; returns the callback response body."""
    if ix.response is not None:
        raise already_acknowledged()
    if ix.expired:
        raise invalid_webhook_token()
    if state.clock() - ix.created_at > ACK_WINDOW:
        raise unknown_interaction()
    kind = int(body.get("type") or 0)
    allowed = _ALLOWED_CALLBACKS[ix.type]
    if kind in (DEFERRED_UPDATE_MESSAGE, UPDATE_MESSAGE) and ix.source is None:
        allowed = allowed - {DEFERRED_UPDATE_MESSAGE, UPDATE_MESSAGE}
    if kind not in allowed:
        errors = FormErrors()
        errors.add(
            ("type",),
            "INTERACTION_RESPONSE_TYPE_INVALID",
            f"Callback type {kind} is not valid here",
        )
        errors.raise_if_any()
    data = body.get("data") or {}
    flags = (data.get("flags") or 0) & RESPONSE_FLAGS
    private_to = ix.user.id if flags & EPHEMERAL else None
    message: Message | None = None

    if kind == CHANNEL_MESSAGE:
        message = state.create_message(
            ix.channel,
            data,
            files,
            via="interaction_response",
            visible_to=private_to,
            flags=flags,
            errors_prefix=("data",),
            interaction=ix,
            type=20 if ix.type == APPLICATION_COMMAND else 0,
        )
    elif kind == DEFERRED_CHANNEL_MESSAGE:
        message = state.create_message(
            ix.channel,
            {},
            [],
            via="interaction_defer",
            visible_to=private_to,
            flags=LOADING | (flags & EPHEMERAL),
            interaction=ix,
            type=20 if ix.type == APPLICATION_COMMAND else 0,
            allow_empty=True,
        )
    elif kind == DEFERRED_UPDATE_MESSAGE:
        ix.original = ix.source
    elif kind == UPDATE_MESSAGE:
        assert ix.source is not None
        if ix.source.deleted:
            raise unknown_message()  # deleted since the click, or never existed (forged)
        message = _edit(
            state, ix, ix.source, data, files, via="interaction_update", prefix=("data",)
        )
    elif kind == AUTOCOMPLETE_RESULT:
        errors = FormErrors(("data",))
        limits.check_choices(data, errors)
        errors.raise_if_any()
        ix.choices = data.get("choices") or []
    elif kind == MODAL:
        errors = FormErrors(("data",))
        limits.check_modal(data, errors)
        errors.raise_if_any()
        ix.modal = data

    if message is not None:
        ix.original = message
    ix.response = Response(kind, data, message or ix.original, state.clock())
    state.changed()

    result: dict[str, Any] = {"interaction": {"id": str(ix.id), "type": ix.type}}
    if message is not None:
        result["interaction"].update(
            response_message_id=str(message.id),
            response_message_loading=message.loading,
            response_message_ephemeral=message.ephemeral,
        )
        result["resource"] = {"type": kind, "message": message.to_dict()}
    return result


def _check_token(state: State, ix: Interaction) -> None:
    # The webhook behind a token exists only once the interaction was acknowledged.
    if ix.expired:
        raise invalid_webhook_token()
    if ix.response is None:
        raise unknown_webhook()


def _edit(
    state: State,
    ix: Interaction,
    message: Message,
    payload: dict[str, Any],
    files: list[UploadedFile],
    *,
    via: str,
    prefix: tuple[str, ...] = (),
) -> Message:
    state.edit_message(
        message, payload, files, via=via, errors_prefix=prefix, finish_loading=message.loading
    )
    ix.edits.append(Edit(message, payload, via, state.clock()))
    return message


def followup(
    state: State, ix: Interaction, payload: dict[str, Any], files: list[UploadedFile]
) -> Message:
    """Handle ``POST /webhooks/{app}/{token}``."""
    _check_token(state, ix)
    original = ix.original
    if (
        ix.response
        and ix.response.type == DEFERRED_CHANNEL_MESSAGE
        and original
        and original.loading
    ):
        # The first followup after a "thinking" defer fills in the loading message.
        message = _edit(state, ix, original, payload, files, via="followup")
    else:
        created = [m for m in ix.followups if m is not ix.original]
        if ix.user_installed and len(created) >= USER_INSTALL_FOLLOWUPS:
            raise followup_limit()
        flags = (payload.get("flags") or 0) & RESPONSE_FLAGS
        message = state.create_message(
            ix.channel,
            payload,
            files,
            via="followup",
            visible_to=ix.user.id if flags & EPHEMERAL else None,
            flags=flags,
            interaction=ix,
        )
    ix.followups.append(message)
    state.changed()
    return message


def target(state: State, ix: Interaction, ref: str) -> Message:
    """The message ``@original`` or a message id refers to, for this token only."""
    _check_token(state, ix)
    if ref == "@original":
        message = ix.original
    else:
        try:
            wanted = int(ref)
        except ValueError:
            raise unknown_message() from None
        candidates = [m for m in (ix.original, *ix.followups) if m is not None]
        message = next((m for m in candidates if m.id == wanted), None)
    if message is None or message.deleted:
        raise unknown_message()
    return message


def edit(
    state: State, ix: Interaction, ref: str, payload: dict[str, Any], files: list[UploadedFile]
) -> Message:
    """Handle ``PATCH /webhooks/{app}/{token}/messages/{ref}``."""
    return _edit(state, ix, target(state, ix, ref), payload, files, via="webhook_edit")


def delete(state: State, ix: Interaction, ref: str) -> None:
    state.delete_message(target(state, ix, ref))


def lookup(state: State, token: str, interaction_id: int | None = None) -> Interaction:
    ix = state.interactions_by_token.get(token)
    if ix is None or (interaction_id is not None and ix.id != interaction_id):
        if interaction_id is not None:
            raise unknown_interaction()
        raise unknown_webhook()
    return ix
