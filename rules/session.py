"""A series of hands at one table: who deals each hand (R2.1, R5.1).

The dealer rules are small pure functions: the first dealer is drawn at random, the loser
deals next, and when players come and go between hands the deal passes on from the loser.

>>> first_dealer(4, lambda n: 2)
2
>>> dealer_after_reseat(1, ["ann", "bob", "cy", "dee"], ["ann", "cy", "dee", "eve"])
1
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rules.cards import check_players
from rules.errors import DealError
from rules.events import Outcome


def first_dealer(players: int, randbelow: Callable[[int], int]) -> int:
    """The first hand's dealer, chosen at random (R2.1).

    ``randbelow(n)`` returns a number from 0 to n-1: ``random.Random(seed).randrange`` for a
    repeatable session, ``secrets.randbelow`` at a real table.
    """
    dealer = randbelow(check_players(players))
    if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < players:
        raise DealError(f"the dealer must be a seat from 0 to {players - 1}, not {dealer!r}")
    return dealer


def next_dealer(previous: Outcome) -> int:
    """The loser of the previous hand deals the next one, at the same seats (R5.1)."""
    return previous.loser


def dealer_after_reseat(loser: int, old_seats: Sequence[object], new_seats: Sequence[object]
                        ) -> int | None:
    """The next dealer's seat in ``new_seats`` when players came or went after a hand.

    ``old_seats`` and ``new_seats`` list the players (any values compared with ``==``, such
    as user ids) in seat order, before and after; ``loser`` is the loser's seat in
    ``old_seats``. The loser deals if still seated (R5.1). If the loser left, the rules say
    nothing; we let the next player after the loser's old seat in the direction of play
    (R1.1) who is still seated deal, as the deal would have passed on round the table.
    None when nobody from the previous hand is still seated: that is a new table, whose
    first dealer is random (R2.1, ``first_dealer``).
    """
    if not 0 <= loser < len(old_seats):
        raise DealError(f"the loser must be a seat from 0 to {len(old_seats) - 1}, "
                        f"not {loser!r}")
    n = len(old_seats)
    for step in range(n):
        player = old_seats[(loser + step) % n]
        if player in new_seats:
            return new_seats.index(player)
    return None
