"""The bot's garbage collection, once it is ready: start-up frozen, young objects collected
less often (``bot.client.YOUNG_COLLECTION``), and only the first time it is ready."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Run in a process of its own: freezing and the thresholds are the whole process's.
SCRIPT = """
import asyncio, gc, json
from bot.client import YOUNG_COLLECTION, _freeze_start_up
before = gc.get_threshold()
asyncio.run(_freeze_start_up())
first = gc.get_threshold(), gc.get_freeze_count()
gc.set_threshold(123, *gc.get_threshold()[1:])  # as anything else might set it meanwhile
asyncio.run(_freeze_start_up())  # a reconnection: ready again
again = gc.get_threshold()
print(json.dumps({"young": YOUNG_COLLECTION, "before": before, "first": first[0],
                  "frozen": first[1], "again": again}))
"""


def test_the_first_ready_freezes_start_up_and_collects_young_objects_less_often():
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=True)
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["young"] > seen["before"][0]  # less often than Python's own
    assert seen["first"] == [seen["young"], *seen["before"][1:]]  # the older ones as they were
    assert seen["frozen"] > 0  # what start-up made is never scanned again
    assert seen["again"][0] == 123  # only the first time: nothing is set again
