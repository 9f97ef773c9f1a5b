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
message is gone (dismissed), when the table closes, and on shutdown. They are a kind of
message of the table's ``LiveTable`` (``HandsShown``), whose loop starts each hand's redraw;
the answers to taps report what they drew. Each hand is brought up to date by a task of its
own: a redraw discord.py holds (its token's bucket spent, until Discord's reset) holds that
hand alone, and the turn still comes to the others' hands. Their record
(``live:open_hands:<table>``, written by the owner as any kind's) keeps each hand's token, so
that a restart goes on redrawing them; the records of the format before, one per hand
(``hand:<table>:<user>``), are read once.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import discord
import orjson

from bot.tables.service import Table
from cogs import render
from cogs.client import Interaction
from cogs.i18n.translator import lang_of
from cogs.live.owner import HOLD_SECONDS, Flight, Flights, LiveTable, LiveTables, Tries
from cogs.live.records import Notes
from cogs.live.tokens import TOKEN_SECONDS
from cogs.pictures import (
    HAND_FILE,
    Late,
    Picture,
    PictureKey,
    Pictures,
    edit_files,
    kept_files,
    key_of,
    send_files,
)
from cogs.transport.raw import answer_by_editing, answer_with_message, edit_through_token
from cogs.widgets.buttons import Buttons
from rules.i18n import DEFAULT, Lang, translator

log = logging.getLogger(__name__)

LIFETIME = TOKEN_SECONDS  # stop following a hand before its token lapses
LEGACY = "hand:"  # the format before: hand:<table>:<user> → that hand's record
REWRITE = 5 * 60  # a hand's record keeps a token this old at most (while it is tapped)

Drawn = tuple[discord.Embed, discord.ui.View]
UNSEEN: Any = object()  # (``opened``) what the hand's picture shows is to be worked out


@dataclass(frozen=True)
class Token:
    """An interaction's token: for 15 minutes, the one way to edit the private message the
    interaction made or answered (its ``@original``). Kept in the hand's record, it outlives
    a restart of the bot."""

    interaction_id: int
    application_id: int
    value: str

    @classmethod
    def of(cls, interaction: Interaction) -> Token:
        return cls(interaction.id, interaction.application_id, interaction.token)

    async def edit_original(self, client: discord.Client, **fields: Any) -> None:
        """Edit the message the interaction answered with (Discord's ``@original``),
        reading nothing of Discord's answer."""
        await edit_through_token(client, self.application_id, self.value, "@original",
                                 **fields)


@dataclass
class OpenHand:
    """One player's open hand: the token that can edit it, the reader's language, and what
    it shows."""

    token: Token
    since: float  # when that token's interaction arrived (its age counts from then)
    revision: int  # the table revision the hand was last drawn from
    looks: Any  # what the hand shows, less its footer; None: unsure
    letters: Lang | None = None  # whose card letters it shows (its reader's)
    lang: Lang = DEFAULT  # the reader's language
    message_id: int | None = None  # the hand's message (None: a new one, not known yet)
    written: float = -float("inf")  # when the token its record keeps was issued
    shows: Any = None  # ``looks`` summed up without drawing (``summed``); None: unsure
    kept: dict[str, Any] | None = None  # its record, as written (the token ``written``)
    redrawing: asyncio.Task[None] | None = None  # the task bringing it up to date, if any

    def record(self, issued: float) -> dict[str, Any]:
        """The hand's record: its token, and when it was issued (``issued``: wall time)."""
        return {"interaction": self.token.interaction_id,
                "application": self.token.application_id,
                "token": self.token.value, "issued": issued, "lang": self.lang.value,
                "letters": self.letters.value if self.letters else None}

    @classmethod
    def load(cls, data: Any, now: float, clock: float) -> OpenHand:
        """The hand a record describes, with its token's age from wall time ``now``
        (``clock``: the owner's clock now); raises ``ValueError`` for anything else."""
        try:
            token = Token(int(data["interaction"]), int(data["application"]),
                          str(data["token"]))
            letters = data.get("letters")
            since = clock - (now - float(data["issued"]))
            return cls(token, since, -1, None, Lang(letters) if letters else None,
                       Lang(data.get("lang") or "en"), written=since, kept=data)
        except (TypeError, KeyError, AttributeError) as error:
            raise ValueError(data) from error

    def drawn(self, revision: int, looks: Any, shows: Any) -> None:
        """It now shows ``revision``, looking like ``looks`` (summed up as ``shows``)."""
        self.revision, self.looks, self.shows = revision, looks, shows

    def unsure(self) -> None:
        """What it shows is not known (its picture came late, or two requests crossed):
        redraw it."""
        self.revision, self.looks, self.shows = -1, None, None


class HandsShown:
    """A table's open hands by user id, and the requests on their way to each: a redraw
    and a tap's answer each wait for the other on its way to land (a second at most), and
    if they cross all the same, what the hand shows is not known and it is redrawn."""

    def __init__(self, driver: OpenHands, live: LiveTable) -> None:
        self.driver = driver
        self.live = live
        self.hands: dict[int, OpenHand] = {}
        self.flights: dict[int, Flights[int]] = {}
        self._dumped: str | None = None  # the record of the hands followed (None: to make)

    def behind(self, table: Table) -> bool:
        """A hand behind ``table`` that nothing is redrawing (one being redrawn catches up
        in its own task), or a closed table's hands, all redrawn, to stop following."""
        return any(hand.revision < table.revision and hand.redrawing is None
                   for hand in self.hands.values()) or \
            (not table.is_open and bool(self.hands) and not self.any_redrawn())

    def any_redrawn(self) -> bool:
        """Whether a hand followed is being redrawn."""
        return any(hand.redrawing is not None for hand in self.hands.values())

    async def step(self, live: LiveTable) -> None:
        await self.driver.redraw(live, self)

    def holds(self) -> bool:
        return bool(self.hands) or any(self.flights.values())

    def give_up(self) -> None:
        self.forget()

    def dump(self) -> str | None:
        """Each hand's token by user id: a restart goes on redrawing it while it lasts."""
        if self._dumped is None:
            kept = {str(user_id): hand.kept for user_id, hand in self.hands.items()
                    if hand.kept is not None}
            self._dumped = orjson.dumps(kept).decode() if kept else ""
        return self._dumped or None

    def restore(self, record: str) -> None:
        """Go on following the hands the last run followed, of players still seated,
        while their tokens last: each is redrawn from the table as it is now."""
        try:
            kept = json.loads(record)
            hands = kept.items()
        except (ValueError, AttributeError):
            return  # not written by this bot
        now, clock, table = time.time(), self.driver.clock(), self.live.newest
        for user_id, data in hands:
            try:
                hand = OpenHand.load(data, now, clock)
            except ValueError:
                continue
            if user_id.isdigit() and table.seat_of(int(user_id)) is not None and \
                    clock - hand.since <= self.driver.lifetime:
                self.hands.setdefault(int(user_id), hand)  # (a tap since the start drew it)
        self._dumped = None

    def _changed(self, *, now: bool = False) -> None:
        """The hands followed changed: their record is written down anew (``now``: at once,
        for a token a restart needs to go on redrawing a hand)."""
        self._dumped = None
        self.live.record(OpenHands.name, now=now)

    def follow(self, user_id: int, hand: OpenHand, made_by: int | None = None) -> None:
        """Follow ``user_id``'s hand through ``hand``'s token. Its record is written again
        only for another message, or once the token it keeps is getting old: any token of
        the same message edits it, so a tap on the hand itself costs no write. ``made_by``:
        the interaction that posted the message tapped (a hand just opened is followed
        before its message's id is known; the first tap on it names the same message)."""
        held = self.hands.get(user_id)
        self.hands[user_id] = hand
        if held is not None and hand.message_id is not None and \
                hand.since - held.written < REWRITE and (
                    held.message_id == hand.message_id
                    or (held.message_id is None and made_by == held.token.interaction_id)):
            hand.written, hand.kept = held.written, held.kept  # it keeps the older token
            return
        hand.written = hand.since
        hand.kept = hand.record(time.time() - (self.driver.clock() - hand.since))
        # At once: a bot stopped hard before it wrote this down could not reach the hand
        # again, and it would go on showing a turn long over.
        self._changed(now=True)

    def drop(self, user_id: int, hand: OpenHand) -> None:
        """Stop following ``user_id``'s hand, if ``hand`` is still the one followed."""
        if self.hands.get(user_id) is hand:
            del self.hands[user_id]
            self._changed()

    def drop_stale(self, now: float, lifetime: float) -> None:
        """Stop following hands whose token is about to lapse."""
        stale = [u for u, h in self.hands.items() if now - h.since > lifetime]
        for user_id in stale:
            del self.hands[user_id]
        if stale:
            self._changed()

    @contextmanager
    def flying(self, user_id: int, revision: int) -> Iterator[Flight[int]]:
        """Hold while a request that draws ``revision`` into ``user_id``'s hand is on its
        way."""
        flights = self.flights.setdefault(user_id, Flights())
        try:
            with flights.fly(revision) as flight:
                yield flight
        finally:
            # (Another request to the hand may have come and gone meanwhile, if this one
            # was told it landed before it returned: the entry may be gone, or a new one.)
            if not flights and self.flights.get(user_id) is flights:
                del self.flights[user_id]

    async def clear(self, user_id: int, until: float, now: Callable[[], object],
                    drawn: object) -> bool:
        """Wait until no request to ``user_id``'s hand is on its way (``Flights.clear``).
        The hand's flights are looked up again after each wait: once the last request
        landed, its entry goes, and another waiter woken by that landing may have flown
        already, in a new one (this one then waits for it, instead of crossing it)."""
        loop = asyncio.get_running_loop()
        while (flights := self.flights.get(user_id)) and loop.time() < until:
            if not await flights.clear(until, now, drawn):
                return False
        return True

    def forget(self) -> None:
        """Stop following the open hands."""
        if self.hands:
            self.hands.clear()
            self._changed()


class OpenHands:
    """The open hands as a kind of message: keeps every open hand current after each
    change."""

    name = "open_hands"

    def __init__(self, client: discord.Client, tables: LiveTables, notes: Notes,
                 pictures: Pictures | None = None,
                 clock: Callable[[], float] = time.monotonic, lifetime: float = LIFETIME
                 ) -> None:
        self.client = client
        self.tables = tables
        self.notes = notes
        self.pictures = pictures or Pictures()
        self.clock = clock
        self.lifetime = lifetime

    def shown_for(self, live: LiveTable) -> HandsShown:
        return HandsShown(self, live)

    async def read_legacy(self) -> dict[int, str]:
        """The records written before each kind had one (``hand:<table>:<user>``, a record
        per hand), as records of this kind; read once, and forgotten."""
        try:
            by_table: dict[int, dict[str, Any]] = {}
            for key, value in (await self.notes.read(LEGACY)).items():
                self.notes.note(key, None)
                table_id, _, user_id = key[len(LEGACY):].partition(":")
                try:
                    data = json.loads(value)
                except ValueError:
                    continue
                if table_id.isdigit() and user_id.isdigit() and isinstance(data, dict):
                    by_table.setdefault(int(table_id), {})[user_id] = data
            return {table_id: json.dumps(hands) for table_id, hands in by_table.items()}
        except Exception:
            log.warning("could not read the open hands left by the last run", exc_info=True)
            return {}

    @staticmethod
    def of(live: LiveTable) -> HandsShown:
        """The open hands' ``Shown`` at ``live``."""
        return live.shown(OpenHands.name, HandsShown)

    def held(self, table_id: int) -> dict[int, OpenHand]:
        """The table's open hands by user id."""
        live = self.tables.get(table_id)
        return self.of(live).hands if live is not None else {}

    def tracked(self) -> int:
        """How many hands are followed, over all tables."""
        return sum(len(self.of(live).hands) for live in self.tables)

    def opened(self, table: Table, user_id: int, interaction: Interaction,
               drawn: Drawn, letters: Lang | None = None, *, exact: bool = True,
               key: Any = UNSEEN) -> None:
        """``interaction``'s ``@original`` is now ``user_id``'s hand: ``drawn`` from
        ``table`` with the ``letters`` of its reader (a tap on the hand: the same message; a
        command or a button elsewhere: a new one), its picture showing ``key`` (``UNSEEN``:
        work it out); not ``exact``: another request to it crossed this one, and what it
        shows is not known."""
        if self.tables.stopped or not table.is_open or table.seat_of(user_id) is None:
            return
        message = interaction.message
        message_id = message.id if message is not None and message.flags.ephemeral else None
        made_by = message.interaction_metadata.id if message_id is not None and \
            message is not None and message.interaction_metadata is not None else None
        live = self.tables.of(table)
        shown = self.of(live)
        if not exact:
            shown.follow(user_id, OpenHand(Token.of(interaction), self.clock(), -1, None,
                                           letters, lang_of(interaction), message_id),
                         made_by)
        else:
            lang = lang_of(interaction)
            style = self.pictures.styles.known_private(user_id, table.place)
            if key is UNSEEN:
                key = self.pictures.hand_key(table, user_id, lang, style, letters)
            shown.follow(user_id, OpenHand(
                Token.of(interaction), self.clock(), table.revision, _looks(*drawn, key),
                letters, lang, message_id, shows=summed(table, user_id, style)), made_by)
        live.saw(table)  # drawn from an older snapshot than the newest: redraw it

    async def show(self, interaction: Interaction, table: Table, *,
                   letters: Lang) -> None:
        """Answer **My hand** or ``/nlk hand`` with ``interaction.user``'s hand as a new
        private message, its cards in the ``letters`` of its reader, followed from then on."""
        user_id = interaction.user.id
        drawn, picture, key = await self._drawn(interaction, table, letters)
        await answer_with_message(
            interaction, embed=drawn[0], view=drawn[1], ephemeral=True,
            **send_files(drawn[0], None if isinstance(picture, Late) else picture))
        self._follow(table, user_id, interaction, drawn, letters, picture, key)

    async def answer(self, interaction: Interaction, table: Table, *,
                     letters: Lang, note: str | None = None) -> None:
        """Answer a tap on ``interaction.user``'s own hand by drawing it again in place, from
        the owner's newest snapshot, its cards in the ``letters`` of its reader (with ``note``: as
        it is, with the note, and not followed anew). It is sent once a redraw of the hand
        on its way has landed (``HOLD_SECONDS`` at most)."""
        user_id = interaction.user.id
        live = self.tables.of(table)
        shown = self.of(live)
        until = asyncio.get_running_loop().time() + HOLD_SECONDS
        while True:
            if note is None:
                table = live.newest
            drawn, picture, key = await self._drawn(interaction, table, letters, note)
            # Sent once a redraw of the hand on its way has landed, so that Discord applies
            # it after that: a redraw of an older move landing after it would show cards
            # already played. (A refusal's note is drawn from the table as it was given.)
            if await shown.clear(user_id, until,
                                 lambda: None if note is not None else live.newest.revision,
                                 None if note is not None else table.revision):
                break
        if isinstance(picture, Late):
            files = kept_files(drawn[0], interaction.message, HAND_FILE)
        else:
            files = edit_files(drawn[0], picture)
        try:
            with shown.flying(user_id, table.revision) as flight:
                await answer_by_editing(interaction, embed=drawn[0], view=drawn[1], **files)
        finally:
            live.settle()
        if note is None:
            self._follow(table, user_id, interaction, drawn, letters, picture, key,
                         exact=Flights.outcome(flight) is not None)

    def foresee(self, table: Table, interaction: Interaction, *, letters: Lang) -> None:
        """Start drawing the picture of the tapper's hand as ``table`` (their move, being
        written) leaves it, in the ``letters`` of its reader: the answer (``answer``) finds
        it drawn or on its way, and waits only for what is left of it."""
        user_id = interaction.user.id
        style = self.pictures.styles.known_private(user_id, table.guild_id)
        self.pictures.foresee_hand(self.pictures.hand_scene(
            table, user_id, lang_of(interaction), style, letters))

    async def _drawn(self, interaction: Interaction, table: Table, letters: Lang,
                     note: str | None = None
                     ) -> tuple[Drawn, Picture | Late | None, PictureKey | None]:
        """The hand of the player who tapped as the answer to ``interaction`` shows it, its
        picture if drawn within the answer's wait (``Late``: it follows in a redraw), and
        what that picture shows (its scene is made once, for both)."""
        user_id, lang = interaction.user.id, lang_of(interaction)
        drawn = draw_hand(table, user_id, lang, note=note, letters=letters)
        style = await self.pictures.styles.private_or_known(user_id, table.guild_id)
        found = self.pictures.hand_scene(table, user_id, lang, style, letters)
        picture = await self.pictures.within(self.pictures.hand_now(found, urgent=True),
                                             self.pictures.answer_wait_for(interaction))
        return drawn, picture, key_of(found)

    def _follow(self, table: Table, user_id: int, interaction: Interaction,
                drawn: Drawn, letters: Lang, picture: Picture | Late | None,
                key: PictureKey | None, *, exact: bool = True) -> None:
        """An answer showed ``drawn`` (its picture showing ``key``): follow the hand through
        ``interaction``, and redraw it with its picture if the picture was late (what it
        shows is then not known)."""
        late = isinstance(picture, Late)
        self.opened(table, user_id, interaction, drawn, letters, exact=exact and not late,
                    key=key)
        if late:
            self.picture_late(table, user_id)

    def picture_late(self, table: Table, user_id: int) -> None:
        """``user_id``'s hand was answered without its new picture: redraw it (the picture
        is drawn by then, or the redraw waits for it)."""
        live = self.tables.get(table.id)
        hand = self.of(live).hands.get(user_id) if live is not None else None
        if live is None or hand is None:
            return
        hand.unsure()
        live.saw(table)

    # --- the redrawing -------------------------------------------------------------------

    async def redraw(self, live: LiveTable, shown: HandsShown) -> None:
        """Start bringing each hand behind the newest snapshot up to date, each in a task of
        its own (a hand whose picture and controls would not change is marked as showing it
        at once, with no task); once the table is closed and every hand shows it, stop
        following them."""
        table = live.newest
        shown.drop_stale(self.clock(), self.lifetime)
        due = [(u, h) for u, h in shown.hands.items()
               if h.revision < table.revision and h.redrawing is None]
        for user_id, hand in due:
            if self._changes(table, user_id, hand) is None:
                continue
            hand.redrawing = live.background(self._catch_up(live, shown, user_id, hand))
            if hand.redrawing is None:
                return  # the owner's life is over
        if not due and not table.is_open and not shown.any_redrawn():
            shown.forget()

    async def _catch_up(self, live: LiveTable, shown: HandsShown, user_id: int,
                        hand: OpenHand) -> None:
        """Bring ``user_id``'s hand up to the newest snapshot, and keep it there while
        changes come, until it shows the newest or is no longer followed (a tap's answer
        followed it anew, it was dismissed). An error is retried with a back-off, as the
        owner's loop does; a closed table's hand is given up after a few tries. Once done,
        the owner looks again at what is behind."""
        tries = Tries(live, "hand")
        try:
            while True:
                await live.answers.turn()  # a tap being answered goes first
                table = live.newest
                if shown.hands.get(user_id) is not hand or hand.revision >= table.revision:
                    break  # answered meanwhile (``opened`` replaced it), or up to date
                if not tries.another():
                    break
                try:
                    await self._edit(shown, table, user_id, hand)
                except Exception:
                    if await tries.failed():
                        shown.drop(user_id, hand)
                        break
                    continue
                tries.succeeded()
        finally:
            if hand.redrawing is asyncio.current_task():
                hand.redrawing = None
            live.wake()

    def _changes(self, table: Table, user_id: int, hand: OpenHand) -> tuple[str, Any] | None:
        """The picture style and the summary (``summed``) of ``user_id``'s hand as ``table``
        shows it; None when that is what the hand shows already (a move elsewhere at the
        table, which changes neither its cards nor its controls): it is then marked as
        showing ``table``, and not drawn."""
        style = self.pictures.styles.known_private(user_id, table.place)
        shows = summed(table, user_id, style)
        if shows is not None and shows == hand.shows:
            hand.drawn(table.revision, hand.looks, shows)
            return None
        return style, shows

    async def _edit(self, shown: HandsShown, table: Table, user_id: int,
                    hand: OpenHand) -> None:
        """Redraw one hand as ``table`` shows it, if what it shows has changed."""
        changes = self._changes(table, user_id, hand)
        if changes is None:
            return
        style, shows = changes
        lang = hand.lang  # the owner's language and letters
        embed, view = draw_hand(table, user_id, lang, letters=hand.letters)
        found = self.pictures.hand_scene(table, user_id, lang, style, hand.letters)
        key = key_of(found)
        looks = _looks(embed, view, key)
        if looks == hand.looks:
            hand.drawn(table.revision, looks, shows)
            return
        files: dict[str, Any]
        if key is not None and hand.looks is not None and hand.looks[2] == key:
            # The same picture: the message keeps its file, and nothing is drawn for it.
            embed.set_image(url=f"attachment://{HAND_FILE}")
            files = {}
        else:
            picture = await self.pictures.hand_picture(found)  # the scene once: a hot path
            files = edit_files(embed, picture)
        until = asyncio.get_running_loop().time() + HOLD_SECONDS
        if not await shown.clear(user_id, until,
                                 lambda: id(shown.hands.get(user_id)), id(hand)) or \
                shown.hands.get(user_id) is not hand:
            return  # a tap's answer followed it anew meanwhile (and knows what it shows)
        try:
            with shown.flying(user_id, table.revision) as flight:
                await hand.token.edit_original(self.client, embed=embed, view=view,
                                               answered=flight.answered, **files)
        except discord.NotFound:
            shown.drop(user_id, hand)  # dismissed, or the token has lapsed
            return
        except discord.HTTPException as error:
            # Its token lapsed or was refused: an expected end, never retried.
            log.info("table %s: stopped following a hand its token no longer reaches "
                     "(%s %s)", table.id, error.status, error.code)
            shown.drop(user_id, hand)
            return
        if shown.hands.get(user_id) is not hand:
            return  # a tap's answer followed it anew meanwhile (and knows what it shows)
        if Flights.outcome(flight) is None:
            hand.unsure()
        else:
            hand.drawn(table.revision, looks, shows)


def draw_hand(table: Table, user_id: int, lang: Lang = DEFAULT, note: str | None = None,
              letters: Lang | None = None) -> Drawn:
    """The owner's hand as it is now, in their language, with ``note``, its cards in the
    table's ``letters``; once the table is closed, saying so and without controls (every
    drawing of a hand goes through here, so a redraw, a tap and **Refresh** show the
    same)."""
    if table.is_open:
        return render.hand_message(table, user_id, note=note, lang=lang, letters=letters)
    closed = translator(lang).gettext("This table is closed.")
    embed, _controls = render.hand_message(
        table, user_id, note=f"{note}\n{closed}" if note else closed, lang=lang,
        letters=letters)
    return embed, Buttons()


def summed(table: Table, user_id: int, style: str) -> Any:
    """What the owner's hand shows of ``table`` in picture ``style``, summed up without
    drawing it (``render.hand_shows``), for a hand drawn in one language and set of letters;
    None: draw it to know."""
    shows = render.hand_shows(table, user_id)
    return None if shows is None else (table.is_open, style, shows)


def _looks(embed: discord.Embed, view: discord.ui.View, picture: Any) -> Any:
    """What a hand shows that matters: its embed less the footer (which only counts moves),
    its controls and what its picture shows. Equal looks need no edit."""
    shown = embed.to_dict()
    shown.pop("footer", None)
    shown.pop("image", None)
    return shown, view.to_components(), picture
