"""What the pictures cost: the PNG writer gives back the very pixels and palette it was
given; card faces are painted from parts drawn at start-up, and keep nothing of their own; a
kept picture's layout is a few packed bytes that give back every card's box."""

import functools
import io
import pickle
import random

from PIL import Image

from cogs.pictures import FONTS, FRAME, Pictures, draw_picture, drawn_parts
from cogs.pictures.__main__ import hand_view, table_view
from cogs.pictures.draw import (
    MUTED,
    PLAIN,
    PLAYABLE,
    Frame,
    HandScene,
    Shown,
    _crest,
    _marks,
    _stamp,
    _tile,
    draw_hand,
    png,
    prepare,
)
from cogs.pictures.scenes import hand_scene, table_scene
from rules import Card, Phase
from rules.i18n import Lang, rank_text

DECK = [Card.parse(r + s) for s in "SHDC" for r in "AKQJT98765432"]


def _hand(size: int, four: bool = False) -> HandScene:
    found = hand_scene(hand_view(size, random.Random(size)), Lang.EN, four)
    assert found is not None
    return found[0]


def test_the_png_writer_keeps_every_pixel_and_colour():
    drawn = Image.open(io.BytesIO(draw_hand(_hand(13)).png))
    drawn.load()
    assert drawn.mode == "P"
    again = Image.open(io.BytesIO(png(drawn)))
    again.load()
    assert again.mode == "P" and again.size == drawn.size
    assert again.tobytes() == drawn.tobytes()
    assert again.convert("RGB").tobytes() == drawn.convert("RGB").tobytes()
    rgb = Image.effect_noise((37, 23), 60).convert("RGB")
    decoded = Image.open(io.BytesIO(png(rgb)))
    assert decoded.mode == "RGB" and decoded.tobytes() == rgb.tobytes()


def test_the_parts_of_every_face_are_drawn_at_start_up():
    """After ``prepare`` no face of a hand in either deck, in any state, draws a letter,
    a pip or an emblem: it is put together from parts."""
    frame = Frame(200, 150, 1.0)  # small: its few card sizes are quick to prepare
    prepare(frame=frame, letters=(tuple(rank_text(r, Lang.HU) for r in range(2, 15)),))
    stamps, crests = _stamp.cache_info().misses, _crest.cache_info().misses
    _marks.cache_clear()
    for four in (False, True):
        rows = (tuple(Shown(c, rank_text(c.rank, Lang.HU), (PLAYABLE, MUTED, PLAIN)[i % 3])
                      for i, c in enumerate(DECK[:13])),)
        draw_hand(HandScene(rows, four), frame=frame)
    assert _stamp.cache_info().misses == stamps
    assert _crest.cache_info().misses == crests


def test_a_face_painted_from_its_parts_is_the_same_each_time():
    """A face shares its parts with every other face, and keeps nothing of its own: painted
    again after its list of parts is forgotten, it is the same, pixel for pixel."""
    first = _tile("K", 1, PLAYABLE, False, 94, 13)[0].tobytes()
    _marks.cache_clear()
    assert _tile("K", 1, PLAYABLE, False, 94, 13)[0].tobytes() == first
    assert _tile("K", 1, MUTED, False, 94, 13)[0].tobytes() != first


def test_a_kept_picture_gives_back_every_cards_box():
    scene = _hand(20)
    drawn = draw_hand(scene)
    picture = Pictures().draw(scene, "alt", "hand.png")
    assert picture.boxes == drawn.boxes
    assert len(picture.layout) <= 12 * len(drawn.boxes)


def test_a_scene_crosses_to_the_drawing_process_as_plain_values_and_only_pixels_come_back():
    """What the bot pickles for each picture (its scene) and what comes back (the PNG, its
    size and layout; its key and alt text stay with the bot) are small, and the same
    picture is drawn from them."""
    scene = _hand(10, four=True)
    sent = pickle.dumps(scene, protocol=pickle.HIGHEST_PROTOCOL)
    assert pickle.loads(sent) == scene and len(sent) < 12 * 20
    table = table_scene(table_view(Phase.SHED, random.Random(2)), Lang.FR, False)
    assert table is not None
    assert pickle.loads(pickle.dumps(table[0])) == table[0]
    job = functools.partial(drawn_parts, draw_picture, scene, "ten cards", None, None)
    answer = pickle.loads(pickle.dumps(job))()
    picture = Pictures().draw(scene, "ten cards", "hand.png")
    assert answer == (picture.png, picture.width, picture.height, picture.layout)
    assert len(pickle.dumps(answer)) < len(picture.png) + len(picture.layout) + 40
    assert draw_picture(scene, (), "", "", FONTS, FRAME).png == picture.png
