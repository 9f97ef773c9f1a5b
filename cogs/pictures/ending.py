"""A hand's story in one picture, for the end-of-hand notice: the finishing order with each
player's rating change, and the cards the loser was left holding; with its alt text, and the
notice's embed and Replay button (``end_of_hand_message``).

Drawn once per hand, so it is deflated harder than the pictures of every move, in the format
that is the smaller for it (``FORMATS``; a test checks the choice).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import discord

from cogs.pictures.draw import (
    CARD_H,
    CARD_W,
    DOWN,
    FONTS,
    FRAME,
    GOLD,
    LABEL,
    MARGIN,
    PLAIN,
    ROW_GAP,
    STEP,
    UP,
    Canvas,
    Frame,
    _lock,
)
from cogs.pictures.scenes import ALT_LIMIT, card_words, cut, sorted_hand
from cogs.replay.ids import Act, replay_id
from cogs.transport.files import MemoryFile
from rules import Card
from rules.i18n import Lang, is_ai_name, number, ordinal, rank_text, translator

ENDING_FILE = "hand-over"  # and the chosen format's extension
LIST_W = 190  # the finishing order's column, in card units
ROW = 22  # one player's line in it
PER_LINE = 10  # the loser's cards in one line


@dataclass(frozen=True, slots=True)
class EndingPicture:
    """The end-of-hand picture: its bytes, format (``webp`` or ``png``), file name and alt
    text."""

    data: bytes
    format: str
    filename: str
    alt: str
    width: int
    height: int

    def file(self) -> discord.File:
        return MemoryFile(self.data, self.filename, description=self.alt)


def signed(change: float, lang: Lang) -> str:
    """A rating change with its sign: ``+3.2``, ``−1.0`` (a real minus sign), ``±0``."""
    if abs(change) < 0.05:
        return "±" + number(0, lang, 1)
    return ("+" if change > 0 else "\u2212") + number(abs(change), lang, 1)


def end_of_hand_picture(order: Sequence[str], loser: str, last_cards: Sequence[Card],
                        lang: Lang, *, hand_number: int, changes: Mapping[str, float] | None = None,
                        trump: str | None = None, four: bool = False,
                        letters: Lang | None = None, frame: Frame = FRAME,
                        folder: Path = FONTS) -> EndingPicture:
    """The picture of a finished hand: ``order`` (the players who got out, first first),
    then ``loser`` with the cards they were left holding (``last_cards``); each player's
    rating change from ``changes`` (by name; none for an unrated hand), in ``lang``'s words
    and ``letters``' rank letters, for ``frame``."""
    _ = translator(lang).gettext
    changes = changes or {}
    names = [*order, loser]
    title = _("Hand {number}").format(number=hand_number)
    lines = []
    for n, name in enumerate(names, 1):
        change = changes.get(name)
        lines.append((ordinal(n, lang, ai=is_ai_name(name, lang)), name,
                      signed(change, lang) if change is not None else "",
                      0.0 if change is None else change))
    cards = sorted_hand(last_cards, trump)
    card_lines = max(1, -(-len(cards) // PER_LINE))
    cards_w = CARD_W + STEP * (min(max(len(cards), 1), PER_LINE) - 1)
    width = 2 * MARGIN + LIST_W + 2 * MARGIN + cards_w
    list_h = ROW * len(lines)
    cards_h = ROW + card_lines * (CARD_H + ROW_GAP) - ROW_GAP
    height = 2 * MARGIN + ROW * 1.4 + max(list_h, cards_h)
    with _lock:
        canvas = Canvas(frame, width, height, folder, most=3.0)
        canvas.text(title, MARGIN, MARGIN, width - 2 * MARGIN, ink=GOLD, size=17)
        top = MARGIN + ROW * 1.4
        for i, (place, name, change_text, change) in enumerate(lines):
            y = top + i * ROW
            lost = i == len(lines) - 1
            ink = DOWN if lost else LABEL
            canvas.text(place, MARGIN, y, 34, ink=ink, size=13, align="l")
            canvas.text(cut(name), MARGIN + 34, y, LIST_W - 34 - 52, ink=ink, size=13,
                        align="l")
            if change_text:
                canvas.text(change_text, MARGIN + LIST_W - 52, y, 52, size=13, align="r",
                            ink=UP if change > 0.05 else DOWN if change < -0.05 else LABEL)
        left = 3 * MARGIN + LIST_W
        canvas.text(_("Last cards of {name}").format(name=cut(loser)), left, top, cards_w,
                    ink=DOWN, size=13, align="l")
        for i, card in enumerate(cards):
            canvas.card(card, rank_text(card.rank, letters or lang), PLAIN, four,
                        left + (i % PER_LINE) * STEP,
                        top + ROW + (i // PER_LINE) * (CARD_H + ROW_GAP))
    drawn = canvas.finish("ending", once=True)  # out of the lock: encoding needs no font
    alt = _alt(lines, loser, cards, lang)
    return EndingPicture(drawn.png, drawn.format, f"{ENDING_FILE}.{drawn.format}", alt,
                         drawn.width, drawn.height)


def _alt(lines: list[tuple[str, str, str, float]], loser: str, cards: list[Card],
         lang: Lang) -> str:
    _ = translator(lang).gettext
    said = [(_("{place} {name} ({change})").format(place=p, name=n, change=c) if c
             else _("{place} {name}").format(place=p, name=n)) for p, n, c, _v in lines]
    text = " ".join((
        _("{title}: {cards}.").format(title=_("Finishing order"), cards=", ".join(said)),
        _("{name} loses.").format(name=loser),
        _("{title}: {cards}.").format(title=_("Last cards of {name}").format(name=loser),
                                      cards=card_words(cards, lang))))
    return text if len(text) <= ALT_LIMIT else text[:ALT_LIMIT - 1] + "…"


def end_of_hand_message(picture: EndingPicture, hand_id: int, lang: Lang,
                        content: str | None = None) -> dict[str, Any]:
    """Keyword arguments for sending the end-of-hand notice with its picture: ``content``
    (the notice's sentence) in an embed showing the picture, and a Replay button that opens
    ``/nlk replay`` on hand ``hand_id`` for whoever taps it."""
    _ = translator(lang).gettext
    embed = discord.Embed(description=content or None)
    embed.set_image(url=f"attachment://{picture.filename}")
    view = discord.ui.View(timeout=None)
    view.add_item(discord.ui.Button(style=discord.ButtonStyle.secondary, label=_("Replay"),
                                    emoji="⏮", custom_id=replay_id(f"h{hand_id}", 0, Act.OPEN)))
    return {"embed": embed, "view": view, "files": [picture.file()]}
