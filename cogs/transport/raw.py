"""Posts and edits that read no more of Discord's answer than the bot needs.

``Webhook.send`` and ``Webhook.edit_message`` (and so ``Interaction.edit_original_response``
and ``followup.send``), ``PartialMessage.edit`` in a channel, and an interaction's answer
(``InteractionResponse.send_message`` and ``edit_message``) turn Discord's answer into
a full message object: its author, embeds, components and attachments, each an object. The
bot never reads that message: after an edit it only needs to know that the edit went
through, or why not (an ``HTTPException``, raised as before), and after a post the new
message's id. On the hottest paths (every open hand redrawn after a change, a turn ping
after each move, the table message) building it was a fair share of the bot's CPU, so these
stop at Discord's answer. An interaction's answer goes without ``with_response`` (which
discord.py always sets), so Discord sends no message back at all (a 204), except where the
new message's id is needed (``post_as_answer``).

This module is the one place that uses discord.py's request layer directly (its message
parameters, its webhook adapter and its HTTP client's routes): the public calls parse the
answer, and there is no public way to send the same request without that. Views are not
kept by discord.py: every button of the bot is answered by its custom id (``Buttons`` are
stopped as they are made), so nothing is lost by not handing them to it.

A request that carries a file (a picture) goes as one body of bytes built once
(``multipart_body``), not through aiohttp's generic form machinery; discord.py's request
layer still sends it, with its rate limits, retries and errors.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import discord
from discord.http import MultipartParameters, Route, handle_message_parameters
from discord.utils import MISSING
from discord.webhook.async_ import async_context, interaction_message_response_params

from cogs.transport.answered import Answered
from cogs.transport.multipart import multipart_body


@dataclass(frozen=True)
class TokenMessage:
    """A message the bot posted as a follow-up of an interaction: its id, and the token
    that can edit and delete it (for the token's 15 minutes)."""

    id: int
    application_id: int
    token: str

    async def edit(self, client: discord.Client, **fields: Any) -> None:
        """Edit it (``content``, ``embed``, ``view``, ``attachments``), reading nothing of
        Discord's answer."""
        await edit_through_token(client, self.application_id, self.token, self.id, **fields)

    async def delete(self, client: discord.Client) -> None:
        """Delete it (Discord answers a delete with nothing to read)."""
        webhook = discord.Webhook.partial(self.application_id, self.token, client=client)
        await webhook.delete_message(self.id)


async def post_through_token(interaction: discord.Interaction[Any], *,
                             content: str | None = None,
                             embed: discord.Embed | None = None,
                             view: discord.ui.View | None = None,
                             files: list[discord.File] | None = None,
                             allowed_mentions: discord.AllowedMentions | None = None
                             ) -> TokenMessage:
    """Post a public follow-up of ``interaction``, as ``followup.send(wait=True)`` does,
    and read only the new message's id from Discord's answer (raises ``HTTPException`` as
    that does)."""
    client = interaction.client
    webhook = discord.Webhook.partial(interaction.application_id, interaction.token,
                                      client=client)
    with handle_message_parameters(content=MISSING if content is None else content,
                                   embed=embed or MISSING,
                                   view=view or MISSING, files=files or MISSING,
                                   allowed_mentions=allowed_mentions,
                                   previous_allowed_mentions=client.allowed_mentions
                                   ) as params:
        adapter: Any = async_context.get()
        session, params = _with_body(webhook.session, params)
        data = await adapter.execute_webhook(
            interaction.application_id, interaction.token, session=session,
            proxy=webhook.proxy, proxy_auth=webhook.proxy_auth, payload=params.payload,
            multipart=params.multipart, files=params.files, wait=True,
            with_components=bool(view))
    return TokenMessage(int(data["id"]), interaction.application_id, interaction.token)


async def answer_with_message(interaction: discord.Interaction[Any], *,
                              embed: discord.Embed, view: discord.ui.View,
                              ephemeral: bool = False,
                              files: list[discord.File] | None = None) -> None:
    """Answer ``interaction`` with a new message, as ``InteractionResponse.send_message``
    does, without building the answer Discord sends back (the new message, as objects).
    Raises ``InteractionResponded`` and the ``HTTPException``s as that does."""
    flags = discord.MessageFlags._from_value(0)
    flags.ephemeral = ephemeral
    await _answer(interaction, discord.InteractionResponseType.channel_message, embed=embed,
                  view=view, flags=flags if ephemeral else MISSING, files=files or MISSING)


async def post_as_answer(interaction: discord.Interaction[Any], *, embed: discord.Embed,
                         view: discord.ui.View,
                         files: list[discord.File] | None = None) -> int | None:
    """Answer ``interaction`` with a new public message, as ``answer_with_message`` does,
    and read only the new message's id from Discord's answer (None if it names none)."""
    data = await _answer(interaction, discord.InteractionResponseType.channel_message,
                         embed=embed, view=view, files=files or MISSING, with_id=True)
    message = (data.get("resource") or {}).get("message") if isinstance(data, dict) else None
    return int(message["id"]) if message else None


async def answer_by_editing(interaction: discord.Interaction[Any], *,
                            content: str = MISSING, embed: discord.Embed = MISSING,
                            view: discord.ui.View, attachments: list[discord.File] = MISSING,
                            allowed_mentions: discord.AllowedMentions = MISSING) -> None:
    """Answer a tap by editing the message tapped, as ``InteractionResponse.edit_message``
    does, without building the answer Discord sends back (``allowed_mentions``: who its text
    still mentions; Discord reads an edit's mentions afresh). Raises as that does."""
    await _answer(interaction, discord.InteractionResponseType.message_update,
                  content=content, embed=embed, view=view, attachments=attachments,
                  allowed_mentions=allowed_mentions)


async def _answer(interaction: discord.Interaction[Any],
                  kind: discord.InteractionResponseType, *, with_id: bool = False,
                  **fields: Any) -> Any:
    """Send ``interaction``'s one answer (a callback of ``kind``), and mark it answered, as
    discord.py's ``InteractionResponse`` does (its views are not kept: see above). Discord
    answers with the new message only if asked (``with_id``): returns what it sent."""
    response = interaction.response
    if response.is_done():
        raise discord.InteractionResponded(interaction)
    state: Any = interaction._state
    params = interaction_message_response_params(
        type=kind.value, previous_allowed_mentions=state.allowed_mentions, **fields)
    with params:
        session, params = _with_body(interaction._session, params)
        adapter: Any = async_context.get()
        # Without ``with_response`` Discord answers 204, with no message to send and parse
        # (discord.py always asks for it).
        data = await adapter.request(
            Route("POST", "/interactions/{webhook_id}/{webhook_token}/callback",
                  webhook_id=interaction.id, webhook_token=interaction.token),
            session=session, proxy=state.http.proxy, proxy_auth=state.http.proxy_auth,
            payload=params.payload, multipart=params.multipart, files=params.files,
            params={"with_response": "1"} if with_id else None)
    response._response_type = kind
    return data


async def edit_through_token(client: discord.Client, application_id: int, token: str,
                             message: int | str, *, content: str | None = MISSING,
                             embed: discord.Embed | None = MISSING,
                             view: discord.ui.View | None = MISSING,
                             attachments: list[discord.File] = MISSING,
                             allowed_mentions: discord.AllowedMentions | None = None,
                             answered: Answered | None = None) -> None:
    """Edit ``message`` (an id, or ``"@original"``: the interaction's answer) through
    the interaction's ``token``, as ``Webhook.edit_message`` does, without building the
    message Discord answers with (``allowed_mentions``: who its text still mentions; an
    edit notifies nobody; ``answered``: told as soon as Discord answered it). Raises
    ``discord.NotFound`` and the other ``HTTPException``s as that does."""
    webhook = discord.Webhook.partial(application_id, token, client=client)
    with handle_message_parameters(content=content, embed=embed, view=view,
                                   attachments=attachments, allowed_mentions=allowed_mentions,
                                   previous_allowed_mentions=client.allowed_mentions
                                   ) as params:
        adapter: Any = async_context.get()
        session, params = _with_body(webhook.session, params, answered)
        await adapter.edit_webhook_message(
            application_id, token, message, session=session, proxy=webhook.proxy,
            proxy_auth=webhook.proxy_auth, payload=params.payload,
            multipart=params.multipart, files=params.files, with_components=bool(view))


async def edit_in_channel(client: discord.Client, channel_id: int, message_id: int, *,
                          content: str | None = MISSING, embed: discord.Embed | None = MISSING,
                          view: discord.ui.View | None = MISSING,
                          attachments: list[discord.File] = MISSING,
                          allowed_mentions: discord.AllowedMentions | None = None,
                          answered: Answered | None = None) -> None:
    """Edit a channel message as ``PartialMessage.edit`` does, without building the message
    Discord answers with (``allowed_mentions``: who its text still mentions; an edit
    notifies nobody; ``answered``: told as soon as Discord answered it, while discord.py
    may still wait out the channel's rate limit before returning). Raises
    ``discord.NotFound``, ``discord.Forbidden`` and the other ``HTTPException``s as that
    does."""
    previous = client.allowed_mentions if content is not MISSING else None
    with handle_message_parameters(content=content, embed=embed, view=view,
                                   attachments=attachments, allowed_mentions=allowed_mentions,
                                   previous_allowed_mentions=previous) as params:
        body = _body(params)
        sent: dict[str, Any]
        if body is not None:
            sent = {"data": body}
        elif params.files:  # parts it can't write plainly: discord.py's form
            sent = {"files": params.files, "form": params.multipart}
        else:
            sent = {"json": params.payload}
        await client.http.request(Route("PATCH", "/channels/{channel_id}/messages/{message_id}",
                                        channel_id=channel_id, message_id=message_id),
                                  trace_request_ctx=answered, **sent)


class _Sending:
    """A session that sends ``body`` (if any) as the data of each request discord.py's
    webhook adapter makes through it (every attempt of one request), and tells ``answered``
    (if any) once Discord answered one: the adapter keeps its rate limits, retries and
    errors, and builds no form of its own."""

    def __init__(self, session: Any, body: Any, answered: Answered | None = None) -> None:
        self.session = session
        self.body = body
        self.answered = answered

    def request(self, method: str, url: str, **fields: Any) -> Any:
        if self.body is not None:
            fields["data"] = self.body
        return self.session.request(method, url, trace_request_ctx=self.answered, **fields)


def _with_body(session: Any, params: MultipartParameters, answered: Answered | None = None
               ) -> tuple[Any, MultipartParameters]:
    """The session and parameters to hand the webhook adapter: a request with files goes
    as one body built once (``multipart_body``), one without as it is; one that tells
    ``answered`` goes through a session that asks for it."""
    body = _body(params)
    if body is None:
        return (session, params) if answered is None else \
            (_Sending(session, None, answered), params)
    return _Sending(session, body, answered), MultipartParameters(payload=None,
                                                                  multipart=None, files=None)


def _body(params: MultipartParameters) -> Any:
    """A request's parts as one body built once (``multipart_body``); None for a request
    without files, or one whose parts discord.py sends better itself."""
    return multipart_body(params.multipart) if params.files and params.multipart else None
