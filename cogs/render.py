"""Embeds and button layouts, drawn from per-seat views only.

The table message is drawn from the public view (no hand in it, ever); a player's hand is
drawn from that player's own view and sent ephemerally.
"""

from __future__ import annotations

import datetime

import discord

from bot.tables import Table
from rules import Action, Card, Phase, SeatView, Variant, commitment
from rules.cards import SUIT_SYMBOLS, SUITS
from rules.engine import Event

from .components import Buttons, NLKButton, NLKSelect
from .ids import button_id, select_id

COLOUR = discord.Colour(0x2E7D32)
MOVES_SHOWN = 5
MAX_PLAY_BUTTONS = 20  # four rows of five; the fifth row holds Take and Refresh
NAME_LIMIT = 32
MARKS = {"forced": " (no choice)", "ai": " 🤖", "stand-in": " 🤖 (stand-in)"}


def safe_name(text: str) -> str:
    """A player's name made safe for an embed."""
    short = text if len(text) <= NAME_LIMIT else text[:NAME_LIMIT - 1] + "…"
    return discord.utils.escape_markdown(discord.utils.escape_mentions(short))


def label_name(text: str) -> str:
    """A name for a button label (no markdown there)."""
    return text if len(text) <= 24 else text[:23] + "…"


def ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def event_line(view: SeatView, event: Event) -> str:
    who = safe_name(view.players[event.seat])
    card = event.card.display
    if event.act == "give":
        assert event.to is not None
        return f"{who} gave {card} to {safe_name(view.players[event.to])}"
    return {"draw": f"{who} drew {card}", "keep": f"{who} kept {card}",
            "play": f"{who} played {card}", "take": f"{who} took {card}",
            "deal": f"{who} was dealt {card}"}[event.act]


def hand_text(cards: tuple[Card, ...], trump: str | None) -> str:
    """A hand by suit, trumps last: ``♠ 7 9 J · ♥ 8 Q``."""
    if not cards:
        return "*no cards*"
    trump_index = SUITS.index(trump) if trump else None
    suits = [s for s in range(4) if s != trump_index] + ([trump_index]
                                                         if trump_index is not None else [])
    parts = []
    for s in suits:
        ranks = [c.display[:-1] for c in sorted(cards) if c.suit == s]
        if ranks:
            mark = " (trump)" if s == trump_index else ""
            parts.append(f"{SUIT_SYMBOLS[s]}{mark} {' '.join(ranks)}")
    return "\n".join(parts)


# --- the table message ---------------------------------------------------------------------

def table_embed(table: Table) -> discord.Embed:
    if table.status == "lobby":
        return _lobby_embed(table)
    view = table.public_view()
    if view is None:
        return discord.Embed(title="NLK table", colour=COLOUR,
                             description="This table was cancelled before it started.")
    embed = _hand_embed(table, view)
    if table.status == "ended":
        if not view.is_over:
            embed.description = "**The table was ended before this hand finished.**"
        embed.set_footer(text=f"Table {table.id} · closed")
    return embed


def _lobby_embed(table: Table) -> discord.Embed:
    seats = "\n".join(f"{i}. {'🤖 ' if s.ai else ''}{safe_name(s.name)}"
                      f"{' (host)' if s.user_id == table.host_id else ''}"
                      for i, s in enumerate(table.lobby, 1)) or "*empty*"
    embed = discord.Embed(
        title="NLK table — waiting for players",
        colour=COLOUR,
        description=(f"Tap **Join** to take a seat ({len(table.lobby)}/{table.max_seats}). "
                     if len(table.lobby) < table.max_seats else
                     f"Every seat is taken ({table.max_seats}/{table.max_seats}). ") +
                    "The host taps **Start** when everyone is in (two or more players).",
    )
    embed.add_field(name="Seats", value=seats, inline=False)
    embed.set_footer(text=f"Table {table.id} · {table.variant.describe()} · "
                          f"{timer_line(table.turn_seconds)}")
    return embed


def timer_line(seconds: int) -> str:
    return f"{seconds} s per turn" if seconds > 0 else "no turn timer"


def _hand_embed(table: Table, view: SeatView) -> discord.Embed:
    title = f"NLK · hand {table.hand_number}"
    if view.phase == Phase.COLLECT:
        title += " · collect"
    elif view.phase == Phase.SHED:
        title += f" · shed · trump {SUIT_SYMBOLS[SUITS.index(view.trump or 'S')]}"
    else:
        title += " · over"
    status = _status(view)
    if table.ai_to_act() and not view.is_over:
        status += "\n*The AI is thinking…*"
    embed = discord.Embed(title=title, colour=COLOUR, description=status)
    embed.add_field(name="Players", value=_seat_lines(table, view), inline=False)
    if view.phase == Phase.SHED and view.trick:
        trick = " → ".join(f"{card.display} ({safe_name(view.players[s])})"
                           for s, card in view.trick)
        embed.add_field(name=f"Trick {len(view.trick)}/{view.trick_size}", value=trick,
                        inline=False)
    if view.out:
        order = list(view.out) + ([view.loser] if view.loser is not None else [])
        lines = [f"{i}. {safe_name(view.players[s])}" + (" — **loses**" if s == view.loser else "")
                 for i, s in enumerate(order, 1)]
        embed.add_field(name="Finishing order", value="\n".join(lines), inline=False)
    moves = [(i, e) for i, e in enumerate(view.history) if e.act != "deal"][-MOVES_SHOWN:]
    if moves and not view.is_over:
        embed.add_field(name="Last moves", value="\n".join(
            event_line(view, e) + MARKS.get(table.marks.get(i, ""), "") for i, e in moves),
            inline=False)
    if table.seed is not None:
        digest = commitment(table.seed)
        if view.is_over:
            fair = (f"Seed `{table.seed}` — check it: `python -m rules verify {table.seed} "
                    f"{digest} --players {view.n}`")
        else:
            fair = f"Commitment (SHA-256 of the seed, revealed at the end): `{digest}`"
        embed.add_field(name="Fair deal", value=fair, inline=False)
    if table.stand_in:
        embed.add_field(name="Unrated", value="A stand-in played a turn in this hand, so it "
                        "doesn't count towards ratings.", inline=False)
    dealer = safe_name(view.players[view.dealer]) if view.dealer is not None else "—"
    embed.set_footer(text=f"Table {table.id} · move {view.version} · dealer {dealer} · "
                          f"{view.variant.describe()} · {timer_line(table.turn_seconds)}")
    return embed


def _status(view: SeatView) -> str:
    if view.is_over:
        assert view.loser is not None
        return (f"**{safe_name(view.players[view.loser])} loses this hand** and deals the next. "
                "Tap **Next hand** to play again.")
    assert view.to_act is not None
    who = f"**{safe_name(view.players[view.to_act])}**"
    if view.phase == Phase.COLLECT:
        talon = f"Talon: **{view.talon}** card{'s' if view.talon != 1 else ''}"
        if view.drawn is not None:
            return (f"▶ {who} drew **{view.drawn.display}**: give it where it fits, or keep "
                    f"it.\n{talon}")
        if view.has_drawn:
            return f"▶ {who} gave the drawn card away and draws again.\n{talon}"
        return f"▶ {who}'s turn: give the top card where it fits, then draw.\n{talon}"
    if view.trick:
        top = view.trick[-1][1]
        return f"▶ {who} to beat **{top.display}** or take."
    return f"▶ {who} leads."


def _seat_lines(table: Table, view: SeatView) -> str:
    lines = []
    for seat, player in enumerate(view.players):
        robot = "🤖 " if table.seats[seat].ai else ""
        away = " · away (AI playing)" if seat in table.away else ""
        marker = "▶ " if seat == view.to_act else ""
        count = view.counts[seat]
        if view.phase == Phase.COLLECT:
            top = view.tops[seat]
            shown = f"**{top.display}**" if top is not None else "*empty*"
            detail = f"{shown} ({count})"
        elif seat in view.out:
            detail = f"out ({ordinal(view.out.index(seat) + 1)})"
        elif seat == view.loser:
            detail = f"loser ({count} card{'s' if count != 1 else ''})"
        else:
            detail = f"{count} card{'s' if count != 1 else ''}"
        dealer = " · dealer" if seat == view.dealer else ""
        lines.append(f"{marker}{robot}{safe_name(player)} — {detail}{dealer}{away}")
    return "\n".join(lines)


def table_view(table: Table) -> discord.ui.View:
    """The table message's buttons: lobby controls, the current collect turn, or My hand."""
    view = Buttons()
    t = table.id
    full = len(table.lobby) >= table.max_seats
    if table.status == "lobby":
        view.add_item(NLKButton(button_id(t, None, "join"), "Join", discord.ButtonStyle.success,
                                disabled=full))
        view.add_item(NLKButton(button_id(t, None, "leave"), "Leave"))
        view.add_item(NLKButton(button_id(t, None, "start"), "Start (host)",
                                discord.ButtonStyle.primary))
        view.add_item(NLKButton(button_id(t, None, "cancel"), "Cancel (host)",
                                discord.ButtonStyle.danger))
        view.add_item(NLKButton(button_id(t, None, "addai", "HEURISTIC"), "Add AI", row=1))
        view.add_item(NLKButton(button_id(t, None, "addai", "STRONG"), "Add strong AI", row=1))
        view.add_item(NLKButton(button_id(t, None, "removeai"), "Remove AI", row=1))
        return view
    seat_view = table.public_view()
    if seat_view is None or not table.is_open:
        return view  # no buttons: the table is closed
    if table.status == "over" or seat_view.is_over:
        # Between hands people come and go; the count shows the next hand's seats.
        view.add_item(NLKButton(button_id(t, None, "join"),
                                f"Join next hand ({len(table.lobby)}/{table.max_seats})",
                                discord.ButtonStyle.success, disabled=full))
        view.add_item(NLKButton(button_id(t, None, "leave"), "Leave"))
        view.add_item(NLKButton(button_id(t, None, "next"), "Next hand",
                                discord.ButtonStyle.success))
        view.add_item(NLKButton(button_id(t, None, "end"), "End table",
                                discord.ButtonStyle.danger))
        # The seats the AI kept for people who are away: the host may free them (at most
        # nine seats, so two rows of five are always enough).
        away = [s for i, s in enumerate(table.seats) if i in table.away
                and table.in_lobby(s.user_id)]
        for i, seat in enumerate(away[:10]):
            view.add_item(NLKButton(button_id(t, None, "remove", str(seat.user_id)),
                                    f"Remove {label_name(seat.name)} (away)", row=1 + i // 5))
        return view
    if seat_view.phase == Phase.COLLECT:
        if table.ai_to_act() is None:  # an AI's turn shows no buttons to press
            for action in _to_act_legal(table):
                view.add_item(_collect_button(t, seat_view, action))
        view.add_item(NLKButton(button_id(t, None, "hand"), "My stack"))
    else:
        view.add_item(NLKButton(button_id(t, None, "hand"), "My hand",
                                discord.ButtonStyle.primary))
    if table.away:
        view.add_item(NLKButton(button_id(t, None, "back"), "I'm back",
                                discord.ButtonStyle.success))
    return view


def _to_act_legal(table: Table) -> tuple[Action, ...]:
    """The legal actions of the seat to act, from that seat's own view."""
    game_view = table.public_view()
    if game_view is None or game_view.to_act is None:
        return ()
    return table.seat_view(game_view.to_act).legal


def _collect_button(t: int, view: SeatView, action: Action) -> NLKButton:
    v = view.version
    if action.act == "give":
        assert action.card is not None and action.to is not None
        return NLKButton(button_id(t, v, "give", f"{action.card}.{action.to}"),
                         f"Give {action.card.display} to {label_name(view.players[action.to])}",
                         discord.ButtonStyle.success)
    if action.act == "draw":
        return NLKButton(button_id(t, v, "draw"), "Draw", discord.ButtonStyle.primary)
    assert view.drawn is not None
    return NLKButton(button_id(t, v, "keep"), f"Keep {view.drawn.display}",
                     discord.ButtonStyle.secondary)


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
                 reminder: bool = False) -> tuple[str, discord.ui.View]:
    """The newest message on a person's turn: it mentions only them and carries their
    turn's controls (phase one) or their hand one tap away (phase two)."""
    view = table.public_view()
    buttons = Buttons()
    if view is None or table.user_to_act() != user_id:
        return "Done.", buttons
    deadline = deadline or table.deadline()
    clock = f" Time runs out {countdown(deadline)}." if deadline else ""
    if view.phase == Phase.COLLECT:
        what = "your move (the buttons below, or on the table message)"
        for action in _to_act_legal(table):
            buttons.add_item(_collect_button(table.id, view, action))
    else:
        what = "tap **My hand** to play"
        buttons.add_item(NLKButton(button_id(table.id, None, "hand"), "My hand",
                                   discord.ButtonStyle.primary))
    if reminder:
        clock = f" Time runs out {countdown(deadline or 0)}, then a stand-in plays it for you."
    return (f"{'⏰ ' if reminder else ''}<@{user_id}> your turn at NLK table {table.id}: "
            f"{what}.{clock} [Table]({jump_url(table)})"), buttons


# --- a player's own cards (ephemeral) ------------------------------------------------------

def hand_message(table: Table, user_id: int, note: str | None = None
                 ) -> tuple[discord.Embed, discord.ui.View]:
    """The player's stack or hand, and in phase two their controls."""
    view = table.view_of_user(user_id)
    seat = table.seat_of(user_id)
    buttons = Buttons()
    if view is None or seat is None:
        embed = discord.Embed(title="Your cards", colour=COLOUR,
                              description="You're not playing at this table.")
        return embed, buttons
    t = table.id
    if view.phase == Phase.COLLECT:
        stack = " ".join(c.display for c in view.own) or "*empty*"
        embed = discord.Embed(
            title=f"Your stack — {len(view.own)} card{'s' if len(view.own) != 1 else ''}",
            colour=COLOUR,
            description=f"Bottom → top: {stack}\n\nEveryone sees stack tops; this is the "
                        "whole pile. In the shed phase it becomes your hidden hand.")
    else:
        embed = discord.Embed(
            title=f"Your hand — {len(view.own)} card{'s' if len(view.own) != 1 else ''}",
            colour=COLOUR, description=hand_text(view.own, view.trump))
        embed.add_field(name="Now", value=_hand_status(view), inline=False)
        if view.my_turn:
            _add_play_controls(buttons, t, view)
    if note:
        embed.add_field(name="Note", value=note[:1024], inline=False)
    buttons.add_item(NLKButton(button_id(t, None, "hand"), "Refresh",
                               discord.ButtonStyle.secondary, row=4))
    embed.set_footer(text=f"Table {t} · hand {table.hand_number} · move {view.version} · "
                          "only you can see this")
    return embed, buttons


def _hand_status(view: SeatView) -> str:
    if view.is_over:
        assert view.loser is not None
        if view.loser == view.seat:
            return "You lost this hand: you deal the next one."
        assert view.seat is not None
        return f"You finished {ordinal(view.out.index(view.seat) + 1)}."
    assert view.to_act is not None
    waiting = f"Waiting for **{safe_name(view.players[view.to_act])}**."
    if view.seat in view.out:
        return f"You're out ({ordinal(view.out.index(view.seat) + 1)}). Well played! {waiting}"
    if not view.my_turn:
        return waiting
    if not view.trick:
        return "**Your lead**: play any card."
    top = view.trick[-1][1]
    bottom = view.trick[0][1]
    plays = [a for a in view.legal if a.act == "play"]
    if not plays:
        return f"**Your turn**: nothing beats {top.display}, so take {bottom.display}."
    return f"**Your turn**: beat {top.display}, or take {bottom.display}."


def _add_play_controls(buttons: discord.ui.View, t: int, view: SeatView) -> None:
    plays = [a.card for a in view.legal if a.act == "play" and a.card is not None]
    v = view.version
    trump = SUITS.index(view.trump) if view.trump else None
    if len(plays) <= MAX_PLAY_BUTTONS:
        for i, card in enumerate(sorted(plays, key=lambda c: (c.suit == trump, c))):
            style = discord.ButtonStyle.primary if card.suit == trump else \
                discord.ButtonStyle.secondary
            buttons.add_item(NLKButton(button_id(t, v, "play", str(card)), card.display, style,
                                       row=i // 5))
    else:
        # Too many for buttons: one select per suit (a suit never has more than 13 cards).
        suits = sorted({c.suit for c in plays}, key=lambda s: (s == trump, s))
        for row, suit in enumerate(suits):
            cards = sorted(c for c in plays if c.suit == suit)
            options = [discord.SelectOption(label=c.display, value=str(c)) for c in cards]
            trump_note = " (trump)" if suit == trump else ""
            buttons.add_item(NLKSelect(select_id(t, v, "play", SUITS[suit]),
                                       f"Play {SUIT_SYMBOLS[suit]}{trump_note} — "
                                       f"{len(cards)} card{'s' if len(cards) != 1 else ''}",
                                       options, row=row))
    if any(a.act == "take" for a in view.legal):
        bottom = view.trick[0][1]
        buttons.add_item(NLKButton(button_id(t, v, "take"), f"Take {bottom.display}",
                                   discord.ButtonStyle.danger, row=4))


def rules_text(variant: Variant) -> str:
    """A short summary of the rules at a table."""
    last = ("The drawer must keep the last talon card." if variant.last_card == "keep"
            else "The last talon card may be given away like any drawn card.")
    beat = ("While the top card is not a trump, you may not trump if you can beat in suit."
            if variant.must_beat_in_suit
            else "You may trump even when you could beat in suit.")
    return (
        "**NLK** — 2 to 9 players; the pack has the n+4 highest ranks of each suit.\n\n"
        "**Collect.** On your turn you may give your stack's top card to another stack where "
        "it fits (exactly one rank higher; the lowest rank fits on an Ace), then you must "
        "draw. Give the drawn card where it fits and draw again, or keep it to end your turn. "
        f"{last} Its suit is trump, and its drawer leads.\n\n"
        "**Shed.** Stacks become hidden hands. Lead any card; then each player beats the top "
        "card (higher in suit, or a trump) or takes the bottom card of the trick. A trick is "
        "full when it holds as many cards as players were in when it was led; whoever "
        f"completed it leads. {beat} Play your last card and you're out.\n\n"
        "The last player holding cards **loses** and deals the next hand."
    )
