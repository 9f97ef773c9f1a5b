"""A player's own stack or hand, sent only to them, with their shed-phase controls."""

from __future__ import annotations

from collections.abc import Hashable

import discord

from bot.tables.service import Table
from cogs.render.table import next_dealer_sentence
from cogs.render.text import COLOUR, MAX_PLAY_BUTTONS, card_text, hand_text, suit_mark
from cogs.widgets.buttons import Buttons, NLKButton, NLKSelect
from cogs.widgets.ids import Look, Move, button_id, select_id
from rules import Act, Phase, SeatView
from rules.cards import SUITS
from rules.i18n import DEFAULT, Lang, ordinal, translator


def hand_message(table: Table, user_id: int, note: str | None = None, lang: Lang = DEFAULT,
                 *, letters: Lang | None = None) -> tuple[discord.Embed, discord.ui.View]:
    """The player's stack or hand, and in phase two their controls, in their own language,
    their cards in its letters too (``letters``, if given, overrides them)."""
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
        stack = " ".join(card_text(c, lang, letters) for c in view.own) or _("*empty*")
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
            colour=COLOUR, description=hand_text(view.own, view.trump, lang, letters))
        embed.add_field(name=_("Now"), value=_hand_status(table, view, lang, letters), inline=False)
        if view.my_turn:
            _add_play_controls(buttons, t, view, lang, letters)
    if note:
        embed.add_field(name=_("Note"), value=note[:1024], inline=False)
    buttons.add_item(NLKButton(button_id(t, None, Look.HAND), _("Refresh"),
                               discord.ButtonStyle.secondary, row=4))
    if table.hints and view.my_turn and not view.is_over:  # the server allows hints
        buttons.add_item(NLKButton(button_id(t, view.version, Look.HINT), "💡 " + _("Hint"),
                                   discord.ButtonStyle.secondary, row=4))
    embed.set_footer(text=_("Table {table} · hand {number} · move {move} · only you can see "
                            "this").format(table=t, number=table.hand_number,
                                           move=view.version))
    return embed, buttons


def hand_shows(table: Table, user_id: int) -> Hashable | None:
    """What ``hand_message`` (without a note) would draw for ``user_id`` less its footer,
    and what the picture of that hand shows, as one value, without drawing it; None when
    it is not summed up here (the player's turn: its controls name the game's version; a
    hand that is over): draw it to know. In one language and one set of letters, two
    equal values draw the same message and picture, so an open hand that shows one is not
    drawn again for a move elsewhere at the table. It reads only what ``hand_message`` and
    the hand's picture read when it is not the player's turn."""
    view = table.view_of_user(user_id)
    if view is None or table.seat_of(user_id) is None:
        return ("absent",)
    if view.my_turn or view.is_over:
        return None
    if view.phase == Phase.COLLECT:
        return (view.phase, view.own)
    place = view.out.index(view.seat) if view.seat in view.out else None
    return (view.phase, view.own, view.trump, place)


def _hand_status(table: Table, view: SeatView, lang: Lang = DEFAULT,
                 letters: Lang | None = None) -> str:
    _ = translator(lang).gettext
    if view.is_over:
        assert view.loser is not None
        if view.loser == view.seat:
            if not table.is_open:
                return _("You lost this hand.")
            # The same three cases as the table message: a loser who left deals nothing.
            return next_dealer_sentence(
                table, view, lang=lang, loser=_("You lost this hand: you deal the next one."),
                other=_("You lost this hand and have left: **{dealer}** deals the next."),
                random=_("You lost this hand and have left: the next dealer will be drawn "
                         "at random."))
        assert view.seat is not None
        return _("You finished {place}.").format(
            place=ordinal(view.out.index(view.seat) + 1, lang))
    if view.seat in view.out:
        return _("You're out ({place}). Well played!").format(
            place=ordinal(view.out.index(view.seat) + 1, lang))
    if not view.my_turn:
        # Not who is to act: the table message and the turn ping say that. A hand that named
        # them would change with every move at the table, and every open hand be edited.
        return _("Not your turn yet.")
    if not view.trick:
        return _("**Your lead**: play any card.")
    top = card_text(view.trick[-1][1], lang, letters)
    bottom = card_text(view.trick[0][1], lang, letters)
    plays = [a for a in view.legal if a.act == Act.PLAY]
    if not plays:
        return _("**Your turn**: nothing beats {top}, so take {bottom}.").format(
            top=top, bottom=bottom)
    return _("**Your turn**: beat {top}, or take {bottom}.").format(top=top, bottom=bottom)


def _add_play_controls(buttons: discord.ui.View, t: int, view: SeatView,
                       lang: Lang = DEFAULT, letters: Lang | None = None) -> None:
    _ = translator(lang).gettext
    n_ = translator(lang).ngettext
    plays = [a.card for a in view.legal if a.act == Act.PLAY and a.card is not None]
    v = view.version
    trump = SUITS.index(view.trump) if view.trump else None
    if len(plays) <= MAX_PLAY_BUTTONS:
        for i, card in enumerate(sorted(plays, key=lambda c: (c.suit == trump, c))):
            style = discord.ButtonStyle.primary if card.suit == trump else \
                discord.ButtonStyle.secondary
            buttons.add_item(NLKButton(button_id(t, v, Move.PLAY, str(card)),
                                       card_text(card, lang, letters), style, row=i // 5))
    else:
        # Too many for buttons: one select per suit (a suit never has more than 13 cards).
        suits = sorted({c.suit for c in plays}, key=lambda s: (s == trump, s))
        for row, suit in enumerate(suits):
            cards = sorted(c for c in plays if c.suit == suit)
            options = [discord.SelectOption(label=card_text(c, lang, letters), value=str(c))
                       for c in cards]
            if suit == trump:
                placeholder = n_("Play {suit} (trump) — {count} card",
                                 "Play {suit} (trump) — {count} cards", len(cards))
            else:
                placeholder = n_("Play {suit} — {count} card", "Play {suit} — {count} cards",
                                 len(cards))
            buttons.add_item(NLKSelect(select_id(t, v, Move.PLAY, SUITS[suit]),
                                       placeholder.format(suit=suit_mark(suit),
                                                          count=len(cards)),
                                       options, row=row))
    if any(a.act == Act.TAKE for a in view.legal):
        bottom = view.trick[0][1]
        buttons.add_item(NLKButton(button_id(t, v, Move.TAKE),
                                   _("Take {card}").format(card=card_text(bottom, lang, letters)),
                                   discord.ButtonStyle.danger, row=4))
