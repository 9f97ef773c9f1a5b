"""Card pictures drawn with Pillow: a player's cards, the table's public cards, and the
pieces the replay and end-of-hand pictures are made of.

Pure and synchronous: a scene (what a picture shows, hashable, so it is also the cache key)
and a ``Frame`` (the box a picture is shown in, in CSS pixels, and the screen's pixel ratio)
in; the encoded picture and where each card was put out. Nothing here knows Discord or a
language: the rank letters and labels arrive already in the viewer's words.

Every picture is laid out in card units (a card is ``CARD_W`` × ``CARD_H``), the layout that
lets the cards be largest in the frame is chosen (a hand of 1 card or 52 fills the box, never a
tall column), and it is drawn at the frame's size times its pixel ratio, so it is sharp on a
high-density screen. Everything is drawn in one fixed palette, so no picture is quantised:
the parts of a card face (its ground and edge, each letter and pip where it goes, the court
emblems, anti-aliased) are drawn once per size, at start-up for the common sizes, and each
card is painted from them with a few pastes (no face is kept whole: the parts are shared by
every face), so a 40-card hand is a few hundred small pastes into a palette image and one PNG
encoding (ISA-L's deflate, rows unfiltered: a third of the time of zlib's fastest level).
"""

from __future__ import annotations

import io
import struct
import threading
import time
import unicodedata
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from isal import isal_zlib
from PIL import Image, ImageChops, ImageDraw, ImageFont

import cogs.pictures.glyphs as glyphs
from rules import Card

FONTS = Path(__file__).parent / "fonts"
REGULAR = "DejaVuSans.ttf"
BOLD = "DejaVuSans-Bold.ttf"

# Card units: the layout's measures. A card is drawn at whatever pixel width the frame allows.
CARD_W, CARD_H = 60, 84
STEP = 30  # the overlap of cards in a row: the left strip shows rank and suit
SPREAD = CARD_W + 6  # cards side by side, when the frame has room for that
RAISE = 12  # how far a card you may play stands out of its row
ROW_GAP = 8
GROUP_GAP = 14  # between two suits sharing a line
MARGIN = 10
PER_ROW = 13  # a suit never has more than 13 cards; a stack wraps after this many
CELL_W, LABEL_H = 84, 32  # a place on the table: a card and two label lines under it
LINE_H = 14  # one label line
PER_TABLE_ROW = 5
SYMBOLS = "♠♥♦♣"
TEXT_SIZES = (12, 13, 15, 17)  # the sizes of the labels on the felt, in card units
# The letters labels are mostly written in (the three languages' alphabets, digits,
# punctuation, the suits): drawn at start-up with the card faces' parts, at each label size.
LETTERS = ("".join(map(chr, range(0x20, 0x7F))) + "áéíóöőúüűÁÉÍÓÖŐÚÜŰàâæçèêëîïôœùûÿ"
           "ÀÂÆÇÈÊËÎÏÔŒÙÛŸ«»’·…−±×\u00a0\u202f♠♥♦♣")
SUPER = 2  # tiles are drawn this many times larger and reduced: smooth edges everywhere

FELT = (30, 86, 49)
LABEL = (240, 240, 240)
FACE = (252, 252, 250)
EDGE = (120, 120, 120)
MUTED_FACE = (170, 174, 170)
GOLD = (255, 193, 7)
BACK = (38, 61, 110)
BACK_LINE = (150, 172, 214)
EMPTY = (22, 66, 37)
BLACK = (25, 25, 25)
RED = (200, 30, 30)
BLUE = (21, 90, 200)
GREEN = (20, 120, 40)
UP = (120, 230, 140)  # a rating that went up, on the felt
DOWN = (255, 140, 130)  # and one that went down
# ♠ ♥ ♦ ♣: two colours (black and red), or four for players who can't tell the suits apart.
TWO_COLOURS = (BLACK, RED, RED, BLACK)
FOUR_COLOURS = (BLACK, RED, BLUE, GREEN)
SHADES = 8  # steps between a background and the ink on it: the letters' smooth edges

PLAIN, PLAYABLE, MUTED = "plain", "playable", "muted"
PNG, WEBP = "png", "webp"


class FontMissing(RuntimeError):
    """The font the pictures need is not where it should be."""


@dataclass(frozen=True, slots=True)
class Frame:
    """Where a picture is shown: Discord's embed box in CSS pixels (wider than tall), and the
    device pixels per CSS pixel it is drawn for. A picture is exactly the box times the
    ratio, so it is shown as large as the box allows, and sharp."""

    width: int = 400
    height: int = 300
    ratio: float = 2.0

    @property
    def pixels(self) -> tuple[int, int]:
        return round(self.width * self.ratio), round(self.height * self.ratio)


FRAME = Frame()


@dataclass(frozen=True)
class Shown:
    """One card in a player's picture: its rank as the viewer's language writes it, and
    whether it stands out (may be played now), back (may not) or neither."""

    card: Card
    rank: str
    state: str = PLAIN


@dataclass(frozen=True)
class HandScene:
    """A player's cards, one group per tuple (a suit each, or a stack in runs of 13)."""

    rows: tuple[tuple[Shown, ...], ...]
    four: bool

    def key(self) -> Key:
        """What the scene shows, as plain values (see ``Key``)."""
        return self._key

    @cached_property
    def _key(self) -> Key:
        # Worked out once: a hand's scene is made once and asked for its key by the answer,
        # the picture foreseen for it and each redraw (``scenes.hand_scene``).
        return ("hand", self.four, len(self.rows), *map(len, self.rows),
                *(v for row in self.rows for s in row for v in (int(s.card), s.rank, s.state)))

    def __reduce__(self) -> tuple[object, ...]:
        """Pickled (for a drawing process) as plain values, a card's number, rank and state
        each: not an object per card, with its class and its fields by name (a quarter of
        the time, and half the bytes)."""
        return _hand_scene, (tuple(tuple((int(s.card), s.rank, s.state) for s in row)
                                   for row in self.rows), self.four)


def _hand_scene(rows: tuple[tuple[tuple[int, str, str], ...], ...], four: bool) -> HandScene:
    """A hand's scene from its plain values (``HandScene.__reduce__``)."""
    return HandScene(tuple(tuple(Shown(Card(card), rank, state) for card, rank, state in row)
                           for row in rows), four)


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

    def __reduce__(self) -> tuple[object, ...]:
        """Pickled as plain values, as a hand's scene is (``HandScene.__reduce__``)."""
        return _table_scene, (tuple(tuple(
            (p.label, -1 if p.card is None else int(p.card), p.rank, p.suit, p.back, p.mark)
            for p in row) for row in self.rows), self.four)


def _table_scene(rows: tuple[tuple[tuple[Any, ...], ...], ...], four: bool) -> TableScene:
    """A table's scene from its plain values (``TableScene.__reduce__``)."""
    return TableScene(tuple(tuple(
        Place(label, None if card < 0 else Card(card), rank, suit, back, mark)
        for label, card, rank, suit, back, mark in row) for row in rows), four)


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
    png: bytes  # the encoded picture, in ``format``
    width: int
    height: int
    boxes: tuple[Box, ...]
    format: str = PNG


class FontLock:
    """The lock every drawing holds (FreeType faces are not safe to share between threads).
    A picture takes it before the start-up drawing of the card faces' parts does: that
    takes it a few parts at a time (``after_waiting``), and lets a picture waiting for it go
    first, which a plain lock does not promise (the thread that lets it go may take it again
    at once, and again, while the picture's thread waits to be woken)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._count = threading.Lock()  # guards ``_waiting``
        self._waiting = 0  # pictures waiting for the lock

    def __enter__(self) -> None:
        with self._count:
            self._waiting += 1
        try:
            self._lock.acquire()
        finally:
            with self._count:
                self._waiting -= 1

    def __exit__(self, *_exc: object) -> None:
        self._lock.release()

    @contextmanager
    def after_waiting(self) -> Iterator[None]:
        """Hold the lock once no picture waits for it."""
        while True:
            self._lock.acquire()
            if not self._waiting:
                break
            self._lock.release()
            time.sleep(0.001)  # the picture's thread takes it meanwhile
        try:
            yield
        finally:
            self._lock.release()


_lock = FontLock()


def check_fonts(folder: Path = FONTS) -> None:
    """Raise ``FontMissing`` unless both font files are there."""
    for name in (REGULAR, BOLD):
        if not (folder / name).is_file():
            raise FontMissing(f"{folder / name} is missing")


@lru_cache(maxsize=64)
def _font(name: str, size: int, folder: Path = FONTS) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(folder / name), max(size, 4))


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
        [(FELT, ink) for ink in (LABEL, GOLD, EDGE, FACE, MUTED_FACE, BACK, EMPTY, UP, DOWN)] + \
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

# Masks made from a drawing's coverage (0–255), as lookup tables: the pixels half covered
# or more, any covered at all, an eighth or more (a letter's pixels on the felt).
_HALF = [0] * 128 + [255] * 128
_ANY = [0] + [255] * 255
_EIGHTH = [0] * 32 + [255] * 224


@lru_cache(maxsize=64)
def ramp(palette: tuple[int, ...], ground: tuple[int, ...], ink: tuple[int, ...]
         ) -> list[int] | None:
    """For an ink on a ground a palette (flat RGB) has in steps (``SHADES``): the palette
    index of each coverage 0–255, the nearest step; None for a pair it has no steps of."""
    index: dict[tuple[int, ...], int] = {}
    for i in range(len(palette) // 3 - 1, -1, -1):  # the first of equal colours wins
        index[tuple(palette[3 * i:3 * i + 3])] = i
    found = [index.get(_mix(ground, ink, i / (SHADES - 1))) for i in range(SHADES)]
    steps = [i for i in found if i is not None]
    if len(steps) < SHADES:
        return None
    return [steps[round(a * (SHADES - 1) / 255)] for a in range(256)]


_FLAT = tuple(_PALETTE.getpalette() or ())
# The palette as a picture's PNG writes it (``PLTE``), once: reading it back from each
# picture, a list of 768 numbers made into bytes, cost a twelfth of drawing a hand.
_PLTE = bytes(_FLAT)


def _fixed(tile: Image.Image) -> tuple[Image.Image, Image.Image]:
    """An RGBA drawing as a palette image in the fixed palette, and the mask of its shape."""
    ground = Image.new("RGB", tile.size, FELT)
    ground.paste(tile, (0, 0), tile)
    mask = tile.getchannel("A").point(_HALF)
    return ground.quantize(palette=_PALETTE, dither=Image.Dither.NONE), mask


# The widths a card is drawn at, in pixels, each a quarter larger than the one before: the
# cards of every layout come from a few sizes, each drawn once per card and kept (a picture's
# cards are at most a fifth smaller than the frame would allow; the frame is still filled).
SIZES = (40, 48, 60, 76, 94, 118, 148, 184, 230, 288, 360, 450)


def card_size(width: float) -> int:
    """The largest card width in ``SIZES`` not over ``width`` pixels."""
    return max((w for w in SIZES if w <= width), default=SIZES[0])


def card_height(width: int) -> int:
    return round(width * CARD_H / CARD_W)


# Where the pips of a number card go, as fractions of the pip area (columns left, middle,
# right; rows top to bottom), as on a printed card.
_L, _M, _R = 0.0, 0.5, 1.0
PIPS: dict[int, tuple[tuple[float, float], ...]] = {
    2: ((_M, 0), (_M, 1)),
    3: ((_M, 0), (_M, .5), (_M, 1)),
    4: ((_L, 0), (_R, 0), (_L, 1), (_R, 1)),
    5: ((_L, 0), (_R, 0), (_M, .5), (_L, 1), (_R, 1)),
    6: ((_L, 0), (_R, 0), (_L, .5), (_R, .5), (_L, 1), (_R, 1)),
    7: ((_L, 0), (_R, 0), (_M, .25), (_L, .5), (_R, .5), (_L, 1), (_R, 1)),
    8: ((_L, 0), (_R, 0), (_M, .25), (_L, .5), (_R, .5), (_M, .75), (_L, 1), (_R, 1)),
    9: ((_L, 0), (_R, 0), (_L, 1 / 3), (_R, 1 / 3), (_M, .5), (_L, 2 / 3), (_R, 2 / 3),
        (_L, 1), (_R, 1)),
    10: ((_L, 0), (_R, 0), (_M, 1 / 6), (_L, 1 / 3), (_R, 1 / 3), (_L, 2 / 3), (_R, 2 / 3),
         (_M, 5 / 6), (_L, 1), (_R, 1)),
}


def _emblem(pen: ImageDraw.ImageDraw, rank: int, box: tuple[float, float, float, float],
            ink: tuple[int, ...], accent: tuple[int, ...], u: float) -> None:
    """A court card's emblem of our own in ``box``: a crown for the king, a tiara for the
    queen, a plumed cap for the jack; the frame around it in the suit's ink."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    pen.rounded_rectangle(box, radius=3 * u, outline=ink, width=max(1, round(1.4 * u)))
    cx = (x0 + x1) / 2
    base = y0 + h * 0.62
    if rank == 13:  # king: a crown of three points, each with a ball
        band = (x0 + w * .18, base, x1 - w * .18, base + h * .12)
        points = [(band[0], base), (band[0], y0 + h * .3), (cx - w * .16, base - h * .12),
                  (cx, y0 + h * .22), (cx + w * .16, base - h * .12), (band[2], y0 + h * .3),
                  (band[2], base)]
        pen.polygon(points, fill=accent, outline=ink)
        pen.rectangle(band, fill=ink)
        for x, y in ((band[0], y0 + h * .3), (cx, y0 + h * .22), (band[2], y0 + h * .3)):
            r = w * .06
            pen.ellipse((x - r, y - r, x + r, y + r), fill=ink)
    elif rank == 12:  # queen: a tiara, an arc of five small points and a jewel
        left, right = x0 + w * .16, x1 - w * .16
        arc = [(left + (right - left) * i / 8, base - h * (.1 + .16 * (i % 2)) *
                (1 - abs(i - 4) / 6)) for i in range(9)]
        pen.polygon([(left, base), *arc, (right, base)], fill=accent, outline=ink)
        pen.rectangle((left, base, right, base + h * .1), fill=ink)
        r = w * .09
        jewel = base - h * .24
        pen.ellipse((cx - r, jewel - r, cx + r, jewel + r), fill=ink)
    else:  # jack: a cap with a plume
        left, right = x0 + w * .2, x1 - w * .2
        pen.chord((left, base - h * .32, right, base + h * .2), 180, 360, fill=accent,
                  outline=ink)
        pen.rectangle((left - w * .04, base - h * .02, right + w * .04, base + h * .1),
                      fill=ink)
        pen.line([(cx + w * .05, base - h * .28), (cx + w * .22, y0 + h * .12),
                  (cx + w * .3, y0 + h * .2)], fill=ink, width=max(1, round(2 * u)))


@lru_cache(maxsize=len(SIZES) + 4)
def _shape(width: int) -> Image.Image:
    """The mask of a card's shape ``width`` pixels wide (rounded corners): the same for
    every face of that size, so kept once."""
    h = card_height(width)
    mask = Image.new("1", (width, h), 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, width - 1, h - 1),
                                           radius=6 * width / CARD_W, fill=1)
    return mask


@lru_cache(maxsize=3 * (len(SIZES) + 4))
def _blank(width: int, state: str) -> Image.Image:
    """A face without rank or suit: its ground and its edge (gold for a card you may
    play), in the fixed palette."""
    w, h = width, card_height(width)
    u = w / CARD_W
    tile = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    face = MUTED_FACE if state == MUTED else FACE
    edge, line = (GOLD, 3.5) if state == PLAYABLE else (EDGE, 1.0)
    ImageDraw.Draw(tile).rounded_rectangle((0, 0, w - 1, h - 1), radius=6 * u, fill=face,
                                           outline=edge, width=max(1, round(line * u)))
    return _fixed(tile)[0]


# A part of a face as Pillow's own pixel stores (which the garbage collector never scans):
# its pixels, its mask (None: all of it), where it goes on the face and its size.
Mark = tuple[Any, Any, int, int, int, int]


@lru_cache(maxsize=8192)
def _stamp(text: str, font: str, size: int, ink: tuple[int, ...], face: tuple[int, ...],
           width: int, x: float, y: float, folder: Path = FONTS) -> Mark:
    """``text`` centred on (x, y) of a face ``width`` pixels wide, cut to its letters: the
    letters in ``ink`` on ``face`` in the fixed palette, the mask of the pixels they touch,
    and where it goes. Drawn where it will be pasted (the same fraction of a pixel), so a
    face put together from stamps is the face drawn whole."""
    mask = Image.new("L", (width, card_height(width)), 0)
    ImageDraw.Draw(mask).text((x, y), text, font=_font(font, size, folder), fill=255,
                              anchor="mm")
    box = mask.getbbox() or (0, 0, 1, 1)
    mask = mask.crop(box)
    letters = Image.new("RGB", mask.size, face)
    letters.paste(ink, (0, 0, *mask.size), mask)
    touched = mask.point(_ANY, "1")
    return (letters.quantize(palette=_PALETTE, dither=Image.Dither.NONE).im, touched.im,
            box[0], box[1], *mask.size)


@lru_cache(maxsize=512)
def _crest(value: int, ink: tuple[int, ...], accent: tuple[int, ...], face: tuple[int, ...],
           width: int) -> Mark:
    """A court card's emblem in its frame, on ``face``, drawn larger and reduced (smooth
    edges), in the fixed palette, and where it goes on a face ``width`` pixels wide."""
    u = width / CARD_W
    x0, y0 = round(22 * u), round(9 * u)
    x1, y1 = round((CARD_W - 5) * u), round((CARD_H - 22) * u)
    s = SUPER
    big = Image.new("RGB", ((x1 - x0) * s, (y1 - y0) * s), face)
    _emblem(ImageDraw.Draw(big), value, (0, 0, big.width - 1, big.height - 1), ink, accent,
            u * s)
    crest = big.reduce(s).quantize(palette=_PALETTE, dither=Image.Dither.NONE)
    return crest.im, None, x0, y0, *crest.size


@lru_cache(maxsize=4096)
def _marks(rank: str, suit: int, state: str, four: bool, width: int, value: int,
           folder: Path = FONTS) -> tuple[Mark, ...]:
    """What goes on a face ``width`` pixels wide over its ground: its rank and suit in the
    top left strip that stays visible in a row; pips laid out as on a printed card for
    2–10, one large pip for an ace, an emblem for a court card (``value``: the rank's
    number; 0 draws the suit large). Parts drawn once per size, shared by every face that
    shows them: a face is its ground and a few pastes, and keeps no pixels of its own."""
    u = width / CARD_W
    ink: tuple[int, ...] = _colours(four)[suit]
    face = FACE
    if state == MUTED:
        face = MUTED_FACE
        ink = _muted(ink)
    symbol = SYMBOLS[suit]
    corner = 11 * u
    texts = [(rank, BOLD, round((16 if len(rank) == 1 else 12) * u), corner, 12 * u),
             (symbol, REGULAR, round(13 * u), corner, 27 * u)]
    marks: list[Mark] = []
    x0, x1, y0, y1 = 27 * u, (CARD_W - 11) * u, 12 * u, (CARD_H - 12) * u
    if value in PIPS:
        texts += [(symbol, REGULAR, round(13 * u), x0 + (x1 - x0) * fx, y0 + (y1 - y0) * fy)
                  for fx, fy in PIPS[value]]
    elif value in (11, 12, 13):
        accent = GOLD if state != MUTED else _muted(GOLD)
        marks.append(_crest(value, ink, accent, face, width))
        texts.append((symbol, REGULAR, round(15 * u), (CARD_W + 17) / 2 * u,
                      (CARD_H - 13) * u))
    else:  # an ace (or a card without a value): one large pip
        texts.append((symbol, REGULAR, round((36 if value == 14 else 28) * u),
                      (CARD_W + 22) / 2 * u, (CARD_H / 2 + 2) * u))
    marks += [_stamp(text, font, max(size, 4), ink, face, width, x, y, folder)
              for text, font, size, x, y in texts]
    return tuple(marks)


def _paint(target: Image.Image, at: tuple[int, int], rank: str, suit: int, state: str,
           four: bool, width: int, value: int = 0, folder: Path = FONTS) -> None:
    """One card face ``width`` pixels wide (rounded corners) painted on ``target`` at
    ``at``: its ground and edge (gold for a card you may play), then its marks."""
    x, y = at
    pixels = target.im  # pasted into directly: a few times faster than ``Image.paste``
    pixels.paste(_blank(width, state).im, (x, y, x + width, y + card_height(width)),
                 _shape(width).im)
    for part, mask, dx, dy, w, h in _marks(rank, suit, state, four, width, value, folder):
        if mask is None:
            pixels.paste(part, (x + dx, y + dy, x + dx + w, y + dy + h))
        else:
            pixels.paste(part, (x + dx, y + dy, x + dx + w, y + dy + h), mask)


def _tile(rank: str, suit: int, state: str, four: bool, width: int = CARD_W,
          value: int = 0, folder: Path = FONTS) -> tuple[Image.Image, Image.Image]:
    """One card face alone, and the mask of its shape (see ``_paint``)."""
    tile = Image.new("P", (width, card_height(width)), 0)
    tile.putpalette(_PALETTE.getpalette() or [])
    _paint(tile, (0, 0), rank, suit, state, four, width, value, folder)
    return tile, _shape(width)


def prepare(folder: Path = FONTS, frame: Frame = FRAME,
            letters: tuple[tuple[str, ...], ...] = ()) -> None:
    """Draw the parts of every card face (both decks, every state, each rank in each of
    ``letters`` or the ranks' usual letters) and the places without a face, at each card
    size up to a quarter of ``frame``'s width: the sizes hands of four or more cards and
    tables use, and the labels' ``LETTERS`` at those sizes (found drawable first). Larger
    sizes (a hand of one to three cards) are drawn on first use."""
    from rules.i18n import Lang, rank_text
    ranks = letters or tuple(tuple(rank_text(r, lang) for r in range(2, 15)) for lang in Lang)
    with _lock.after_waiting():
        for char in LETTERS:
            _drawable(char, folder)
    for width in SIZES:
        if width > frame.pixels[0] / 4:
            break
        _prepare(width, ranks, folder)


def _prepare(width: int, ranks: tuple[tuple[str, ...], ...], folder: Path) -> None:
    # The font lock is taken for one suit's faces at a time (a few milliseconds), not for a
    # whole size, and a picture waiting for it goes first: a picture asked for meanwhile (the
    # first move after a start) waits for those few parts only, not for seconds when the
    # machine is busy.
    for shown in ranks:
        for four in (False, True):
            for state in (PLAIN, PLAYABLE, MUTED):
                for suit in range(4):
                    with _lock.after_waiting():
                        for value, rank in zip(range(2, 15), shown, strict=True):
                            _marks(rank, suit, state, four, width, value, folder)
    for units in TEXT_SIZES:  # the labels' letters at this card size
        with _lock.after_waiting():
            glyphs.prepare(_font(REGULAR, max(6, round(units * width / CARD_W)), folder),
                           LETTERS)
    for mark in (False, True):
        for kind in Special:
            for suit in range(4) if kind is Special.SUIT else (0,):
                for four in (False, True) if kind is Special.SUIT else (False,):
                    with _lock.after_waiting():
                        _special(kind, suit, four, mark, width, folder)


class Special(StrEnum):
    """A place that shows no card face."""

    BACK = "back"  # the talon
    EMPTY = "empty"  # an empty stack or trick
    SUIT = "suit"  # a suit alone: the trump


@lru_cache(maxsize=256)
def _special(kind: Special, suit: int, four: bool, mark: bool, width: int = CARD_W,
             folder: Path = FONTS) -> tuple[Image.Image, Image.Image]:
    """The card back (the talon), an empty place, or a suit alone (the trump)."""
    s = SUPER
    w, h = width * s, card_height(width) * s
    u = w / CARD_W
    tile = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    pen = ImageDraw.Draw(tile)
    edge, line = (GOLD, 3.5) if mark else (EDGE, 1.0)
    box = (0, 0, w - 1, h - 1)
    stroke = max(1, round(line * u))
    if kind is Special.BACK:
        pen.rounded_rectangle(box, radius=6 * u, fill=BACK, outline=edge, width=stroke)
        inner = (5 * u, 5 * u, w - 5 * u, h - 5 * u)
        pen.rounded_rectangle(inner, radius=4 * u, outline=BACK_LINE,
                              width=max(1, round(1.5 * u)))
        # A lattice of diagonals inside the border, and a diamond in the middle.
        lattice = Image.new("RGBA", (w, h), (0, 0, 0, 0))
        grid = ImageDraw.Draw(lattice)
        step = 9 * u
        thin = max(1, round(0.8 * u))
        k: float = -h
        while k < w + h:
            grid.line([(k, 0), (k + h, h)], fill=BACK_LINE, width=thin)
            grid.line([(k + h, 0), (k, h)], fill=BACK_LINE, width=thin)
            k += step
        clip = Image.new("L", (w, h), 0)
        ImageDraw.Draw(clip).rounded_rectangle((9 * u, 9 * u, w - 9 * u, h - 9 * u),
                                               radius=3 * u, fill=255)
        tile.paste(lattice, (0, 0), Image.composite(lattice.getchannel("A"), clip, clip))
        cx, cy, r = w / 2, h / 2, 12 * u
        pen.polygon([(cx, cy - r * 1.3), (cx + r, cy), (cx, cy + r * 1.3), (cx - r, cy)],
                    fill=BACK, outline=GOLD, width=max(1, round(1.5 * u)))
    elif kind is Special.EMPTY:
        pen.rounded_rectangle(box, radius=6 * u, fill=EMPTY, outline=GOLD if mark else LABEL,
                              width=stroke)
    else:
        pen.rounded_rectangle(box, radius=6 * u, fill=FACE, outline=edge, width=stroke)
        pen.text((w / 2, h / 2), SYMBOLS[suit], font=_font(REGULAR, round(44 * u), folder),
                 fill=_colours(four)[suit], anchor="mm")
    return _fixed(tile.reduce(s))


# --- names and labels ----------------------------------------------------------------------

_JOINERS = {"\u200d", "\ufe0e", "\ufe0f", "\u20e3"}


@lru_cache(maxsize=8192)
def _drawable(char: str, folder: Path = FONTS) -> bool:
    """Whether the font has a glyph for ``char`` (not its missing-glyph box)."""
    if char.isspace():
        return True
    if char in _JOINERS or unicodedata.category(char) in ("Cf", "Cs", "Co", "Cn", "Mn", "Sk"):
        return char not in _JOINERS and unicodedata.category(char) == "Mn"
    font = _font(REGULAR, 16, folder)
    return bytes(font.getmask(char)) != _missing(folder)


@lru_cache(maxsize=4)
def _missing(folder: Path = FONTS) -> bytes:
    """The font's missing-glyph box, as drawn (a private-use character it has no glyph for)."""
    return bytes(_font(REGULAR, 16, folder).getmask("\U0010fffd"))


def drawable(text: str, folder: Path = FONTS) -> str:
    """``text`` without what the font can't draw (emoji, chiefly), so a name shows no
    missing-glyph boxes: ``"🎲 Zsófi ✨"`` → ``"Zsófi"``; a name of emoji alone is kept as
    the font draws it rather than left blank."""
    kept = "".join(c for c in text if _drawable(c, folder))
    kept = " ".join(kept.split())
    return kept or text.strip()


def fit(text: str, font: ImageFont.FreeTypeFont, width: float) -> str:
    """``text``, cut with an ellipsis to fit ``width`` pixels."""
    if font.getlength(text) <= width:
        return text
    while text and font.getlength(text + "…") > width:
        text = text[:-1]
    return text.rstrip() + "…"


@lru_cache(maxsize=8192)
def _label(text: str, ink: tuple[int, ...], width: int, size: int, align: str = "m",
           folder: Path = FONTS) -> Mark:
    """One line of text on the felt, ``width`` pixels wide, in the fixed palette, with the
    mask of its letters (the felt around them is left as it is), as a part to paste. A long
    line first takes a smaller size (down to three quarters), then is cut with an
    ellipsis."""
    text = drawable(text, folder)
    font = _font(REGULAR, size, folder)
    if glyphs.length(font, text) > width - 2:
        font = _font(REGULAR, max(4, size * 3 // 4), folder)
        text = fit(text, font, width - 2)
    height = round(size * 1.25)
    mask = glyphs.mask(font, text, (width, height), align)
    # Mapped through tables on Pillow's own pixel stores: ``Image.point`` would first round
    # each table's 256 entries again, which costs more than the mapping.
    coverage = mask.im
    shape = coverage.point(_EIGHTH, None)
    steps = ramp(_FLAT, FELT, ink)
    if steps is not None:  # the letters' coverage is their colour's step: no quantizing
        return coverage.point(steps, None), shape, 0, 0, width, height
    line = Image.new("RGB", mask.size, FELT)
    line.paste(ink, (0, 0, *mask.size), mask)
    return (line.quantize(palette=_PALETTE, dither=Image.Dither.NONE).im, shape, 0, 0, width,
            height)


# --- the canvas ----------------------------------------------------------------------------

LEAST = 0.65  # the least share of the frame's other side a picture keeps


class Canvas:
    """A picture being drawn: the frame's pixels in the fixed palette, a scale from card
    units to pixels (the content centred), and the boxes of the cards pasted."""

    def __init__(self, frame: Frame, width: float, height: float, folder: Path = FONTS,
                 most: float = 4.0) -> None:
        """``width`` × ``height`` card units of content, as large as ``frame`` allows (at
        most ``most`` pixels per unit per pixel ratio: a lone card is not a poster)."""
        self.frame = frame
        self.folder = folder
        pw, ph = frame.pixels
        scale = min(pw / max(width, 1), ph / max(height, 1), most * frame.ratio)
        self.card_w = card_size(CARD_W * scale)
        self.unit = self.card_w / CARD_W
        self.card_h = card_height(self.card_w)
        # The side that bounds the content fills the frame (so the picture is shown as large
        # as the box allows, at the full ratio); the other keeps at least ``LEAST`` of it
        # and no more than the content needs: fewer pixels to encode.
        content_w, content_h = width * self.unit, height * self.unit
        if pw / max(width, 1) <= ph / max(height, 1):
            size = (pw, min(ph, max(round(content_h), round(LEAST * ph))))
        else:
            size = (min(pw, max(round(content_w), round(LEAST * pw))), ph)
        self.x0 = (size[0] - content_w) / 2
        self.y0 = (size[1] - content_h) / 2
        self.size = size
        # The pixels with one more column on the left, each row's PNG filter byte (0: none):
        # the rows go to the deflater as they are, without a copy of the picture.
        self.rows = Image.new("P", (size[0] + 1, size[1]), 0)  # the palette's first: felt
        self.rows.putpalette(_PLTE)
        self.boxes: list[Box] = []

    @property
    def image(self) -> Image.Image:
        """The picture drawn so far (a copy)."""
        return self.rows.crop((1, 0, self.size[0] + 1, self.size[1]))

    def at(self, x: float, y: float) -> tuple[int, int]:
        return round(self.x0 + x * self.unit), round(self.y0 + y * self.unit)

    def card(self, card: Card, rank: str, state: str, four: bool, x: float, y: float) -> None:
        px, py = self.at(x, y)
        _paint(self.rows, (px + 1, py), rank, card.suit, state, four, self.card_w, card.rank,
               self.folder)
        self.boxes.append(Box(card, px, py, px + self.card_w, py + self.card_h, state))

    def special(self, kind: Special, suit: int, four: bool, mark: bool, x: float, y: float
                ) -> None:
        if kind is not Special.SUIT:  # the same in either deck: drawn once
            suit, four = 0, False
        tile, shape = _special(kind, suit, four, mark, self.card_w, self.folder)
        px, py = self.at(x, y)
        self.rows.im.paste(tile.im, (px + 1, py, px + 1 + tile.width, py + tile.height),
                           shape.im)

    def text(self, text: str, x: float, y: float, width: float, *, ink: tuple[int, ...] = LABEL,
             size: float = 12, align: str = "m") -> None:
        """A line of text in ``width`` card units from (x, y), its top."""
        if not text:
            return
        letters, shape, _x, _y, w, h = _label(text, ink, max(4, round(width * self.unit)),
                                              max(6, round(size * self.unit)), align,
                                              self.folder)
        px, py = self.at(x, y)
        self.rows.im.paste(letters, (px + 1, py, px + 1 + w, py + h), shape)

    def finish(self, kind: str, *, once: bool = False) -> Drawn:
        """The picture encoded in its kind's format (``once``: see ``encode``)."""
        fmt = FORMATS.get(kind, PNG)
        if fmt == PNG:
            data = _png_rows(self.rows, self.size, once=once, palette=_PLTE)
        else:
            data = encode(self.image, fmt, once=once)[0]
        return Drawn(data, *self.size, tuple(self.boxes), fmt)


# The format each kind of picture is sent in: the smaller of lossless WebP and PNG at the
# settings it can afford, as measured on fixed scenes (``python -m cogs.pictures bench``
# prints both; a test checks the choice). Every kind must be drawn and encoded within 10 ms:
# WebP's fastest setting takes 6–14 ms for a picture of the frame's size on its own (and is
# then larger than PNG), PNG with ISA-L's deflate 0.3–1.5 ms. Decided once per kind, not per
# picture: encoding each picture both ways would cost more than the bytes it saves.
FORMATS: dict[str, str] = {"hand": PNG, "table": PNG, "replay": PNG, "ending": PNG}
FAST = 1  # ISA-L's deflate level (its next, 3, saves 4% in fifteen times the time)
ONCE = 6  # zlib's level for a picture drawn once: a fifth smaller than ISA-L's, in 2–3 ms


def encode(image: Image.Image, fmt: str, *, once: bool = False) -> tuple[bytes, str]:
    """The picture as lossless WebP or PNG, at the fastest settings of each (a hand or table
    picture is drawn on every move); ``once``: PNG deflated harder, for a picture drawn once
    (the end of a hand)."""
    if fmt == PNG:
        return png(image, once=once), fmt
    out = io.BytesIO()
    image.save(out, "WEBP", lossless=True, method=0, quality=0)
    return out.getvalue(), fmt


def png(image: Image.Image, *, once: bool = False, lines: bool = False) -> bytes:
    """A palette or RGB picture as PNG, each row unfiltered and deflated by ISA-L at its
    fast level: three times faster than Pillow's fastest level, and smaller (a card picture
    is mostly runs of one colour, which filters don't help); ``once``: by zlib at ``ONCE``;
    ``lines``: a picture of thin lines on flat ground (a chart), each row less the row above
    (PNG's Up filter: a row like the one above is zeros), then deflated fast: a third of the
    bytes of the same picture unfiltered."""
    w, h = image.size
    if image.mode == "P":
        rows = Image.new("P", (w + 1, h), 0)  # column 0: each row's filter byte, 0: none
        rows.putpalette(image.getpalette() or [])
        rows.paste(image, (1, 0))
        return _png_rows(rows, (w, h), once=once, up=lines)
    rows = Image.new("L", (3 * w + 1, h), 0)
    rows.paste(Image.frombytes("L", (3 * w, h), image.convert("RGB").tobytes()), (1, 0))
    return _png_rows(rows, (w, h), rgb=True, once=once, up=lines)


def _png_rows(rows: Image.Image, size: tuple[int, int], *, rgb: bool = False,
              once: bool = False, up: bool = False, palette: bytes | None = None) -> bytes:
    """PNG of a picture ``size`` pixels large from ``rows``: its palette (or RGB, ``rgb``)
    pixels one column to the right of each row's filter byte (``palette``: its palette's
    bytes, if known)."""
    w, h = size
    rows.paste(0, (0, 0, 1, h))  # the filter bytes: none, whatever was drawn over them
    chunks = [(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2 if rgb else 3, 0, 0, 0))]
    if not rgb:
        chunks.append((b"PLTE", palette or bytes(rows.getpalette() or [])))
    pixels = rows.tobytes()
    if up:
        flat = Image.frombytes("L", rows.size, pixels)
        above = Image.new("L", rows.size, 0)
        above.paste(flat.crop((0, 0, rows.size[0], h - 1)), (0, 1))
        flat = ImageChops.subtract_modulo(flat, above)
        flat.paste(2, (0, 0, 1, h))  # each row's filter: Up
        pixels = flat.tobytes()
    packed = zlib.compress(pixels, ONCE) if once else isal_zlib.compress(pixels, FAST)
    chunks += [(b"IDAT", packed), (b"IEND", b"")]
    return b"\x89PNG\r\n\x1a\n" + b"".join(
        struct.pack(">I", len(data)) + kind + data +
        struct.pack(">I", zlib.crc32(data, zlib.crc32(kind))) for kind, data in chunks)


# --- hands ---------------------------------------------------------------------------------

Plan = tuple[tuple[tuple[int, int, int], ...], ...]  # lines of (group, first, end) runs


def _width(line: tuple[tuple[int, int, int], ...], step: float) -> float:
    """A line's width in card units: its runs of overlapping (or spread) cards, side by
    side with a gap between runs."""
    return _runs_width(sum(end - first for _g, first, end in line), len(line), step)


def _runs_width(cards: int, runs: int, step: float) -> float:
    return CARD_W * runs + step * (cards - runs) + GROUP_GAP * (runs - 1)


def _pack(lengths: tuple[int, ...], most: int, share: bool) -> Plan:
    """The groups cut into runs of at most ``most`` cards, and the runs put in lines of at
    most ``most`` cards (several runs to a line if ``share``), keeping their order."""
    runs = [(g, i, min(i + most, n)) for g, n in enumerate(lengths) for i in range(0, n, most)]
    lines: list[list[tuple[int, int, int]]] = []
    count = 0
    for run in runs:
        size = run[2] - run[1]
        if lines and share and count + size <= most:
            lines[-1].append(run)
            count += size
        else:
            lines.append([run])
            count = size
    return tuple(tuple(line) for line in lines) or ((),)


@lru_cache(maxsize=2048)
def hand_plan(lengths: tuple[int, ...], raised: bool, frame: Frame = FRAME
              ) -> tuple[Plan, float, float, float]:
    """The lines, the step between cards and the content's size (card units) that let the
    cards be largest in ``frame``: cards side by side when there is room, else overlapping;
    a suit alone on its line, or short suits sharing one. Depends only on the groups'
    lengths, so it is worked out once for each shape of hand."""
    raise_ = RAISE if raised else 0
    pw, ph = frame.pixels
    best: tuple[tuple[float, int, int], tuple[int, bool], float, float, float] | None = None
    longest, total = max((*lengths, 1)), max(sum(lengths), 1)
    for step in (SPREAD, STEP):
        for share in (False, True):
            # Unshared, runs longer than the longest group change nothing: one line a group.
            for most in range(1, (total if share else longest) + 1):
                lines, widest = _measure(lengths, most, share, step)
                width = 2 * MARGIN + widest
                height = 2 * MARGIN + lines * (CARD_H + raise_ + ROW_GAP) - ROW_GAP
                rank = (round(min(pw / width, ph / height), 3), step, -share)
                if best is None or rank > best[0]:
                    best = (rank, (most, share), step, width, height)
    assert best is not None
    (most, share), spacing, content_w, content_h = best[1:]
    return _pack(lengths, most, share), spacing, content_w, content_h


def _measure(lengths: tuple[int, ...], most: int, share: bool, step: float
             ) -> tuple[int, float]:
    """How many lines ``_pack`` makes, and the widest's width (``_width``), without making
    them: the layout search tries every packing, and keeps one."""
    lines, widest, count, runs = 0, float("-inf"), 0, 0
    for n in lengths:
        for first in range(0, n, most):
            size = min(most, n - first)
            if lines and share and count + size <= most:
                count += size
                runs += 1
                continue
            if lines:
                widest = max(widest, _runs_width(count, runs, step))
            lines, count, runs = lines + 1, size, 1
    if not lines:  # no cards: one empty line
        return 1, _runs_width(0, 0, step)
    return lines, max(widest, _runs_width(count, runs, step))


def draw_hand(scene: HandScene, folder: Path = FONTS, frame: Frame = FRAME) -> Drawn:
    """A player's cards: each line left to right (overlapping if it must); a card you may
    play raised and edged in gold, one you may not greyed."""
    raised = any(s.state == PLAYABLE for r in scene.rows for s in r)
    plan, step, width, height = hand_plan(tuple(map(len, scene.rows)), raised, frame)
    raise_ = RAISE if raised else 0
    with _lock:
        canvas = Canvas(frame, width, height, folder)
        for r, line in enumerate(plan):
            top = MARGIN + r * (CARD_H + raise_ + ROW_GAP) + raise_
            x = MARGIN + (width - 2 * MARGIN - _width(line, step)) / 2
            for group, first, end in line:
                for i, shown in enumerate(scene.rows[group][first:end]):
                    y = top - (raise_ if shown.state == PLAYABLE else 0)
                    canvas.card(shown.card, shown.rank, shown.state, scene.four,
                                x + i * step, y)
                x += CARD_W + step * (end - first - 1) + GROUP_GAP
        return canvas.finish("hand")


# --- the table -----------------------------------------------------------------------------

def _place_rows(scene: TableScene, per_row: int) -> list[tuple[Place, ...]]:
    return [row[i:i + per_row] for row in scene.rows for i in range(0, len(row), per_row)]


def draw_table(scene: TableScene, folder: Path = FONTS, frame: Frame = FRAME) -> Drawn:
    """The table's public cards in rows of places, each with its label under it; as many
    places to a row as lets the cards be largest."""
    longest = max((len(row) for row in scene.rows), default=1)
    pw, ph = frame.pixels
    row_h = CARD_H + LABEL_H + ROW_GAP
    best: tuple[float, int] | None = None
    for per_row in range(1, max(longest, 1) + 1):
        rows = _place_rows(scene, per_row)
        width = 2 * MARGIN + CELL_W * max((len(r) for r in rows), default=1)
        height = 2 * MARGIN + row_h * max(len(rows), 1) - ROW_GAP
        candidate = (min(pw / width, ph / height), per_row)
        if best is None or candidate[0] > best[0]:
            best = candidate
    assert best is not None
    rows = _place_rows(scene, best[1])
    widest = max((len(r) for r in rows), default=1)
    width = 2 * MARGIN + CELL_W * widest
    height = 2 * MARGIN + row_h * max(len(rows), 1) - ROW_GAP
    with _lock:
        canvas = Canvas(frame, width, height, folder)
        for r, row in enumerate(rows):
            y = MARGIN + r * row_h
            indent = (widest - len(row)) * CELL_W / 2
            for i, place in enumerate(row):
                left = MARGIN + indent + i * CELL_W
                x = left + (CELL_W - CARD_W) / 2
                if place.card is not None:
                    canvas.card(place.card, place.rank, PLAYABLE if place.mark else PLAIN,
                                scene.four, x, y)
                elif place.back:
                    canvas.special(Special.BACK, 0, scene.four, place.mark, x, y)
                elif place.suit is not None:
                    canvas.special(Special.SUIT, place.suit, scene.four, place.mark, x, y)
                else:
                    canvas.special(Special.EMPTY, 0, scene.four, place.mark, x, y)
                for line, text in enumerate(place.label.split("\n")[:2]):
                    canvas.text(text, left + 1, y + CARD_H + 2 + LINE_H * line, CELL_W - 2,
                                ink=GOLD if place.mark else LABEL)
        return canvas.finish("table")
