"""Processes that do not outlive the process that started them."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable

CHECK_SECONDS = 0.5


def watch_parent(gone: Callable[[], None], *, seconds: float = CHECK_SECONDS) -> None:
    """Call ``gone`` (in a daemon thread) once this process's parent has died: a SIGKILLed
    parent can't tell its children, but it stops being their parent."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(seconds)
        gone()

    threading.Thread(target=watch, name="nlk-parent-watch", daemon=True).start()


def stop_self() -> None:
    """Shut down as on SIGTERM: the bot's own handler closes it cleanly."""
    os.kill(os.getpid(), signal.SIGTERM)
