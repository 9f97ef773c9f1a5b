"""Per-channel message rate limiting, roughly as Discord applies it."""

from __future__ import annotations

import math
import time
from collections import defaultdict, deque
from collections.abc import Callable

from aiohttp import web

from .errors import RateLimitHit
from .wire import json_response


class ChannelRateLimiter:
    """A sliding window of ``limit`` message writes per ``per`` seconds per channel.

    Only plain channel message creates and edits count; interaction callbacks and
    webhook followups have their own (generous) limits on real Discord.
    """

    def __init__(self, clock: Callable[[], float], limit: int = 5, per: float = 5.0) -> None:
        self.clock = clock
        self.limit = limit
        self.per = per
        self._hits: defaultdict[int, deque[float]] = defaultdict(deque)

    def configure(self, limit: int, per: float) -> None:
        self.limit, self.per = limit, per
        self._hits.clear()

    def retry_after(self, channel_id: int) -> float | None:
        """Count a write; return how long to wait instead if the window is full."""
        now = self.clock()
        window = self._hits[channel_id]
        while window and now - window[0] >= self.per:
            window.popleft()
        if len(window) >= self.limit:
            return max(window[0] + self.per - now, 0.001)
        window.append(now)
        return None

    def remaining(self, channel_id: int) -> int:
        return max(self.limit - len(self._hits[channel_id]), 0)

    def headers(self, channel_id: int, reset_after: float) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining(channel_id)),
            "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Bucket": f"channel-messages-{channel_id}",
        }

    def too_many(self, hit: RateLimitHit) -> web.Response:
        """A 429 that discord.py recognises as a normal, retryable rate limit."""
        headers = self.headers(hit.channel_id, hit.retry_after)
        # Without Via discord.py assumes a Cloudflare ban and gives up.
        headers.update(
            {
                "Via": "1.1 google",
                "X-RateLimit-Scope": "shared",
                "Retry-After": str(math.ceil(hit.retry_after)),
            }
        )
        body = {
            "message": "You are being rate limited.",
            "retry_after": hit.retry_after,
            "global": False,
        }
        return json_response(body, status=429, headers=headers)
