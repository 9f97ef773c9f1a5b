"""Labels put together from glyphs drawn once (cogs/pictures/glyphs.py) are the lines
FreeType lays out whole: the same pixels, from the font's own metrics, kept up to date."""

from __future__ import annotations

import unicodedata

import pytest
from PIL import Image, ImageChops, ImageDraw, ImageFont, features

from cogs.pictures import glyphs
from cogs.pictures.draw import FONTS, LABEL, LETTERS, REGULAR, _font, _label

pytestmark = pytest.mark.skipif(not features.check("raqm"),
                                reason="Pillow here lays text out without its shaping library")

LINES = ("Zsófia Kiss-Nagy · 12 cards", "Wolf Tyr AV To −3.2", "Őrült Üres űr 1er",
         "Hélène, Œdipe « ça » 5 cartes", "Ωμέγα Жанна", "Ann", "±0")


def close(a: Image.Image, b: Image.Image) -> bool:
    """The same pixels, but where two glyphs overlap: there FreeType's blend of the two may
    round one step apart from ours, in a few pixels."""
    diff = ImageChops.difference(a, b).get_flattened_data()
    return max(diff) <= 1 and sum(1 for v in diff if v) <= 3


@pytest.mark.parametrize("size", [9, 12, 16, 22, 30, 45])
def test_a_line_is_the_line_freetype_draws(size):
    font = _font(REGULAR, size)
    height = round(size * 1.25)
    for text in LINES:
        width = int(font.getlength(text)) + 12
        for align, anchor, x in (("l", "lm", 1), ("m", "mm", width // 2),
                                 ("r", "rm", width - 1)):
            whole = Image.new("L", (width, height), 0)
            ImageDraw.Draw(whole).text((x, height // 2), text, font=font, fill=255,
                                       anchor=anchor, features=["-liga"])
            put_together = glyphs.line(font, text, (width, height), align)
            assert put_together is not None
            assert close(whole, put_together), (text, size, align)
        assert glyphs.length(font, text) == font.getlength(text, features=["-liga"])


def test_overlapping_letters_blend():
    """Where two glyphs' bitmaps overlap ("ff" at a small size), their coverages blend as
    FreeType's do, not the later one over the earlier."""
    font = _font(REGULAR, 12)
    whole = Image.new("L", (60, 15), 0)
    ImageDraw.Draw(whole).text((1, 7), "fiffle", font=font, fill=255, anchor="lm",
                               features=["-liga"])
    put_together = glyphs.line(font, "fiffle", (60, 15), "l")
    assert put_together is not None and close(whole, put_together)


def test_letters_that_join_or_stack_are_laid_out_whole():
    font = _font(REGULAR, 20)
    for text in ("سلام", "e\u0301va", "שלום", "a\u202eb"):
        assert glyphs.line(font, text, (120, 25), "l") is None
    _letters, shape, *_ = _label("سلام Ann", LABEL, 200, 20)
    mask = Image.new("L", shape.size, 0)
    mask.im.paste(shape, (0, 0, *shape.size))
    assert mask.getbbox() is not None  # drawn, by FreeType and its shaping library


def test_standing_alone_means_no_mark_joiner_or_direction():
    for code in range(0x20, 0x3000):
        char = chr(code)
        if glyphs.alone(char):
            assert not unicodedata.combining(char), hex(code)
            assert unicodedata.category(char) not in ("Cc", "Cf", "Zl", "Zp", "Mn", "Me"), \
                hex(code)
            assert unicodedata.bidirectional(char) not in ("R", "AL"), hex(code)
    assert all(glyphs.alone(c) for c in LETTERS)


def test_the_fonts_metrics_are_up_to_date():
    """The advances and kerning kept next to the font are the font's: measured again, the
    same (``python -m cogs.pictures metrics`` writes them after the font or LETTERS
    change), and scaled to a size they are what the shaping library lays out."""
    path = FONTS / REGULAR
    kept = glyphs.Metrics.loads(glyphs.metrics_path(path).read_text(encoding="utf-8"))
    measured = glyphs.Metrics.measure(path, LETTERS)
    assert kept.dumps() == measured.dumps()
    assert len(kept.pairs) > 100  # the font kerns: "AV", "To", …
    for size in (7, 13, 17, 26, 61):
        font = ImageFont.truetype(str(path), size)
        advances, pairs = kept.at(size)
        assert all(round(font.getlength(c) * 64) == advances[c] for c in LETTERS), size
        for pair, kern in list(pairs.items())[::7]:
            whole = round(font.getlength(pair, features=["-liga"]) * 64)
            assert whole == advances[pair[0]] + advances[pair[1]] + kern, (pair, size)


def test_a_letter_is_drawn_as_the_shaping_library_draws_it():
    """Glyphs are drawn by FreeType's basic layout, which is faster for one letter: the same
    bitmap where it is put."""
    for size in (9, 22, 45):
        shaped = _font(REGULAR, size)
        basic = ImageFont.truetype(str(FONTS / REGULAR), size,
                                   layout_engine=ImageFont.Layout.BASIC)
        for char in LETTERS:
            a, at_a = shaped.getmask2(char, mode="L", anchor="ls")
            b, at_b = basic.getmask2(char, mode="L", anchor="ls")
            assert at_a == at_b and a.size == b.size, (char, size)
            assert bytes(a) == bytes(b), (char, size)
