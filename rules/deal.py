"""Fair deals: a secret seed shuffles the pack, and its hash is shown before the seed is.

A table shows ``commitment(seed)`` when it deals and reveals ``seed`` when the hand ends;
anyone can then check that the hash matches and that the seed shuffles the deck that was
dealt (``python -m rules verify``).

>>> commitment("4f1c2a") == commitment("4f1c2a") != commitment("4f1c2b")
True
>>> [str(c) for c in shuffled_deck(4, "4f1c2a")] == [str(c) for c in shuffled_deck(4, "4f1c2a")]
True
"""

from __future__ import annotations

import hashlib
import random

from .cards import Card, pack


def shuffled_deck(players: int, seed: object) -> list[Card]:
    """The pack for ``players`` shuffled by ``random.Random(seed)``, top first."""
    deck = list(pack(players))
    random.Random(seed).shuffle(deck)  # type: ignore[arg-type]
    return deck


def commitment(seed: str) -> str:
    """The SHA-256 of a deal's seed (hex): shown at the deal, checked when it is revealed."""
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()
