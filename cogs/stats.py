"""The server's leaderboard and one player's numbers, drawn from rated hands only."""

from __future__ import annotations

import discord

from bot.guilds import LeaderboardPage
from bot.ratings import PROVISIONAL_HANDS, Rating
from bot.records import RatingRecord, SizeRecord

from .components import Buttons, NLKButton
from .ids import button_id
from .render import COLOUR, safe_name


def _rate(losses: float, hands: int) -> str:
    return f"{100 * losses / hands:.1f}%" if hands else "—"


def leaderboard(board: LeaderboardPage) -> tuple[discord.Embed, discord.ui.View]:
    """One page of the leaderboard, with buttons to turn pages."""
    lines = []
    for i, row in enumerate(board.rows, board.first_place):
        rating = Rating(row.mu, row.sigma)
        provisional = " *(provisional)*" if row.hands < PROVISIONAL_HANDS else ""
        lines.append(f"**{i}. {safe_name(row.name)}** — {rating.display()}{provisional}\n"
                     f"  {row.hands} hands · {row.losses} lost "
                     f"({_rate(row.losses, row.hands)}; by chance "
                     f"{_rate(row.chance_losses, row.hands)})")
    embed = discord.Embed(
        title="NLK leaderboard", colour=COLOUR,
        description="\n".join(lines) or "No rated hands yet. Hands with AI seats or a "
        "stand-in don't count.")
    embed.set_footer(text=f"Page {board.page + 1}/{board.pages} · rating μ ± 2σ "
                          "(Plackett–Luce over the finishing order) · provisional under "
                          f"{PROVISIONAL_HANDS} hands")
    view = Buttons()
    if board.pages > 1:
        page, pages = board.page, board.pages
        view.add_item(NLKButton(button_id(0, None, "stats", str(max(page - 1, 0))), "◀ Previous"))
        view.add_item(NLKButton(button_id(0, None, "stats", str(min(page + 1, pages - 1))),
                                "Next ▶"))
    return embed, view


def player(display: str, rating: RatingRecord | None, sizes: list[SizeRecord]
           ) -> discord.Embed:
    """One player's rating and results by table size."""
    embed = discord.Embed(title=f"NLK — {safe_name(display)}", colour=COLOUR)
    if rating is None:
        embed.description = "No rated hands yet on this server."
        return embed
    shown = Rating(rating.mu, rating.sigma)
    provisional = " (provisional)" if rating.hands < PROVISIONAL_HANDS else ""
    embed.description = (f"Rating **{shown.display()}**{provisional} · {rating.hands} hands · "
                         f"{rating.losses} lost ({_rate(rating.losses, rating.hands)})")
    for size in sizes:
        embed.add_field(
            name=f"{size.players} players",
            value=f"{size.hands} hands · {size.losses} lost "
                  f"({_rate(size.losses, size.hands)}; by chance "
                  f"{100 / size.players:.1f}%)",
            inline=True)
    return embed
