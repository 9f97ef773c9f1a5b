"""Rate limiting, roughly as Discord applies it.

Three limits are modelled, each a sliding window on the fake's clock:

* the **global** limit: 50 requests per second per bot token, over every bot-token
  REST route. Interaction callbacks and webhook followups (``/interactions/...``
  and ``/webhooks/...``) are authorised by the interaction token and do not count;
* the **per-channel message** bucket: 5 creates or edits per 5 seconds per channel
  (Discord splits creates and edits into separate buckets; the fake keeps one
  shared, stricter budget so bursts show up early);
* optionally, a **per-token webhook** bucket (off unless set): an interaction token's
  follow-ups, edits and deletes, each answer carrying the bucket's headers as Discord's do
  (Discord publishes no figure for it);
* the **per-channel delete** bucket: 5 message deletes per 5 seconds per channel.
  Discord gives ``DELETE /channels/{id}/messages/{id}`` its own bucket (discord.py
  keys buckets by method and route too), separate from creates and edits, and it
  publishes no figure for it; 5 per 5 s matches the other message buckets.
  Bulk delete is not limited.

A refused request does not use up room in its window, as on Discord. Every 429
the fake sends is recorded as a :class:`RateLimitHit`.
"""

from __future__ import annotations

import math
import time
from collections import defaultdict, deque
from collections.abc import Callable, Hashable

from aiohttp import web

from tests.fakediscord.errors import RateLimitHit
from tests.fakediscord.wire import json_response

GLOBAL_LIMIT, GLOBAL_PER = 50, 1.0
MESSAGE_LIMIT, MESSAGE_PER = 5, 5.0
DELETE_LIMIT, DELETE_PER = 5, 5.0


class SlidingWindow:
    """At most ``limit`` hits per ``per`` seconds for each key."""

    def __init__(self, clock: Callable[[], float], limit: int, per: float) -> None:
        self.clock = clock
        self.limit = limit
        self.per = per
        self._hits: defaultdict[Hashable, deque[float]] = defaultdict(deque)

    def configure(self, limit: int, per: float) -> None:
        if limit < 1 or per <= 0:
            raise ValueError("a rate limit needs limit >= 1 and per > 0")
        self.limit, self.per = limit, per
        self._hits.clear()

    def take(self, key: Hashable) -> float | None:
        """Count a request; return how long to wait instead if the window is full."""
        now = self.clock()
        window = self._hits[key]
        while window and now - window[0] >= self.per:
            window.popleft()
        if len(window) >= self.limit:
            return max(window[0] + self.per - now, 0.001)
        window.append(now)
        return None

    def remaining(self, key: Hashable) -> int:
        return max(self.limit - len(self._hits[key]), 0)


class ChannelRateLimiter(SlidingWindow):
    """A per-channel bucket (message writes, or message deletes)."""

    def __init__(
        self,
        clock: Callable[[], float],
        limit: int = MESSAGE_LIMIT,
        per: float = MESSAGE_PER,
        *,
        bucket: str = "channel-messages",
    ) -> None:
        super().__init__(clock, limit, per)
        self.bucket = bucket

    def retry_after(self, channel_id: int) -> float | None:
        return self.take(channel_id)

    def headers(self, channel_id: int | str, reset_after: float) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining(channel_id)),
            "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Bucket": f"{self.bucket}-{channel_id}",
        }

    def too_many(self, hit: RateLimitHit, key: int | str | None = None) -> web.Response:
        """A 429 that discord.py recognises as a normal, retryable rate limit, for the
        bucket of ``key`` (default: the hit's channel)."""
        key = hit.channel_id if key is None else key
        assert key is not None
        headers = self.headers(key, hit.retry_after)
        headers.update(_retry_headers(hit.retry_after, "shared"))
        return json_response(_body(hit.retry_after, is_global=False), status=429, headers=headers)


class GlobalRateLimiter(SlidingWindow):
    """Discord's per-bot global limit across all bot-token routes."""

    def __init__(
        self, clock: Callable[[], float], limit: int = GLOBAL_LIMIT, per: float = GLOBAL_PER
    ) -> None:
        super().__init__(clock, limit, per)

    def retry_after(self) -> float | None:
        return self.take("global")

    def too_many(self, hit: RateLimitHit) -> web.Response:
        # No bucket headers: a global 429 is about the token, not a route.
        headers = _retry_headers(hit.retry_after, "global")
        headers["X-RateLimit-Global"] = "true"
        return json_response(_body(hit.retry_after, is_global=True), status=429, headers=headers)


def _retry_headers(retry_after: float, scope: str) -> dict[str, str]:
    # Without Via discord.py assumes a Cloudflare ban and gives up.
    return {
        "Via": "1.1 google",
        "X-RateLimit-Scope": scope,
        "Retry-After": str(math.ceil(retry_after)),
    }


def _body(retry_after: float, *, is_global: bool) -> dict[str, object]:
    return {
        "message": "You are being rate limited.",
        "retry_after": round(retry_after, 3),
        "global": is_global,
    }
