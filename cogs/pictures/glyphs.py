"""Lines of text put together from glyphs drawn once per font and size.

A picture's labels (names, card counts, rating changes) differ from picture to picture, and
FreeType laying out and drawing a whole line costs about half a millisecond: a 9-seat table
or replay step has up to twenty of them. Put together from its letters' bitmaps, kept per
font and size, with the font's kerning between each pair, the same line costs a tenth of
that, and is the same picture: each glyph lands on the pixel FreeType puts it on (a test
compares them).

Advances and kerning come from the font's metrics, measured once (``python -m cogs.pictures
metrics`` writes them next to the font: the advance of each of ``LETTERS`` and the pairs of
them the font kerns, in its own units), scaled to each size as the shaping library scales
them; a letter or pair outside them is measured when first met (30 µs). Without the shaping
library FreeType kerns nothing here, and every pair is measured (cheaply) instead.

Only text whose letters stand alone is put together this way (Latin, Greek, Cyrillic,
punctuation, the suits): a script whose letters join, stack or run right to left (Arabic,
Devanagari, combining accents, Hebrew) is laid out whole by FreeType and its shaping library,
as before (``line`` answers None). Ligatures are not used: "fi" stays two letters.

Callers hold the pictures' font lock: FreeType faces are not safe to share between threads.
"""

from __future__ import annotations

import json
import re
import struct
from functools import lru_cache
from pathlib import Path
from typing import Any

from PIL import Image, ImageChops, ImageDraw, ImageFont

KERNS = 20_000  # pairs kept per face before they are forgotten and measured again
LINES = 256  # lines kept laid out per face (a line is measured, then drawn)
FACES = 64  # fonts and sizes kept

# A glyph: its bitmap as FreeType draws it, in Pillow's own pixel store (None: nothing to
# draw, a space), where it goes from the pen on the baseline, and the pen's advance in 64ths
# of a pixel (FreeType's unit).
Glyph = tuple[Any, int, int, int]


# The characters drawn the same wherever they stand: letters of the scripts whose letters
# neither join nor stack (Latin, Greek, Cyrillic without their combining marks), digits,
# spaces, punctuation (without the invisible ones: soft hyphens, joiners, direction marks),
# currency signs, the minus sign and the suits.
_ALONE = re.compile("[\u0020-\u007e\u00a0-\u00ac\u00ae-\u024f\u0370-\u0482\u048a-\u052f"
                    "\u1e00-\u200a\u2010-\u2027\u202f-\u205f\u20a0-\u20bf\u2212"
                    "\u2660\u2663\u2665\u2666]*")


def alone(text: str) -> bool:
    """Whether every character of ``text`` is drawn the same wherever it stands."""
    return _ALONE.fullmatch(text) is not None


class Metrics:
    """A font's advances of ``letters`` and the pairs of them it kerns, in its units
    (``units_per_em`` to the em)."""

    __slots__ = ("advances", "pairs", "units_per_em")

    def __init__(self, units_per_em: int, advances: dict[str, int], pairs: dict[str, int]
                 ) -> None:
        self.units_per_em = units_per_em
        self.advances = advances
        self.pairs = pairs

    @classmethod
    def measure(cls, path: Path, letters: str) -> Metrics:
        """Every letter and pair of ``letters`` laid out in the font at ``path`` at one pixel
        per font unit, where a pair's advance less its letters' is the font's kerning (a
        second)."""
        units_per_em = _units_per_em(path)
        font = ImageFont.truetype(str(path), units_per_em)
        advances = {c: round(font.getlength(c)) for c in letters}
        pairs = {}
        for first in letters:
            for second in letters:
                kern = round(font.getlength(first + second, features=["-liga"])) \
                    - advances[first] - advances[second]
                if kern:
                    pairs[first + second] = kern
        return cls(units_per_em, advances, pairs)

    def dumps(self) -> str:
        return json.dumps({"units_per_em": self.units_per_em, "advances": self.advances,
                           "pairs": self.pairs}, ensure_ascii=False, sort_keys=True, indent=0)

    @classmethod
    def loads(cls, text: str) -> Metrics:
        data = json.loads(text)
        return cls(int(data["units_per_em"]), {k: int(v) for k, v in data["advances"].items()},
                   {k: int(v) for k, v in data["pairs"].items()})

    def at(self, size: int) -> tuple[dict[str, int], dict[str, int]]:
        """The advances and kerning at ``size`` pixels to the em, in 64ths of a pixel,
        rounded as the shaping library rounds them: FreeType's scale (16.16, rounded), then
        the library's own scale and multiplier from it."""
        em = self.units_per_em
        freetype = (size * 64 * 65536 + em // 2) // em
        scale = (freetype * em + (1 << 15)) >> 16
        multiplier = (scale << 16) // em

        def scaled(table: dict[str, int]) -> dict[str, int]:
            return {key: (units * multiplier + 32768) >> 16 for key, units in table.items()}
        return scaled(self.advances), scaled(self.pairs)


def _units_per_em(path: Path) -> int:
    """The font's units to the em, from its ``head`` table (a TrueType file: a table
    directory of 16-byte records after a 12-byte header)."""
    data = path.read_bytes()
    (count,) = struct.unpack_from(">H", data, 4)
    for record in range(12, 12 + 16 * count, 16):
        tag, _checksum, offset, _length = struct.unpack_from(">4sIII", data, record)
        if tag == b"head":
            return int(struct.unpack_from(">H", data, offset + 18)[0])
    raise ValueError(path.name)  # not a TrueType font


def metrics_path(font: Path) -> Path:
    """Where the metrics of the font at ``font`` are kept."""
    return font.with_suffix(".metrics.json")


@lru_cache(maxsize=8)
def _metrics(font: str) -> Metrics | None:
    try:
        return Metrics.loads(metrics_path(Path(font)).read_text(encoding="utf-8"))
    except (OSError, ValueError, KeyError):
        return None


class _Face:
    """One font at one size: its glyphs and kerning pairs, measured as they are first met."""

    __slots__ = ("advances", "font", "glyphs", "kerns", "letters", "lines", "middle", "plain",
                 "table")

    def __init__(self, font: ImageFont.FreeTypeFont) -> None:
        self.font = font
        # One letter alone needs no shaping: drawn by FreeType's basic layout, the same
        # bitmap in a third of the time (a test compares them); its advance is the shaping
        # library's (unhinted), from the font's metrics or measured.
        self.letters = ImageFont.truetype(font.path, font.size,
                                          layout_engine=ImageFont.Layout.BASIC)
        self.glyphs: dict[str, Glyph] = {}
        self.kerns: dict[str, int] = {}
        self.lines: dict[str, tuple[list[tuple[int, Glyph]], int]] = {}
        # With a shaping library, a pair is measured with ligatures off (as it is drawn), and
        # the letters and pairs the font's metrics have are looked up in them.
        shaped = font.layout_engine == ImageFont.Layout.RAQM
        self.plain = ["-liga"] if shaped else None
        metrics = _metrics(str(font.path)) if shaped else None
        self.advances, self.table = metrics.at(int(font.size)) if metrics else ({}, {})
        # From the baseline to the line's middle (the "m" anchor), as FreeType places it.
        self.middle = int(font.getbbox("x", anchor="lm")[1] - font.getbbox("x", anchor="ls")[1])

    def glyph(self, char: str) -> Glyph:
        found = self.glyphs.get(char)
        if found is None:
            bitmap, (dx, dy) = self.letters.getmask2(char, mode="L", anchor="ls")
            width, height = bitmap.size
            advance = self.advances.get(char)
            if advance is None:
                advance = round(self.font.getlength(char) * 64)
            found = self.glyphs[char] = (bitmap if width and height else None, dx, dy, advance)
        return found

    def kern(self, first: str, second: str) -> int:
        pair = first + second
        found = self.kerns.get(pair)
        if found is None and first in self.advances and second in self.advances:
            return self.table.get(pair, 0)
        if found is None:
            if len(self.kerns) >= KERNS:
                self.kerns.clear()
            whole = self.font.getlength(pair, features=self.plain)
            found = self.kerns[pair] = round(whole * 64) - self.glyph(first)[3] \
                - self.glyph(second)[3]
        return found

    def laid_out(self, text: str) -> tuple[list[tuple[int, Glyph]], int]:
        """Each glyph of ``text`` with its pen position, and the line's advance (64ths)."""
        found = self.lines.get(text)  # measured, then drawn: laid out once
        if found is None:
            if len(self.lines) >= LINES:
                self.lines.clear()
            found = self.lines[text] = self._lay_out(text)
        return found

    def _lay_out(self, text: str) -> tuple[list[tuple[int, Glyph]], int]:
        pen = 0
        placed = []
        previous = ""
        for char in text:
            if previous:
                pen += self.kern(previous, char)
            glyph = self.glyph(char)
            placed.append((pen, glyph))
            pen += glyph[3]
            previous = char
        return placed, pen


def _face(font: ImageFont.FreeTypeFont) -> _Face:
    return _face_of(str(font.path), int(font.size))


@lru_cache(maxsize=FACES)
def _face_of(path: str, size: int) -> _Face:
    return _Face(ImageFont.truetype(path, size))


def prepare(font: ImageFont.FreeTypeFont, letters: str) -> None:
    """Draw ``letters`` in ``font`` ahead of the first line that needs them."""
    face = _face(font)
    for char in letters:
        face.glyph(char)


def _pixel(sixty_fourths: int) -> int:
    """A length in 64ths of a pixel, rounded to the nearest pixel."""
    return (sixty_fourths + 32) >> 6


def length(font: ImageFont.FreeTypeFont, text: str) -> float:
    """``text``'s advance in pixels, as ``line`` draws it."""
    if alone(text):
        return _face(font).laid_out(text)[1] / 64
    return font.getlength(text)


def line(font: ImageFont.FreeTypeFont, text: str, size: tuple[int, int], align: str
         ) -> Image.Image | None:
    """The coverage of ``text`` (0–255) in a mask of ``size``, its middle on the mask's
    middle line, from the left edge plus one pixel (``align`` "l"), to the right edge less
    one ("r") or centred ("m"); None for text whose letters do not stand alone."""
    if not alone(text):
        return None
    face = _face(font)
    placed, advance = face.laid_out(text)
    width, height = size
    # The line's origin, in whole pixels (FreeType rounds it apart from each pen position).
    x = {"l": 1, "r": width - 1 - _pixel(advance)}.get(align, width // 2 - _pixel(advance // 2))
    baseline = height // 2 + face.middle
    mask = Image.new("L", size, 0)
    pixels = mask.im
    right = -1 << 30
    for pen, (bitmap, dx, dy, _advance) in placed:
        if bitmap is None:
            continue
        left = x + _pixel(pen) + dx
        box = (left, baseline + dy)
        area = (*box, box[0] + bitmap.size[0], box[1] + bitmap.size[1])
        if left < right:  # overlaps the glyph before: the two blend (as screens do)
            single = Image.new("L", bitmap.size, 0)
            single.im.paste(bitmap, (0, 0, *bitmap.size))
            mask.paste(ImageChops.screen(mask.crop(area), single), box)
        else:
            pixels.paste(bitmap, area)  # straight into the pixels: a few times faster
        right = max(right, area[2])
    return mask


def mask(font: ImageFont.FreeTypeFont, text: str, size: tuple[int, int], align: str
         ) -> Image.Image:
    """``line``'s mask; for text whose letters do not stand alone, the line laid out whole by
    FreeType and its shaping library, in the same place."""
    found = line(font, text, size, align)
    if found is None:
        width, height = size
        found = Image.new("L", size, 0)
        anchor, x = {"l": ("lm", 1), "r": ("rm", width - 1)}.get(align, ("mm", width // 2))
        ImageDraw.Draw(found).text((x, height // 2), text, font=font, fill=255, anchor=anchor)
    return found
