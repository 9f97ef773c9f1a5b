"""Card pictures drawn with Pillow: a player's cards in rows, and the table's public cards.

Pure and synchronous: a scene (what a picture shows, hashable, so it is also the cache key)
in, PNG bytes and where each card was put out. Nothing here knows Discord or a language: the
rank letters and labels arrive already in the viewer's words.

Cards are drawn once per look (rank, suit, colours, standing out or back) as tiles, already
in one fixed palette, and pasted: a 40-card hand is 40 pastes into a palette image and one
PNG encoding, not 120 text drawings and a quantization. A picture is a few kilobytes.
"""

from __future__ import annotations

import io
import threading
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from rules import Card

FONTS = Path(__file__).parent / "fonts"
REGULAR = "DejaVuSans.ttf"
BOLD = "DejaVuSans-Bold.ttf"

CARD_W, CARD_H = 60, 84
STEP = 32  # the overlap of cards in a row: the left strip shows rank and suit
RAISE = 12  # how far a card you may play stands out of its row
ROW_GAP = 8
MARGIN = 10
PER_ROW = 13  # a suit never has more than 13 cards; a stack wraps after this many
CELL_W, LABEL_H = 80, 32  # a place on the table: a card and a label under it
PER_TABLE_ROW = 5
SYMBOLS = "♠♥♦♣"

FELT = (30, 86, 49)
LABEL = (240, 240, 240)
FACE = (252, 252, 250)
EDGE = (120, 120, 120)
MUTED_FACE = (170, 174, 170)
GOLD = (255, 193, 7)
BACK = (55, 71, 79)
BACK_LINE = (120, 144, 156)
EMPTY = (22, 66, 37)
BLACK = (25, 25, 25)
RED = (200, 30, 30)
BLUE = (21, 90, 200)
GREEN = (20, 120, 40)
# ♠ ♥ ♦ ♣: two colours (black and red), or four for players who can't tell the suits apart.
TWO_COLOURS = (BLACK, RED, RED, BLACK)
FOUR_COLOURS = (BLACK, RED, BLUE, GREEN)
SHADES = 8  # steps between a background and the ink on it: the letters' smooth edges

PLAIN, PLAYABLE, MUTED = "plain", "playable", "muted"


class FontMissing(RuntimeError):
    """The font the pictures need is not where it should be."""


@dataclass(frozen=True)
class Shown:
    """One card in a player's picture: its rank as the viewer's language writes it, and
    whether it stands out (may be played now), back (may not) or neither."""

    card: Card
    rank: str
    state: str = PLAIN


@dataclass(frozen=True)
class HandScene:
    """A player's cards, one row per tuple (a suit each, or a stack in runs of 13)."""

    rows: tuple[tuple[Shown, ...], ...]
    four: bool

    def key(self) -> Key:
        """What the scene shows, as plain values (see ``Key``)."""
        return ("hand", self.four, len(self.rows), *map(len, self.rows),
                *(v for row in self.rows for s in row for v in (int(s.card), s.rank, s.state)))


@dataclass(frozen=True)
class Place:
    """A place on the table: a card (None: empty), or a suit alone (the trump), or the
    talon's back; a label under it, and a gold edge for the one that matters now."""

    label: str
    card: Card | None = None
    rank: str = ""
    suit: int | None = None
    back: bool = False
    mark: bool = False


@dataclass(frozen=True)
class TableScene:
    rows: tuple[tuple[Place, ...], ...]
    four: bool

    def key(self) -> Key:
        """What the scene shows, as plain values (see ``Key``)."""
        return ("table", self.four, len(self.rows), *map(len, self.rows),
                *(v for row in self.rows for p in row for v in (
                    p.label, -1 if p.card is None else int(p.card), p.rank, p.suit, p.back,
                    p.mark)))


# A scene as one flat tuple of strings, numbers and flags (the kind, the colours, the number
# of rows and each one's length, then each card's values in order): equal when the pictures
# are, and invisible to Python's garbage collector once it has seen it (a tuple of plain
# values is not tracked; a nested one is untracked one level per full collection), so a
# cache of thousands of pictures keyed by them gives a full collection nothing to scan.
Key = tuple[object, ...]


@dataclass(frozen=True)
class Box:
    """Where a card was drawn, and how: tests and the alt text read this."""

    card: Card
    x0: int
    y0: int
    x1: int
    y1: int
    state: str

    def plain(self) -> tuple[int, int, int, int, int, str]:
        """The box as plain values (``Picture.layout`` keeps them in one flat tuple)."""
        return int(self.card), self.x0, self.y0, self.x1, self.y1, self.state


@dataclass(frozen=True)
class Drawn:
    png: bytes
    width: int
    height: int
    boxes: tuple[Box, ...]


_lock = threading.Lock()  # FreeType faces are not safe to share between threads


def check_fonts(folder: Path = FONTS) -> None:
    """Raise ``FontMissing`` unless both font files are there."""
    for name in (REGULAR, BOLD):
        if not (folder / name).is_file():
            raise FontMissing(f"{folder / name} is missing")


@lru_cache(maxsize=16)
def _font(name: str, size: int, folder: Path = FONTS) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(folder / name), size)


def _colours(four: bool) -> tuple[tuple[int, int, int], ...]:
    return FOUR_COLOURS if four else TWO_COLOURS


def _muted(ink: tuple[int, ...]) -> tuple[int, ...]:
    """An ink on a card that stands back: two thirds of the way to its grey face."""
    return tuple((c + 2 * m) // 3 for c, m in zip(ink, MUTED_FACE, strict=True))


def _mix(a: tuple[int, ...], b: tuple[int, ...], part: float) -> tuple[int, ...]:
    return tuple(round(x + (y - x) * part) for x, y in zip(a, b, strict=True))


def _palette() -> Image.Image:
    """Every colour a picture uses: each ink on each background it is drawn on, in steps."""
    inks = (BLACK, RED, BLUE, GREEN)
    pairs = [(FACE, ink) for ink in (*inks, EDGE, GOLD)] + \
        [(MUTED_FACE, ink) for ink in (*map(_muted, inks), EDGE, GOLD)] + \
        [(FELT, ink) for ink in (LABEL, GOLD, EDGE, FACE, MUTED_FACE, BACK, EMPTY)] + \
        [(BACK, BACK_LINE), (BACK, EDGE), (BACK, GOLD), (EMPTY, LABEL), (EMPTY, GOLD)]
    colours: list[tuple[int, ...]] = [FELT]
    for ground, ink in pairs:
        colours += [_mix(ground, ink, i / (SHADES - 1)) for i in range(SHADES)]
    unique = list(dict.fromkeys(colours))[:256]
    flat = [v for colour in unique for v in colour]
    image = Image.new("P", (1, 1))
    image.putpalette(flat + list(FELT) * (256 - len(unique)))
    return image


_PALETTE = _palette()


def _fixed(tile: Image.Image) -> tuple[Image.Image, Image.Image]:
    """An RGBA drawing as a palette image in the fixed palette, and the mask of its shape."""
    ground = Image.new("RGB", tile.size, FELT)
    ground.paste(tile, (0, 0), tile)
    mask = tile.getchannel("A").point(lambda a: 255 if a >= 128 else 0)
    return ground.quantize(palette=_PALETTE, dither=Image.Dither.NONE), mask


@lru_cache(maxsize=2048)
def _tile(rank: str, suit: int, state: str, four: bool, folder: Path = FONTS
          ) -> tuple[Image.Image, Image.Image]:
    """One card face (RGBA, rounded corners): rank and small suit in the left strip that
    stays visible in a row, a large suit on the right for the top card."""
    tile = Image.new("RGBA", (CARD_W, CARD_H), (0, 0, 0, 0))
    pen = ImageDraw.Draw(tile)
    ink: tuple[int, ...] = _colours(four)[suit]
    face = FACE
    if state == MUTED:
        face = MUTED_FACE
        ink = _muted(ink)
    edge, width = (GOLD, 3) if state == PLAYABLE else (EDGE, 1)
    pen.rounded_rectangle((0, 0, CARD_W - 1, CARD_H - 1), radius=6, fill=face,
                          outline=edge, width=width)
    bold = _font(BOLD, 19 if len(rank) == 1 else 16, folder)
    pen.text((STEP // 2 + 1, 15), rank, font=bold, fill=ink, anchor="mm")
    pen.text((STEP // 2 + 1, 37), SYMBOLS[suit], font=_font(REGULAR, 18, folder), fill=ink,
             anchor="mm")
    pen.text((CARD_W - 17, CARD_H - 22), SYMBOLS[suit], font=_font(REGULAR, 30, folder),
             fill=ink, anchor="mm")
    return _fixed(tile)


@lru_cache(maxsize=64)
class Special(StrEnum):
    """A place that shows no card face."""

    BACK = "back"  # the talon
    EMPTY = "empty"  # an empty stack or trick
    SUIT = "suit"  # a suit alone: the trump


def _special(kind: Special, suit: int, four: bool, mark: bool, folder: Path = FONTS
             ) -> tuple[Image.Image, Image.Image]:
    """The talon's back, an empty place, or a suit alone (the trump)."""
    tile = Image.new("RGBA", (CARD_W, CARD_H), (0, 0, 0, 0))
    pen = ImageDraw.Draw(tile)
    edge, width = (GOLD, 3) if mark else (EDGE, 1)
    box = (0, 0, CARD_W - 1, CARD_H - 1)
    if kind is Special.BACK:
        pen.rounded_rectangle(box, radius=6, fill=BACK, outline=edge, width=width)
        pen.rounded_rectangle((6, 6, CARD_W - 7, CARD_H - 7), radius=4, outline=BACK_LINE,
                              width=2)
    elif kind is Special.EMPTY:
        pen.rounded_rectangle(box, radius=6, fill=EMPTY, outline=GOLD if mark else LABEL,
                              width=width)
    else:
        pen.rounded_rectangle(box, radius=6, fill=FACE, outline=edge, width=width)
        pen.text((CARD_W // 2, CARD_H // 2), SYMBOLS[suit], font=_font(REGULAR, 44, folder),
                 fill=_colours(four)[suit], anchor="mm")
    return _fixed(tile)


@lru_cache(maxsize=4096)
def _label(text: str, mark: bool, folder: Path = FONTS) -> tuple[Image.Image, Image.Image]:
    """One line of a place's label, cut to fit, in the fixed palette, with the mask of its
    letters (the felt around them is left as it is)."""
    font = _font(REGULAR, 12, folder)
    ink = Image.new("L", (CELL_W, 15), 0)
    ImageDraw.Draw(ink).text((CELL_W // 2, 7), fit(text, font, CELL_W - 4), font=font,
                             fill=255, anchor="mm")
    line = Image.new("RGB", ink.size, FELT)
    line.paste(GOLD if mark else LABEL, (0, 0, *ink.size), ink)
    mask = ink.point(lambda a: 255 if a >= 32 else 0)
    return line.quantize(palette=_PALETTE, dither=Image.Dither.NONE), mask


def _canvas(width: int, height: int) -> Image.Image:
    canvas = Image.new("P", (width, height), 0)  # the palette's first colour: the felt
    canvas.putpalette(_PALETTE.getpalette() or [])
    return canvas


def _finish(canvas: Image.Image) -> bytes:
    """The picture as a small palette PNG."""
    out = io.BytesIO()
    canvas.save(out, "PNG", compress_level=1)  # 2–3 times faster than 6, 40 % larger
    return out.getvalue()


def draw_hand(scene: HandScene, folder: Path = FONTS) -> Drawn:
    """A player's cards: each row left to right, overlapping; a card you may play raised
    and edged in gold, one you may not greyed."""
    longest = max((len(row) for row in scene.rows), default=0)
    width = 2 * MARGIN + CARD_W + STEP * max(longest - 1, 0)
    row_h = CARD_H + RAISE + ROW_GAP
    height = 2 * MARGIN + row_h * max(len(scene.rows), 1) - ROW_GAP
    canvas = _canvas(width, height)
    boxes: list[Box] = []
    with _lock:
        for r, row in enumerate(scene.rows):
            top = MARGIN + r * row_h + RAISE
            for i, shown in enumerate(row):
                x = MARGIN + i * STEP
                y = top - (RAISE if shown.state == PLAYABLE else 0)
                tile, shape = _tile(shown.rank, shown.card.suit, shown.state, scene.four,
                                    folder)
                canvas.paste(tile, (x, y), shape)
                boxes.append(Box(shown.card, x, y, x + CARD_W, y + CARD_H, shown.state))
        png = _finish(canvas)
    return Drawn(png, width, height, tuple(boxes))


def draw_table(scene: TableScene, folder: Path = FONTS) -> Drawn:
    """The table's public cards in rows of places, each with its label under it."""
    longest = max((len(row) for row in scene.rows), default=1)
    width = 2 * MARGIN + CELL_W * longest
    row_h = CARD_H + LABEL_H + ROW_GAP
    height = 2 * MARGIN + row_h * max(len(scene.rows), 1) - ROW_GAP
    canvas = _canvas(width, height)
    boxes: list[Box] = []
    with _lock:
        for r, row in enumerate(scene.rows):
            y = MARGIN + r * row_h
            for i, place in enumerate(row):
                left = MARGIN + i * CELL_W
                x = left + (CELL_W - CARD_W) // 2
                if place.card is not None:
                    tile, shape = _tile(place.rank, place.card.suit,
                                        PLAYABLE if place.mark else PLAIN, scene.four, folder)
                    boxes.append(Box(place.card, x, y, x + CARD_W, y + CARD_H,
                                     PLAYABLE if place.mark else PLAIN))
                elif place.back:
                    tile, shape = _special(Special.BACK, 0, scene.four, place.mark, folder)
                elif place.suit is not None:
                    tile, shape = _special(Special.SUIT, place.suit, scene.four, place.mark, folder)
                else:
                    tile, shape = _special(Special.EMPTY, 0, scene.four, place.mark, folder)
                canvas.paste(tile, (x, y), shape)
                for line, text in enumerate(place.label.split("\n")[:2]):
                    letters, shape = _label(text, place.mark, folder)
                    canvas.paste(letters, (left, y + CARD_H + 2 + 14 * line), shape)
        png = _finish(canvas)
    return Drawn(png, width, height, tuple(boxes))


def fit(text: str, font: ImageFont.FreeTypeFont, width: int) -> str:
    """``text``, cut with an ellipsis to fit ``width`` pixels."""
    if font.getlength(text) <= width:
        return text
    while text and font.getlength(text + "…") > width:
        text = text[:-1]
    return text + "…"
