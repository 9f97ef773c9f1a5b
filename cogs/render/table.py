"""The public table message: its embed (the fullest that fits) and its buttons."""

from __future__ import annotations

from dataclasses import dataclass

import discord

from bot.db.records import TableStatus
from bot.tables.service import AILevel, Table
from bot.tables.table import Moment
from cogs.render.history import dealt_line, last_plays, last_round, turn_text
from cogs.render.text import (
    COLOUR,
    FINGERPRINT,
    NAME_LIMIT,
    TABLE_CHARS,
    TABLE_LINES,
    card_text,
    label_name,
    player_name,
    rules_line,
    seed_proof,
    short_names,
    suit_mark,
    timer_line,
)
from cogs.widgets.buttons import Buttons, NLKButton
from cogs.widgets.ids import Look, Move, Seating, button_id
from rules import Act, Action, Phase, SeatView, commitment
from rules.cards import MIN_PLAYERS, SUITS
from rules.i18n import DEFAULT, Lang, ordinal, translator


@dataclass(frozen=True)
class Detail:
    """How much the table message says; ``table_embed`` draws the fullest that fits."""

    turn_chars: int | None  # each seat's latest turn, cut to this (None: whole)
    trick_names: bool  # who played each card of the trick
    name_chars: int  # names in the seat list
    turns: bool = True


FIELD_CHARS = 1024  # Discord's limit for one field's value
LAST_PLAYS = 3  # a finished hand's last turns shown above its result, room allowing

DETAILS = (Detail(None, True, NAME_LIMIT), Detail(72, True, NAME_LIMIT),
           Detail(48, False, NAME_LIMIT), Detail(36, False, 20), Detail(None, False, 14, False))


def table_embed(table: Table, lang: Lang = DEFAULT) -> discord.Embed:
    """The public table message, in the server's language ``lang``."""
    _ = translator(lang).gettext
    if table.status is TableStatus.LOBBY:
        return _lobby_embed(table, lang)
    view = table.public_view()
    if view is None:
        return discord.Embed(title=_("NLK table"), colour=COLOUR,
                             description=_("This table was cancelled before it started."))
    # A finished hand shows its last plays (up to LAST_PLAYS turns) as room allows.
    for plays in range(LAST_PLAYS if view.is_over else 0, -1, -1):
        for detail in DETAILS if plays == 0 else DETAILS[:-1]:
            embed = _hand_embed(table, view, detail, lang, plays)
            chars, lines = embed_size(embed)
            if chars <= TABLE_CHARS and lines <= TABLE_LINES:
                return embed
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
    seats = "\n".join(f"{i}. {'🤖 ' if s.ai else ''}{player_name(s.name, lang)}"
                      f"{host if s.user_id == table.host_id else ''}"
                      for i, s in enumerate(table.next_seats, 1)) or _("*empty*")
    counts = {"seated": len(table.next_seats), "seats": table.max_seats}
    first = (_("Tap **Join** to take a seat ({seated}/{seats}).")
             if len(table.next_seats) < table.max_seats
             else _("Every seat is taken ({seated}/{seats})."))
    description = first.format(**counts) + " " + \
        _("The host taps **Start** when everyone is in (two or more players).")
    if table.replaces is not None:
        description += "\n" + _("It replaces table {table}, whose last hand was over (that "
                                "table is closed).").format(table=table.replaces)
    embed = discord.Embed(title=_("NLK table — waiting for players"), colour=COLOUR,
                          description=description)
    embed.add_field(name=_("Seats"), value=seats, inline=False)
    if table.private:
        # Issue 45: a group DM member who has not added the app sees no /nlk, and nothing
        # said why; the buttons work for everyone.
        embed.add_field(name=_("In a group DM"), value=_(
            "Everyone here can join and play with these buttons, and **New to NLK? Learn it** "
            "opens the lesson. Opening a table with `/nlk new` needs NLK added to your own "
            "account: open NLK's profile and tap **Add App**."), inline=False)
    embed.set_footer(text=" · ".join((_("Table {table}").format(table=table.id),
                                      rules_line(table.variant, lang),
                                      timer_line(table.turn_seconds, lang))))
    return embed


def _hand_embed(table: Table, view: SeatView, detail: Detail = DETAILS[0],
                lang: Lang = DEFAULT, plays: int = 0) -> discord.Embed:
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
    closed = table.status is TableStatus.ENDED
    if closed:
        status = (_("**{name} lost this hand.** The table is closed.").format(
                      name=player_name(view.players[view.loser], lang))
                  if view.loser is not None
                  else _("**The table was ended before this hand finished.**"))
        if table.replaced_by is not None:
            status += "\n" + _("A new table ({table}) was opened here in its place.").format(
                table=table.replaced_by)
    elif view.is_over:
        status = next_hand_status(table, view, lang)
    else:
        status = _status(view, lang)
        if view.phase == Phase.COLLECT and not any(e.act == Act.KEEP for e in view.history):
            first = dealt_line(view.dealer, tuple(player_name(p, lang) for p in view.players),
                               lang)  # once: during the hand's first turn
            if first is not None:
                status = f"{first}\n{status}"
        if table.ai_to_act() and not view.is_over:
            status += "\n" + _("*The AI is thinking…*")
    embed = discord.Embed(title=title, colour=COLOUR, description=status)
    if view.is_over:
        said = last_plays(view.history, view.out, short_names(view.players, lang),
                          table.marks, detail.turn_chars, lang, plays)
        if said:
            embed.add_field(name=_("Last plays"), value="\n".join(said)[-FIELD_CHARS:],
                            inline=False)
        order = [*view.out, *([view.loser] if view.loser is not None else [])]
        loses = " — " + _("**loses**")
        lines = [f"{i}. {'🤖 ' if table.seats[s].ai else ''}"
                 f"{player_name(view.players[s], lang, detail.name_chars)}"
                 + (loses if s == view.loser else "") for i, s in enumerate(order, 1)]
        embed.add_field(name=_("Finishing order"), value="\n".join(lines), inline=False)
        if not closed:
            embed.add_field(name=next_hand_label(table, lang),
                            value=next_hand_seats(table, detail.name_chars, lang),
                            inline=False)
    else:
        embed.add_field(name=_("Players"), value=_seat_lines(table, view, detail, lang),
                        inline=False)
    if view.phase == Phase.SHED and view.trick:
        short = short_names(view.players, lang)
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
            embed.add_field(name=_("Fair deal"), value=seed_proof(table.seed, lang),
                            inline=False)
        else:
            footer.append(_("fair deal {fingerprint}").format(
                fingerprint=commitment(table.seed)[:FINGERPRINT]))
    if table.stand_in:
        footer.append(_("Unrated: the AI kept a player's seat"))
    embed.set_footer(text=" · ".join(footer))
    return embed


def next_hand_status(table: Table, view: SeatView, lang: Lang = DEFAULT) -> str:
    """Who lost, and who deals the next hand at the seats as they are now (people come and
    go between hands): the loser, the next old player still seated, or a random draw."""
    _ = translator(lang).gettext
    said = next_dealer_sentence(
        table, view, lang=lang,
        random=_("**{name} loses this hand**; the next dealer will be drawn at random."),
        loser=_("**{name} loses this hand** and deals the next."),
        other=_("**{name} loses this hand** and has left: **{dealer}** deals the next."))
    if len(table.next_seats) < MIN_PLAYERS:
        return said + " " + _("The next hand needs two players: tap **Join next hand**.")
    return said + " " + _("Tap **Next hand** to play again.")


def next_dealer_sentence(table: Table, view: SeatView, *, random: str, loser: str,
                         other: str, lang: Lang = DEFAULT, **fields: object) -> str:
    """The finished hand's ``loser`` ({name}) and the next dealer ({dealer}), in the sentence
    for the case: the loser deals (R5.1), another of its players does because the loser left,
    or nobody of it stayed and the dealer is drawn at ``random`` (R2.1)."""
    assert view.loser is not None
    dealer = table.next_dealer()
    if dealer is None:
        said = random
    elif table.next_seats[dealer].user_id == table.seats[view.loser].user_id:
        said = loser
    else:
        said = other
    return said.format(name=player_name(view.players[view.loser], lang), **fields,
                       dealer=player_name(table.next_seats[dealer].name, lang)
                       if dealer is not None else "")


def next_hand_label(table: Table, lang: Lang = DEFAULT) -> str:
    _ = translator(lang).gettext
    return _("Next hand · {seated}/{seats}").format(seated=len(table.next_seats),
                                                    seats=table.max_seats)


def next_hand_seats(table: Table, name_chars: int = NAME_LIMIT, lang: Lang = DEFAULT) -> str:
    """The next hand's seats in seat order, on one line, AI seats marked 🤖."""
    return ", ".join(f"{'🤖 ' if s.ai else ''}{player_name(s.name, lang, name_chars)}"
                     for s in table.next_seats) or "—"


def finishing_order(table: Table, view: SeatView, lang: Lang = DEFAULT) -> str:
    """The players who went out, in order, on one line, AI seats marked 🤖 as in the
    next hand's seats beside it."""
    return ", ".join(f"{'🤖 ' if table.seats[s].ai else ''}{player_name(view.players[s], lang)}"
                     for s in view.out)


def _status(view: SeatView, lang: Lang = DEFAULT) -> str:
    _ = translator(lang).gettext
    n_ = translator(lang).ngettext
    assert view.to_act is not None
    who = f"**{player_name(view.players[view.to_act], lang)}**"
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
    short = short_names(view.players, lang)
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
                place=ordinal(view.out.index(seat) + 1, lang, ai=bool(table.seats[seat].ai)))
        elif seat == view.loser:
            detail_text = n_("loser ({count} card)", "loser ({count} cards)",
                             count).format(count=count)
        else:
            detail_text = n_("{count} card", "{count} cards", count).format(count=count)
        dealer = dealer_mark if seat == view.dealer else ""
        turn = latest.get(seat)
        moved = f" · *{turn_text(turn, short, table.marks, detail.turn_chars, lang)}*" \
            if turn else ""
        name = player_name(player, lang, detail.name_chars)
        lines.append(f"{marker}{robot}{name} — {detail_text}{dealer}{away}{moved}")
    return "\n".join(lines)


def quiet_table(embed: discord.Embed, table: Table, lang: Lang = DEFAULT
                ) -> tuple[discord.Embed, discord.ui.View]:
    """A group DM's table message left before the bot loses its last way to edit it (no
    tap there for a quarter of an hour): what it showed, saying so, with one button that
    brings it up to date in place instead of moves that may have passed meanwhile."""
    _ = translator(lang).gettext
    note = _("This chat has been quiet, so this table may be out of date: tap **Show the "
             "table** to bring it up to date.")
    embed.description = f"{embed.description}\n\n{note}" if embed.description else note
    view = Buttons()
    view.add_item(NLKButton(button_id(table.id, None, Look.TABLE), _("Show the table"),
                            discord.ButtonStyle.primary))
    return embed, view


def table_view(table: Table, lang: Lang = DEFAULT, *, ai_allowed: bool = True
               ) -> discord.ui.View:
    """The table message's buttons: lobby controls, the current collect turn, or My hand.
    ``ai_allowed``: the server lets hosts add AI players (``/nlk settings allow_ai``)."""
    _ = translator(lang).gettext
    view = Buttons()
    t = table.id
    full = len(table.next_seats) >= table.max_seats
    if table.status is TableStatus.LOBBY:
        view.add_item(NLKButton(button_id(t, None, Seating.JOIN), _("Join"),
                                discord.ButtonStyle.success, disabled=full))
        view.add_item(NLKButton(button_id(t, None, Seating.LEAVE), _("Leave")))
        view.add_item(NLKButton(button_id(t, None, Seating.START), _("Start (host)"),
                                discord.ButtonStyle.primary))
        view.add_item(NLKButton(button_id(t, None, Seating.CANCEL), _("Cancel the table (host)"),
                                discord.ButtonStyle.danger))
        _add_ai_buttons(view, table, lang, ai_allowed)
        # Row 2, alone: rows 0 and 1 hold the seats' and the AI's buttons (at most 4 + 3).
        view.add_item(learn_button(t, lang, row=2))
        return view
    seat_view = table.public_view()
    if seat_view is None or not table.is_open:
        return view  # no buttons: the table is closed
    if table.status is TableStatus.OVER or seat_view.is_over:
        # Between hands people come and go; the count shows the next hand's seats.
        view.add_item(NLKButton(button_id(t, None, Seating.JOIN),
                                _("Join next hand ({seated}/{seats})").format(
                                    seated=len(table.next_seats), seats=table.max_seats),
                                discord.ButtonStyle.success, disabled=full))
        view.add_item(NLKButton(button_id(t, None, Seating.LEAVE), _("Leave")))
        view.add_item(NLKButton(button_id(t, None, Seating.NEXT), _("Next hand"),
                                discord.ButtonStyle.success))
        view.add_item(NLKButton(button_id(t, None, Seating.END), _("End table"),
                                discord.ButtonStyle.danger))
        add_log_buttons(view, t, lang)
        # The host may add or remove AI seats for the next hand, as in the lobby (row 1
        # also holds Fair deal).
        _add_ai_buttons(view, table, lang, ai_allowed)
        # The seats the AI kept for people who are away: the host may free them (at most
        # nine seats, so two rows of five are always enough).
        away = [s for i, s in enumerate(table.seats) if i in table.away
                and table.in_next_hand(s.user_id)]
        for i, seat in enumerate(away[:10]):
            view.add_item(NLKButton(button_id(t, None, Seating.REMOVE, str(seat.user_id)),
                                    _("Remove {name} (away)").format(
                                        name=label_name(seat.name, lang)), row=2 + i // 5))
        return view
    if seat_view.phase == Phase.COLLECT:
        if table.ai_to_act() is None:  # an AI's turn shows no buttons to press
            # Anyone sees these buttons: each says whose move it is, so "Give 8♣︎ to bob"
            # does not invite bob's tap (the actor's own ping has them unlabelled).
            actor = seat_view.players[seat_view.to_act] if seat_view.to_act is not None \
                else None
            for action in to_act_legal(table):
                view.add_item(collect_button(t, seat_view, action, lang, actor))
        view.add_item(NLKButton(button_id(t, None, Look.HAND), _("My stack")))
    else:
        view.add_item(NLKButton(button_id(t, None, Look.HAND), _("My hand"),
                                discord.ButtonStyle.primary))
    add_log_buttons(view, t, lang)
    if table.away:
        view.add_item(NLKButton(button_id(t, None, Seating.BACK), _("I'm back"),
                                discord.ButtonStyle.success))
    return view


def learn_button(t: int, lang: Lang = DEFAULT, row: int | None = None) -> NLKButton:
    """**New to NLK? Learn it (3 min)**: the lesson, privately, for whoever taps it (the
    lobby's, and under a first refusal where not everyone can run ``/nlk``)."""
    return NLKButton(button_id(t, None, Look.LEARN),
                     translator(lang).gettext("New to NLK? Learn it (3 min)"), row=row)


def _add_ai_buttons(view: discord.ui.View, table: Table, lang: Lang = DEFAULT,
                    ai_allowed: bool = True) -> None:
    """The host's AI seat buttons, on row 1 (the lobby's and between hands alike), marked
    "(host)" like **Start (host)**, as only the host may tap them (issue 45: "Add AI"
    refused others without saying so on the button): only
    those that can do something, never one that can only refuse (a full table adds no AI,
    a table without AI seats removes none, a server without AI players shows none)."""
    _ = translator(lang).gettext
    t = table.id
    if not ai_allowed:
        return
    if len(table.next_seats) < table.max_seats:
        view.add_item(NLKButton(button_id(t, None, Seating.ADD_AI, AILevel.HEURISTIC.upper()),
                                _("Add AI (host)"), row=1))
        view.add_item(NLKButton(button_id(t, None, Seating.ADD_AI, AILevel.STRONG.upper()),
                                _("Add strong AI (host)"), row=1))
    if any(s.ai for s in table.next_seats):
        view.add_item(NLKButton(button_id(t, None, Seating.REMOVE_AI), _("Remove AI (host)"),
                                row=1))


def to_act_legal(table: Table) -> tuple[Action, ...]:
    """The legal actions of the seat to act, from that seat's own view."""
    game_view = table.public_view()
    if game_view is None or game_view.to_act is None:
        return ()
    return table.seat_view(game_view.to_act).legal


def collect_button(t: int, view: SeatView, action: Action, lang: Lang = DEFAULT,
                   actor: str | None = None) -> NLKButton:
    """A collect-phase move's button; with ``actor``, labelled as that player's move."""
    _ = translator(lang).gettext
    v = view.version
    if action.act == Act.GIVE:
        assert action.card is not None and action.to is not None
        custom_id = button_id(t, v, Move.GIVE, f"{action.card}.{action.to}")
        label = _("Give {card} to {name}").format(card=card_text(action.card, lang),
                                                  name=label_name(view.players[action.to],
                                                                  lang))
        style = discord.ButtonStyle.success
    elif action.act == Act.DRAW:
        custom_id, label = button_id(t, v, Move.DRAW), _("Draw")
        style = discord.ButtonStyle.primary
    else:
        assert view.drawn is not None
        custom_id = button_id(t, v, Move.KEEP)
        label = _("Keep {card}").format(card=card_text(view.drawn, lang))
        style = discord.ButtonStyle.secondary
    if actor is not None:
        label = _("{name}: {move}").format(name=label_name(actor, lang), move=label)
    return NLKButton(custom_id, label, style)


def end_confirmation(t: int, lang: Lang = DEFAULT, asked: Moment | None = None
                     ) -> discord.ui.View:
    """The private question before **End table** ends the table; its yes carries where the
    table was when it was asked (``asked``), so it ends nothing once the table moved on."""
    _ = translator(lang).gettext
    view = Buttons()
    version = asked.version if asked is not None else None
    hand = str(asked.hand) if asked is not None else ""
    view.add_item(NLKButton(button_id(t, version, Seating.END_YES, hand), _("End the table"),
                            discord.ButtonStyle.danger))
    view.add_item(NLKButton(button_id(t, None, Seating.END_NO), _("Don't end it")))
    return view


def add_log_buttons(view: discord.ui.View, t: int, lang: Lang = DEFAULT) -> None:
    """**Moves** (the hand's whole public log) and **Fair deal** (the commitment), each
    answered privately, so anyone can catch up or check the deal."""
    _ = translator(lang).gettext
    view.add_item(NLKButton(button_id(t, None, Look.MOVES), _("Moves")))
    view.add_item(NLKButton(button_id(t, None, Look.FAIR), _("Fair deal")))
