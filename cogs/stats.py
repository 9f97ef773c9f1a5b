"""The server's leaderboard and one player's numbers, drawn from rated hands only."""

from __future__ import annotations

import discord

from bot.guilds import LeaderboardPage
from bot.ratings import PROVISIONAL_HANDS, Rating
from bot.records import RatingRecord, SizeRecord
from rules.i18n import DEFAULT, Lang, translator

from .components import Buttons, NLKButton
from .ids import Page, button_id
from .render import COLOUR, safe_name


def _rate(losses: float, hands: int) -> str:
    return f"{100 * losses / hands:.1f}%" if hands else "—"


def leaderboard(board: LeaderboardPage, lang: Lang = DEFAULT
                ) -> tuple[discord.Embed, discord.ui.View]:
    """One page of the leaderboard, with buttons to turn pages, in the reader's language."""
    _ = translator(lang).gettext
    n_ = translator(lang).ngettext
    lines = []
    for i, row in enumerate(board.rows, board.first_place):
        rating = Rating(row.mu, row.sigma)
        provisional = " *" + _("(provisional)") + "*" if row.hands < PROVISIONAL_HANDS else ""
        numbers = n_("{hands} hand · {losses} lost ({rate}; by chance {chance})",
                     "{hands} hands · {losses} lost ({rate}; by chance {chance})",
                     row.hands).format(hands=row.hands, losses=row.losses,
                                       rate=_rate(row.losses, row.hands),
                                       chance=_rate(row.chance_losses, row.hands))
        lines.append(f"**{i}. {safe_name(row.name)}** — {rating.display()}{provisional}\n"
                     f"  {numbers}")
    embed = discord.Embed(
        title=_("NLK leaderboard"), colour=COLOUR,
        description="\n".join(lines) or _("No rated hands yet. Hands with AI seats or a "
                                          "stand-in don't count."))
    embed.set_footer(text=n_(
        "Page {page}/{pages} · rating μ ± 2σ (Plackett–Luce over the finishing order) · "
        "provisional under {count} hand",
        "Page {page}/{pages} · rating μ ± 2σ (Plackett–Luce over the finishing order) · "
        "provisional under {count} hands", PROVISIONAL_HANDS).format(
            page=board.page + 1, pages=board.pages, count=PROVISIONAL_HANDS))
    view = Buttons()
    if board.pages > 1:
        page, pages = board.page, board.pages
        view.add_item(NLKButton(button_id(0, None, Page.STATS, str(max(page - 1, 0))),
                                _("◀ Previous")))
        view.add_item(NLKButton(button_id(0, None, Page.STATS, str(min(page + 1, pages - 1))),
                                _("Next ▶")))
    return embed, view


def player(display: str, rating: RatingRecord | None, sizes: list[SizeRecord],
           lang: Lang = DEFAULT) -> discord.Embed:
    """One player's rating and results by table size, in the reader's language."""
    _ = translator(lang).gettext
    n_ = translator(lang).ngettext
    embed = discord.Embed(title=_("NLK — {name}").format(name=safe_name(display)),
                          colour=COLOUR)
    if rating is None:
        embed.description = _("No rated hands yet on this server.")
        return embed
    shown = Rating(rating.mu, rating.sigma)
    provisional = " " + _("(provisional)") if rating.hands < PROVISIONAL_HANDS else ""
    embed.description = n_(
        "Rating **{rating}**{provisional} · {hands} hand · {losses} lost ({rate})",
        "Rating **{rating}**{provisional} · {hands} hands · {losses} lost ({rate})",
        rating.hands).format(rating=shown.display(), provisional=provisional,
                             hands=rating.hands, losses=rating.losses,
                             rate=_rate(rating.losses, rating.hands))
    for size in sizes:
        embed.add_field(
            name=n_("{count} player", "{count} players", size.players).format(
                count=size.players),
            value=n_("{hands} hand · {losses} lost ({rate}; by chance {chance})",
                     "{hands} hands · {losses} lost ({rate}; by chance {chance})",
                     size.hands).format(hands=size.hands, losses=size.losses,
                                        rate=_rate(size.losses, size.hands),
                                        chance=f"{100 / size.players:.1f}%"),
            inline=True)
    return embed
