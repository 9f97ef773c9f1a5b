"""A hand's moves folded into turns, as the table message and the moves log tell them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.db.records import Mark
from bot.tables.service import Table
from cogs.render.text import (
    FORCED_SYMBOL,
    LOG_PAGE_CHARS,
    STAND_IN_SYMBOL,
    card_text,
    marks,
    player_names,
    suit_mark,
)
from rules import Act, SeatView
from rules.cards import SUITS
from rules.engine import Event
from rules.hint import TOLD_OUT, Reason, Told, forced_event
from rules.i18n import DEFAULT, Lang, translator


@dataclass(frozen=True)
class Turn:
    """One player's consecutive moves (one collect turn, or a shed play and the lead after
    it), with each move's index in the hand's history."""

    seat: int
    moves: tuple[tuple[int, Event], ...]


SHED_ACTS = ("play", "take")


def turns(history: tuple[Event, ...], *, by_phase: bool = False) -> list[Turn]:
    """The hand's moves folded by turn, oldest first (the deal is not a turn); ``by_phase``
    splits the last collect turn from the lead its drawer makes next."""
    folded: list[Turn] = []
    for i, event in enumerate(history):
        if event.act == Act.DEAL:
            continue
        same_phase = not by_phase or not folded or \
            (folded[-1].moves[-1][1].act in SHED_ACTS) == (event.act in SHED_ACTS)
        if folded and folded[-1].seat == event.seat and same_phase:
            folded[-1] = Turn(event.seat, (*folded[-1].moves, (i, event)))
        else:
            folded.append(Turn(event.seat, ((i, event),)))
    return folded


def last_round(history: tuple[Event, ...]) -> dict[int, Turn]:
    """Each seat's latest turn, as far back as the newest turn of a seat that repeats.

    Seats take turns in order, so this holds everything since any seat still playing last
    moved: whoever is to act sees every move made since their previous turn.
    """
    # Read from the end, as ``turns`` folds them: drawn after every move, a hand of a
    # thousand moves folded whole each time cost more than the rest of the table message.
    shown: dict[int, Turn] = {}
    run: list[tuple[int, Event]] = []  # the turn being read, newest move first
    for i in range(len(history) - 1, -1, -1):
        event = history[i]
        if event.act == Act.DEAL:
            continue
        if run and event.seat != run[0][1].seat:
            if _ended(shown, run):
                return shown
            run = []
        run.append((i, event))
    if run:
        _ended(shown, run)
    return shown


def _ended(shown: dict[int, Turn], run: list[tuple[int, Event]]) -> bool:
    """A turn read backwards (``run``, newest move first) is complete: keep it as its
    seat's latest, or say that its seat repeats (the round is read)."""
    seat = run[0][1].seat
    if seat in shown:
        return True
    shown[seat] = Turn(seat, tuple(reversed(run)))
    return False


def turn_text(turn: Turn, names: tuple[str, ...], kinds_of: dict[int, Mark],
              limit: int | None = None, lang: Lang = DEFAULT, letters: Lang | None = None
              ) -> str:
    """``gave 9♥️ to ann, drew J♠︎, kept it``, with the marks of moves nobody chose;
    cut from the front to ``limit`` characters (the latest moves matter most)."""
    _ = translator(lang).gettext
    marked = marks(lang)
    pieces: list[str] = []
    kinds = {kinds_of.get(i) or None for i, _event in turn.moves}
    if len(kinds) == 1:  # every move alike: marked once, at the end
        once: str | None = _said(marked, kinds.pop())
        tail = once or ""
    else:
        # Moves of several kinds: each marked move gets a symbol, and the line says once
        # what the symbols mean ("drew 8♦️✱, gave it to ann, drew 9♥️✱, kept it · ✱ no
        # choice"), rather than repeating the words after every move.
        marked = {Mark.FORCED: FORCED_SYMBOL, Mark.AI: " 🤖",
                  Mark.STAND_IN: f" {STAND_IN_SYMBOL}"}
        legend = []
        if Mark.FORCED in kinds:
            legend.append(_("✱ no choice"))
        if Mark.STAND_IN in kinds:
            legend.append(_("⏱ stand-in"))
        once = None
        tail = " · " + ", ".join(legend) if legend else ""
    drawn = None
    for i, event in turn.moves:
        shown = card_text(event.card, lang, letters)
        if event.act == Act.GIVE:
            assert event.to is not None
            target = names[event.to]
            text = (_("gave it to {name}").format(name=target) if event.card == drawn
                    else _("gave {card} to {name}").format(card=shown, name=target))
        elif event.act == Act.KEEP:
            text = _("kept it") if event.card == drawn else _("kept {card}").format(card=shown)
        else:
            text = {"draw": _("drew {card}"), "play": _("played {card}"),
                    "take": _("took {card}")}[event.act].format(card=shown)
        drawn = event.card if event.act == Act.DRAW else None
        pieces.append(text + ("" if once is not None else _said(marked, kinds_of.get(i))))
    text = ", ".join(pieces) + tail
    while limit is not None and len(text) > limit and len(pieces) > 1:
        pieces.pop(0)
        text = "…, " + ", ".join(pieces) + tail
    return text


def _said(marked: dict[Mark, str], mark: Mark | None) -> str:
    return "" if mark is None else marked.get(mark, "")


def went_out(history: Sequence[Event], out: Sequence[int]) -> dict[int, int]:
    """The plays that were their player's last card (R4.8), as ``{history index: seat}``:
    a player out whose last event is a play went out with it (one out at the start of the
    shed phase, holding nothing, played nothing)."""
    last: dict[int, int] = {}
    for i, event in enumerate(history):
        last[event.seat] = i
    return {last[seat]: seat for seat in out
            if seat in last and history[last[seat]].act == Act.PLAY}


def out_line(event: Event, names: tuple[str, ...], lang: Lang = DEFAULT) -> str:
    """"ann played their last card (9♣) and is out. (R4.8)"""
    told = Told(Reason(TOLD_OUT, "R4.8", (("card", event.card),)), event.seat)
    return told.words(names, lang)


def dealt_line(dealer: int | None, names: tuple[str, ...], lang: Lang = DEFAULT
               ) -> str | None:
    """Who dealt, and so who moves first (R2.2, R3.1), said once at the start of a hand;
    None for a hand that started from a position, with no dealer."""
    if dealer is None:
        return None
    first = (dealer + 1) % len(names)
    return translator(lang).gettext(
        "{dealer} dealt, so {name}, the player after the dealer, moves first (R3.1).").format(
            dealer=names[dealer], name=names[first])


def last_plays(history: Sequence[Event], out: Sequence[int], names: tuple[str, ...],
               kinds_of: dict[int, Mark], limit: int | None = None, lang: Lang = DEFAULT,
               turns_kept: int | None = None) -> list[str]:
    """The hand's last round (its latest ``turns_kept`` turns), a line per turn, oldest
    first, with who went out in it: what
    a finished hand's table shows above its result (issue 45: the table jumped straight to
    "dora loses", and the last plays were only under Moves)."""
    _ = translator(lang).gettext
    outs = went_out(history, out)
    shown = sorted(last_round(tuple(history)).values(), key=lambda turn: turn.moves[0][0])
    if turns_kept is not None:
        shown = shown[len(shown) - turns_kept:] if turns_kept else []
    lines = []
    for turn in shown:
        lines.append(_("{name}: {move}").format(
            name=names[turn.seat], move=turn_text(turn, names, kinds_of, limit, lang)))
        lines += [f"↳ *{out_line(event, names, lang)}*" for i, event in turn.moves
                  if i in outs]
    return lines


def log_lines(table: Table, view: SeatView, lang: Lang = DEFAULT,
              letters: Lang | None = None) -> list[str]:
    """The hand's public history, a line per turn; drawn from the public view only, which
    holds what everyone saw happen and never a hidden hand."""
    _ = translator(lang).gettext
    names = player_names(view.players, lang)
    dealt = ", ".join(f"{names[e.seat]} {card_text(e.card, lang, letters)}"
                      for e in view.history if e.act == Act.DEAL)
    lines = [_("**Collect**"), _("Dealt face up: {cards}").format(cards=dealt)]
    first = dealt_line(view.dealer, names, lang)
    if first is not None:
        lines.append(f"↳ *{first}*")
    outs = went_out(view.history, view.out)
    if table.assisted:
        lines.insert(0, _("💡 **Assisted**: a player used a hint in this hand."))
    shed = False
    for turn in turns(view.history, by_phase=True):
        if not shed and turn.moves[0][1].act in SHED_ACTS:
            shed = True
            lines.append(_("**Shed** · trump {suit}").format(
                suit=suit_mark(SUITS.index(view.trump))) if view.trump else _("**Shed**"))
        # The catalogue's "{name}: {move}", so French puts its space before the colon.
        lines.append(_("{name}: {move}").format(
            name=names[turn.seat],
            move=turn_text(turn, names, table.marks, None, lang, letters)))
        lines += [f"↳ *{why}*" for why in forced_reasons(view.history, turn.moves,
                                                         table.marks, names, view.seat, lang)]
        lines += [f"↳ *{out_line(event, names, lang)}*" for i, event in turn.moves
                  if i in outs]
    if view.loser is not None:
        lines.append(_("**{name} loses this hand.**").format(name=names[view.loser]))
    return lines


def forced_reasons(history: Sequence[Event], moves: tuple[tuple[int, Event], ...],
                   kinds_of: dict[int, Mark], names: tuple[str, ...], reader: int | None,
                   lang: Lang = DEFAULT) -> list[str]:
    """Why each of ``moves`` (``history``'s, by index) that played itself had no choice,
    each sentence once: to its own player "You had to draw: …", to anyone else "ann had to
    draw: …"; a draw's reason depends on the moves before it (again after a give of the
    drawn card), so the hand's history comes too."""
    said: list[str] = []
    for i, event in moves:
        found = forced_event(history, i) if kinds_of.get(i) is Mark.FORCED else None
        if found is None:
            continue
        reason, told = found
        text = reason.words(names, lang) if event.seat == reader else told.words(names, lang)
        if text not in said:
            said.append(text)
    return said


def own_forced(table: Table, user_id: int, lang: Lang = DEFAULT) -> list[str]:
    """Why the moves that played themselves for ``user_id`` right after their latest move
    had no choice: the newest run of forced moves, those of their seat."""
    seat, game = table.seat_of(user_id), table.game
    if seat is None or game is None:
        return []
    history = game.history()
    at = len(history)
    while at > 0 and table.marks.get(at - 1) is Mark.FORCED:
        at -= 1
    if at == len(history):
        return []  # nothing played itself (most moves): no names to spell out
    moves = tuple((i, history[i]) for i in range(at, len(history)) if history[i].seat == seat)
    return forced_reasons(history, moves, table.marks, player_names(game.names, lang), seat,
                          lang)


def log_pages(lines: list[str]) -> list[str]:
    """The lines in pages of whole lines, each short enough for one embed."""
    pages: list[str] = []
    page: list[str] = []
    for line in lines:
        if page and sum(len(x) + 1 for x in page) + len(line) > LOG_PAGE_CHARS:
            pages.append("\n".join(page))
            page = []
        page.append(line[:LOG_PAGE_CHARS])
    pages.append("\n".join(page))
    return pages
