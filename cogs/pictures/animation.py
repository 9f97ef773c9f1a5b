"""A whole hand as one animated picture for ``/nlk export``: one frame per move (the replay
step's picture, every hand face up), with a caption line saying the move.

Encoded as an animated lossless WebP and as a GIF (the frames are palette pictures, which
GIF keeps exactly), and the smaller is kept. A file over the size limit given (the
interaction's ``attachment_size_limit``) first loses the frames of forced moves (the moves
nobody chose), then every other frame that is left, and so on, the deal and the end always
kept; ``Animation.note`` says what was left out, for the message that carries it.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from discord import app_commands
from PIL import Image

from cogs.answers.interaction import place_of
from cogs.i18n.translator import L_, lang_of
from cogs.pictures.draw import FONTS, Frame
from cogs.pictures.replay import draw_replay, replay_scene
from cogs.render import safe_name
from cogs.render.history import Turn, turn_text
from cogs.transport.files import MemoryFile
from rules import Game
from rules.i18n import Lang, number, translator
from rules.replay import Replay

if TYPE_CHECKING:
    from cogs.client import Interaction
    from cogs.pictures import Pictures

ANIMATION_FILE = "nlk-hand"  # and the format's extension
# Smaller than the step pictures: a hand is a hundred frames or more.
ANIMATION_FRAME = Frame(400, 300, 1.5)
FRAME_MS = 900  # each move on screen
LAST_MS = 4000  # the end, before it starts again
GIF, WEBP = "gif", "webp"
FOUR = "four"  # (cogs.pictures.FOUR: the four-colour style)
DEFAULT_LIMIT = 10 * 1024 * 1024  # an interaction that does not say its limit
LIMIT_MARGIN = 64 * 1024  # the message around the file


@dataclass(frozen=True)
class Shot:
    """One frame: the move it shows (its number), whether that move was forced, and the
    picture."""

    move: int
    forced: bool
    image: Image.Image


@dataclass(frozen=True)
class Animation:
    data: bytes
    format: str  # "webp" or "gif"
    filename: str
    moves: tuple[int, ...]  # the moves shown, one frame each (0: the deal)
    total: int  # the hand's moves
    dropped_forced: bool  # forced moves were left out to fit the limit
    every: int  # then one frame in ``every`` was kept (1: all of them)
    note: str  # what was left out, in the reader's words ("" if nothing)


def shots(replay: Replay, lang: Lang, four: bool = False, *, letters: Lang | None = None,
          frame: Frame = ANIMATION_FRAME, folder: Path = FONTS) -> list[Shot]:
    """A frame for the deal and for each move of ``replay``, captioned in ``lang``."""
    _ = translator(lang).gettext
    game = replay.new_game()
    names = tuple(safe_name(p) for p in game.names)
    total = len(replay.actions)

    def shot(move: int, forced: bool, caption: str, game: Game) -> Shot:
        scene, _alt = replay_scene(game, lang, four, letters)
        drawn = draw_replay(scene, folder, frame, caption)
        image = Image.open(io.BytesIO(drawn.png))
        image.load()
        whole = Image.new("P", frame.pixels, 0)  # every frame the same size: the frame's
        whole.putpalette(image.getpalette() or [])
        whole.paste(image, ((whole.width - image.width) // 2,
                            (whole.height - image.height) // 2))
        return Shot(move, forced, whole)

    counter: Callable[[int], str] = lambda n: _("Move {number} of {total}").format(  # noqa: E731
        number=number(n, lang), total=number(total, lang))
    out = [shot(0, False, counter(0), game)]
    for index, (seat, action) in enumerate(replay.actions, 1):
        before = len(game.events)
        mover = game.to_act
        forced = len(game.legal_actions()) == 1
        game.apply(action, seat)
        moves = tuple(enumerate(game.history()[before:]))
        said = _("{name}: {move}").format(
            name=names[mover], move=turn_text(Turn(mover, moves), names, {}, None, lang,
                                              letters)) if moves and mover is not None else ""
        out.append(shot(index, forced, f"{counter(index)} · {said}" if said
                        else counter(index), game))
    return out


def encode_frames(frames: list[Shot]) -> tuple[bytes, str]:
    """The frames as an animated lossless WebP and as a GIF; the smaller one."""
    images = [s.image for s in frames]
    durations = [FRAME_MS] * (len(images) - 1) + [LAST_MS]
    found: list[tuple[int, bytes, str]] = []
    gif = io.BytesIO()
    images[0].save(gif, "GIF", save_all=True, append_images=images[1:], duration=durations,
                   loop=0, optimize=False, disposal=1)
    found.append((len(gif.getvalue()), gif.getvalue(), GIF))
    webp = io.BytesIO()
    rgb = [image.convert("RGB") for image in images]
    rgb[0].save(webp, "WEBP", save_all=True, append_images=rgb[1:], duration=durations,
                loop=0, lossless=True, method=0, quality=0)
    found.append((len(webp.getvalue()), webp.getvalue(), WEBP))
    _size, data, chosen = min(found)
    return data, chosen


def animated_replay(replay: Replay, lang: Lang, limit: int, four: bool = False, *,
                    letters: Lang | None = None, frame: Frame = ANIMATION_FRAME,
                    folder: Path = FONTS) -> Animation | None:
    """The hand as an animation of at most ``limit`` bytes (None: not even its deal and end
    fit)."""
    _ = translator(lang).gettext
    every = shots(replay, lang, four, letters=letters, frame=frame, folder=folder)
    total = len(every) - 1
    kept = every
    dropped_forced = False
    step = 1
    while True:
        data, chosen = encode_frames(kept)
        if len(data) <= limit:
            break
        if not dropped_forced and any(s.forced for s in kept[1:-1]):
            dropped_forced = True
            kept = [s for i, s in enumerate(every) if i in (0, total) or not s.forced]
            continue
        if len(kept) <= 2:
            return None
        step *= 2
        unforced = [s for i, s in enumerate(every) if i in (0, total) or
                    not (dropped_forced and s.forced)]
        kept = [s for i, s in enumerate(unforced) if i % step == 0 or s.move == total]
    note = ""
    if dropped_forced and step == 1:
        note = _("To fit Discord's file size limit, the moves nobody chose are left out.")
    elif step > 1:
        note = _("To fit Discord's file size limit, the animation shows one move in "
                 "{count}.").format(count=step)
    return Animation(data, chosen, f"{ANIMATION_FILE}.{chosen}", tuple(s.move for s in kept),
                     total, dropped_forced, step, note)


# /nlk export's choice of what to attach: the replay file (as before), or the animation.
EXPORT_FILE, EXPORT_ANIMATION = "file", "animation"
EXPORT_CHOICES = [
    app_commands.Choice(name=L_("nlk-replay/1 file, to replay step by step"),
                        value=EXPORT_FILE),
    app_commands.Choice(name=L_("animated picture of the whole hand, to share"),
                        value=EXPORT_ANIMATION),
]


async def send_animation(interaction: Interaction, replay: Replay, pictures: Pictures,
                         table_id: int, number_: int) -> None:
    """Answer ``/nlk export`` with the hand as an animation, only for the reader, in their
    language and card style; within the interaction's attachment size limit."""
    lang = lang_of(interaction)
    _ = translator(lang).gettext
    await interaction.response.defer(ephemeral=True, thinking=True)
    style = await pictures.styles.private(interaction.user.id, place_of(interaction))
    limit = getattr(interaction, "filesize_limit", None) or DEFAULT_LIMIT
    animation = await asyncio.to_thread(animated_replay, replay, lang, limit - LIMIT_MARGIN,
                                        style == FOUR, folder=pictures.fonts)
    if animation is None:
        await interaction.followup.send(_("This hand is too long to fit in one animated "
                                          "picture here."), ephemeral=True)
        return
    said = _("Hand {number} of table {table}, one move per frame.").format(
        number=number_, table=table_id)
    if animation.note:
        said += " " + animation.note
    await interaction.followup.send(said, file=MemoryFile(
        animation.data, animation.filename, description=said[:1024]), ephemeral=True)
