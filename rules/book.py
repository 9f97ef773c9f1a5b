"""The numbered rules as a player reads them, one short paragraph each, in every language:
what a rule number cited by a coach line, a hint or a refusal ("(R3.3)") says, opened
privately with ``/nlk rules rule:R3.3`` or a "📖 R3.3" button. docs/rules.md is the full
rule book; these paragraphs say the same, shorter, without the replay notation.

>>> text("r3.2").startswith("A card fits on a stack")
True
>>> number("3.3"), number("R9.9"), number("take")
('R3.3', None, None)
>>> [rule for rule, _ in matching("beat")][:3]
['R4.2', 'R4.3', 'R4.5']
"""

from __future__ import annotations

import re

from rules.i18n import DEFAULT, N_, translator

BOOK: dict[str, str] = {
    "R1.1": N_("Seats are numbered in the order play goes round; the next player is always the "
               "next seat, wrapping round to the first."),
    "R1.2": N_("The pack depends on the number of players: with n players it holds the n+4 "
               "highest ranks of each suit. Two players: A–9 (24 cards); three: A–8 (28); "
               "four: A–7 (32); five: A–6 (36); six: A–5 (40); seven: A–4 (44); eight: A–3 "
               "(48); nine: A–2 (52). Ranks run A K Q J 10 9 … 2, high to low, in every suit; "
               "the pack's lowest rank is the lowest it holds (the 7 with four players)."),
    "R1.3": N_("Cards are typed as rank and suit letter: TD is the 10♦, AS the A♠ (10D works "
               "too, in any letter case)."),
    "R2.1": N_("The first hand's dealer is chosen at random; afterwards whoever lost a hand "
               "deals the next."),
    "R2.2": N_("The dealer deals one card face up to each player, starting with the player "
               "after the dealer and ending with the dealer: each starts that player's stack. "
               "The cards left, face down, are the talon."),
    "R3.1": N_("The player after the dealer moves first; turns go round until the talon is "
               "used up."),
    "R3.2": N_("A card fits on a stack when its rank is exactly one above the stack's top card, "
               "whatever the suits; a card of the pack's lowest rank also fits on an Ace. "
               "Nothing fits on an empty stack, and nobody gives to their own stack."),
    "R3.3": N_("A turn, in order: first, as many stack gives as you like: the top card of your "
               "stack onto another player's stack where it fits, then the card below it, and "
               "so on. Then you must draw the talon's top card. A drawn card you either give "
               "where it fits, and then you draw again, or keep on your own stack, which ends "
               "your turn; a drawn card that fits nowhere must be kept. Once you have drawn, "
               "no more stack gives, and nobody is ever obliged to give."),
    "R3.4": N_("The collect phase ends when the last talon card is drawn: its suit is trump for "
               "the shed phase, and the player who drew it leads first. At most tables that "
               "player must keep it (“last card kept”)."),
    "R4.1": N_("In the shed phase every stack becomes its owner's hand, hidden from the others. "
               "A player holding cards is in; a player with none is out and safe."),
    "R4.2": N_("A card beats another when it is a higher card of the same suit, or a trump "
               "played on a card that is not a trump."),
    "R4.3": N_("A trick is a pile where each card beats the one below, so the bottom card is "
               "the lowest. Its size is fixed when it is led: the number of players still in "
               "at that moment. Players going out later do not change it, so a trick led after "
               "someone went out is smaller."),
    "R4.4": N_("The leader must lead: any one card from their hand onto the empty trick."),
    "R4.5": N_("Then each player in, in turn, either plays a card that beats the top card of "
               "the trick or takes the trick's bottom (lowest) card into their hand. Taking is "
               "always allowed, even when you could beat; a player may play to the same trick "
               "several times as it goes round."),
    "R4.6": N_("When a trick holds as many cards as its size, it is full and set aside, and "
               "whoever completed it leads the next trick (if they are out, the next player "
               "in)."),
    "R4.7": N_("When a player takes the trick's only card, the trick is empty, and the next "
               "player in after the one who took leads the next trick."),
    "R4.8": N_("A player who plays their last card is out at once, and safe: their turns are "
               "skipped from then on."),
    "R4.9": N_("The hand ends the moment only one player is in, even in the middle of a trick: "
               "that player loses. With two players left holding one card each, the leader "
               "plays theirs and is out."),
    "R5.1": N_("A table plays a series of hands. Each has one loser, who deals the next hand."),
    "R6.1": N_("Variant “last card”: at most tables the player who draws the last talon card "
               "must keep it (“last card kept”); some tables let them give it away like any "
               "drawn card (“last card may be given away”)."),
    "R6.2": N_("Variant “trumping”: at most tables you may trump even when you could beat in "
               "suit (“trump any time”); some tables require a higher card of the suit when "
               "you hold one, while the top card is not a trump (“beat in suit when you "
               "can”). Taking is allowed either way."),
    "R6.3": N_("NLK is for 2 to 9 players (six is best), with the pack by R1.2."),
}
NUMBER = re.compile(r"\s*[Rr]?\s*([1-6])\s*\.\s*([0-9])\s*")


def number(typed: str) -> str | None:
    """The rule ``typed`` names ("R3.3", "r3.3", "3.3"), or None if the book has none."""
    found = NUMBER.fullmatch(typed or "")
    rule = f"R{found[1]}.{found[2]}" if found else None
    return rule if rule in BOOK else None


def text(rule: str, lang: object = DEFAULT) -> str:
    """Rule ``rule``'s paragraph in ``lang`` (``KeyError`` for a number the book lacks)."""
    found = number(rule)
    if found is None:
        raise KeyError(rule)
    return translator(lang).gettext(BOOK[found])


def matching(typed: str, lang: object = DEFAULT, limit: int = 25) -> list[tuple[str, str]]:
    """The rules whose number or words match ``typed`` (all of them for nothing typed), as
    ``(number, paragraph)`` in ``lang``, in book order, at most ``limit``."""
    words = (typed or "").strip().lower()
    exact = number(words)
    found = []
    for rule in BOOK:
        paragraph = text(rule, lang)
        if not words or rule == exact or words in rule.lower() \
                or words in paragraph.lower():
            found.append((rule, paragraph))
    return found[:limit]
