"""Edits through an interaction's token that read nothing of Discord's answer.

``Webhook.edit_message`` (and so ``Interaction.edit_original_response``) turns Discord's
answer into a full ``WebhookMessage``: its author, embeds, components and attachments, each
an object. The bot never reads that message after an edit: it only needs to know that the
edit went through, or why not (an ``HTTPException``, raised as before). On the hottest path
(every open hand redrawn after a change) building it was a fair share of the bot's CPU, so
these edits stop at Discord's answer.
"""

from __future__ import annotations

from typing import Any

import discord
from discord.http import handle_message_parameters
from discord.utils import MISSING
from discord.webhook.async_ import async_context


async def edit_through_token(client: discord.Client, application_id: int, token: str,
                             message: int | str, *, content: str | None = MISSING,
                             embed: discord.Embed | None = MISSING,
                             view: discord.ui.View | None = MISSING,
                             attachments: list[discord.File] = MISSING) -> None:
    """Edit ``message`` (an id, or ``"@original"``: the interaction's answer) through
    the interaction's ``token``, as ``Webhook.edit_message`` does, without building the
    message Discord answers with. Raises ``discord.NotFound`` and the other
    ``HTTPException``s as that does.

    The one place that uses discord.py's request layer directly (its message
    parameters and its webhook adapter): the public call parses the answer, and there is
    no public way to send the same request without it. Views are not kept by
    discord.py: every button of the bot is answered by its custom id (``Buttons`` are
    stopped as they are made)."""
    webhook = discord.Webhook.partial(application_id, token, client=client)
    with handle_message_parameters(content=content, embed=embed, view=view,
                                   attachments=attachments,
                                   previous_allowed_mentions=client.allowed_mentions
                                   ) as params:
        adapter: Any = async_context.get()
        await adapter.edit_webhook_message(
            application_id, token, message, session=webhook.session, proxy=webhook.proxy,
            proxy_auth=webhook.proxy_auth, payload=params.payload,
            multipart=params.multipart, files=params.files, with_components=bool(view))
