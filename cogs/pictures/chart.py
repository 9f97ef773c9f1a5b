"""A player's rating after each hand at one table size, as a small line chart drawn with
Pillow (one line needs no plotting library), and the sentence that sums it up (its alt
text, and all that text-only readers get).

The first ``PROVISIONAL_HANDS`` hands, while the rating is provisional, sit on a lighter
band with their stretch of the line in grey; the rest is drawn in gold.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

import cogs.pictures.glyphs as glyphs
from bot.guilds.ratings import PROVISIONAL_HANDS, TREND_HANDS
from cogs.pictures.draw import (
    _EIGHTH,
    FELT,
    FONTS,
    FRAME,
    GOLD,
    LABEL,
    REGULAR,
    SHADES,
    Frame,
    _font,
    _lock,
    _mix,
    png,
    ramp,
)
from rules.i18n import Lang, number, translator

CHART_FILE = "rating.png"
TALL = 0.8  # of the frame's height: a chart is wider than tall, and fills the box
LEFT, RIGHT, TOP, BOTTOM = 48, 12, 12, 22  # the plot area's margins, in CSS pixels
BAND = (44, 110, 70)  # behind the provisional hands
GRID = (70, 120, 86)
GREY = (176, 190, 180)


def _palette() -> Image.Image:
    """Every colour a chart uses, and each ink's steps to the ground it is drawn on (the
    letters' smooth edges): a palette picture is a third of the bytes to encode."""
    colours: list[tuple[int, ...]] = [FELT]
    for ground in (FELT, BAND):
        for ink in (LABEL, GOLD, GREY, GRID):
            colours += [_mix(ground, ink, i / (SHADES - 1)) for i in range(SHADES)]
    unique = list(dict.fromkeys(colours))
    image = Image.new("P", (1, 1))
    image.putpalette([v for colour in unique for v in colour] + list(FELT) * (256 - len(unique)))
    return image


_PALETTE = _palette()
_FLAT = tuple(_PALETTE.getpalette() or ())


@dataclass(frozen=True)
class Plot:
    """Where the plot area is (in the picture's pixels), so tests can compare its pixels."""

    x0: int
    y0: int
    x1: int
    y1: int
    width: int  # the whole picture's
    height: int


def plot(frame: Frame = FRAME) -> Plot:
    """The chart's size and plot area in ``frame``: its width, and ``TALL`` of its height,
    in device pixels."""
    r = frame.ratio
    width, height = round(frame.width * r), round(frame.height * TALL * r)
    return Plot(round(LEFT * r), round(TOP * r), width - round(RIGHT * r),
                height - round(BOTTOM * r), width, height)


PLOT = plot()


def summary(ratings: list[float], lang: Lang) -> str:
    """``rating 12.3, up 4.1 over the last 20 hands`` (down, or unchanged), comparing with
    the rating ``TREND_HANDS`` hands ago or, before that many, a new player's 0."""
    _ = translator(lang).gettext
    n_ = translator(lang).ngettext
    now = ratings[-1]
    hands = min(len(ratings), TREND_HANDS)
    before = ratings[-TREND_HANDS - 1] if len(ratings) > TREND_HANDS else 0.0
    change = now - before
    rating = number(now, lang, 1)
    if change >= 0.05:
        text = n_("rating {rating}, up {change} over the last {count} hand",
                  "rating {rating}, up {change} over the last {count} hands", hands)
    elif change <= -0.05:
        text = n_("rating {rating}, down {change} over the last {count} hand",
                  "rating {rating}, down {change} over the last {count} hands", hands)
    else:
        text = n_("rating {rating}, unchanged over the last {count} hand",
                  "rating {rating}, unchanged over the last {count} hands", hands)
    return text.format(rating=rating, change=number(abs(change), lang, 1), count=hands)


def draw_chart(ratings: list[float], provisional_label: str, lang: Lang,
               folder: Path = FONTS, frame: Frame = FRAME) -> bytes:
    """The rating after each hand (from a new player's 0), left to right, as a PNG drawn
    for ``frame``."""
    PLOT = plot(frame)
    r = frame.ratio
    points = [0.0, *ratings]
    low, high = min(points), max(points)
    if high - low < 1.0:
        middle = (high + low) / 2
        low, high = middle - 0.5, middle + 0.5
    pad = (high - low) * 0.08
    low, high = low - pad, high + pad
    span_x = max(len(points) - 1, 1)

    def at(i: int, value: float) -> tuple[float, float]:
        x = PLOT.x0 + (PLOT.x1 - PLOT.x0) * i / span_x
        y = PLOT.y1 - (PLOT.y1 - PLOT.y0) * (value - low) / (high - low)
        return x, y

    # Drawn in the palette's indices: nothing to quantise, and each colour exact.
    image = Image.new("P", (PLOT.width, PLOT.height), _index(FELT))
    image.putpalette(_FLAT)
    pen = ImageDraw.Draw(image)
    with _lock:
        small = _font(REGULAR, round(11 * r), folder)
        provisional = min(PROVISIONAL_HANDS, len(points) - 1)
        if provisional:
            band_end = at(provisional, low)[0]
            pen.rectangle((PLOT.x0, PLOT.y0, band_end, PLOT.y1), fill=_index(BAND))
            _text(image, provisional_label, (PLOT.x0 + 3 * r, PLOT.y0 + 2 * r), "la", small,
                  BAND, GREY)
        pen.rectangle((PLOT.x0, PLOT.y0, PLOT.x1, PLOT.y1), outline=_index(GRID),
                      width=round(r))
        if low < 0 < high:
            zero = at(0, 0.0)[1]
            for x in range(PLOT.x0, PLOT.x1, round(8 * r)):
                pen.line((x, zero, min(x + 4 * r, PLOT.x1), zero), fill=_index(GRID),
                         width=round(r))
        for value in (high - pad, low + pad):
            _text(image, number(value, lang, 1), (PLOT.x0 - 4 * r, at(0, value)[1]), "rm",
                  small, FELT, LABEL)
        _text(image, str(len(points) - 1), (PLOT.x1, PLOT.height - 4 * r), "rd", small, FELT,
              LABEL)
        line = [at(i, v) for i, v in enumerate(points)]
        if provisional:
            pen.line(line[:provisional + 1], fill=_index(GREY), width=round(2 * r))
        if len(line) > provisional + 1:
            pen.line(line[provisional:], fill=_index(GOLD), width=round(2 * r))
        last = line[-1]
        dot = 3 * r
        pen.ellipse((last[0] - dot, last[1] - dot, last[0] + dot, last[1] + dot),
                    fill=_index(GOLD if len(points) - 1 > PROVISIONAL_HANDS else GREY))
    return png(image, lines=True)


def _index(colour: tuple[int, ...]) -> int:
    """The palette index of one of the chart's colours."""
    found = ramp(_FLAT, colour, colour)
    assert found is not None, colour
    return found[0]


def _text(image: Image.Image, text: str, at: tuple[float, float], anchor: str,
          font: ImageFont.FreeTypeFont, ground: tuple[int, ...], ink: tuple[int, ...]) -> None:
    """``text`` in ``ink`` on ``ground``, placed as Pillow places it at ``at`` by ``anchor``
    (left or right; ascender, middle or descender), its smooth edges in the ground's steps
    to the ink."""
    width = math.ceil(glyphs.length(font, text)) + 2
    height = round(font.size * 1.25)
    horizontal, vertical = anchor[0], anchor[1]
    mask = glyphs.mask(font, text, (width, height), horizontal)
    # Where the line's middle goes: a letter's top, anchored at ``vertical`` and at "m".
    middle = at[1] + font.getbbox("x", anchor="l" + vertical)[1] \
        - font.getbbox("x", anchor="lm")[1]
    left = round(at[0]) - (1 if horizontal == "l" else width - 1)
    top = round(middle) - height // 2
    steps = ramp(_FLAT, ground, ink)
    assert steps is not None, (ground, ink)
    coverage = mask.im
    image.im.paste(coverage.point(steps, None), (left, top, left + width, top + height),
                   coverage.point(_EIGHTH, None))
