"""The three states of a hand: collect (R3), shed (R4) and over (R4.9).

A ``StrEnum``, so a phase compares equal to its name and serialises as it:

>>> Phase.COLLECT == "collect", str(Phase.SHED), Phase("over") is Phase.OVER
(True, 'shed', True)
"""

from __future__ import annotations

from enum import StrEnum


class Phase(StrEnum):
    """Where a hand stands; the replay format writes the value (RULES.md §8)."""

    COLLECT = "collect"
    SHED = "shed"
    OVER = "over"


# The members as plain module names, for the engine's inner loop: on Python 3.11 ``Phase.SHED``
# is a descriptor call on every lookup, about 15 times a global's cost.
COLLECT, SHED, OVER = Phase.COLLECT, Phase.SHED, Phase.OVER
