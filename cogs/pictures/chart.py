"""A player's rating after each hand at one table size, as a small line chart drawn with
Pillow (one line needs no plotting library), and the sentence that sums it up (its alt
text, and all that text-only readers get).

The first ``PROVISIONAL_HANDS`` hands, while the rating is provisional, sit on a lighter
band with their stretch of the line in grey; the rest is drawn in gold.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw

from bot.guilds.ratings import PROVISIONAL_HANDS, TREND_HANDS
from cogs.pictures.draw import (
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

    image = Image.new("RGB", (PLOT.width, PLOT.height), FELT)
    pen = ImageDraw.Draw(image)
    with _lock:
        small = _font(REGULAR, round(11 * r), folder)
        provisional = min(PROVISIONAL_HANDS, len(points) - 1)
        if provisional:
            band_end = at(provisional, low)[0]
            pen.rectangle((PLOT.x0, PLOT.y0, band_end, PLOT.y1), fill=BAND)
            pen.text((PLOT.x0 + 3 * r, PLOT.y0 + 2 * r), provisional_label, font=small, fill=GREY,
                     anchor="la")
        pen.rectangle((PLOT.x0, PLOT.y0, PLOT.x1, PLOT.y1), outline=GRID, width=round(r))
        if low < 0 < high:
            zero = at(0, 0.0)[1]
            for x in range(PLOT.x0, PLOT.x1, round(8 * r)):
                pen.line((x, zero, min(x + 4 * r, PLOT.x1), zero), fill=GRID,
                         width=round(r))
        for value in (high - pad, low + pad):
            pen.text((PLOT.x0 - 4 * r, at(0, value)[1]), number(value, lang, 1), font=small,
                     fill=LABEL, anchor="rm")
        pen.text((PLOT.x1, PLOT.height - 4 * r), str(len(points) - 1), font=small, fill=LABEL,
                 anchor="rd")
        line = [at(i, v) for i, v in enumerate(points)]
        if provisional:
            pen.line(line[:provisional + 1], fill=GREY, width=round(2 * r))
        if len(line) > provisional + 1:
            pen.line(line[provisional:], fill=GOLD, width=round(2 * r))
        last = line[-1]
        dot = 3 * r
        pen.ellipse((last[0] - dot, last[1] - dot, last[0] + dot, last[1] + dot),
                    fill=GOLD if len(points) - 1 > PROVISIONAL_HANDS else GREY)
    return png(image.quantize(palette=_PALETTE, dither=Image.Dither.NONE), once=True)
