"""``python -m cogs.pictures bench`` measures the pictures; ``python -m cogs.pictures sample
DIR`` writes a hand, a table and a replay step as the README shows them.

bench: for a 10-, 20- and 40-card hand, a 9-seat table, a step of a 9-seat hand's replay
(every hand face up), the end-of-hand picture and the rating chart: p50/p99 milliseconds
cold (the picture not cached: drawn and encoded), p99 with nothing kept of the card faces
but their parts (what goes on each face looked up again), and cached (the same picture
asked for again), through the same code the bot uses (``Pictures``, off the event loop);
its bytes as PNG and as lossless WebP, the format sent; and its density in Discord's box.
It starts as the bot does: the parts of the card faces are drawn at start-up
(``Pictures.warm``, timed), and "first" is the first picture after that.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from PIL import Image

from cogs.pictures import CACHE_BYTES, Pictures
from cogs.pictures.chart import draw_chart
from cogs.pictures.draw import (
    FONTS,
    FORMATS,
    FRAME,
    LETTERS,
    PNG,
    REGULAR,
    WEBP,
    Frame,
    HandScene,
    TableScene,
    _marks,
    encode,
)
from cogs.pictures.ending import EndingPicture, end_of_hand_picture
from cogs.pictures.glyphs import Metrics, metrics_path
from cogs.pictures.replay import ReplayScene, replay_scene
from cogs.pictures.scenes import hand_scene, table_scene
from rules import Card, Game, Phase, SeatView, Variant, shuffled_deck
from rules.cards import SUITS
from rules.i18n import Lang, number
from rules.replay import replay_of
from rules.steps import landmarks, step_of

T = TypeVar("T")
DECK = [Card.parse(r + s) for s in SUITS for r in "AKQJT98765432"]
NAMES = ("Ann", "Bob", "Csilla", "Dani", "Eszter", "Feri", "Gábor", "Hanna", "István")


BASE = SeatView(
    seat=0, players=NAMES[:6], variant=Variant(), phase=Phase.SHED, version=100, dealer=2,
    to_act=0, talon=0, drawn=None, has_drawn=False, trump="S", tops=(None,) * 6,
    counts=(5,) * 6, own=(), trick=(), trick_size=6, out=(), loser=None, history=(), legal=())


def _view(**fields: Any) -> SeatView:
    return replace(BASE, **fields)


def hand_view(size: int, rng: random.Random) -> SeatView:
    """A shed-phase hand of ``size`` cards to beat a nine of hearts, trump spades."""
    from rules import Action
    own = tuple(sorted(rng.sample(DECK, size)))
    top = Card.parse("9H")
    legal = tuple(Action.play(c) for c in own
                  if c.suit == 0 or (c.suit == top.suit and c.rank > top.rank))
    return _view(own=own, trick=((1, top),), legal=(*legal, Action.parse("take")))


def table_view(phase: Phase, rng: random.Random) -> SeatView:
    """Nine seats: every stack top, the talon and a drawn card; or a trick of seven."""
    cards = rng.sample(DECK, 10)
    if phase == Phase.COLLECT:
        return _view(phase=Phase.COLLECT, players=NAMES, trump=None, to_act=4, talon=12,
                     drawn=cards[9], has_drawn=True, tops=tuple(cards[:9]),
                     counts=tuple(rng.randint(1, 9) for _ in range(9)))
    return _view(players=NAMES, trick=tuple(enumerate(cards[:7])), to_act=7,
                 counts=(5,) * 9)


def replay_steps(seed: int) -> list[Game]:
    """Every step of one random 9-seat hand, from the deal to its loser."""
    rng = random.Random(seed)
    game = Game.from_deck(shuffled_deck(9, str(seed)), seed % 9, names=NAMES)
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    replay = replay_of(game)
    return [step_of(replay, k).game for k in range(landmarks(replay).last + 1)]


_STEPS: list[Game] = []


def scenes(kind: str, lang: Lang, four: bool, rng: random.Random
           ) -> tuple[HandScene | TableScene | ReplayScene, str]:
    found: tuple[HandScene, str] | tuple[TableScene, str] | tuple[ReplayScene, str] | None
    if kind == "replay-step":
        if not _STEPS:
            _STEPS.extend(replay_steps(1))
        found = replay_scene(rng.choice(_STEPS), lang, four)
    elif kind.startswith("hand"):
        found = hand_scene(hand_view(int(kind[4:]), rng), lang, four)
    else:
        found = table_scene(table_view(Phase.COLLECT if kind == "table-collect"
                                       else Phase.SHED, rng), lang, four)
    assert found is not None
    return found


def _ms(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1,
                                                   int(len(ordered) * 0.99))]


def _both(data: bytes, once: bool) -> tuple[int, int]:
    """The bytes of a picture as PNG and as lossless WebP, at the settings its kind uses."""
    opened = Image.open(io.BytesIO(data))
    opened.load()
    image = opened if opened.mode == "P" else opened.convert("RGB").quantize(256)
    return len(encode(image, PNG, once=once)[0]), len(encode(image, WEBP, once=once)[0])


def _density(width: int, height: int, frame: Frame = FRAME) -> tuple[float, float]:
    """Device pixels per CSS pixel, and the share of the frame filled, once the picture is
    fitted into the frame as Discord does."""
    scale = min(frame.width / width, frame.height / height, 1.0)
    return 1 / scale, width * scale * height * scale / (frame.width * frame.height)


def _ending(rng: random.Random, four: bool) -> EndingPicture:
    names = list(NAMES)
    rng.shuffle(names)
    return end_of_hand_picture(names[:8], names[8], rng.sample(DECK, rng.randint(1, 14)),
                               Lang.EN, hand_number=rng.randint(1, 99), four=four,
                               changes={n: rng.uniform(-9, 9) for n in names})


def _cpu(samples: list[float], work: Callable[..., T]) -> Callable[..., T]:
    """``work``, adding the CPU milliseconds of the thread that runs it to ``samples``:
    what a picture costs whatever else the machine is doing (the other columns are wall
    time, waiting for a core included)."""
    def timed(*args: Any) -> T:
        start = time.thread_time()
        try:
            return work(*args)
        finally:
            samples.append((time.thread_time() - start) * 1000)
    return timed


async def bench(rounds: int) -> None:
    import cogs.pictures as drawing
    pictures = Pictures()
    cpu: list[float] = []
    # What the drawing thread spends on each picture (``Pictures._picture`` draws with
    # ``draw_picture`` in that thread).
    drawing.draw_picture = _cpu(cpu, drawing.draw_picture)
    rng = random.Random(1)
    start = time.perf_counter()
    pictures.warm()
    warm = (time.perf_counter() - start) * 1000
    for lang in Lang:  # as the bot has, long before its first picture: numbers in its words
        number(1.5, lang, 1)
    first_scene, first_alt = scenes("hand40", Lang.EN, False, rng)
    start = time.perf_counter()
    await pictures._picture(first_scene, first_alt, "hand.png")
    first = (time.perf_counter() - start) * 1000
    print(f"frame: {FRAME.width}×{FRAME.height} CSS pixels at {FRAME.ratio:g} device pixels "
          f"each: pictures of up to {FRAME.pixels[0]}×{FRAME.pixels[1]}, one side whole")
    print(f"start-up: the parts of the card faces and the labels' letters drawn in "
          f"{warm:.0f} ms; the first picture after that: {first:.1f} ms")
    print(f"{'picture':<14}{'p50 ms':>8}{'p99 ms':>8}{'new faces':>10}{'CPU p99':>8}"
          f"{'cached':>8}{'PNG B':>8}{'WebP B':>8}{'sent':>6}{'density':>9}{'filled':>8}")
    for kind in ("hand10", "hand20", "hand40", "table-collect", "table-shed", "replay-step",
                 "hand-over", "chart"):
        cold: list[float] = []
        fresh: list[float] = []  # no card face kept either
        cached: list[float] = []
        sizes: list[tuple[int, int]] = []
        shape = (0, 0)
        sent = ""
        cpu.clear()
        for i in range(rounds):
            four = i % 2 == 1
            if kind == "hand-over":
                start = time.perf_counter()
                ending = await asyncio.to_thread(_cpu(cpu, _ending), rng, four)
                cold.append((time.perf_counter() - start) * 1000)
                cached.append(0.0)
                data, shape, sent, once = ending.data, (ending.width, ending.height), \
                    ending.format, True
            elif kind == "chart":
                ratings = [rng.uniform(-5, 25) for _ in range(rng.randint(2, 80))]
                start = time.perf_counter()
                data = await asyncio.to_thread(_cpu(cpu, draw_chart), ratings, "provisional",
                                               Lang.EN)
                cold.append((time.perf_counter() - start) * 1000)
                cached.append(0.0)
                shape, sent, once = Image.open(io.BytesIO(data)).size, PNG, True
            else:
                scene, alt = scenes(kind, Lang.EN, four, rng)
                pictures.cache.clear()
                if i % 4 == 3:
                    _marks.cache_clear()
                start = time.perf_counter()
                picture = await pictures._picture(scene, alt, "x.png")
                (fresh if i % 4 == 3 else cold).append((time.perf_counter() - start) * 1000)
                start = time.perf_counter()
                await pictures._picture(scene, alt, "x.png")
                cached.append((time.perf_counter() - start) * 1000)
                assert picture is not None
                data, shape, once = picture.png, (picture.width, picture.height), False
                sent = FORMATS["replay" if kind == "replay-step" else kind.rstrip("0123456789")
                               .split("-")[0]]
            if i < 20:  # both encodings of the first pictures: the sizes, not the time
                sizes.append(_both(data, once))
        c50, c99 = _ms(cold)
        f99 = f"{_ms(fresh)[1]:>10.2f}" if fresh else f"{'':>10}"
        h50, _h99 = _ms(cached)
        density, filled = _density(*shape)
        print(f"{kind:<14}{c50:>8.2f}{c99:>8.2f}{f99}{_ms(cpu)[1]:>8.2f}{h50:>8.3f}"
              f"{int(statistics.median(s[0] for s in sizes)):>8}"
              f"{int(statistics.median(s[1] for s in sizes)):>8}{sent:>6}"
              f"{density:>8.1f}×{filled:>7.0%}")
    print(f"(9 seats: table-collect = nine stack tops, the talon and the drawn card; "
          f"table-shed = the trump and a trick of seven; replay-step = any step of a 9-seat "
          f"hand, every hand face up; hand-over = the end-of-hand picture; {rounds} pictures "
          f"each, half in four colours; p50/p99: three in four of them drawn and encoded; new "
          f"faces: p99 of the fourth, with what goes on each card face looked up anew; the "
          f"parts of the faces are drawn at start-up, and for card sizes over a quarter of "
          f"the frame on first use (counted); CPU p99: the drawing thread's CPU time, new "
          f"faces included; PNG and WebP bytes: the "
          f"same picture encoded both ways at the settings its kind uses; density: device "
          f"pixels per CSS pixel once fitted into the {FRAME.width}×{FRAME.height} box, and "
          f"the share of the box it fills)")
    print(f"cache bound: {CACHE_BYTES // (1024 * 1024)} MiB of pictures")


def sample(folder: Path) -> None:
    """The README's pictures: a 14-card hand to beat, a nine-seat collect phase, a step of a
    six-seat hand's replay in the shed phase, and the end of a six-seat hand."""
    pictures = Pictures()
    rng = random.Random(3)
    hand, alt = hand_scene(hand_view(14, rng), Lang.EN, False) or (None, "")
    table, table_alt = table_scene(table_view(Phase.COLLECT, rng), Lang.EN, False) or \
        (None, "")
    assert hand is not None and table is not None
    step = _replay_sample()
    replay, replay_alt = replay_scene(step, Lang.EN, False)
    folder.mkdir(parents=True, exist_ok=True)
    shown: tuple[tuple[str, HandScene | TableScene | ReplayScene, str], ...] = (
        ("hand", hand, alt), ("table", table, table_alt), ("replay", replay, replay_alt))
    for name, scene, text in shown:
        picture = pictures.draw(scene, text, name)
        kind = picture.filename
        path = folder / f"{kind}.{FORMATS[kind]}"
        path.write_bytes(picture.png)
        print(f"{path}: {picture.width}×{picture.height}, {len(picture.png)} bytes;"
              f" alt text: {text}")
    ending = end_of_hand_picture(
        ["Csilla", "Ann", "Eszter", "Dani", "Feri"], "Bob",
        [Card.parse(c) for c in ("9H", "KH", "JS", "AS", "QD", "TC", "9C")], Lang.EN,
        hand_number=7, trump="S",
        changes={"Csilla": 4.2, "Ann": 2.6, "Eszter": 0.9, "Dani": -0.4, "Feri": -1.8,
                 "Bob": -5.1})
    path = folder / ending.filename
    path.write_bytes(ending.data)
    print(f"{path}: {ending.width}×{ending.height}, {len(ending.data)} bytes; "
          f"alt text: {ending.alt}")


def _replay_sample() -> Game:
    """A step of a six-seat hand a few cards into a trick of the shed phase."""
    rng = random.Random(4)
    game = Game.from_deck(shuffled_deck(6, "readme"), 2, names=NAMES[:6])
    while not game.is_over:
        if game.phase is Phase.SHED and len(game.trick) == 3 and len(game.out) == 0:
            return game
        game.apply(rng.choice(game.legal_actions()))
    return game


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cogs.pictures")
    commands = parser.add_subparsers(dest="command", required=True)
    timing = commands.add_parser("bench", help="time and size the pictures")
    timing.add_argument("--rounds", type=int, default=200)
    out = commands.add_parser("sample", help="write a hand and a table picture")
    out.add_argument("folder", type=Path)
    commands.add_parser("metrics", help="measure the font's advances and kerning (after the "
                        "font or LETTERS changed)")
    args = parser.parse_args(argv)
    if args.command == "bench":
        asyncio.run(bench(args.rounds))
    elif args.command == "metrics":
        metrics()
    else:
        sample(args.folder)
    return 0


def metrics() -> None:
    """Measure the advance of each of ``LETTERS`` in the labels' font, and the pairs of them
    it kerns, and write them next to the font, where the labels read them."""
    font = FONTS / REGULAR
    measured = Metrics.measure(font, LETTERS)
    metrics_path(font).write_text(measured.dumps() + "\n", encoding="utf-8")
    print(f"{metrics_path(font).name}: {len(measured.advances)} letters, "
          f"{len(measured.pairs)} kerned pairs")


if __name__ == "__main__":
    sys.exit(main())
