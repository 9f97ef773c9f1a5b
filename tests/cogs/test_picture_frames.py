"""Pictures drawn for Discord's embed box: every kind fits the 400×300 box at two device
pixels per CSS pixel and fills most of it; each kind goes out in the smaller format; cards
that may be played differ from those that may not in both decks; names keep their room and
lose what the font can't draw; and the alt text is in the reader's language."""

import io
import random
import re
from dataclasses import replace

import pytest
from PIL import Image, ImageChops

from cogs.pictures import Pictures
from cogs.pictures.__main__ import hand_view, table_view
from cogs.pictures.chart import draw_chart
from cogs.pictures.draw import (
    BACK,
    FORMATS,
    FRAME,
    MUTED,
    PLAYABLE,
    PNG,
    SPREAD,
    STEP,
    WEBP,
    Frame,
    HandScene,
    Shown,
    _measure,
    _pack,
    _width,
    draw_hand,
    drawable,
    encode,
)
from cogs.pictures.ending import end_of_hand_message, end_of_hand_picture
from cogs.pictures.replay import replay_scene
from cogs.pictures.scenes import hand_scene, table_scene
from cogs.replay import ids
from rules import Card, Game, Phase, shuffled_deck
from rules.i18n import Lang

BOX = (400, 300)  # Discord's embed box, CSS pixels
DECK = [Card.parse(r + s) for s in "SHDC" for r in "AKQJT98765432"]
NAMES = ["Ann", "Bob", "Csilla", "Dani", "Eszter", "Feri", "Gábor", "Hanna", "István"]


def decode(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image.convert("RGB")


def shown_in_box(width: int, height: int) -> tuple[float, float]:
    """Device pixels per CSS pixel, and the share of the box's area, of a picture fitted
    into the box as Discord does (as large as fits, never enlarged past its pixels' worth
    at a ratio of 1)."""
    scale = min(BOX[0] / width, BOX[1] / height, 1.0)
    return 1 / scale, (width * scale) * (height * scale) / (BOX[0] * BOX[1])


def a_step(moves: int, seats: int = 9) -> Game:
    """A 9-seat hand ``moves`` random moves in (or over, if it ends first)."""
    rng = random.Random(moves)
    game = Game.from_deck(shuffled_deck(seats, "frames"), 0, names=NAMES[:seats])
    for _ in range(moves):
        if game.is_over:
            break
        game.apply(rng.choice(game.legal_actions()))
    return game


def hand_of(size: int, seed: int = 1) -> HandScene:
    found = hand_scene(hand_view(size, random.Random(seed)), Lang.EN, False)
    assert found is not None
    return found[0]


def _ending():
    return end_of_hand_picture(NAMES[:8], NAMES[8], DECK[:11], Lang.EN, hand_number=3,
                               changes={n: (-1) ** i * i for i, n in enumerate(NAMES)})


def _pictures() -> dict[str, tuple[int, int]]:
    """Every kind of picture, as its size in pixels."""
    sizes = {}
    for count in (1, 13, 26, 52):
        drawn = draw_hand(hand_of(count))
        sizes[f"hand{count}"] = (drawn.width, drawn.height)
    pictures = Pictures()
    rng = random.Random(2)
    for seats in (2, 9):
        view = table_view(Phase.COLLECT, rng)
        view = replace(view, players=tuple(NAMES[:seats]), tops=view.tops[:seats],
                       counts=view.counts[:seats])
        found = table_scene(view, Lang.EN, False)
        assert found is not None
        picture = pictures.draw(found[0], found[1], "table.png")
        sizes[f"table{seats}"] = (picture.width, picture.height)
    step = a_step(60)
    scene, alt = replay_scene(step, Lang.EN, False)
    picture = pictures.draw(scene, alt, "replay.png")
    sizes["replay"] = (picture.width, picture.height)
    sizes["chart"] = decode(draw_chart([1.0, 3.5, 2.0, 6.0], "provisional", Lang.EN)).size
    ending = _ending()
    sizes["ending"] = (ending.width, ending.height)
    return sizes


def test_every_kind_of_picture_is_sharp_and_fills_discords_box():
    for kind, (width, height) in _pictures().items():
        density, filled = shown_in_box(width, height)
        assert density >= 2, (kind, width, height)
        assert filled >= 0.6, (kind, width, height)


def test_the_frame_and_pixel_ratio_are_parameters():
    small = draw_hand(hand_of(13), frame=Frame(400, 300, 1.0))
    sharp = draw_hand(hand_of(13), frame=Frame(400, 300, 3.0))
    assert max(small.width / 400, small.height / 300) == 1
    assert max(sharp.width / 400, sharp.height / 300) == 3
    card = next(b.x1 - b.x0 for b in sharp.boxes)
    assert card >= 2.5 * next(b.x1 - b.x0 for b in small.boxes)


def test_a_hand_is_laid_out_wide_not_in_a_tall_column():
    """Four short suits share lines, and a lone card is large."""
    few = draw_hand(hand_of(5))
    tops = {b.y0 for b in few.boxes}
    assert len(tops) <= 3
    one = draw_hand(hand_of(1))
    box = one.boxes[0]
    assert box.y1 - box.y0 >= FRAME.pixels[1] * 0.6


def test_each_kind_goes_out_in_the_smaller_format():
    """On fixed scenes, the format each kind is sent in is the smaller of lossless WebP and
    PNG at the encoder settings that kind can afford (every move: the fastest; once per hand
    or chart: PNG deflated harder), and the end-of-hand picture keeps the smaller of the two
    itself; the rating chart goes out as PNG, the smaller for it too."""
    for kind, scene in (("hand", hand_of(10)), ("hand", hand_of(40, 3))):
        image = decode(draw_hand(scene).png).quantize(256)
        sizes = {fmt: len(encode(image, fmt)[0]) for fmt in (PNG, WEBP)}
        assert sizes[FORMATS[kind]] == min(sizes.values()), (kind, sizes)
    ending = _ending()
    image = decode(ending.data)
    once = {fmt: len(encode(image.quantize(256), fmt, once=True)[0]) for fmt in (PNG, WEBP)}
    assert ending.format == min(once, key=lambda f: once[f])
    assert ending.filename.endswith("." + ending.format)
    for ratings in ([1.0, 3.5, 2.0, 6.0], [float(i % 7) for i in range(60)]):
        chart = draw_chart(ratings, "provisional", Lang.EN)
        assert chart.startswith(b"\x89PNG")
        assert len(chart) < len(encode(decode(chart), WEBP, once=True)[0])


@pytest.mark.parametrize("four", [False, True])
def test_a_playable_card_and_an_unplayable_one_differ(four):
    card = Card.parse("9D")
    drawn = draw_hand(HandScene(((Shown(card, "9", PLAYABLE),), (Shown(card, "9", MUTED),)),
                                four))
    image = decode(drawn.png)
    playable, muted = (image.crop((b.x0, b.y0, b.x1, b.y1)) for b in drawn.boxes)
    assert playable.size == muted.size
    differing = sum(ImageChops.difference(playable, muted).convert("L").histogram()[1:])
    assert differing > 0.5 * playable.width * playable.height
    # The muted face is grey; the playable one keeps a white face and a gold edge.
    assert max(muted.getpixel((muted.width // 2, muted.height // 3))) < 200
    assert min(playable.getpixel((playable.width // 2, playable.height // 3))) > 230


def test_names_lose_emoji_cleanly_and_keep_the_room_they_have():
    assert drawable("🎲 Zsófi ✨") == "Zsófi"
    assert drawable("Éva👩‍👩‍👧 Kovács") == "Éva Kovács"
    assert drawable("Ann ♠") == "Ann ♠"  # the font has the suits: they stay
    view = table_view(Phase.COLLECT, random.Random(1))
    long_names = ("@everyone's friend", "Zsófia Kiss-Nagy", *NAMES[2:])
    view = replace(view, players=long_names)
    found = table_scene(view, Lang.EN, False)
    assert found is not None
    assert found[0].rows[0][0].label.startswith("@everyone's friend\n")
    assert found[0].rows[0][1].label.startswith("Zsófia Kiss-Nagy\n")


@pytest.mark.parametrize(("lang", "marks"), [
    (Lang.EN, ("Your hand, 13 cards: ", "Stack tops: ", "Finishing order: ")),
    (Lang.HU, ("lap", "Kupacok teteje", "")),
    (Lang.FR, ("Votre main, 13 cartes\u202f: ", "\u202f: ", "Ordre de sortie\u202f: ")),
])
def test_alt_text_on_every_picture_in_three_languages(lang, marks):
    rng = random.Random(4)
    hand = hand_scene(hand_view(13, rng), lang, False)
    table = table_scene(table_view(Phase.COLLECT, rng), lang, False)
    replay = replay_scene(a_step(3), lang, False)
    ending = end_of_hand_picture(NAMES[:2], NAMES[2], DECK[:3], lang, hand_number=1)
    assert hand is not None and table is not None
    alts = [hand[1], table[1], replay[1], ending.alt]
    assert all(alts)
    assert marks[0] in alts[0] and marks[1] in alts[1] and marks[2] in alts[3]
    if lang is Lang.FR:  # French spacing before every colon, the replay's too
        for alt in alts:
            assert re.search(r"[^\s\u202f\u00a0]:", alt) is None, alt
    if lang is not Lang.EN:
        english = end_of_hand_picture(NAMES[:2], NAMES[2], DECK[:3], Lang.EN, hand_number=1)
        assert ending.alt != english.alt


def test_the_end_of_hand_message_carries_the_picture_and_a_replay_button():
    picture = _ending()
    sent = end_of_hand_message(picture, 42, Lang.FR, "La donne 3 est finie.")
    assert sent["embed"].image.url == f"attachment://{picture.filename}"
    assert sent["files"][0].description == picture.alt
    (button,) = sent["view"].children
    assert button.label == "Revoir la donne"
    match = re.fullmatch(ids.TEMPLATE, button.custom_id)
    assert match is not None and ids.parse(match) == ("h42", 0, ids.Act.OPEN)
    assert len(button.custom_id) <= 100


def _short_hand():
    """A two-seat hand from a position a few moves from its end."""
    from rules.replay import replay_of
    rng = random.Random(7)
    game = Game.from_shed_position([[Card.parse(c) for c in ("9H", "JS", "KD")],
                                    [Card.parse(c) for c in ("TH", "QS")]], 0, 0,
                                   names=("Ann", "Bob"))
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    return replay_of(game)


def test_the_animated_replay_has_a_frame_per_move_and_keeps_under_a_limit():
    from cogs.pictures.animation import animated_replay
    replay = _short_hand()
    moves = len(replay.actions)
    whole = animated_replay(replay, Lang.EN, 10_000_000)
    assert whole is not None and whole.note == "" and whole.every == 1
    image = Image.open(io.BytesIO(whole.data))
    assert image.format.lower() == whole.format and whole.filename.endswith(whole.format)
    assert image.n_frames == moves + 1 == len(whole.moves)
    assert image.size == (600, 450)
    limit = len(whole.data) * 2 // 3  # too small for every frame
    cut = animated_replay(replay, Lang.FR, limit)
    assert cut is not None and len(cut.data) <= limit
    assert Image.open(io.BytesIO(cut.data)).n_frames == len(cut.moves) < moves + 1
    assert cut.moves[0] == 0 and cut.moves[-1] == moves  # the deal and the end stay
    assert cut.note.startswith("Pour respecter")
    assert animated_replay(replay, Lang.EN, 100) is None


def test_the_layout_search_measures_each_packing_as_it_would_be_made():
    rng = random.Random(8)
    for _ in range(400):
        lengths = tuple(rng.randint(0, 13) for _ in range(rng.randint(1, 5)))
        for most in range(1, max(sum(lengths), 1) + 1):
            for share in (False, True):
                for step in (SPREAD, STEP):
                    plan = _pack(lengths, most, share)
                    assert _measure(lengths, most, share, step) == (
                        len(plan), max(_width(line, step) for line in plan)), (lengths, most)


@pytest.mark.parametrize(("lang", "out", "hands"), [
    (Lang.EN, "out", "Hands: Ann: 5 cards; Bob: out; Csilla: 1 card."),
    (Lang.HU, "végzett", "Lapok a kézben: Ann: 5 lap; Bob: végzett; Csilla: 1 lap."),
    (Lang.FR, "à l’abri", "Mains\u202f: Ann\u202f: 5 cartes\u202f; Bob\u202f: à l’abri\u202f; "
                          "Csilla\u202f: 1 carte."),
])
def test_the_shed_phase_table_shows_each_players_card_count_and_who_is_out(lang, out, hands):
    """A glance at the table's picture tells the state: every player's hand face down with
    its card count, or an empty place for one who is out; the one to act edged in gold."""
    view = replace(table_view(Phase.SHED, random.Random(5)), players=tuple(NAMES[:3]),
                   counts=(5, 0, 1), out=(1,), to_act=2, trick=((0, Card.parse("9H")),))
    found = table_scene(view, lang, False)
    assert found is not None
    scene, alt = found
    seats = {p.label.split("\n")[0]: p for row in scene.rows for p in row if "\n" in p.label}
    assert set(seats) == set(NAMES[:3])
    assert [seats[n].back for n in NAMES[:3]] == [True, False, True]  # Bob's hand is gone
    assert [seats[n].mark for n in NAMES[:3]] == [False, False, True]
    assert seats["Bob"].card is None and seats["Bob"].label == f"Bob\n{out}"
    assert seats["Ann"].label.startswith("Ann\n5 ")
    assert alt.endswith(hands), alt
    picture = Pictures().draw(scene, alt, "table.png")
    colours = {c for _n, c in decode(picture.png).getcolors(1 << 16)}
    assert BACK in colours  # the hands face down
    assert [b.card for b in picture.boxes] == [Card.parse("9H")]
