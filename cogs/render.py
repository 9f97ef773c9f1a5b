"""Embeds and button layouts, drawn from per-seat views only.

The table message is drawn from the public view (no hand in it, ever); a player's hand is
drawn from that player's own view and sent ephemerally.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import discord

from bot.tables import Table
from rules import Action, Card, Phase, SeatView, Variant, commitment
from rules.cards import MIN_PLAYERS, SUITS
from rules.engine import Event
from rules.i18n import DEFAULT, Lang, rank_text, translator, variant_text
from rules.i18n import number as written_number

from .components import Buttons, NLKButton, NLKSelect
from .ids import button_id, select_id

COLOUR = discord.Colour(0x2E7D32)
MAX_PLAY_BUTTONS = 20  # four rows of five; the fifth row holds Take and Refresh
NAME_LIMIT = 32
SHORT_NAME = 12  # names inside move lines and the trick: the seat list has them in full
# The table message stays readable on a phone: at most this much, whatever the seats.
TABLE_CHARS = 1200
TABLE_LINES = 20
FINGERPRINT = 12  # hex characters of the commitment shown on the table message
LOG_PAGE_CHARS = 3800  # one page of the moves log (an embed description holds 4,096)


def marks(lang: Lang = DEFAULT) -> dict[str, str]:
    """What a move nobody chose is marked with: forced, by an AI seat, by a stand-in."""
    _ = translator(lang).gettext
    return {"forced": " " + _("(no choice)"), "ai": " 🤖", "stand-in": " 🤖 " + _("(stand-in)")}


MARKS = marks(Lang.EN)
FORCED_SYMBOL = "✱"  # a move with no choice, in a line that mixes kinds of moves


def safe_name(text: str) -> str:
    """A player's name made safe for an embed."""
    short = text if len(text) <= NAME_LIMIT else text[:NAME_LIMIT - 1] + "…"
    return discord.utils.escape_markdown(discord.utils.escape_mentions(short))


def label_name(text: str) -> str:
    """A name for a button label (no markdown there)."""
    return text if len(text) <= 24 else text[:23] + "…"


def ordinal(n: int, lang: Lang = DEFAULT) -> str:
    """A place in the finishing order: 1st, 1., 1er (a table has at most nine)."""
    _ = translator(lang).gettext
    if 10 <= n % 100 <= 20 or n % 10 not in (1, 2, 3):
        return _("{n}th").format(n=n)
    return {1: _("{n}st"), 2: _("{n}nd"), 3: _("{n}rd")}[n % 10].format(n=n)


# Red suits as emoji, which are red on Discord's dark and light themes alike; black suits as
# text (VS15 asks for the text form), drawn in the theme's own text colour, where a black
# emoji would all but vanish on the dark theme.
SUIT_MARKS = ("\u2660\ufe0e", "\u2665\ufe0f", "\u2666\ufe0f", "\u2663\ufe0e")


def suit_mark(suit: int) -> str:
    """A suit as the bot shows it on Discord (``SUITS`` index)."""
    return SUIT_MARKS[suit]


# The letters cards are drawn with, when not the words' language (see ``table_letters``).
_LETTERS: ContextVar[Lang | None] = ContextVar("letters", default=None)


@contextmanager
def table_letters(lang: Lang) -> Iterator[None]:
    """Inside, cards show ``lang``'s letters whatever language the words are in.

    One card never reads two ways to one person: the table message and the pings show the
    server's letters, so a private message (your hand, its buttons, Moves) does too, while
    its sentences follow your own language. A French player on an English server reads
    "Take J♥️" in French words, as J♥️ is written on the table."""
    token = _LETTERS.set(lang)
    try:
        yield
    finally:
        _LETTERS.reset(token)


def letters(lang: Lang) -> Lang:
    """The language whose letters cards are drawn in now."""
    return _LETTERS.get() or lang


def card_text(card: Card, lang: Lang = DEFAULT) -> str:
    """A card as the bot shows it on Discord, in the language's letters and with the suit's
    colour mark: ``10♥️``, ``J♠︎``, Hungarian ``B♠︎``, French ``V♠︎`` (the engine says
    ``10♥``; input stays ``TH``); inside ``table_letters``, in the table's letters."""
    return rank_text(card.rank, letters(lang)) + SUIT_MARKS[card.suit]


def rules_line(variant: Variant, lang: Lang = DEFAULT) -> str:
    """A table's rules in one short line, in ``lang`` (``Variant.describe`` in English)."""
    return variant_text(variant.last_card, variant.must_beat_in_suit, lang)


def short_names(players: tuple[str, ...]) -> tuple[str, ...]:
    """Names cut for move lines and the trick; names that would clash stay whole."""
    cut = [p if len(p) <= SHORT_NAME else p[:SHORT_NAME - 1] + "…" for p in players]
    return tuple(safe_name(p if cut.count(c) > 1 else c) for p, c in zip(players, cut,
                                                                         strict=True))


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
        if event.act == "deal":
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
    shown: dict[int, Turn] = {}
    for turn in reversed(turns(history)):
        if turn.seat in shown:
            break
        shown[turn.seat] = turn
    return shown


def turn_text(turn: Turn, names: tuple[str, ...], kinds_of: dict[int, str],
              limit: int | None = None, lang: Lang = DEFAULT) -> str:
    """``gave 9♥️ to ann, drew J♠︎, kept it``, with the marks of moves nobody chose;
    cut from the front to ``limit`` characters (the latest moves matter most)."""
    _ = translator(lang).gettext
    marked = marks(lang)
    pieces: list[str] = []
    kinds = {kinds_of.get(i, "") for i, _event in turn.moves}
    if len(kinds) == 1:  # every move alike: marked once, at the end
        once: str | None = marked.get(kinds.pop(), "")
    else:
        # Moves of several kinds: each marked move gets a symbol, and the line says once
        # what the symbols mean ("drew 8♦️✱, gave it to ann, drew 9♥️✱, kept it · ✱ no
        # choice"), rather than repeating the words after every move.
        marked = {"forced": FORCED_SYMBOL, "ai": " 🤖", "stand-in": " 🤖"}
        legend = []
        if "forced" in kinds:
            legend.append(_("✱ no choice"))
        if "stand-in" in kinds:
            legend.append(_("🤖 stand-in"))
        once = None
        tail = " · " + ", ".join(legend) if legend else ""
    drawn = None
    for i, event in turn.moves:
        shown = card_text(event.card, lang)
        if event.act == "give":
            assert event.to is not None
            target = names[event.to]
            text = (_("gave it to {name}").format(name=target) if event.card == drawn
                    else _("gave {card} to {name}").format(card=shown, name=target))
        elif event.act == "keep":
            text = _("kept it") if event.card == drawn else _("kept {card}").format(card=shown)
        else:
            text = {"draw": _("drew {card}"), "play": _("played {card}"),
                    "take": _("took {card}")}[event.act].format(card=shown)
        drawn = event.card if event.act == "draw" else None
        pieces.append(text + ("" if once is not None else marked.get(kinds_of.get(i, ""), "")))
    if once is not None:
        tail = once
    text = ", ".join(pieces) + tail
    while limit is not None and len(text) > limit and len(pieces) > 1:
        pieces.pop(0)
        text = "…, " + ", ".join(pieces) + tail
    return text


def event_line(view: SeatView, event: Event, lang: Lang = DEFAULT) -> str:
    _ = translator(lang).gettext
    who = safe_name(view.players[event.seat])
    card = card_text(event.card, lang)
    if event.act == "give":
        assert event.to is not None
        return _("{name} gave {card} to {to}").format(
            name=who, card=card, to=safe_name(view.players[event.to]))
    return {"draw": _("{name} drew {card}"), "keep": _("{name} kept {card}"),
            "play": _("{name} played {card}"), "take": _("{name} took {card}"),
            "deal": _("{name} was dealt {card}")}[event.act].format(name=who, card=card)


def hand_text(cards: tuple[Card, ...], trump: str | None, lang: Lang = DEFAULT) -> str:
    """A hand by suit, trumps last: ``♠︎ 7 9 J · ♥️ 8 Q``."""
    _ = translator(lang).gettext
    if not cards:
        return _("*no cards*")
    trump_index = SUITS.index(trump) if trump else None
    suits = [s for s in range(4) if s != trump_index] + ([trump_index]
                                                         if trump_index is not None else [])
    parts = []
    for s in suits:
        ranks = [rank_text(c.rank, letters(lang)) for c in sorted(cards) if c.suit == s]
        if ranks:
            mark = " " + _("(trump)") if s == trump_index else ""
            parts.append(f"{SUIT_MARKS[s]}{mark} {' '.join(ranks)}")
    return "\n".join(parts)


# --- the table message ---------------------------------------------------------------------

@dataclass(frozen=True)
class Detail:
    """How much the table message says; ``table_embed`` draws the fullest that fits."""

    turn_chars: int | None  # each seat's latest turn, cut to this (None: whole)
    trick_names: bool  # who played each card of the trick
    name_chars: int  # names in the seat list
    turns: bool = True


DETAILS = (Detail(None, True, NAME_LIMIT), Detail(72, True, NAME_LIMIT),
           Detail(48, False, NAME_LIMIT), Detail(36, False, 20), Detail(None, False, 16, False))


def table_embed(table: Table, lang: Lang = DEFAULT) -> discord.Embed:
    """The public table message, in the server's language ``lang``."""
    _ = translator(lang).gettext
    if table.status == "lobby":
        return _lobby_embed(table, lang)
    view = table.public_view()
    if view is None:
        return discord.Embed(title=_("NLK table"), colour=COLOUR,
                             description=_("This table was cancelled before it started."))
    for detail in DETAILS:
        embed = _hand_embed(table, view, detail, lang)
        chars, lines = embed_size(embed)
        if chars <= TABLE_CHARS and lines <= TABLE_LINES:
            break
    return embed


def embed_size(embed: discord.Embed) -> tuple[int, int]:
    """Characters as Discord counts them (title, description, fields, footer) and lines as
    Discord draws them: the title, the description's, a name line plus the value's per
    field, and the footer."""
    parts = [embed.title or "", embed.description or "", embed.footer.text or ""]
    parts += [f"{f.name}{f.value}" for f in embed.fields]
    lines = (1 if embed.title else 0) + len((embed.description or "").splitlines()) + \
        sum(1 + len(str(f.value).splitlines()) for f in embed.fields) + \
        (1 if embed.footer.text else 0)
    return sum(len(p) for p in parts), lines


def _lobby_embed(table: Table, lang: Lang = DEFAULT) -> discord.Embed:
    _ = translator(lang).gettext
    host = " " + _("(host)")
    seats = "\n".join(f"{i}. {'🤖 ' if s.ai else ''}{safe_name(s.name)}"
                      f"{host if s.user_id == table.host_id else ''}"
                      for i, s in enumerate(table.lobby, 1)) or _("*empty*")
    counts = {"seated": len(table.lobby), "seats": table.max_seats}
    first = (_("Tap **Join** to take a seat ({seated}/{seats}).")
             if len(table.lobby) < table.max_seats
             else _("Every seat is taken ({seated}/{seats})."))
    embed = discord.Embed(
        title=_("NLK table — waiting for players"),
        colour=COLOUR,
        description=first.format(**counts) + " " +
        _("The host taps **Start** when everyone is in (two or more players)."),
    )
    embed.add_field(name=_("Seats"), value=seats, inline=False)
    embed.set_footer(text=" · ".join((_("Table {table}").format(table=table.id),
                                      rules_line(table.variant, lang),
                                      timer_line(table.turn_seconds, lang))))
    return embed


def timer_line(seconds: int, lang: Lang = DEFAULT) -> str:
    _ = translator(lang).gettext
    return _("{seconds} s per turn").format(seconds=written_number(seconds, lang)) if seconds > 0 \
        else _("no turn timer")


def _hand_embed(table: Table, view: SeatView, detail: Detail = DETAILS[0],
                lang: Lang = DEFAULT) -> discord.Embed:
    _ = translator(lang).gettext
    n_ = translator(lang).ngettext
    number = table.hand_number
    if view.phase == Phase.COLLECT:
        title = _("NLK · hand {number} · collect").format(number=number)
    elif view.phase == Phase.SHED:
        title = _("NLK · hand {number} · shed · trump {suit}").format(
            number=number, suit=suit_mark(SUITS.index(view.trump or "S")))
    else:
        title = _("NLK · hand {number} · over").format(number=number)
    closed = table.status == "ended"
    if closed:
        status = (_("**{name} lost this hand.** The table is closed.").format(
                      name=safe_name(view.players[view.loser])) if view.loser is not None
                  else _("**The table was ended before this hand finished.**"))
    elif view.is_over:
        status = next_hand_status(table, view, lang)
    else:
        status = _status(view, lang)
        if table.ai_to_act() and not view.is_over:
            status += "\n" + _("*The AI is thinking…*")
    embed = discord.Embed(title=title, colour=COLOUR, description=status)
    if view.is_over:
        order = [*view.out, *([view.loser] if view.loser is not None else [])]
        loses = " — " + _("**loses**")
        lines = [f"{i}. {'🤖 ' if table.seats[s].ai else ''}"
                 f"{safe_name(cut_name(view.players[s], detail.name_chars))}"
                 + (loses if s == view.loser else "") for i, s in enumerate(order, 1)]
        embed.add_field(name=_("Finishing order"), value="\n".join(lines), inline=False)
        if not closed:
            embed.add_field(name=next_hand_label(table, lang),
                            value=next_hand_seats(table, detail.name_chars), inline=False)
    else:
        embed.add_field(name=_("Players"), value=_seat_lines(table, view, detail, lang),
                        inline=False)
    if view.phase == Phase.SHED and view.trick:
        short = short_names(view.players)
        trick = " → ".join(f"{card_text(card, lang)} {short[s]}" if detail.trick_names
                           else card_text(card, lang) for s, card in view.trick)
        label = n_("Trick · {count} of {size} card", "Trick · {count} of {size} cards",
                   view.trick_size or 0).format(count=len(view.trick), size=view.trick_size)
        embed.add_field(name=label, value=trick, inline=False)
    footer = [_("Table {table}").format(table=table.id)]
    if closed:
        footer.append(_("closed"))
    footer += [_("move {move}").format(move=view.version), rules_line(view.variant, lang),
               timer_line(table.turn_seconds, lang)]
    if table.seed is not None:
        if view.is_over or closed:
            embed.add_field(name=_("Fair deal"), value=seed_reveal(table.seed, view.n, lang),
                            inline=False)
        else:
            footer.append(_("fair deal {fingerprint}").format(
                fingerprint=commitment(table.seed)[:FINGERPRINT]))
    if table.stand_in:
        footer.append(_("Unrated: a stand-in played"))
    embed.set_footer(text=" · ".join(footer))
    return embed


def seed_reveal(seed: str, players: int, lang: Lang = DEFAULT) -> str:
    """The seed of a hand that is over, and how anyone checks it against the commitment."""
    _ = translator(lang).gettext
    return _("Seed `{seed}` · check it: `python -m rules verify {seed} {digest} --players "
             "{players}`").format(seed=seed, digest=commitment(seed), players=players)


def next_hand_status(table: Table, view: SeatView, lang: Lang = DEFAULT) -> str:
    """Who lost, and who deals the next hand at the seats as they are now (people come and
    go between hands): the loser, the next old player still seated, or a random draw."""
    _ = translator(lang).gettext
    said = next_dealer_sentence(
        table, view,
        random=_("**{name} loses this hand**; the next dealer will be drawn at random."),
        loser=_("**{name} loses this hand** and deals the next."),
        other=_("**{name} loses this hand** and has left: **{dealer}** deals the next."))
    if len(table.lobby) < MIN_PLAYERS:
        return said + " " + _("The next hand needs two players: tap **Join next hand**.")
    return said + " " + _("Tap **Next hand** to play again.")


def next_dealer_sentence(table: Table, view: SeatView, *, random: str, loser: str,
                         other: str, **fields: object) -> str:
    """The finished hand's ``loser`` ({name}) and the next dealer ({dealer}), in the sentence
    for the case: the loser deals (R5.1), another of its players does because the loser left,
    or nobody of it stayed and the dealer is drawn at ``random`` (R2.1)."""
    assert view.loser is not None
    dealer = table.next_dealer()
    if dealer is None:
        said = random
    elif table.lobby[dealer].user_id == table.seats[view.loser].user_id:
        said = loser
    else:
        said = other
    return said.format(name=safe_name(view.players[view.loser]), **fields,
                       dealer=safe_name(table.lobby[dealer].name) if dealer is not None else "")


def next_hand_label(table: Table, lang: Lang = DEFAULT) -> str:
    _ = translator(lang).gettext
    return _("Next hand · {seated}/{seats}").format(seated=len(table.lobby),
                                                    seats=table.max_seats)


def next_hand_seats(table: Table, name_chars: int = NAME_LIMIT) -> str:
    """The next hand's seats in seat order, on one line."""
    return ", ".join(f"{'🤖 ' if s.ai else ''}{safe_name(cut_name(s.name, name_chars))}"
                     for s in table.lobby) or "—"


def cut_name(name: str, chars: int) -> str:
    return name if len(name) <= chars else name[:chars - 1] + "…"


def _status(view: SeatView, lang: Lang = DEFAULT) -> str:
    _ = translator(lang).gettext
    n_ = translator(lang).ngettext
    assert view.to_act is not None
    who = f"**{safe_name(view.players[view.to_act])}**"
    if view.phase == Phase.COLLECT:
        talon = n_("Talon: **{count}** card", "Talon: **{count}** cards",
                   view.talon).format(count=view.talon)
        if view.drawn is not None:
            line = _("▶ {name} drew **{card}**: give it where it fits, or keep it.").format(
                name=who, card=card_text(view.drawn, lang))
        elif view.has_drawn:
            line = _("▶ {name} gave the drawn card away and draws again.").format(name=who)
        else:
            line = _("▶ {name}'s turn: give the top card where it fits, then draw.").format(
                name=who)
        return f"{line}\n{talon}"
    if view.trick:
        top = view.trick[-1][1]
        return _("▶ {name} to beat **{card}** or take.").format(
            name=who, card=card_text(top, lang))
    return _("▶ {name} leads.").format(name=who)


def _seat_lines(table: Table, view: SeatView, detail: Detail = DETAILS[0],
                lang: Lang = DEFAULT) -> str:
    """A line per seat: its cards, and its latest turn while that is news to someone."""
    _ = translator(lang).gettext
    n_ = translator(lang).ngettext
    latest = last_round(view.history) if detail.turns else {}
    short = short_names(view.players)
    away_mark = " · " + _("away (AI playing)")
    dealer_mark = " · " + _("dealer")
    leaving_mark = " · 👋 " + _("leaves after this hand")
    lines = []
    for seat, player in enumerate(view.players):
        robot = "🤖 " if table.seats[seat].ai else ""
        away = away_mark if seat in table.away else ""
        if table.leaving(seat):
            away += leaving_mark
        marker = "▶ " if seat == view.to_act and table.is_open else ""  # an ended table: nobody
        count = view.counts[seat]
        if view.phase == Phase.COLLECT:
            top = view.tops[seat]
            shown = f"**{card_text(top, lang)}**" if top is not None else _("*empty*")
            detail_text = f"{shown} ({count})"
        elif seat in view.out:
            detail_text = _("out ({place})").format(
                place=ordinal(view.out.index(seat) + 1, lang))
        elif seat == view.loser:
            detail_text = n_("loser ({count} card)", "loser ({count} cards)",
                             count).format(count=count)
        else:
            detail_text = n_("{count} card", "{count} cards", count).format(count=count)
        dealer = dealer_mark if seat == view.dealer else ""
        turn = latest.get(seat)
        moved = f" · *{turn_text(turn, short, table.marks, detail.turn_chars, lang)}*" \
            if turn else ""
        name = player if len(player) <= detail.name_chars else \
            player[:detail.name_chars - 1] + "…"
        lines.append(f"{marker}{robot}{safe_name(name)} — {detail_text}{dealer}{away}{moved}")
    return "\n".join(lines)


def table_view(table: Table, lang: Lang = DEFAULT) -> discord.ui.View:
    """The table message's buttons: lobby controls, the current collect turn, or My hand."""
    _ = translator(lang).gettext
    view = Buttons()
    t = table.id
    full = len(table.lobby) >= table.max_seats
    if table.status == "lobby":
        view.add_item(NLKButton(button_id(t, None, "join"), _("Join"),
                                discord.ButtonStyle.success, disabled=full))
        view.add_item(NLKButton(button_id(t, None, "leave"), _("Leave")))
        view.add_item(NLKButton(button_id(t, None, "start"), _("Start (host)"),
                                discord.ButtonStyle.primary))
        view.add_item(NLKButton(button_id(t, None, "cancel"), _("Cancel (host)"),
                                discord.ButtonStyle.danger))
        _add_ai_buttons(view, t, lang)
        return view
    seat_view = table.public_view()
    if seat_view is None or not table.is_open:
        return view  # no buttons: the table is closed
    if table.status == "over" or seat_view.is_over:
        # Between hands people come and go; the count shows the next hand's seats.
        view.add_item(NLKButton(button_id(t, None, "join"),
                                _("Join next hand ({seated}/{seats})").format(
                                    seated=len(table.lobby), seats=table.max_seats),
                                discord.ButtonStyle.success, disabled=full))
        view.add_item(NLKButton(button_id(t, None, "leave"), _("Leave")))
        view.add_item(NLKButton(button_id(t, None, "next"), _("Next hand"),
                                discord.ButtonStyle.success))
        view.add_item(NLKButton(button_id(t, None, "end"), _("End table"),
                                discord.ButtonStyle.danger))
        add_log_buttons(view, t, lang)
        # The host may add or remove AI seats for the next hand, as in the lobby (row 1
        # also holds Fair deal).
        _add_ai_buttons(view, t, lang)
        # The seats the AI kept for people who are away: the host may free them (at most
        # nine seats, so two rows of five are always enough).
        away = [s for i, s in enumerate(table.seats) if i in table.away
                and table.in_lobby(s.user_id)]
        for i, seat in enumerate(away[:10]):
            view.add_item(NLKButton(button_id(t, None, "remove", str(seat.user_id)),
                                    _("Remove {name} (away)").format(
                                        name=label_name(seat.name)), row=2 + i // 5))
        return view
    if seat_view.phase == Phase.COLLECT:
        if table.ai_to_act() is None:  # an AI's turn shows no buttons to press
            # Anyone sees these buttons: each says whose move it is, so "Give 8♣︎ to bob"
            # does not invite bob's tap (the actor's own ping has them unlabelled).
            actor = seat_view.players[seat_view.to_act] if seat_view.to_act is not None \
                else None
            for action in _to_act_legal(table):
                view.add_item(_collect_button(t, seat_view, action, lang, actor))
        view.add_item(NLKButton(button_id(t, None, "hand"), _("My stack")))
    else:
        view.add_item(NLKButton(button_id(t, None, "hand"), _("My hand"),
                                discord.ButtonStyle.primary))
    add_log_buttons(view, t, lang)
    if table.away:
        view.add_item(NLKButton(button_id(t, None, "back"), _("I'm back"),
                                discord.ButtonStyle.success))
    return view


def end_confirmation(t: int, lang: Lang = DEFAULT) -> discord.ui.View:
    """The private question before **End table** ends the table."""
    _ = translator(lang).gettext
    view = Buttons()
    view.add_item(NLKButton(button_id(t, None, "endyes"), _("End the table"),
                            discord.ButtonStyle.danger))
    view.add_item(NLKButton(button_id(t, None, "endno"), _("Keep it")))
    return view


def _add_ai_buttons(view: discord.ui.View, t: int, lang: Lang = DEFAULT) -> None:
    """The host's AI seat buttons, on row 1 (the lobby's and between hands alike)."""
    _ = translator(lang).gettext
    view.add_item(NLKButton(button_id(t, None, "addai", "HEURISTIC"), _("Add AI"), row=1))
    view.add_item(NLKButton(button_id(t, None, "addai", "STRONG"), _("Add strong AI"), row=1))
    view.add_item(NLKButton(button_id(t, None, "removeai"), _("Remove AI"), row=1))


def _to_act_legal(table: Table) -> tuple[Action, ...]:
    """The legal actions of the seat to act, from that seat's own view."""
    game_view = table.public_view()
    if game_view is None or game_view.to_act is None:
        return ()
    return table.seat_view(game_view.to_act).legal


def _collect_button(t: int, view: SeatView, action: Action, lang: Lang = DEFAULT,
                    actor: str | None = None) -> NLKButton:
    """A collect-phase move's button; with ``actor``, labelled as that player's move."""
    _ = translator(lang).gettext
    v = view.version
    if action.act == "give":
        assert action.card is not None and action.to is not None
        custom_id = button_id(t, v, "give", f"{action.card}.{action.to}")
        label = _("Give {card} to {name}").format(card=card_text(action.card, lang),
                                                  name=label_name(view.players[action.to]))
        style = discord.ButtonStyle.success
    elif action.act == "draw":
        custom_id, label, style = button_id(t, v, "draw"), _("Draw"), discord.ButtonStyle.primary
    else:
        assert view.drawn is not None
        custom_id = button_id(t, v, "keep")
        label = _("Keep {card}").format(card=card_text(view.drawn, lang))
        style = discord.ButtonStyle.secondary
    if actor is not None:
        label = _("{name}: {move}").format(name=label_name(actor), move=label)
    return NLKButton(custom_id, label, style)


def add_log_buttons(view: discord.ui.View, t: int, lang: Lang = DEFAULT) -> None:
    """**Moves** (the hand's whole public log) and **Fair deal** (the commitment), each
    answered privately, so anyone can catch up or check the deal."""
    _ = translator(lang).gettext
    view.add_item(NLKButton(button_id(t, None, "moves"), _("Moves")))
    view.add_item(NLKButton(button_id(t, None, "fair"), _("Fair deal")))


# --- the moves log and the fair deal (ephemeral) -------------------------------------------

def log_lines(table: Table, view: SeatView, lang: Lang = DEFAULT) -> list[str]:
    """The hand's public history, a line per turn; drawn from the public view only, which
    holds what everyone saw happen and never a hidden hand."""
    _ = translator(lang).gettext
    names = tuple(safe_name(p) for p in view.players)
    dealt = ", ".join(f"{names[e.seat]} {card_text(e.card, lang)}"
                      for e in view.history if e.act == "deal")
    lines = [_("**Collect**"), _("Dealt face up: {cards}").format(cards=dealt)]
    shed = False
    for turn in turns(view.history, by_phase=True):
        if not shed and turn.moves[0][1].act in SHED_ACTS:
            shed = True
            lines.append(_("**Shed** · trump {suit}").format(
                suit=suit_mark(SUITS.index(view.trump))) if view.trump else _("**Shed**"))
        lines.append(f"{names[turn.seat]}: {turn_text(turn, names, table.marks, None, lang)}")
    if view.loser is not None:
        lines.append(_("**{name} loses this hand.**").format(name=names[view.loser]))
    return lines


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


def moves_message(table: Table, page: int | None = None, lang: Lang = DEFAULT
                  ) -> tuple[discord.Embed, discord.ui.View]:
    """One page of the hand's moves (None: the latest page), with buttons to turn pages."""
    _ = translator(lang).gettext
    view = table.public_view()
    assert view is not None
    pages = log_pages(log_lines(table, view, lang))
    last = len(pages) - 1
    shown = last if page is None else max(0, min(page, last))
    embed = discord.Embed(title=_("NLK · hand {number} · moves").format(
                              number=table.hand_number),
                          colour=COLOUR, description=pages[shown])
    embed.set_footer(text=_("Table {table} · move {move} · page {page} of {pages} · only you "
                            "can see this").format(table=table.id, move=view.version,
                                                   page=shown + 1, pages=last + 1))
    buttons = Buttons()
    t = table.id
    if shown > 0:
        buttons.add_item(NLKButton(button_id(t, None, "moves", str(shown - 1)), _("◀ Earlier")))
    if shown < last:
        buttons.add_item(NLKButton(button_id(t, None, "moves", str(shown + 1)), _("Later ▶")))
    buttons.add_item(NLKButton(button_id(t, None, "moves"), _("Latest")))
    return embed, buttons


def seed_revealed(table: Table) -> bool:
    """A hand's seed is shown once the hand is over, or once the table was ended: before
    that it would tell everyone every hidden hand."""
    view = table.public_view()
    return table.seed is not None and view is not None and (
        view.is_over or table.status == "ended")


def fair_message(table: Table, lang: Lang = DEFAULT) -> discord.Embed:
    """The hand's full commitment, and its seed and how to check it once that is public."""
    _ = translator(lang).gettext
    assert table.seed is not None and table.game is not None
    digest = commitment(table.seed)
    n = table.game.n
    if seed_revealed(table):
        text = _("Seed: `{seed}`\nCommitment (the seed's SHA-256, shown since the deal): "
                 "`{digest}`\n\nCheck that they match; it also prints the deck the seed "
                 "deals:\n`python -m rules verify {seed} {digest} --players {players}`")
    else:
        text = _("This hand was dealt from a secret seed. Before the first card the bot fixed "
                 "the seed's SHA-256, its commitment:\n`{digest}`\n\nThe table message shows "
                 "its first {count} characters. When the hand is over (or the table is "
                 "ended) the seed is revealed, and anyone can check it:\n"
                 "`python -m rules verify SEED {digest} --players {players}`")
    embed = discord.Embed(title=_("Fair deal · hand {number}").format(
                              number=table.hand_number), colour=COLOUR,
                          description=text.format(seed=table.seed, digest=digest, players=n,
                                                  count=FINGERPRINT))
    embed.set_footer(text=_("Table {table} · only you can see this").format(table=table.id))
    return embed


# --- the turn ping -------------------------------------------------------------------------

def jump_url(table: Table) -> str:
    if table.message_id is None:
        return f"<#{table.channel_id}>"
    return (f"https://discord.com/channels/{table.guild_id or '@me'}/{table.channel_id}/"
            f"{table.message_id}")


def countdown(deadline: float) -> str:
    """A live countdown that Discord keeps current ("in 42 seconds")."""
    moment = datetime.datetime.fromtimestamp(deadline, tz=datetime.UTC)
    return discord.utils.format_dt(moment, "R")


def ping_message(table: Table, user_id: int, *, deadline: float | None = None,
                 reminder: bool = False, lang: Lang = DEFAULT) -> tuple[str, discord.ui.View]:
    """The newest message on a person's turn: it mentions only them and carries their
    turn's controls (phase one) or their hand one tap away (phase two). It is public, so
    it speaks the server's language."""
    _ = translator(lang).gettext
    view = table.public_view()
    buttons = Buttons()
    if view is None or table.user_to_act() != user_id:
        return _("Done."), buttons
    deadline = deadline or table.deadline()
    clock = " " + _("Time runs out {countdown}.").format(countdown=countdown(deadline)) \
        if deadline else ""
    if view.phase == Phase.COLLECT:
        what = _("your move (the buttons below, or on the table message)")
        for action in _to_act_legal(table):
            buttons.add_item(_collect_button(table.id, view, action, lang))
    else:
        what = _("tap **My hand** to play")
        buttons.add_item(NLKButton(button_id(table.id, None, "hand"), _("My hand"),
                                   discord.ButtonStyle.primary))
    if reminder:
        clock = " " + _("Time runs out {countdown}, then a stand-in plays it for you.").format(
            countdown=countdown(deadline or 0))
    text = _("{mention} your turn at NLK table {table}: {what}.").format(
        mention=f"<@{user_id}>", table=table.id, what=what)
    link = _("Table")
    return (f"{'⏰ ' if reminder else ''}{text}{clock} [{link}]({jump_url(table)})"), buttons


# --- a player's own cards (ephemeral) ------------------------------------------------------

def hand_message(table: Table, user_id: int, note: str | None = None, lang: Lang = DEFAULT
                 ) -> tuple[discord.Embed, discord.ui.View]:
    """The player's stack or hand, and in phase two their controls, in their own language."""
    _ = translator(lang).gettext
    n_ = translator(lang).ngettext
    view = table.view_of_user(user_id)
    seat = table.seat_of(user_id)
    buttons = Buttons()
    if view is None or seat is None:
        embed = discord.Embed(title=_("Your cards"), colour=COLOUR,
                              description=_("You're not playing at this table."))
        return embed, buttons
    t = table.id
    count = len(view.own)
    if view.phase == Phase.COLLECT:
        stack = " ".join(card_text(c, lang) for c in view.own) or _("*empty*")
        embed = discord.Embed(
            title=n_("Your stack — {count} card", "Your stack — {count} cards",
                     count).format(count=count),
            colour=COLOUR,
            description=_("Bottom → top: {cards}").format(cards=stack) + "\n\n" +
            _("Everyone sees stack tops; this is the whole pile. In the shed phase it becomes "
              "your hidden hand."))
    else:
        embed = discord.Embed(
            title=n_("Your hand — {count} card", "Your hand — {count} cards",
                     count).format(count=count),
            colour=COLOUR, description=hand_text(view.own, view.trump, lang))
        embed.add_field(name=_("Now"), value=_hand_status(table, view, lang), inline=False)
        if view.my_turn:
            _add_play_controls(buttons, t, view, lang)
    if note:
        embed.add_field(name=_("Note"), value=note[:1024], inline=False)
    buttons.add_item(NLKButton(button_id(t, None, "hand"), _("Refresh"),
                               discord.ButtonStyle.secondary, row=4))
    embed.set_footer(text=_("Table {table} · hand {number} · move {move} · only you can see "
                            "this").format(table=t, number=table.hand_number,
                                           move=view.version))
    return embed, buttons


def _hand_status(table: Table, view: SeatView, lang: Lang = DEFAULT) -> str:
    _ = translator(lang).gettext
    if view.is_over:
        assert view.loser is not None
        if view.loser == view.seat:
            if not table.is_open:
                return _("You lost this hand.")
            # The same three cases as the table message: a loser who left deals nothing.
            return next_dealer_sentence(
                table, view, loser=_("You lost this hand: you deal the next one."),
                other=_("You lost this hand and have left: **{dealer}** deals the next."),
                random=_("You lost this hand and have left: the next dealer will be drawn "
                         "at random."))
        assert view.seat is not None
        return _("You finished {place}.").format(
            place=ordinal(view.out.index(view.seat) + 1, lang))
    assert view.to_act is not None
    waiting = _("Waiting for **{name}**.").format(name=safe_name(view.players[view.to_act]))
    if view.seat in view.out:
        out = _("You're out ({place}). Well played!").format(
            place=ordinal(view.out.index(view.seat) + 1, lang))
        return f"{out} {waiting}"
    if not view.my_turn:
        return waiting
    if not view.trick:
        return _("**Your lead**: play any card.")
    top = card_text(view.trick[-1][1], lang)
    bottom = card_text(view.trick[0][1], lang)
    plays = [a for a in view.legal if a.act == "play"]
    if not plays:
        return _("**Your turn**: nothing beats {top}, so take {bottom}.").format(
            top=top, bottom=bottom)
    return _("**Your turn**: beat {top}, or take {bottom}.").format(top=top, bottom=bottom)


def _add_play_controls(buttons: discord.ui.View, t: int, view: SeatView,
                       lang: Lang = DEFAULT) -> None:
    _ = translator(lang).gettext
    n_ = translator(lang).ngettext
    plays = [a.card for a in view.legal if a.act == "play" and a.card is not None]
    v = view.version
    trump = SUITS.index(view.trump) if view.trump else None
    if len(plays) <= MAX_PLAY_BUTTONS:
        for i, card in enumerate(sorted(plays, key=lambda c: (c.suit == trump, c))):
            style = discord.ButtonStyle.primary if card.suit == trump else \
                discord.ButtonStyle.secondary
            buttons.add_item(NLKButton(button_id(t, v, "play", str(card)),
                                       card_text(card, lang), style, row=i // 5))
    else:
        # Too many for buttons: one select per suit (a suit never has more than 13 cards).
        suits = sorted({c.suit for c in plays}, key=lambda s: (s == trump, s))
        for row, suit in enumerate(suits):
            cards = sorted(c for c in plays if c.suit == suit)
            options = [discord.SelectOption(label=card_text(c, lang), value=str(c))
                       for c in cards]
            if suit == trump:
                placeholder = n_("Play {suit} (trump) — {count} card",
                                 "Play {suit} (trump) — {count} cards", len(cards))
            else:
                placeholder = n_("Play {suit} — {count} card", "Play {suit} — {count} cards",
                                 len(cards))
            buttons.add_item(NLKSelect(select_id(t, v, "play", SUITS[suit]),
                                       placeholder.format(suit=suit_mark(suit),
                                                          count=len(cards)),
                                       options, row=row))
    if any(a.act == "take" for a in view.legal):
        bottom = view.trick[0][1]
        buttons.add_item(NLKButton(button_id(t, v, "take"),
                                   _("Take {card}").format(card=card_text(bottom, lang)),
                                   discord.ButtonStyle.danger, row=4))


def rules_text(variant: Variant, lang: Lang = DEFAULT) -> str:
    """A short summary of the rules at a table, in ``lang``."""
    _ = translator(lang).gettext
    last = (_("The drawer must keep the last talon card.") if variant.last_card == "keep"
            else _("The last talon card may be given away like any drawn card."))
    beat = (_("While the top card is not a trump, you may not trump if you can beat in suit.")
            if variant.must_beat_in_suit
            else _("You may trump even when you could beat in suit."))
    return "\n\n".join((
        _("**NLK** — 2 to 9 players; the pack has the n+4 highest ranks of each suit."),
        _("**Collect.** On your turn you may give your stack's top card to another stack where "
          "it fits (exactly one rank higher; the lowest rank fits on an Ace), then you must "
          "draw. Give the drawn card where it fits and draw again, or keep it to end your "
          "turn. {last_card} Its suit is trump, and its drawer leads.").format(last_card=last),
        _("**Shed.** Stacks become hidden hands. Lead any card; then each player beats the top "
          "card (higher in suit, or a trump) or takes the bottom card of the trick. A trick is "
          "full when it holds as many cards as players were in when it was led; whoever "
          "completed it leads. {must_beat} Play your last card and you're out.").format(
              must_beat=beat),
        _("The last player holding cards **loses** and deals the next hand."),
    ))
