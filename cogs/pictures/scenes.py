"""What a picture shows, from a per-seat view only, and the same in words (its alt text).

A player's picture comes from their own view (``view_of_user``), the table's from the public
view: a hidden hand can't reach a picture any more than it can reach the text.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from cogs.pictures.draw import (
    MUTED,
    PER_ROW,
    PER_TABLE_ROW,
    PLAIN,
    PLAYABLE,
    HandScene,
    Place,
    Shown,
    TableScene,
)
from rules import Act, Card, Phase, SeatView
from rules.cards import SUITS
from rules.i18n import Lang, rank_text, shown_name, suit_name, translator

ALT_LIMIT = 1024  # Discord's limit on an attachment's description
NAME_CHARS = 32  # a picture fits a name to the room it has; this only bounds the key


def suit_order(trump: str | None) -> list[int]:
    """Suits as the hand shows them: S H D C, the trump last (as the text does)."""
    last = SUITS.index(trump) if trump else None
    return [s for s in range(4) if s != last] + ([last] if last is not None else [])


def sorted_hand(cards: Iterable[Card], trump: str | None) -> list[Card]:
    """A hand by suit (the trump last), then rank, low to high."""
    order = {s: i for i, s in enumerate(suit_order(trump))}
    return sorted(cards, key=lambda c: (order[c.suit], c.rank))


def hand_scene(view: SeatView, lang: Lang, four: bool, letters: Lang | None = None
               ) -> tuple[HandScene, str] | None:
    """A player's stack (bottom to top, in runs of 13) or hand (a row per suit, the cards
    they may play now standing out and the rest standing back), with its alt text in
    ``lang``; the cards show ``lang``'s rank letters too, unless ``letters`` says otherwise."""
    if not view.own:
        return None
    plays = frozenset(a.card for a in view.legal if a.act == Act.PLAY) if view.my_turn \
        else frozenset()
    return _hand_scene_of(view.phase, view.own, view.trump, view.my_turn, plays, lang, four,
                          letters)


@functools.lru_cache(maxsize=1024)
def _hand_scene_of(phase: Phase, own: tuple[Card, ...], trump: str | None, my_turn: bool,
                   plays: frozenset[Card], lang: Lang, four: bool, letters: Lang | None
                   ) -> tuple[HandScene, str]:
    """``hand_scene`` from all it depends on, made once: a tap's answer, the picture foreseen
    for it and the redraws of the same hand ask for the same scene (a scene is immutable)."""
    ranks = letters or lang
    _ = translator(lang).gettext
    n_ = translator(lang).ngettext
    count = len(own)
    if phase == Phase.COLLECT:
        cards = list(own)
        rows = tuple(tuple(Shown(c, rank_text(c.rank, ranks)) for c in cards[i:i + PER_ROW])
                     for i in range(0, count, PER_ROW))
        title = n_("Your stack, {count} card, bottom to top",
                   "Your stack, {count} cards, bottom to top", count).format(count=count)
        return HandScene(rows, four), _alt(_("{title}: {cards}.").format(
            title=title, cards=card_words(cards, lang)))
    marked = my_turn and len(plays) < count
    hand = sorted_hand(own, trump)
    shown_rows = []
    for suit in suit_order(trump):
        row = tuple(Shown(c, rank_text(c.rank, ranks),
                          (PLAYABLE if c in plays else MUTED) if marked else PLAIN)
                    for c in hand if c.suit == suit)
        if row:
            shown_rows.append(row)
    title = n_("Your hand, {count} card", "Your hand, {count} cards", count).format(
        count=count)
    text = _("{title}: {cards}.").format(title=title, cards=suits_words(hand, trump, lang))
    if marked:
        playable = [c for c in hand if c in plays]
        text += " " + (_("You can play: {cards}.").format(cards=card_words(playable, lang))
                       if playable else _("Nothing you hold can be played now."))
    return HandScene(tuple(shown_rows), four), _alt(text)


def table_scene(view: SeatView, lang: Lang, four: bool) -> tuple[TableScene, str] | None:
    """The table's public cards: in the collect phase each seat's top card, the talon, the
    drawn card and the trump; in the shed phase each player's hand face down with its card
    count (or "out"), the trump and the trick as it stands."""
    _ = translator(lang).gettext
    n_ = translator(lang).ngettext
    players = [shown_name(p, lang) for p in view.players]  # an AI in the reader's words
    names = [cut(p) for p in players]
    trump = SUITS.index(view.trump) if view.trump else None
    trump_word = suit_word(trump, lang) if trump is not None else ""
    if view.phase == Phase.COLLECT:
        seats = []
        said = []
        for seat, name in enumerate(names):
            top = view.tops[seat]
            count = view.counts[seat]
            label = f"{name}\n" + n_("{count} card", "{count} cards", count).format(count=count)
            seats.append(Place(label, top, rank_text(top.rank, lang) if top else "",
                               mark=seat == view.to_act))
            said.append(_("{name}: {card}").format(
                name=players[seat],
                card=card_word(top, lang) if top is not None else _("empty")))
        extras = [Place(_("Talon {count}").format(count=view.talon), back=view.talon > 0)]
        if view.drawn is not None:
            extras.append(Place(_("Drawn card"), view.drawn, rank_text(view.drawn.rank, lang),
                                mark=True))
            said.append(_("Drawn card: {card}").format(card=card_word(view.drawn, lang)))
        if trump is not None:
            extras.append(Place(_("Trump"), suit=trump))
            said.append(_("Trump: {suit}").format(suit=trump_word))
        rows = [tuple(seats[i:i + PER_TABLE_ROW]) for i in range(0, len(seats),
                                                                 PER_TABLE_ROW)]
        rows.append(tuple(extras))
        text = _("Stack tops: {tops}.").format(tops=semicolons(said, lang))
        return TableScene(tuple(rows), four), _alt(text)
    if view.phase != Phase.SHED:
        return None
    # Each player: their hand face down and how many cards it holds, or an empty place and
    # "out"; the one to act edged in gold. Then the trump and the trick as it stands.
    seats, held = [], []
    for seat, name in enumerate(names):
        count = view.counts[seat]
        out = seat in view.out or count == 0
        holds = _("out") if out else n_("{count} card", "{count} cards", count).format(
            count=count)
        seats.append(Place(f"{name}\n{holds}", back=not out, mark=seat == view.to_act))
        held.append(_("{name}: {card}").format(name=players[seat], card=holds))
    places = [Place(_("Trump"), suit=trump)] if trump is not None else []
    last = len(view.trick) - 1
    for i, (seat, card) in enumerate(view.trick):
        places.append(Place(names[seat], card, rank_text(card.rank, lang), mark=i == last))
    if not view.trick and view.to_act is not None:
        places.append(Place(names[view.to_act], mark=True))
    shed_rows = tuple(tuple(row[i:i + PER_TABLE_ROW])
                      for row in (seats, places) for i in range(0, len(row), PER_TABLE_ROW))
    trick = ", ".join(_("{card} ({name})").format(card=card_word(card, lang),
                                                  name=players[seat])
                      for seat, card in view.trick) or _("empty")
    text = _("Trump: {suit}").format(suit=trump_word) + ". " + \
        _("Trick: {cards}").format(cards=trick) + ". " + \
        _("Hands: {counts}.").format(counts=semicolons(held, lang))
    return TableScene(shed_rows, four), _alt(text)


def cut(name: str) -> str:
    """A name for a picture: whole, unless it is longer than any picture has room for (the
    drawing fits it to its place, smaller or with an ellipsis)."""
    return name if len(name) <= NAME_CHARS else name[:NAME_CHARS - 1] + "…"


def _alt(text: str) -> str:
    return text if len(text) <= ALT_LIMIT else text[:ALT_LIMIT - 1] + "…"


# --- cards in words ------------------------------------------------------------------------
# Each kept once worked out (a few dozen a language): every hand's alt text says each card,
# and a new hand picture is made for about every move.

@functools.lru_cache(maxsize=256)
def rank_word(rank: int, lang: Lang) -> str:
    """A rank as a word in ``lang``: ``jack``, ``bubi``, ``valet``; numbers as digits."""
    _ = translator(lang).gettext
    words = {14: _("ace"), 13: _("king"), 12: _("queen"), 11: _("jack")}
    return words.get(rank, str(rank))


@functools.lru_cache(maxsize=64)
def suit_word(suit: int, lang: Lang) -> str:
    """A suit's name without its symbol: ``spades``, ``pikk``, ``pique``."""
    return suit_name(suit, lang).split(" ", 1)[-1]


@functools.lru_cache(maxsize=1024)
def card_word(card: Card, lang: Lang) -> str:
    """``jack of spades``, ``pikk bubi``, ``valet de pique``."""
    return translator(lang).gettext("{rank} of {suit}").format(
        rank=rank_word(card.rank, lang), suit=suit_word(card.suit, lang))


def card_words(cards: Iterable[Card], lang: Lang) -> str:
    return ", ".join(card_word(c, lang) for c in cards)


def suits_words(hand: list[Card], trump: str | None, lang: Lang) -> str:
    """``spades: 7, 9, jack; hearts (trump): 8, queen`` in the hand's order."""
    _ = translator(lang).gettext
    parts = []
    for suit in suit_order(trump):
        ranks = [rank_word(c.rank, lang) for c in hand if c.suit == suit]
        if ranks:
            name = suit_word(suit, lang)
            if trump is not None and suit == SUITS.index(trump):
                name = _("{suit} (trump)").format(suit=name)
            parts.append(_("{suit}: {cards}").format(suit=name, cards=", ".join(ranks)))
    return semicolons(parts, lang)


def semicolons(parts: list[str], lang: Lang) -> str:
    """Parts joined by semicolons as ``lang`` writes them (French: a narrow no-break space
    before each), through the catalogue's "{earlier}; {later}"."""
    _ = translator(lang).gettext
    text = parts[0] if parts else ""
    for part in parts[1:]:
        text = _("{earlier}; {later}").format(earlier=text, later=part)
    return text
