"""The bot's event-loop thread profiled by its CPU time (``NLK_CPU_PROFILE``): for the load
benchmark (``python -m tests.load --profile FILE.pstats``), not for a bot in service, which it
slows about threefold.

A sampling profiler counts a thread that waits for a core as busy where it stands, so on a
machine with fewer cores than busy processes its profile spreads every wait over every
function. This one is Python's deterministic profiler with the thread's CPU clock: it counts
only what the thread computed, and every call (its own cost grows with the calls, so it
weighs call-heavy code more). It starts once the bot is ready (start-up is not in it) and is
written when the bot stops, in ``pstats`` form (``python -m pstats FILE``)."""

from __future__ import annotations

import cProfile
import logging
import time

log = logging.getLogger(__name__)


class CPUProfile:
    """The profile asked for (``path``; None: none), started once and written once."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self._profile: cProfile.Profile | None = None

    def start(self) -> None:
        """Profile this thread from now on (the first time only)."""
        if self.path is None or self._profile is not None:
            return
        self._profile = cProfile.Profile(time.thread_time)
        self._profile.enable()
        log.info("profiling the event loop's thread by its CPU time into %s", self.path)

    def write(self) -> None:
        """Stop profiling and write the profile (once; a failure is logged, not raised)."""
        profile, self._profile = self._profile, None
        if profile is None or self.path is None:
            return
        profile.disable()
        try:
            profile.dump_stats(self.path)
        except OSError as error:
            log.warning("could not write the CPU profile to %s: %s", self.path, error)
