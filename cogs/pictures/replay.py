"""A replay step as a picture: the whole table with every hand face up, and its alt text.

Only finished hands are replayed (nothing is secret any more), so the scene is built from the
engine's full state, not a seat's view. A row per seat: its name and count on the left, then
its stack (bottom to top, the top card whole) or its hand (a row per suit's order, trump
last); under them the talon, the drawn card, the trump and the trick. Drawn with the table
pictures' card faces and palette (``draw``), so a 9-seat step is a few dozen pastes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cogs.pictures.draw import (
    CARD_H,
    CARD_W,
    CELL_W,
    FONTS,
    FORMATS,
    FRAME,
    GOLD,
    LABEL,
    LABEL_H,
    LINE_H,
    MARGIN,
    PLAIN,
    PLAYABLE,
    ROW_GAP,
    STEP,
    Canvas,
    Drawn,
    Frame,
    Key,
    Special,
    _lock,
)
from cogs.pictures.scenes import (
    card_word,
    card_words,
    cut,
    semicolons,
    sorted_hand,
    suit_word,
)
from rules import Card, Game, Phase
from rules.cards import SUITS
from rules.i18n import Lang, is_ai_name, ordinal, rank_text, shown_name, translator

REPLAY_FILE = f"replay.{FORMATS['replay']}"
ALT_LIMIT = 1024
NAME_W = CELL_W + 26  # the seat's name and count, left of its cards
PER_LINE = 20  # the most cards in one line of a seat's row; a longer hand wraps


@dataclass(frozen=True)
class Seat:
    """One seat's row: its label lines, its cards in order, and whether it is to act."""

    label: str
    cards: tuple[tuple[Card, str], ...]  # card, rank as shown
    mark: bool = False


@dataclass(frozen=True)
class Layout:
    """Where a replay picture puts its seats: in ``cols`` columns (in seat order, top to
    bottom then left to right), up to ``per_line`` cards a line, with room for ``longest``
    cards in a line, ``lines[seat]`` lines of cards for each seat, and ``extras`` cells under
    the seats (talon, drawn card, trump, trick). A picture fitted to one scene keeps room for
    that scene alone; one layout kept for a series of scenes (``steady``: the lesson's steps)
    puts every seat at the same place in each."""

    cols: int
    per_line: int
    longest: int
    lines: tuple[int, ...]
    extras: int

    @property
    def columns(self) -> list[list[int]]:
        seats = len(self.lines)
        per_col = -(-seats // self.cols) if seats else 0
        return [list(range(i, min(i + per_col, seats)))
                for i in range(0, seats, max(per_col, 1))]

    @property
    def seat_w(self) -> float:
        return NAME_W + CARD_W + STEP * max(self.longest - 1, 0)

    @property
    def tallest(self) -> float:
        """The seats' height: the tallest column's lines of cards."""
        return max((sum(self.lines[i] for i in col) for col in self.columns),
                   default=0) * (CARD_H + ROW_GAP)

    def size(self) -> tuple[float, float]:
        """The content's size, in card units, without a caption."""
        columns = len(self.columns)
        width = 2 * MARGIN + max(self.seat_w * columns + 2 * MARGIN * (columns - 1),
                                 CELL_W * max(self.extras, 1))
        height = 2 * MARGIN + self.tallest + (CARD_H + LABEL_H if self.extras else 0)
        return width, height

    def places(self) -> tuple[tuple[float, float], ...]:
        """Each seat's top left corner (its label, then its cards), below any caption."""
        found: dict[int, tuple[float, float]] = {}
        for c, column in enumerate(self.columns):
            y: float = MARGIN
            for index in column:
                found[index] = (MARGIN + c * (self.seat_w + 2 * MARGIN), y)
                y += self.lines[index] * (CARD_H + ROW_GAP)
        return tuple(found[i] for i in range(len(self.lines)))

    def holds(self, scene: ReplayScene) -> bool:
        """Whether ``scene`` fits in the room this layout keeps."""
        room = _room([scene], self.cols, self.per_line)
        return len(room.lines) == len(self.lines) and room.longest <= self.longest and \
            room.extras <= self.extras and all(
                mine <= kept for mine, kept in zip(room.lines, self.lines, strict=True))


@dataclass(frozen=True)
class ReplayScene:
    seats: tuple[Seat, ...]
    talon: int
    drawn: tuple[Card, str] | None
    trump: int | None
    trick: tuple[tuple[str, Card, str], ...]  # (name, card, rank), bottom to top
    four: bool
    labels: tuple[str, str, str] = ("", "", "")  # under the talon, the drawn card, the trump
    layout: Layout | None = None  # kept across a series of scenes; None: fitted to this one

    def key(self) -> Key:
        """What the scene shows, as plain values (the pictures' cache key)."""
        flat: list[object] = ["replay", self.four, self.talon, self.trump,
                              -1 if self.drawn is None else int(self.drawn[0]),
                              len(self.seats)]
        for seat in self.seats:
            flat += [seat.label, seat.mark, len(seat.cards)]
            flat += [v for card, rank in seat.cards for v in (int(card), rank)]
        flat += [v for name, card, rank in self.trick for v in (name, int(card), rank)]
        flat += self.labels
        if self.layout is not None:
            layout = self.layout
            flat += [layout.cols, layout.per_line, layout.longest, layout.extras, *layout.lines]
        return tuple(flat)


def replay_scene(game: Game, lang: Lang, four: bool, letters: Lang | None = None, *,
                 layout: Layout | None = None) -> tuple[ReplayScene, str]:
    """The table at this step with every hand face up, and its alt text in ``lang``
    (the table's public cards first, so a cut alt text still names them); the cards show
    ``letters``' rank letters; with ``layout``, its seats where that layout puts them."""
    _ = translator(lang).gettext
    n_ = translator(lang).ngettext
    ranks = letters or lang
    trump = SUITS[game.trump] if game.trump is not None else None
    collect = game.phase is Phase.COLLECT
    places = {seat: i for i, seat in enumerate(game.out, 1)}
    names = [shown_name(name, lang) for name in game.names]  # AI seats in lang's words
    seats = []
    said_hands = []
    for seat, name in enumerate(names):
        cards = list(game.stacks[seat]) if collect else sorted_hand(game.stacks[seat], trump)
        count = len(cards)
        if game.loser == seat:
            status = _("loses")
        elif seat in places and not collect:
            status = _("out ({place})").format(place=ordinal(places[seat], lang,
                                                             ai=is_ai_name(game.names[seat])))
        else:
            status = n_("{count} card", "{count} cards", count).format(count=count)
        seats.append(Seat(f"{cut(name)}\n{status}",
                          tuple((c, rank_text(c.rank, ranks)) for c in cards),
                          mark=seat == game.to_act))
        if cards:
            said_hands.append(_("{name}: {cards}").format(name=name,
                                                          cards=card_words(cards, lang)))
    said = []
    if collect:
        tops = [_("{name}: {card}").format(
            name=name, card=card_word(game.stacks[s][-1], lang) if game.stacks[s]
            else _("empty")) for s, name in enumerate(names)]
        said.append(_("{title}: {cards}.").format(title=_("Stack tops"),
                                                  cards=semicolons(tops, lang)))
        said.append(_("Talon {count}").format(count=len(game.talon)) + ".")
        if game.drawn is not None:
            said.append(_("Drawn card: {card}").format(card=card_word(game.drawn, lang)) + ".")
    if game.trump is not None:
        said.append(_("Trump: {suit}").format(suit=suit_word(game.trump, lang)) + ".")
    if not collect:
        trick = ", ".join(_("{card} ({name})").format(card=card_word(card, lang),
                                                      name=names[seat])
                          for seat, card in zip(game.trick_seats, game.trick, strict=True))
        said.append(_("Trick: {cards}").format(cards=trick or _("empty")) + ".")
    said.append(_("{title}: {cards}.").format(title=_("Every hand"),
                                              cards=semicolons(said_hands, lang)))
    text = " ".join(said)
    scene = ReplayScene(
        tuple(seats), len(game.talon),
        (game.drawn, rank_text(game.drawn.rank, ranks)) if game.drawn is not None else None,
        game.trump,
        tuple((cut(names[seat]), card, rank_text(card.rank, ranks))
              for seat, card in zip(game.trick_seats, game.trick, strict=True)),
        four, (_("Talon {count}").format(count=len(game.talon)), _("Drawn card"), _("Trump")),
        layout)
    return scene, text if len(text) <= ALT_LIMIT else text[:ALT_LIMIT - 1] + "…"


def _room(scenes: list[ReplayScene], cols: int, per_line: int) -> Layout:
    """The layout in ``cols`` columns of ``per_line`` cards a line that has room for each
    of ``scenes`` (of as many seats as the first)."""
    seats = len(scenes[0].seats) if scenes else 0
    lines = tuple(max(max(1, -(-len(scene.seats[i].cards) // per_line)) for scene in scenes
                      if i < len(scene.seats)) for i in range(seats))
    longest = max((min(len(seat.cards), per_line) for scene in scenes for seat in scene.seats),
                  default=1)
    extras = max((len(_extras(scene)) for scene in scenes), default=0)
    return Layout(cols, per_line, longest, lines, extras)


def steady(scenes: list[ReplayScene], frame: Frame = FRAME, caption: bool = False) -> Layout:
    """The one layout with room for every scene of ``scenes`` (of one table) that lets their
    cards be largest in ``frame``: drawn with it, their seats keep their places from scene
    to scene (``caption``: the pictures have a caption line at the top)."""
    pw, ph = frame.pixels
    top = LABEL_H if caption else 0
    best: tuple[float, int, int, Layout] | None = None
    for cols in (1, 2, 3):
        for per_line in (6, 8, 10, 13, PER_LINE):
            layout = _room(scenes, cols, per_line)
            width, height = layout.size()
            candidate = (min(pw / width, ph / (height + top)), -cols, per_line, layout)
            if best is None or candidate[:3] > best[:3]:
                best = candidate
    assert best is not None
    return best[3]


def layout_of(scene: ReplayScene, frame: Frame = FRAME, caption: bool = False) -> Layout:
    """Where ``draw_replay`` puts ``scene``'s seats: its own layout if it has room for it,
    else the one fitted to it alone."""
    if scene.layout is not None and scene.layout.holds(scene):
        return scene.layout
    return steady([scene], frame, caption)


def _extras(scene: ReplayScene) -> list[tuple[str, Card | None, str, str]]:
    """Under the seats: the talon, the drawn card, the trump and the trick (label, card,
    rank, kind)."""
    extras: list[tuple[str, Card | None, str, str]] = []
    talon, drawn, trump = scene.labels
    if scene.talon:
        extras.append((talon, None, "", "back"))
    if scene.drawn is not None:
        extras.append((drawn, scene.drawn[0], scene.drawn[1], "drawn"))
    if scene.trump is not None:
        extras.append((trump, None, "", "trump"))
    extras += [(name, card, rank, "trick") for name, card, rank in scene.trick]
    return extras


def draw_replay(scene: ReplayScene, folder: Path = FONTS, frame: Frame = FRAME,
                caption: str = "") -> Drawn:
    """Each seat's row of face-up cards beside its label (in as many columns as lets the
    cards be largest), then the talon, the drawn card, the trump and the trick, each with its
    label under it; ``caption``: a line at the top (an animation's frame says its move)."""
    top = LABEL_H if caption else 0
    layout = layout_of(scene, frame, bool(caption))
    width, height = layout.size()
    per_line = layout.per_line
    line_h = CARD_H + ROW_GAP
    extras = _extras(scene)
    with _lock:
        canvas = Canvas(frame, width, height + top, folder)
        if caption:
            canvas.text(caption, MARGIN, MARGIN / 2, width - 2 * MARGIN, ink=GOLD, size=15)
        bottom = MARGIN + top + layout.tallest
        for seat, (left, y) in zip(scene.seats, layout.places(), strict=True):
            y += top
            ink = GOLD if seat.mark else LABEL
            for line, text in enumerate(seat.label.split("\n")[:2]):
                canvas.text(text, left, y + CARD_H / 2 - LINE_H - 2 + (LINE_H + 4) * line,
                            NAME_W - 6, ink=ink, size=13, align="l")
            if not seat.cards:
                canvas.special(Special.EMPTY, 0, scene.four, seat.mark, left + NAME_W, y)
            for i, (card, rank) in enumerate(seat.cards):
                canvas.card(card, rank, PLAIN, scene.four,
                            left + NAME_W + (i % per_line) * STEP,
                            y + (i // per_line) * line_h)
        last = len(extras) - 1
        for i, (label, shown, rank, kind) in enumerate(extras):
            left = MARGIN + i * CELL_W
            x = left + (CELL_W - CARD_W) / 2
            mark = kind == "drawn" or (kind == "trick" and i == last)
            if shown is not None:
                canvas.card(shown, rank, PLAYABLE if mark else PLAIN, scene.four, x, bottom)
            elif kind == "back":
                canvas.special(Special.BACK, 0, scene.four, False, x, bottom)
            else:
                assert scene.trump is not None
                canvas.special(Special.SUIT, scene.trump, scene.four, False, x, bottom)
            canvas.text(label, left + 1, bottom + CARD_H + 2, CELL_W - 2,
                        ink=GOLD if mark else LABEL)
        return canvas.finish("replay")
