"""An injectable clock, so tests can make minutes pass without sleeping."""

from __future__ import annotations

import time
from collections.abc import Callable


class Clock:
    """Monotonic seconds plus an offset that tests can push forward.

    The fake uses this for every deadline it enforces (the 3 second interaction
    acknowledgement window, the 15 minute token lifetime, rate-limit windows).
    Real time keeps flowing underneath, so the bot's own sleeps stay meaningful.
    """

    def __init__(self, source: Callable[[], float] = time.monotonic) -> None:
        self._source = source
        self.offset = 0.0

    def __call__(self) -> float:
        return self._source() + self.offset

    def advance(self, seconds: float) -> None:
        """Make ``seconds`` pass instantly, as far as the fake is concerned."""
        if seconds < 0:
            raise ValueError("the clock only moves forward")
        self.offset += seconds
