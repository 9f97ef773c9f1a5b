"""The turn ping: the newest message on a person's turn, with their controls."""

from __future__ import annotations

import discord

from bot.tables.service import Table
from cogs.render.table import collect_button, to_act_legal
from cogs.render.text import countdown, jump_url
from cogs.widgets.buttons import Buttons, NLKButton
from cogs.widgets.ids import Look, button_id
from rules import Phase
from rules.i18n import DEFAULT, Lang, translator


def ping_message(table: Table, user_id: int, *, deadline: float | None = None,
                 reminder: bool = False, lang: Lang = DEFAULT,
                 waits: bool = False) -> tuple[str, discord.ui.View]:
    """The newest message on a person's turn: it mentions only them and carries their
    turn's controls (phase one) or their hand one tap away (phase two). It is public, so
    it speaks the server's language."""
    _ = translator(lang).gettext
    view = table.public_view()
    buttons = Buttons()
    if view is None or table.user_to_act() != user_id:
        return _("Your turn is over."), buttons
    deadline = deadline or table.deadline()
    clock = " " + _("Time runs out {countdown}.").format(countdown=countdown(deadline)) \
        if deadline else ""
    if view.phase == Phase.COLLECT:
        what = _("your move (the buttons below, or on the table message)")
        for action in to_act_legal(table):
            buttons.add_item(collect_button(table.id, view, action, lang))
    else:
        what = _("tap **My hand** to play")
        buttons.add_item(NLKButton(button_id(table.id, None, Look.HAND), _("My hand"),
                                   discord.ButtonStyle.primary))
    if reminder:
        clock = " " + _("Time runs out {countdown}, then a stand-in plays it for you.").format(
            countdown=countdown(deadline or 0))
    if waits and deadline:
        # A group DM: the bot can act there only when someone taps, and no tap it holds
        # will still be fresh when the time runs out.
        clock = " " + _("Time runs out {countdown}. If nobody taps here before then, your "
                        "turn waits for you, and starts afresh at the next tap (in a group "
                        "DM the bot can act only when someone taps).").format(
                            countdown=countdown(deadline))
    text = _("{mention} your turn at NLK table {table}: {what}.").format(
        mention=f"<@{user_id}>", table=table.id, what=what)
    link = _("Table")
    return (f"{'⏰ ' if reminder else ''}{text}{clock} [{link}]({jump_url(table)})"), buttons
