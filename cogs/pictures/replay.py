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
    FORMATS,
    FRAME,
    GOLD,
    LABEL,
    LABEL_H,
    LINE_H,
    MARGIN,
    PLAIN,
    PLAYABLE,
    ROW_GAP,
    STEP,
    Canvas,
    Drawn,
    Frame,
    Key,
    Special,
    _lock,
)
from cogs.pictures.scenes import (
    card_word,
    card_words,
    cut,
    semicolons,
    sorted_hand,
    suit_word,
)
from cogs.render.text import ordinal
from rules import Card, Game, Phase
from rules.cards import SUITS
from rules.i18n import Lang, is_ai_name, rank_text, shown_name, translator

REPLAY_FILE = f"replay.{FORMATS['replay']}"
ALT_LIMIT = 1024
NAME_W = CELL_W + 26  # the seat's name and count, left of its cards
PER_LINE = 20  # the most cards in one line of a seat's row; a longer hand wraps


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
    names = [shown_name(name, lang) for name in game.names]  # AI seats in lang's words
    seats = []
    said_hands = []
    for seat, name in enumerate(names):
        cards = list(game.stacks[seat]) if collect else sorted_hand(game.stacks[seat], trump)
        count = len(cards)
        if game.loser == seat:
            status = _("loses")
        elif seat in places and not collect:
            status = _("out ({place})").format(place=ordinal(places[seat], lang,
                                                             ai=is_ai_name(game.names[seat])))
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
            else _("empty")) for s, name in enumerate(names)]
        said.append(_("{title}: {cards}.").format(title=_("Stack tops"),
                                                  cards=semicolons(tops, lang)))
        said.append(_("Talon {count}").format(count=len(game.talon)) + ".")
        if game.drawn is not None:
            said.append(_("Drawn card: {card}").format(card=card_word(game.drawn, lang)) + ".")
    if game.trump is not None:
        said.append(_("Trump: {suit}").format(suit=suit_word(game.trump, lang)) + ".")
    if not collect:
        trick = ", ".join(_("{card} ({name})").format(card=card_word(card, lang),
                                                      name=names[seat])
                          for seat, card in zip(game.trick_seats, game.trick, strict=True))
        said.append(_("Trick: {cards}").format(cards=trick or _("empty")) + ".")
    said.append(_("{title}: {cards}.").format(title=_("Every hand"),
                                              cards=semicolons(said_hands, lang)))
    text = " ".join(said)
    scene = ReplayScene(
        tuple(seats), len(game.talon),
        (game.drawn, rank_text(game.drawn.rank, ranks)) if game.drawn is not None else None,
        game.trump,
        tuple((cut(names[seat]), card, rank_text(card.rank, ranks))
              for seat, card in zip(game.trick_seats, game.trick, strict=True)),
        four, (_("Talon {count}").format(count=len(game.talon)), _("Drawn card"), _("Trump")))
    return scene, text if len(text) <= ALT_LIMIT else text[:ALT_LIMIT - 1] + "…"


def _columns(scene: ReplayScene, cols: int, per_line: int) -> tuple[list[list[int]], float,
                                                                     float, list[int]]:
    """The seats split into ``cols`` columns (in order, top to bottom then left to right),
    each seat's number of card lines, and the content's size in card units."""
    lines = [max(1, -(-len(seat.cards) // per_line)) for seat in scene.seats]
    longest = max((min(len(s.cards), per_line) for s in scene.seats), default=1)
    per_col = -(-len(scene.seats) // cols) if scene.seats else 0
    columns = [list(range(i, min(i + per_col, len(scene.seats))))
               for i in range(0, len(scene.seats), max(per_col, 1))]
    seat_w = NAME_W + CARD_W + STEP * max(longest - 1, 0)
    line_h = CARD_H + ROW_GAP
    tallest = max((sum(lines[i] for i in col) for col in columns), default=0) * line_h
    extras = len(_extras(scene))
    width = 2 * MARGIN + max(seat_w * len(columns) + 2 * MARGIN * (len(columns) - 1),
                             CELL_W * max(extras, 1))
    height = 2 * MARGIN + tallest + (CARD_H + LABEL_H if extras else 0)
    return columns, width, height, lines


def _extras(scene: ReplayScene) -> list[tuple[str, Card | None, str, str]]:
    """Under the seats: the talon, the drawn card, the trump and the trick (label, card,
    rank, kind)."""
    extras: list[tuple[str, Card | None, str, str]] = []
    talon, drawn, trump = scene.labels
    if scene.talon:
        extras.append((talon, None, "", "back"))
    if scene.drawn is not None:
        extras.append((drawn, scene.drawn[0], scene.drawn[1], "drawn"))
    if scene.trump is not None:
        extras.append((trump, None, "", "trump"))
    extras += [(name, card, rank, "trick") for name, card, rank in scene.trick]
    return extras


def draw_replay(scene: ReplayScene, folder: Path = FONTS, frame: Frame = FRAME,
                caption: str = "") -> Drawn:
    """Each seat's row of face-up cards beside its label (in as many columns as lets the
    cards be largest), then the talon, the drawn card, the trump and the trick, each with its
    label under it; ``caption``: a line at the top (an animation's frame says its move)."""
    pw, ph = frame.pixels
    top = LABEL_H if caption else 0
    best: tuple[float, int, int] | None = None
    for cols in (1, 2, 3):
        for per_line in (6, 8, 10, 13, PER_LINE):
            _c, width, height, _l = _columns(scene, cols, per_line)
            candidate = (min(pw / width, ph / (height + top)), -cols, per_line)
            if best is None or candidate > best:
                best = candidate
    assert best is not None
    columns, width, height, lines = _columns(scene, -best[1], best[2])
    per_line = best[2]
    longest = max((min(len(s.cards), per_line) for s in scene.seats), default=1)
    seat_w = NAME_W + CARD_W + STEP * max(longest - 1, 0)
    line_h = CARD_H + ROW_GAP
    extras = _extras(scene)
    with _lock:
        canvas = Canvas(frame, width, height + top, folder)
        if caption:
            canvas.text(caption, MARGIN, MARGIN / 2, width - 2 * MARGIN, ink=GOLD, size=15)
        bottom = MARGIN + top
        for c, column in enumerate(columns):
            y = MARGIN + top
            left = MARGIN + c * (seat_w + 2 * MARGIN)
            for index in column:
                seat = scene.seats[index]
                ink = GOLD if seat.mark else LABEL
                for line, text in enumerate(seat.label.split("\n")[:2]):
                    canvas.text(text, left, y + CARD_H / 2 - LINE_H - 2 + (LINE_H + 4) * line,
                                NAME_W - 6, ink=ink, size=13, align="l")
                if not seat.cards:
                    canvas.special(Special.EMPTY, 0, scene.four, seat.mark, left + NAME_W, y)
                for i, (card, rank) in enumerate(seat.cards):
                    canvas.card(card, rank, PLAIN, scene.four,
                                left + NAME_W + (i % per_line) * STEP,
                                y + (i // per_line) * line_h)
                y += lines[index] * line_h
            bottom = max(bottom, y)
        last = len(extras) - 1
        for i, (label, shown, rank, kind) in enumerate(extras):
            left = MARGIN + i * CELL_W
            x = left + (CELL_W - CARD_W) / 2
            mark = kind == "drawn" or (kind == "trick" and i == last)
            if shown is not None:
                canvas.card(shown, rank, PLAYABLE if mark else PLAIN, scene.four, x, bottom)
            elif kind == "back":
                canvas.special(Special.BACK, 0, scene.four, False, x, bottom)
            else:
                assert scene.trump is not None
                canvas.special(Special.SUIT, scene.trump, scene.four, False, x, bottom)
            canvas.text(label, left + 1, bottom + CARD_H + 2, CELL_W - 2,
                        ink=GOLD if mark else LABEL)
        return canvas.finish("replay")
