"""Cards, suits, ranks and packs (R1).

A card is a small int (``suit * 16 + rank``) so that hands sort by suit then rank and the
engine's inner loop compares plain integers; ``Card`` adds the text forms on top.

>>> Card.parse("10d")
Card.parse('TD')
>>> str(Card.parse("TD")), Card.parse("TD").display
('TD', '10♦')
>>> [str(c) for c in pack(4)][:3], len(pack(4)), lowest_rank(4)
(['7S', '8S', '9S'], 32, 7)
"""

from __future__ import annotations

from rules.errors import CardError, DealError

SUITS = "SHDC"
SUIT_SYMBOLS = "♠♥♦♣"
RANK_CHARS = {14: "A", 13: "K", 12: "Q", 11: "J", 10: "T", 9: "9", 8: "8", 7: "7", 6: "6",
              5: "5", 4: "4", 3: "3", 2: "2"}
_RANK_BY_CHAR = {v: k for k, v in RANK_CHARS.items()}
MIN_PLAYERS, MAX_PLAYERS = 2, 9


class Card(int):
    """One playing card; instances are shared, so ``is`` and ``==`` agree."""

    __slots__ = ()

    def __new__(cls, value: int) -> Card:
        try:
            return _CARDS[value]
        except (KeyError, TypeError):
            raise CardError(f"{value!r} is not a card number (R1.3)") from None

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read ``TD``, ``td`` or ``10D`` (R1.3)."""
        if not isinstance(text, str):
            raise CardError(f"{text!r} is not a card: write a rank and a suit, like TD (R1.3)")
        t = text.strip().upper()
        if t.startswith("10"):
            t = "T" + t[2:]
        if len(t) != 2 or t[0] not in _RANK_BY_CHAR or t[1] not in SUITS:
            raise CardError(
                f"{text!r} is not a card: write a rank (A K Q J T 9 … 2) and a suit (S H D C), "
                "like TD (R1.3)"
            )
        return _CARDS[SUITS.index(t[1]) * 16 + _RANK_BY_CHAR[t[0]]]

    @property
    def rank(self) -> int:
        """2 … 14 (Ace)."""
        return self & 15

    @property
    def suit(self) -> int:
        """0 … 3, an index into ``SUITS``."""
        return self >> 4

    @property
    def display(self) -> str:
        """The form screens show, like ``10♦``."""
        r = self & 15
        return ("10" if r == 10 else RANK_CHARS[r]) + SUIT_SYMBOLS[self >> 4]

    def __str__(self) -> str:
        return RANK_CHARS[self & 15] + SUITS[self >> 4]

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: object) -> Card:
        return self


_CARDS: dict[int, Card] = {
    s * 16 + r: int.__new__(Card, s * 16 + r) for s in range(4) for r in range(2, 15)
}
# Indexed by card number, for the engine's inner loop.
RANK = [v & 15 for v in range(64)]
SUIT = [v >> 4 for v in range(64)]
# Each card's text form (``str(card)``) without a call to ``__str__``, for recording deals.
TEXT = {c: RANK_CHARS[v & 15] + SUITS[v >> 4] for v, c in _CARDS.items()}


def check_players(n: object) -> int:
    """The player count, if it is one NLK allows (R6.3)."""
    if isinstance(n, bool) or not isinstance(n, int) or not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise DealError(f"NLK is played by 2 to 9 players, not {n!r} (R6.3)")
    return n


def lowest_rank(n: int) -> int:
    """The lowest rank in the pack for ``n`` players: 9 for two … 2 for nine (R1.2)."""
    return 11 - check_players(n)


def pack(n: int) -> tuple[Card, ...]:
    """The ``n + 4`` highest ranks of each suit, sorted by suit then rank (R1.2)."""
    return _PACKS[check_players(n)]


def parse_suit(text: object) -> int:
    """A suit letter (S H D C) or symbol, as a suit index."""
    if isinstance(text, str):
        t = text.strip().upper()
        if len(t) == 1 and t in SUITS:
            return SUITS.index(t)
        if len(t) == 1 and t in SUIT_SYMBOLS:
            return SUIT_SYMBOLS.index(t)
    raise CardError(f"{text!r} is not a suit: write S, H, D or C (R1.3)")


def show(cards: object) -> str:
    """Cards as screens show them: ``10♦ J♠``."""
    return " ".join(Card(c).display for c in cards)  # type: ignore[attr-defined]


# Every pack, built once: each deal asks for one.
_PACKS = {n: tuple(_CARDS[s * 16 + r] for s in range(4) for r in range(lowest_rank(n), 15))
          for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)}
