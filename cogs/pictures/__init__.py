"""Cards as pictures: a player's hand or stack, and the table's public cards.

The text stays: it is what screen readers read and what shows while a picture loads; the
picture sits in the embed (``attachment://hand.png``), and the attachment's description says
its cards in words. Pictures are drawn off the event loop, kept by what they show (a bounded
cache in bytes), and never cost a player anything: if the font is missing or Pillow fails,
one warning is logged and the message goes out as text.

Who sees what style: a server chooses for its public pictures (``/nlk settings pictures``:
on, four-colour, off); a player for their own (``/nlk cards``: the server's choice, pictures,
four-colour, text).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import struct
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.db.records import TableStatus
from bot.ops.loop_workers import LoopWorkers, answer
from bot.tables.service import Table
from bot.tasks import Tasks
from cogs.pictures.cache import ByteLRU
from cogs.pictures.draw import (
    FONTS,
    FORMATS,
    FRAME,
    MUTED,
    PLAIN,
    PLAYABLE,
    Box,
    Frame,
    HandScene,
    Key,
    TableScene,
    check_fonts,
    draw_hand,
    draw_table,
    prepare,
)
from cogs.pictures.replay import ReplayScene, draw_replay
from cogs.pictures.scenes import hand_scene, table_scene
from cogs.pictures.turns import Turns
from rules import Card
from rules.i18n import Lang

if TYPE_CHECKING:
    import discord

    from bot.guilds.service import GuildService

log = logging.getLogger(__name__)

PictureKey = Key  # what a picture shows: its scene's key, then its alt text
BOX = struct.Struct("<H4hB")  # a card's box in a picture's layout: card, x0, y0, x1, y1, state
STATES = (PLAIN, PLAYABLE, MUTED)

HAND_FILE = f"hand.{FORMATS['hand']}"
TABLE_FILE = f"table.{FORMATS['table']}"
# About 300 pictures of 12–16 KB (drawn at twice the embed box's size): every open hand and
# table message of fifty tables at once. A picture is looked up again within moments (an
# answer, then the redraw that follows it, or the next tap on an unchanged hand), not once
# its hand has moved on; one that fell out costs a millisecond to draw again.
CACHE_BYTES = 4 * 1024 * 1024
# The longest an answer waits for its picture while the drawing keeps up: about what nine
# in ten pictures foreseen as the tap's move is written take to draw (measured at a human
# pace, 50 tables on two cores: half within 1.5 ms of the write, a tenth past 4 ms, one in
# sixty-five past 8). A picture not drawn by then follows in a redraw: a tap is never kept
# waiting for a picture. Shorter waits cost a redraw for each answer they leave without
# its picture; at 2 ms, a third of them.
ANSWER_WAIT = 0.004
# While the drawing is behind (more pictures wait for a drawing process than ``BEHIND``
# times the processes), an answer waits up to ``BEHIND_WAIT`` for its picture instead. That
# is the one thing that holds fast players back while the drawing falls behind: without it
# answers go faster than pictures are drawn, the drawings they leave behind pile up, and the
# memory grows (measured flat out at 8 ms for every answer: twice the peak per table).
BEHIND = 2
BEHIND_WAIT = 0.06
# However long ``answer_wait`` is set, an answer waits for its picture no later than this
# many seconds after its interaction was made: Discord takes the first answer within 3.
ANSWER_BY = 2.5
# The longest a table message's loop waits for its new picture before it edits (answers go
# on meanwhile, and the channel's turn is taken only once it is ready): past that, the edit
# goes with the picture the message has, and the new one follows once it is drawn.
PAINT_WAIT = 2.0
# How much lower the drawing processes' CPU priority is than the bot's: on a machine with
# fewer cores than busy processes, the bot's answers get a core first, and a picture that
# comes late follows its answer in a redraw.
DRAWING_NICE = 5

# Where pictures are drawn. The bot draws them in processes of their own (``processes``: one
# per core, up to four, ``drawing_processes``), several at once: drawing is most of what
# the bot computes, and in a thread of the bot's process it held the interpreter lock that
# every answer needs. Without them (tests, the benchmark), in one thread: one, as a thread
# draws one picture at a time anyway (the font's lock), so the large buffers of each picture
# (its pixels, their rows to deflate) reuse the same freed memory instead of growing an
# allocator arena in each of the default pool's threads (about 20 MB of resident memory over
# a few thousand pictures).
DRAWER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pictures")

# Styles: what a server or a player chose, and what a picture is drawn in.
OFF, TWO, FOUR = "off", "two", "four"
SERVER_CHOICES = {"on": TWO, "four-colour": FOUR, "off": OFF}  # /nlk settings pictures
PLAYER_CHOICES = {"pictures": TWO, "four-colour": FOUR, "text": OFF}  # /nlk cards
SERVER_DEFAULT = "on"
FOLLOW_SERVER = "server"  # a player's choice that follows the server's


@dataclass(frozen=True, slots=True)
class Picture:
    """A drawn picture: what it shows (its key: the scene's and the alt text), the PNG, its
    alt text and its layout. Only plain values: the cache holds thousands of these, and the
    garbage collector scans one object for each, not a hundred (a full collection stops the
    event loop for as long as it scans)."""

    key: PictureKey
    png: bytes
    filename: str
    description: str
    width: int
    height: int
    layout: bytes  # each card's box, packed (``BOX``): a few bytes, not a tuple of numbers

    @property
    def boxes(self) -> tuple[Box, ...]:
        """Where each card was drawn, and how."""
        return tuple(Box(Card(card), x0, y0, x1, y1, STATES[state])
                     for card, x0, y0, x1, y1, state in BOX.iter_unpack(self.layout))

    @property
    def size(self) -> int:
        """The bytes it keeps, its key's included (about as many as its alt text)."""
        return len(self.png) + 2 * len(self.description) + len(self.layout) + 200

    def file(self) -> discord.File:
        # Here, not above: the drawing processes import this module, not Discord.
        from cogs.transport.files import MemoryFile

        return MemoryFile(self.png, self.filename, description=self.description)


class Late:
    """A picture still being drawn when the answer that wanted it had to go."""


LATE = Late()


class Styles:
    """Each server's and player's choice, read once from the database and then kept."""

    def __init__(self, servers: GuildService | None) -> None:
        self.servers = servers
        self._servers: dict[int, str] = {}
        self._players: dict[int, str | None] = {}

    async def public(self, guild_id: int | None) -> str:
        """The style of a server's public pictures."""
        if guild_id is None or self.servers is None:
            return SERVER_CHOICES[SERVER_DEFAULT]
        if guild_id not in self._servers:
            chosen = (await self.servers.settings(guild_id)).pictures
            self._servers[guild_id] = SERVER_CHOICES.get(chosen or SERVER_DEFAULT, TWO)
        return self._servers[guild_id]

    async def private(self, user_id: int, guild_id: int | None) -> str:
        """The style of a player's own pictures: theirs, or else the server's."""
        if user_id not in self._players and self.servers is not None:
            self._players[user_id] = await self.servers.card_style(user_id)
        chosen = self._players.get(user_id)
        if chosen in PLAYER_CHOICES:
            return PLAYER_CHOICES[chosen]
        return await self.public(guild_id)

    def known_public(self, guild_id: int | None) -> str | None:
        """The style of a server's public pictures if it is known without the database
        (None: ``public`` reads it)."""
        if guild_id is None or self.servers is None:
            return SERVER_CHOICES[SERVER_DEFAULT]
        return self._servers.get(guild_id)

    async def private_or_known(self, user_id: int, guild_id: int | None) -> str:
        """The player's style, or, if it can't be read (the database is down), what is known
        of it without the database."""
        try:
            return await self.private(user_id, guild_id)
        except Exception:
            log.warning("could not read a card style; using the default", exc_info=True)
            return self.known_private(user_id, guild_id)

    def known_private(self, user_id: int, guild_id: int | None) -> str:
        """The style of a player's pictures as far as is known without the database."""
        chosen = self._players.get(user_id)
        if chosen in PLAYER_CHOICES:
            return PLAYER_CHOICES[chosen]
        if guild_id is None:
            return SERVER_CHOICES[SERVER_DEFAULT]
        return self._servers.get(guild_id, SERVER_CHOICES[SERVER_DEFAULT])

    def server_changed(self, guild_id: int, chosen: str | None) -> None:
        self._servers[guild_id] = SERVER_CHOICES.get(chosen or SERVER_DEFAULT, TWO)

    def player_changed(self, user_id: int, chosen: str | None) -> None:
        self._players[user_id] = chosen


def answer_left(interaction: discord.Interaction[Any]) -> float:
    """How long the first answer to ``interaction`` may still wait: until ``ANSWER_BY``
    seconds after it was made (none once that is past)."""
    return max(0.0, interaction.created_at.timestamp() + ANSWER_BY - time.time())


class Pictures:
    """Draws, caches and attaches the pictures; turns itself off once if it can't draw."""

    def __init__(self, servers: GuildService | None = None, *, fonts: Path = FONTS,
                 cache_bytes: int = CACHE_BYTES, frame: Frame = FRAME,
                 processes: int = 0) -> None:
        self.fonts = fonts
        self.frame = frame  # the box pictures are shown in, and the pixel ratio
        self.cache: ByteLRU[Picture] = ByteLRU(cache_bytes)
        self.styles = Styles(servers)
        self.broken: str | None = None  # why pictures are off for this run, once logged
        self._failed: set[str] = set()  # kinds of drawing failure already logged
        # As many drawn at once as there are drawers, urgent ones first.
        self.turns = Turns(max(processes, 1))
        self._late = Tasks()  # drawings answers left behind
        # Drawings on their way, by what they show: a picture asked for again meanwhile (the
        # same hand for its answer and its redraw) is drawn once, not once per drawer.
        self._drawing: dict[PictureKey, asyncio.Task[Picture | None]] = {}
        self._hurried: set[PictureKey] = set()  # of those, ones an answer waits for
        self.answer_wait = ANSWER_WAIT
        self.paint_wait = PAINT_WAIT
        # ``processes``: drawn in that many processes of their own (each warmed, its card
        # parts drawn, before its first picture), which the event loop hands each picture
        # itself; else in this process's drawing thread.
        self.pool = LoopWorkers(processes, warm=functools.partial(prepare, fonts, frame),
                                nice=DRAWING_NICE) if processes > 0 else None

    def hand_key(self, table: Table, user_id: int, lang: Lang, style: str,
                 letters: Lang | None = None) -> PictureKey | None:
        """What a player's picture would show (None: no picture), without drawing it."""
        return key_of(self.hand_scene(table, user_id, lang, style, letters))

    def hand_scene(self, table: Table, user_id: int, lang: Lang, style: str,
                   letters: Lang | None = None) -> tuple[HandScene, str] | None:
        """A player's picture as a scene and its alt text (None: no picture), not drawn:
        ``hand_picture`` draws it."""
        try:
            view = table.view_of_user(user_id)
            if style == OFF or view is None or table.seat_of(user_id) is None:
                return None
            return hand_scene(view, lang, style == FOUR, letters)
        except Exception as error:
            self._failed_once(error)
            return None

    def _failed_once(self, error: Exception) -> None:
        """Log a failure to make a picture, once per kind: the message goes out as text."""
        kind = type(error).__name__
        if kind not in self._failed:
            self._failed.add(kind)
            log.warning("could not draw a card picture; sending text", exc_info=error)

    async def public(self, table: Table, lang: Lang, *, urgent: bool = False
                     ) -> Picture | None:
        """The table's picture in the style its server chose (``urgent``: an answer waits
        for it)."""
        try:
            style = await self.styles.public(table.place)
        except Exception:
            log.warning("could not read a server's picture style; using the default",
                        exc_info=True)
            style = SERVER_CHOICES[SERVER_DEFAULT]
        return await self.table(table, lang, style, urgent=urgent)

    async def hand(self, table: Table, user_id: int, lang: Lang, style: str,
                   letters: Lang | None = None, *, urgent: bool = False) -> Picture | None:
        """The player's own cards as a picture (None: text only)."""
        if style == OFF or not self.ready():
            return None
        return await self.hand_picture(self.hand_scene(table, user_id, lang, style, letters),
                                       urgent=urgent)

    async def hand_picture(self, found: tuple[HandScene, str] | None, *, urgent: bool = False
                           ) -> Picture | None:
        """The picture of a scene from ``hand_scene`` (None: text only)."""
        return await self._landed(self.hand_now(found, urgent=urgent))

    def hand_now(self, found: tuple[HandScene, str] | None, *, urgent: bool = False
                 ) -> Picture | asyncio.Future[Picture | None] | None:
        """The picture of a scene from ``hand_scene`` if it is kept (None: text only), else
        its drawing, started if it is not on its way: ``within`` then takes a kept picture
        at once, without a task and a turn of the event loop to wait for it (a hand shown
        again, **My hand** on a turn whose hand was just redrawn, is most of them)."""
        if found is None or not self.ready():
            return None
        return self._drawn_or_drawing(found[0], found[1], HAND_FILE, urgent)

    def public_now(self, table: Table, lang: Lang, *, urgent: bool = False
                   ) -> Picture | asyncio.Future[Picture | None] | \
            Coroutine[Any, Any, Picture | None] | None:
        """As ``public``, for ``within``: the picture if it is kept, else its drawing (as
        ``public`` while the server's style is still to be read)."""
        style = self.styles.known_public(table.place)
        if style is None:
            return self.public(table, lang, urgent=urgent)
        return self.table_now(table, lang, style, urgent=urgent)

    async def table(self, table: Table, lang: Lang, style: str, *, urgent: bool = False
                    ) -> Picture | None:
        """The table's public cards as a picture (None: text only)."""
        return await self._landed(self.table_now(table, lang, style, urgent=urgent))

    def table_now(self, table: Table, lang: Lang, style: str, *, urgent: bool = False
                  ) -> Picture | asyncio.Future[Picture | None] | None:
        """The table's public cards as a picture if it is kept (None: text only), else its
        drawing, started if it is not on its way (as ``hand_now``)."""
        if style == OFF or not self.ready() or not table.is_open or \
                table.status is TableStatus.LOBBY:
            return None
        view = table.public_view()
        if view is None or view.is_over:
            return None
        try:
            found = table_scene(view, lang, style == FOUR)
        except Exception as error:
            self._failed_once(error)
            return None
        if found is None:
            return None
        return self._drawn_or_drawing(found[0], found[1], TABLE_FILE, urgent)

    def answer_wait_for(self, interaction: discord.Interaction[Any]) -> float:
        """How long the answer to ``interaction`` may wait for its picture: ``answer_wait``,
        or ``BEHIND_WAIT`` if longer while the drawing is behind (``behind``), and never past
        ``ANSWER_BY`` seconds after the interaction was made."""
        wait = max(self.answer_wait, BEHIND_WAIT) if self.behind() else self.answer_wait
        return min(wait, answer_left(interaction))

    def behind(self) -> bool:
        """Whether the drawing is behind: more pictures wait for a drawing process than
        ``BEHIND`` for each."""
        return self.turns.waiting > BEHIND * self.turns.slots

    async def within(self, drawing: Coroutine[Any, Any, Picture | None]
                     | asyncio.Future[Picture | None] | Picture | None,
                     wait: float | None = None, *, then: Callable[[], None] | None = None
                     ) -> Picture | Late | None:
        """``drawing``'s picture if it is ready within ``wait`` seconds (default:
        ``answer_wait``), else ``LATE``: the drawing goes on and lands in the cache, for the
        redraw that follows (``then`` is called once it has landed). A picture (or None)
        found already (``hand_now``) is given back as it is."""
        if drawing is None or isinstance(drawing, Picture):
            return drawing
        task = asyncio.ensure_future(drawing)
        if not task.done():
            await asyncio.wait((task,), timeout=self.answer_wait if wait is None else wait)
        if task.done():
            return task.result()
        if then is not None:
            task.add_done_callback(lambda _task: then())
        self._late.keep(task)
        return LATE

    def warm(self) -> None:
        """Load the font and draw, where pictures are drawn (in this thread; or in each
        drawing process, which this starts and waits for), the parts every card face is put
        together from (its ground, each letter and pip where it goes, the court emblems, the
        back) and the letters labels are put together from, at every size a layout of the
        frame picks up to a quarter of the frame: a face not drawn before then costs a few
        pastes, not a drawing, and no picture waits for a font (about 1 s, once, at
        start-up; the bot connects once it is done)."""
        if self.ready():
            try:
                if self.pool is not None:  # the drawing processes start, and warm themselves
                    self.pool.start()
                else:
                    prepare(self.fonts, self.frame)
            except Exception:
                log.debug("warming the card pictures failed", exc_info=True)

    def close(self) -> None:
        """Stop the drawing processes once the drawings asked for are done (a few
        milliseconds each); a picture asked for from now on is text."""
        if self.pool is not None:
            self.pool.shutdown(wait=False)

    def ready(self) -> bool:
        """Whether pictures can be drawn (the font is there); checked once."""
        if self.broken is None:
            self.broken = ""
            try:
                check_fonts(self.fonts)
            except Exception as error:
                self.broken = str(error)
                log.warning("card pictures are off; the bot sends text: %s", error)
        return not self.broken

    async def replay(self, scene: ReplayScene, alt: str, filename: str) -> Picture | None:
        """A replay step's picture (None: text only); a reader waits for it."""
        if not self.ready():
            return None
        return await self._picture(scene, alt, filename, urgent=True)

    def foresee_hand(self, found: tuple[HandScene, str] | None) -> None:
        """Start drawing the picture of a scene from ``hand_scene`` that an answer will
        want (as ``hand_picture(found, urgent=True)``), without waiting for it: the
        answer finds it drawn, or on its way."""
        if found is not None and self.ready():
            self._drawn_or_drawing(found[0], found[1], HAND_FILE, urgent=True)

    async def _picture(self, scene: HandScene | TableScene | ReplayScene, alt: str,
                       filename: str,
                       urgent: bool = False) -> Picture | None:
        return await self._landed(self._drawn_or_drawing(scene, alt, filename, urgent))

    @staticmethod
    async def _landed(found: Picture | asyncio.Future[Picture | None] | None
                      ) -> Picture | None:
        """The picture ``_drawn_or_drawing`` (or ``hand_now``, ``table_now``) found, once
        drawn if it is on its way. Shielded: a caller that gives up (an answer that had to
        go) leaves the drawing to finish and land in the cache, for the others waiting for it
        and the redraw after."""
        if found is None or isinstance(found, Picture):
            return found
        return await asyncio.shield(found)

    def _drawn_or_drawing(self, scene: HandScene | TableScene | ReplayScene, alt: str,
                          filename: str, urgent: bool
                          ) -> Picture | asyncio.Task[Picture | None]:
        """The scene's picture if it is kept, else its drawing, started if it is not on its
        way (and hurried if ``urgent`` and waiting in the background)."""
        key = (*scene.key(), alt, *self._frame_key())
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        drawing = self._drawing.get(key)
        if drawing is None:
            sent = self._send_now(scene, alt) if urgent else None
            drawing = asyncio.ensure_future(self._draw(scene, key, alt, filename, urgent,
                                                       sent))
            self._drawing[key] = drawing
            drawing.add_done_callback(lambda _done: self._forget(key))
        elif urgent and key not in self._hurried:  # on its way, waiting in the background
            self._hurried.add(key)
            self.turns.hurry()
        return drawing

    def _forget(self, key: PictureKey) -> None:
        self._drawing.pop(key, None)
        self._hurried.discard(key)

    def _send_now(self, scene: HandScene | TableScene | ReplayScene, alt: str
                  ) -> asyncio.Future[Any] | None:
        """An answer's picture sent to be drawn at once, if a turn and a drawer are free:
        its drawing to come (the pool's answer, or the thread's parts); None: it waits its
        turn (``_draw``). At once, not in a task: a task starts only once the event loop
        turns, and the tap's move is written first without one (``TableService``), so the
        picture foreseen while it is written would be drawn after it, not meanwhile."""
        if not self.turns.take_now():
            return None
        sent: asyncio.Future[Any] | None
        try:
            if self.pool is not None:
                sent = self.pool.send_now(self._job(scene, alt))
            else:
                sent = asyncio.get_running_loop().run_in_executor(DRAWER,
                                                                  self._job(scene, alt))
        except Exception as error:
            self._failed_once(error)
            sent = None
        if sent is None:
            self.turns.done()
        else:
            sent.add_done_callback(lambda _sent: self.turns.done())
        return sent

    def _job(self, scene: HandScene | TableScene | ReplayScene, alt: str
             ) -> Callable[[], Any]:
        """Drawing ``scene``, as a job for a drawing process or thread."""
        return functools.partial(drawn_parts, draw_picture, scene, alt,
                                 None if self.fonts == FONTS else self.fonts,
                                 None if self.frame == FRAME else self.frame)

    async def _draw(self, scene: HandScene | TableScene | ReplayScene, key: PictureKey,
                    alt: str, filename: str, urgent: bool,
                    sent: asyncio.Future[Any] | None = None) -> Picture | None:
        """Draw the picture ``key`` names in its turn (or ``sent`` already: ``_send_now``),
        into the cache (None: text only)."""
        try:
            if sent is not None:
                png, width, height, layout = \
                    await (answer(sent) if self.pool is not None else asyncio.shield(sent))
            else:
                async with self.turns.turn(urgent, lambda: key in self._hurried):
                    cached = self.cache.get(key)  # drawn while this waited its turn
                    if cached is not None:
                        return cached
                    job = self._job(scene, alt)
                    if self.pool is not None:
                        png, width, height, layout = await self.pool.run(job)
                    else:
                        png, width, height, layout = \
                            await asyncio.get_running_loop().run_in_executor(DRAWER, job)
        except Exception as error:
            self._failed_once(error)
            return None
        picture = Picture(key, png, filename, alt, width, height, layout)
        self.cache.put(key, picture)
        return picture

    def draw(self, scene: HandScene | TableScene | ReplayScene, alt: str, filename: str
             ) -> Picture:
        """Draw a scene now (in this thread)."""
        return draw_picture(scene, (*scene.key(), alt, *self._frame_key()), alt, filename,
                            self.fonts, self.frame)

    def _frame_key(self) -> tuple[object, ...]:
        """The frame, as plain values in a picture's key (the default adds nothing)."""
        if self.frame == FRAME:
            return ()
        return (self.frame.width, self.frame.height, self.frame.ratio)


def draw_picture(scene: HandScene | TableScene | ReplayScene, key: PictureKey, alt: str,
                 filename: str, fonts: Path, frame: Frame) -> Picture:
    """Draw a scene (in the drawing process, or in this thread) into the picture ``key``
    names."""
    if isinstance(scene, ReplayScene):
        drawn = draw_replay(scene, fonts, frame)
    elif isinstance(scene, HandScene):
        drawn = draw_hand(scene, fonts, frame)
    else:
        drawn = draw_table(scene, fonts, frame)
    return Picture(key, drawn.png, filename, alt, drawn.width, drawn.height, b"".join(
        BOX.pack(int(b.card), b.x0, b.y0, b.x1, b.y1, STATES.index(b.state))
        for b in drawn.boxes))


def drawn_parts(draw: Callable[..., Picture], scene: HandScene | TableScene | ReplayScene,
                alt: str, fonts: Path | None, frame: Frame | None
                ) -> tuple[bytes, int, int, bytes]:
    """Draw a scene with ``draw`` (``draw_picture``; in the drawing process, or in this
    thread), and give back only what the bot does not know yet: the PNG, its size and its
    layout (``fonts`` and ``frame``: None for the default ones). The picture's key and alt
    text stay with the bot: they would cross the pipe twice, pickled each way, for nothing."""
    picture = draw(scene, (), alt, "", fonts or FONTS, frame or FRAME)
    return picture.png, picture.width, picture.height, picture.layout


def key_of(found: tuple[HandScene, str] | None) -> PictureKey | None:
    """What a scene from ``Pictures.hand_scene`` shows (None: no picture): its picture's
    key."""
    return (*found[0].key(), found[1]) if found else None


def attach(embed: discord.Embed, picture: Picture | None) -> list[discord.File]:
    """Show ``picture`` in ``embed``; the files to send with it (none without one)."""
    if picture is None:
        return []
    embed.set_image(url=f"attachment://{picture.filename}")
    return [picture.file()]


def send_files(embed: discord.Embed, picture: Picture | None) -> dict[str, Any]:
    """Keyword arguments for sending a new message with ``picture`` in ``embed``."""
    files = attach(embed, picture)
    return {"files": files} if files else {}


def edit_files(embed: discord.Embed, picture: Picture | None) -> dict[str, Any]:
    """Keyword arguments for redrawing a message: its one attachment becomes ``picture``
    (or goes, without one)."""
    return {"attachments": attach(embed, picture)}


def kept_files(embed: discord.Embed, message: discord.Message | None, filename: str
               ) -> dict[str, Any]:
    """Keyword arguments for redrawing ``message`` while its new picture is late: it keeps
    the picture it carries, or goes without one."""
    if message is not None and any(a.filename == filename for a in message.attachments):
        embed.set_image(url=f"attachment://{filename}")
        return {}
    return {"attachments": []}
