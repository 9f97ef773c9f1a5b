"""The bot's garbage-collection policy, applied once it is ready (``bot.client``): what
start-up made is frozen, and the young objects are looked at less often than Python's
default (every interaction makes hundreds of them, most gone soon)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHECK = """
import asyncio, gc
from bot.client import COLLECT_EVERY, _freeze_start_up
assert gc.get_threshold() != COLLECT_EVERY, gc.get_threshold()
asyncio.run(_freeze_start_up())
assert gc.get_threshold() == COLLECT_EVERY, gc.get_threshold()
assert COLLECT_EVERY[0] > 700  # less often than Python's default (700, 10, 10)
frozen = gc.get_freeze_count()
assert frozen > 1000, frozen
asyncio.run(_freeze_start_up())  # ready again, after a reconnection: nothing more frozen
assert gc.get_freeze_count() == frozen
print("ok")
"""


def test_once_ready_start_up_is_frozen_and_young_objects_are_collected_less_often():
    done = subprocess.run([sys.executable, "-c", CHECK], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
