"""Open hands: a player's private hand message follows the table while it stays open.

Discord lets the bot edit an ephemeral message only through the interaction that made (or
last updated) it, for 15 minutes. So for each player who opened their hand — ``/nlk hand``,
**My hand**, or any tap on the hand itself — we keep that interaction, and after every change
to the table redraw the hand in place when what it shows has changed: the turn comes to them
with its controls, the turn moves on, the hand ends. Someone who keeps their hand open then
plays every shed turn with one tap. These are webhook edits of the interaction's
``@original``: Discord does not count them against the channel's rate limit.

Only the owner's own view is ever drawn into their hand (``render.hand_message`` for their
user id). Entries are dropped when the token is about to lapse, when Discord says the
message is gone (dismissed), when the table closes, and on shutdown.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from typing import Any

import discord

from bot.tables import Table
from rules.i18n import DEFAULT, Lang, translator

from . import render
from .coalesce import Coalescer
from .components import Buttons
from .pictures import Pictures, edit_files
from .translator import lang_of

log = logging.getLogger(__name__)

LIFETIME = 14 * 60  # an interaction's token lasts 15 minutes; stop a minute early
# The longest a tap on a hand waits for a redraw of it already on its way (Discord wants a
# first answer within 3 s; a redraw through a token is one request).
ANSWER_WAIT = 1.0


@dataclass
class _Open:
    """One player's open hand: the interaction that can edit it, and what it shows."""

    interaction: discord.Interaction[Any]
    since: float  # when that interaction arrived (its token's age counts from then)
    revision: int  # the table revision the hand was last drawn from
    shown: Any  # what the hand shows, less its footer (see ``_looks``); None: unsure
    letters: Lang | None = None  # the table's language, whose letters its cards show
    pending: bool = False  # an edit through its token is on its way


class OpenHands:
    """Every open hand, per table and player, kept current after each change."""

    def __init__(self, pictures: Pictures | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 lifetime: float = LIFETIME) -> None:
        self.pictures = pictures or Pictures()
        self.clock = clock
        self.lifetime = lifetime
        self._hands: dict[int, dict[int, _Open]] = {}  # table id → user id → open hand
        # One lock per hand message's owner: a redraw and a tap's answer never cross, so a
        # redraw drawn before a tap can't land after the tap's answer and show the old turn.
        self._locks: dict[int, dict[int, asyncio.Lock]] = {}
        # The newest snapshot of each table to draw, and one redrawing task per table.
        self._redraws: Coalescer[Table] = Coalescer(self._run, log, failed=self.forget)

    @property
    def closed(self) -> bool:
        return self._redraws.closed

    def tracked(self) -> int:
        """How many tables and hands this holds state for (freed when they close)."""
        return len(self._hands) + sum(len(h) for h in self._hands.values()) + \
            len(self._locks) + self._redraws.tracked()

    def opened(self, table: Table, user_id: int, interaction: discord.Interaction[Any],
               letters: Lang | None = None) -> None:
        """``interaction``'s ``@original`` is now ``user_id``'s hand, drawn from ``table``
        with the table's ``letters``."""
        if self.closed or not table.is_open or table.seat_of(user_id) is None:
            return
        hands = self._hands.setdefault(table.id, {})
        current = hands.get(user_id)
        if current is not None and current.pending:
            # A redraw through the old token may land after this tap's answer: draw once
            # more through the new one, from the newest state.
            hands[user_id] = _Open(interaction, self.clock(), -1, None, letters)
        else:
            lang = lang_of(interaction)
            style = self.pictures.styles.known_private(user_id, table.guild_id)
            hands[user_id] = _Open(interaction, self.clock(), table.revision,
                                   _looks(*draw_hand(table, user_id, lang, letters=letters),
                                          self.pictures.hand_key(table, user_id, lang, style,
                                                                 letters)), letters)
        self._redraws.keep(table)

    def newest(self, table: Table) -> Table:
        """``table``, or the newer snapshot a redraw may already have drawn."""
        latest = self._redraws.latest(table.id)
        return latest if latest is not None and latest.revision > table.revision else table

    @asynccontextmanager
    async def answering(self, table_id: int, user_id: int) -> AsyncIterator[None]:
        """Hold while answering a tap on ``user_id``'s hand: a redraw of it on its way
        lands first, and none starts until the answer is sent (then ``opened`` has
        recorded what the hand shows). Waits ``ANSWER_WAIT`` at most."""
        lock = self._lock(table_id, user_id)
        held = False
        with suppress(asyncio.TimeoutError):
            held = await asyncio.wait_for(lock.acquire(), ANSWER_WAIT)
        try:
            yield
        finally:
            if held:
                lock.release()
            self._free_lock(table_id, user_id)

    def _lock(self, table_id: int, user_id: int) -> asyncio.Lock:
        return self._locks.setdefault(table_id, {}).setdefault(user_id, asyncio.Lock())

    def _free_lock(self, table_id: int, user_id: int) -> None:
        """Drop a lock nobody holds for a hand no longer kept (the table closed, say)."""
        locks = self._locks.get(table_id)
        lock = locks.get(user_id) if locks else None
        if locks is None or lock is None or lock.locked() or \
                user_id in self._hands.get(table_id, {}):
            return
        del locks[user_id]
        if not locks:
            del self._locks[table_id]

    def changed(self, table: Table) -> None:
        """The table changed: redraw its open hands soon (a burst of changes coalesces)."""
        if self.closed or table.id not in self._hands:
            return
        self._redraws.put(table)

    def forget(self, table_id: int) -> None:
        """Drop everything held for a table."""
        self._hands.pop(table_id, None)
        self._locks.pop(table_id, None)
        self._redraws.discard(table_id)

    async def close(self) -> None:
        """Stop redrawing and free every entry (shutting down)."""
        await self._redraws.close()
        self._hands.clear()
        self._locks.clear()

    # --- the redrawing -------------------------------------------------------------------

    async def _run(self, table_id: int) -> None:
        """Redraw the table's open hands until they all show its newest snapshot (an error
        is logged by the coalescer, and the table's hands forgotten)."""
        while True:
            table = self._redraws.latest(table_id)
            hands = self._hands.get(table_id)
            if table is None or hands is None:
                break
            now = self.clock()
            for user_id in [u for u, h in hands.items() if now - h.since > self.lifetime]:
                del hands[user_id]  # its token is about to lapse
            due = [(u, h) for u, h in hands.items() if h.revision < table.revision]
            if due:
                await asyncio.gather(*(self._redraw(table, u, h) for u, h in due))
                continue  # the table may have changed meanwhile
            if not table.is_open or not hands:
                self.forget(table_id)
            break

    async def _redraw(self, table: Table, user_id: int, hand: _Open) -> None:
        """Bring one hand up to ``table``, if what it shows has changed, unless a tap on it
        is being answered (then its answer draws the newest state)."""
        async with self._lock(table.id, user_id):
            hands = self._hands.get(table.id)
            if hands is None or hands.get(user_id) is not hand or \
                    hand.revision >= table.revision:
                return  # answered meanwhile: ``opened`` replaced it
            await self._edit(table, user_id, hand)

    async def _edit(self, table: Table, user_id: int, hand: _Open) -> None:
        lang = lang_of(hand.interaction)  # the owner's language, the table's letters
        embed, view = draw_hand(table, user_id, lang, letters=hand.letters)
        style = self.pictures.styles.known_private(user_id, table.guild_id)
        key = self.pictures.hand_key(table, user_id, lang, style, hand.letters)
        looks = _looks(embed, view, key)
        if looks == hand.shown:
            hand.revision = table.revision
            return
        picture = await self.pictures.hand(table, user_id, lang, style, hand.letters)
        files = edit_files(embed, picture)
        if hand.shown is not None and picture is not None and hand.shown[2] == key:
            del files["attachments"]  # the same picture: the message keeps its file
        hand.pending = True
        try:
            await hand.interaction.edit_original_response(embed=embed, view=view, **files)
        except discord.NotFound:
            self._drop(table.id, user_id, hand)  # dismissed, or the token has lapsed
            return
        except discord.HTTPException:
            log.warning("could not redraw a hand at table %s", table.id, exc_info=True)
            self._drop(table.id, user_id, hand)
            return
        finally:
            hand.pending = False
        hand.revision, hand.shown = table.revision, looks

    def _drop(self, table_id: int, user_id: int, hand: _Open) -> None:
        hands = self._hands.get(table_id)
        if hands is not None and hands.get(user_id) is hand:
            del hands[user_id]


def draw_hand(table: Table, user_id: int, lang: Lang = DEFAULT, note: str | None = None,
              letters: Lang | None = None) -> tuple[discord.Embed, discord.ui.View]:
    """The owner's hand as it is now, in their language, with ``note``, its cards in the
    table's ``letters`` (``render.table_letters``); once the table is closed, saying so and
    without controls (every drawing of a hand goes through here, so a redraw, a tap and
    **Refresh** show the same)."""
    with render.table_letters(letters or lang):
        if table.is_open:
            return render.hand_message(table, user_id, note=note, lang=lang)
        closed = translator(lang).gettext("This table is closed.")
        embed, _controls = render.hand_message(
            table, user_id, note=f"{note}\n{closed}" if note else closed, lang=lang)
    return embed, Buttons()


def _looks(embed: discord.Embed, view: discord.ui.View, picture: Any) -> Any:
    """What a hand shows that matters: its embed less the footer (which only counts moves),
    its controls and what its picture shows. Equal looks need no edit."""
    shown = embed.to_dict()
    shown.pop("footer", None)
    shown.pop("image", None)
    return shown, view.to_components(), picture
