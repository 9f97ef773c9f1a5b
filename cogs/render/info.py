"""What anyone may look up privately: the moves log, the fair deal, the rules."""

from __future__ import annotations

import discord

from bot.db.records import TableStatus
from bot.tables.service import Table
from cogs.render.history import log_lines, log_pages
from cogs.render.text import COLOUR, FINGERPRINT
from cogs.widgets.buttons import Buttons, NLKButton
from cogs.widgets.ids import Look, button_id
from rules import Variant, commitment
from rules.i18n import DEFAULT, Lang, translator


def moves_message(table: Table, page: int | None = None, lang: Lang = DEFAULT, *,
                  letters: Lang | None = None) -> tuple[discord.Embed, discord.ui.View]:
    """One page of the hand's moves (None: the latest page), with buttons to turn pages,
    in the reader's words and card letters (``letters``, if given, overrides them)."""
    _ = translator(lang).gettext
    view = table.public_view()
    assert view is not None
    pages = log_pages(log_lines(table, view, lang, letters))
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
        buttons.add_item(NLKButton(button_id(t, None, Look.MOVES, str(shown - 1)), _("◀ Earlier")))
    if shown < last:
        buttons.add_item(NLKButton(button_id(t, None, Look.MOVES, str(shown + 1)), _("Later ▶")))
    if last > 0:  # one page is all there is: turning to the latest would show it again
        buttons.add_item(NLKButton(button_id(t, None, Look.MOVES), _("Latest")))
    return embed, buttons


def seed_revealed(table: Table) -> bool:
    """A hand's seed is shown once the hand is over, or once the table was ended: before
    that it would tell everyone every hidden hand."""
    view = table.public_view()
    return table.seed is not None and view is not None and (
        view.is_over or table.status is TableStatus.ENDED)


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


def fair_button(t: int, lang: Lang = DEFAULT) -> discord.ui.View:
    """**Fair deal** alone, under the announcement that ends a table mid-hand: its line says
    what the revealed seed proves, and the button shows, privately, the command that checks
    it (the closed table message has no buttons)."""
    view = Buttons()
    view.add_item(NLKButton(button_id(t, None, Look.FAIR), translator(lang).gettext("Fair deal")))
    return view


def rules_text(variant: Variant, lang: Lang = DEFAULT) -> str:
    """A short summary of the rules at a table, in ``lang``."""
    _ = translator(lang).gettext
    last = (_("The drawer must keep the last talon card.") if variant.last_card == "keep"
            else _("The last talon card may be given away like any drawn card."))
    beat = (_("While the top card is not a trump, you may not trump if you can beat in suit.")
            if variant.must_beat_in_suit
            else _("You may trump even when you could beat in suit."))
    return "\n\n".join((
        _("**NLK** — 2 to 9 players; with n players, the pack has the n+4 highest ranks of each "
          "suit."),
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
