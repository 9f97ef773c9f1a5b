"""Deals: fair ones, and the checks that a deck or position is one NLK can deal.

A secret seed shuffles the pack, and its hash is shown before the seed is.

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
from collections.abc import Sequence

from rules.cards import MAX_PLAYERS, MIN_PLAYERS, Card, check_players, lowest_rank, pack
from rules.errors import DealError


def shuffled_deck(players: int, seed: object) -> list[Card]:
    """The pack for ``players`` shuffled by ``random.Random(seed)``, top first."""
    deck = list(pack(players))
    random.Random(seed).shuffle(deck)  # type: ignore[arg-type]
    return deck


def commitment(seed: str) -> str:
    """The SHA-256 of a deal's seed (hex): shown at the deal, checked when it is revealed."""
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()


def players_for(cards: Sequence[Card]) -> int:
    """The player count whose pack has as many cards as ``cards`` (R1.2)."""
    count = len(cards)
    if count % 4 or not 24 <= count <= 52:
        raise DealError(f"a deck of {count} cards is no NLK pack: packs have 24 (two "
                        "players) to 52 (nine) cards (R1.2)")
    return count // 4 - 4


def check_cards(cards: Sequence[Card], n: int, *, whole_pack: bool) -> None:
    """Distinct cards of the pack for ``n`` players — all of them when ``whole_pack`` (R1.2)."""
    allowed = _PACK_SETS[check_players(n)]
    if whole_pack and len(cards) == len(allowed) and allowed == set(cards):
        return  # every deal: as many cards as the pack has, and all of them, so each once
    seen: set[Card] = set()
    for c in cards:
        if c in seen:
            raise DealError(f"{c.display} appears twice: every card is in the pack once (R1.2)")
        if c not in allowed:
            raise DealError(f"{c.display} is not in the pack for {n} players, which runs "
                            f"from Aces down to {Card(lowest_rank(n)).display[:-1]}s (R1.2)")
        seen.add(c)
    if whole_pack and len(seen) != len(allowed):
        missing = sorted(allowed - seen)
        raise DealError(f"the deck is missing {len(missing)} card(s) of the {n}-player pack, "
                        f"such as {missing[0].display} (R1.2)")


# Each pack as a set, built once: every deal checks its deck against one.
_PACK_SETS = {n: frozenset(pack(n)) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)}


def check_seat(seat: object, n: int, what: str) -> int:
    """``seat``, if it is a seat at a table of ``n``; ``what`` names it in the error."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
        raise DealError(f"{what} must be a seat from 0 to {n - 1}, not {seat!r}")
    return seat
