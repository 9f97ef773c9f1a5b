"""A replay step as a picture: the whole table with every hand face up, and its alt text.

Only finished hands are replayed (nothing is secret any more), so the scene is built from the
engine's full state, not a seat's view. A row per seat: its name and count on the left, then
its stack (bottom to top, the top card whole) or its hand (a row per suit's order, trump
last); under them the talon, the drawn card, the trump and the trick. Drawn with the table
pictures' card faces and palette (``draw``), so a 9-seat step is a few dozen pastes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cogs.pictures.draw import (
    CARD_H,
    CARD_W,
    CELL_W,
    FONTS,
    LABEL_H,
    MARGIN,
    PLAIN,
    PLAYABLE,
    ROW_GAP,
    STEP,
    Box,
    Drawn,
    Key,
    Special,
    _canvas,
    _finish,
    _label,
    _lock,
    _special,
    _tile,
)
from cogs.pictures.scenes import card_word, card_words, cut, sorted_hand, suit_word
from cogs.render.text import ordinal
from rules import Card, Game, Phase
from rules.cards import SUITS
from rules.i18n import Lang, rank_text, translator

REPLAY_FILE = "replay.png"
ALT_LIMIT = 1024
NAME_W = CELL_W + 20  # the seat's name and count, left of its cards
PER_LINE = 20  # cards in one line of a seat's row; a longer hand wraps


@dataclass(frozen=True)
class Seat:
    """One seat's row: its label lines, its cards in order, and whether it is to act."""

    label: str
    cards: tuple[tuple[Card, str], ...]  # card, rank as shown
    mark: bool = False


@dataclass(frozen=True)
class ReplayScene:
    seats: tuple[Seat, ...]
    talon: int
    drawn: tuple[Card, str] | None
    trump: int | None
    trick: tuple[tuple[str, Card, str], ...]  # (name, card, rank), bottom to top
    four: bool
    labels: tuple[str, str, str] = ("", "", "")  # under the talon, the drawn card, the trump

    def key(self) -> Key:
        """What the scene shows, as plain values (the pictures' cache key)."""
        flat: list[object] = ["replay", self.four, self.talon, self.trump,
                              -1 if self.drawn is None else int(self.drawn[0]),
                              len(self.seats)]
        for seat in self.seats:
            flat += [seat.label, seat.mark, len(seat.cards)]
            flat += [v for card, rank in seat.cards for v in (int(card), rank)]
        flat += [v for name, card, rank in self.trick for v in (name, int(card), rank)]
        flat += self.labels
        return tuple(flat)


def replay_scene(game: Game, lang: Lang, four: bool, letters: Lang | None = None
                 ) -> tuple[ReplayScene, str]:
    """The table at this step with every hand face up, and its alt text in ``lang``
    (the table's public cards first, so a cut alt text still names them); the cards show
    ``letters``' rank letters."""
    _ = translator(lang).gettext
    n_ = translator(lang).ngettext
    ranks = letters or lang
    trump = SUITS[game.trump] if game.trump is not None else None
    collect = game.phase is Phase.COLLECT
    places = {seat: i for i, seat in enumerate(game.out, 1)}
    seats = []
    said_hands = []
    for seat, name in enumerate(game.names):
        cards = list(game.stacks[seat]) if collect else sorted_hand(game.stacks[seat], trump)
        count = len(cards)
        if game.loser == seat:
            status = _("loses")
        elif seat in places and not collect:
            status = _("out ({place})").format(place=ordinal(places[seat], lang))
        else:
            status = n_("{count} card", "{count} cards", count).format(count=count)
        seats.append(Seat(f"{cut(name)}\n{status}",
                          tuple((c, rank_text(c.rank, ranks)) for c in cards),
                          mark=seat == game.to_act))
        if cards:
            said_hands.append(_("{name}: {cards}").format(name=name,
                                                          cards=card_words(cards, lang)))
    said = []
    if collect:
        tops = [_("{name}: {card}").format(
            name=name, card=card_word(game.stacks[s][-1], lang) if game.stacks[s]
            else _("empty")) for s, name in enumerate(game.names)]
        said.append(_("Stack tops") + ": " + "; ".join(tops))
        said.append(_("Talon {count}").format(count=len(game.talon)))
        if game.drawn is not None:
            said.append(_("Drawn card: {card}").format(card=card_word(game.drawn, lang)))
    if game.trump is not None:
        said.append(_("Trump: {suit}").format(suit=suit_word(game.trump, lang)))
    if not collect:
        trick = ", ".join(_("{card} ({name})").format(card=card_word(card, lang),
                                                      name=game.names[seat])
                          for seat, card in zip(game.trick_seats, game.trick, strict=True))
        said.append(_("Trick: {cards}").format(cards=trick or _("empty")))
    said.append(_("Every hand") + ": " + "; ".join(said_hands))
    text = ". ".join(said) + "."
    scene = ReplayScene(
        tuple(seats), len(game.talon),
        (game.drawn, rank_text(game.drawn.rank, ranks)) if game.drawn is not None else None,
        game.trump,
        tuple((cut(game.names[seat]), card, rank_text(card.rank, ranks))
              for seat, card in zip(game.trick_seats, game.trick, strict=True)),
        four, (_("Talon {count}").format(count=len(game.talon)), _("Drawn"), _("Trump")))
    return scene, text if len(text) <= ALT_LIMIT else text[:ALT_LIMIT - 1] + "…"


def draw_replay(scene: ReplayScene, folder: Path = FONTS) -> Drawn:
    """Each seat's row of face-up cards beside its label, then the talon, the drawn card,
    the trump and the trick, each with its label under it."""
    lines = [max(1, -(-len(seat.cards) // PER_LINE)) for seat in scene.seats]
    longest = max((min(len(s.cards), PER_LINE) for s in scene.seats), default=1)
    extras: list[tuple[str, Card | None, str, str]] = []  # label, card, rank, kind
    talon, drawn, trump = scene.labels
    if scene.talon:
        extras.append((talon, None, "", "back"))
    if scene.drawn is not None:
        extras.append((drawn, scene.drawn[0], scene.drawn[1], "drawn"))
    if scene.trump is not None:
        extras.append((trump, None, "", "trump"))
    extras += [(name, card, rank, "trick") for name, card, rank in scene.trick]
    seat_w = NAME_W + CARD_W + STEP * max(longest - 1, 0)
    width = 2 * MARGIN + max(seat_w, CELL_W * max(len(extras), 1))
    line_h = CARD_H + ROW_GAP
    height = 2 * MARGIN + line_h * sum(lines) + (CARD_H + LABEL_H if extras else 0)
    canvas = _canvas(width, height)
    boxes: list[Box] = []
    with _lock:
        y = MARGIN
        for seat, count in zip(scene.seats, lines, strict=True):
            for line, text in enumerate(seat.label.split("\n")[:2]):
                letters, shape = _label(text, seat.mark, folder)
                canvas.paste(letters, (MARGIN, y + CARD_H // 2 - 15 + 16 * line), shape)
            if not seat.cards:
                tile, shape = _special(Special.EMPTY, 0, scene.four, seat.mark, folder)
                canvas.paste(tile, (MARGIN + NAME_W, y), shape)
            for i, (card, rank) in enumerate(seat.cards):
                x = MARGIN + NAME_W + (i % PER_LINE) * STEP
                top = y + (i // PER_LINE) * line_h
                tile, shape = _tile(rank, card.suit, PLAIN, scene.four, folder)
                canvas.paste(tile, (x, top), shape)
                boxes.append(Box(card, x, top, x + CARD_W, top + CARD_H, PLAIN))
            y += count * line_h
        last = len(extras) - 1
        for i, (label, shown, rank, kind) in enumerate(extras):
            left = MARGIN + i * CELL_W
            x = left + (CELL_W - CARD_W) // 2
            mark = kind == "drawn" or (kind == "trick" and i == last)
            if shown is not None:
                state = PLAYABLE if mark else PLAIN
                tile, shape = _tile(rank, shown.suit, state, scene.four, folder)
                boxes.append(Box(shown, x, y, x + CARD_W, y + CARD_H, state))
            elif kind == "back":
                tile, shape = _special(Special.BACK, 0, scene.four, False, folder)
            else:
                assert scene.trump is not None
                tile, shape = _special(Special.SUIT, scene.trump, scene.four, False, folder)
            canvas.paste(tile, (x, y), shape)
            if label:
                letters, shape = _label(label, mark, folder)
                canvas.paste(letters, (left, y + CARD_H + 2), shape)
        png = _finish(canvas)
    return Drawn(png, width, height, tuple(boxes))
