"""Knowing when Discord has answered a request, before discord.py returns from it.

Discord's answer to a request that spends the last place in its rate-limit bucket says so
(``X-RateLimit-Remaining: 0``), and discord.py then waits out the bucket's reset inside that
request (its HTTP client's bucket and its webhook adapter's lock both sleep on the way out):
the call returns only once the bucket is full again, up to the window's length (5 seconds
for a channel's message edits) after Discord applied the request. Whoever waited for the
request to land (an answer to a tap on the message it edits) would wait that long too.

A request sent with an ``Answered`` callback as its ``trace_request_ctx`` has it called as
soon as Discord's successful answer arrives, through the trace discord.py's HTTP session is
made with (``tracing``, passed to the client as ``http_trace``). A request that failed is
not answered here: it raises as before.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import aiohttp

log = logging.getLogger(__name__)

Answered = Callable[[], None]


def tracing(trace: aiohttp.TraceConfig | None = None) -> aiohttp.TraceConfig:
    """``trace`` (discord.py takes one; a new one if None), made to also tell a request's
    ``Answered`` (its ``trace_request_ctx``) that Discord answered it with a success; frozen."""
    trace = aiohttp.TraceConfig() if trace is None else trace
    trace.on_request_end.append(_ended)
    trace.freeze()
    return trace


async def _ended(session: aiohttp.ClientSession, context: Any,
                 ended: aiohttp.TraceRequestEndParams) -> None:
    answered = context.trace_request_ctx
    if answered is None or not 200 <= ended.response.status < 300:
        return
    try:
        answered()
    except Exception:  # never the request's failure: it went through
        log.exception("telling that a request was answered failed")
