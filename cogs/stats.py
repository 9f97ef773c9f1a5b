"""The server's leaderboard and one player's numbers, drawn from rated hands only."""

from __future__ import annotations

import discord

from bot.ratings import PROVISIONAL_HANDS, Rating
from bot.repository import Repository

from .components import Buttons, NLKButton
from .ids import button_id
from .render import COLOUR, name

PAGE_SIZE = 10


def _rate(losses: int, hands: int) -> str:
    return f"{100 * losses / hands:.1f}%" if hands else "—"


async def leaderboard(repo: Repository, guild_id: int, page: int
                      ) -> tuple[discord.Embed, discord.ui.View]:
    """One page of the leaderboard, with buttons to turn pages."""
    total = await repo.rated_players(guild_id)
    pages = max(1, -(-total // PAGE_SIZE))
    page = min(max(page, 0), pages - 1)
    rows = await repo.leaderboard(guild_id, PAGE_SIZE, page * PAGE_SIZE)
    lines = []
    for i, row in enumerate(rows, page * PAGE_SIZE + 1):
        rating = Rating(row["mu"], row["sigma"])
        chance = _rate(row["chance_losses"] or 0, row["hands"])
        provisional = " *(provisional)*" if row["hands"] < PROVISIONAL_HANDS else ""
        lines.append(f"**{i}. {name(row['name'])}** — {rating.display()}{provisional}\n"
                     f"  {row['hands']} hands · {row['losses']} lost "
                     f"({_rate(row['losses'], row['hands'])}; by chance {chance})")
    embed = discord.Embed(
        title="NLK leaderboard", colour=COLOUR,
        description="\n".join(lines) or "No rated hands yet. Hands with AI seats or a "
        "stand-in don't count.")
    embed.set_footer(text=f"Page {page + 1}/{pages} · rating μ ± 2σ (Plackett–Luce over the "
                          f"finishing order) · provisional under {PROVISIONAL_HANDS} hands")
    view = Buttons()
    if pages > 1:
        view.add_item(NLKButton(button_id(0, None, "stats", str(max(page - 1, 0))), "◀ Previous"))
        view.add_item(NLKButton(button_id(0, None, "stats", str(min(page + 1, pages - 1))),
                                "Next ▶"))
    return embed, view


async def player(repo: Repository, guild_id: int, user_id: int, display: str
                 ) -> discord.Embed:
    """One player's rating and results by table size."""
    row = await repo.rating(guild_id, user_id)
    embed = discord.Embed(title=f"NLK — {name(display)}", colour=COLOUR)
    if row is None:
        embed.description = "No rated hands yet on this server."
        return embed
    rating = Rating(row["mu"], row["sigma"])
    provisional = " (provisional)" if row["hands"] < PROVISIONAL_HANDS else ""
    embed.description = (f"Rating **{rating.display()}**{provisional} · {row['hands']} hands · "
                         f"{row['losses']} lost ({_rate(row['losses'], row['hands'])})")
    for size in await repo.results_by_size(guild_id, user_id):
        embed.add_field(
            name=f"{size['players']} players",
            value=f"{size['hands']} hands · {size['losses']} lost "
                  f"({_rate(size['losses'], size['hands'])}; by chance "
                  f"{100 / size['players']:.1f}%)",
            inline=True)
    return embed
