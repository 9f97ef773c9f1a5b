"""The server's leaderboard, one table size at a time, and one player's numbers at each size,
drawn from rated hands only and written in the reader's language and number format."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import discord

from bot.db.records import SizeRecord
from bot.guilds.ratings import PROVISIONAL_HANDS, TREND_HANDS, Rating
from bot.guilds.service import LeaderboardPage, PlayerStats
from cogs.i18n.translator import list_of
from cogs.render import COLOUR, safe_name
from cogs.widgets.buttons import Buttons, NLKButton
from cogs.widgets.ids import Page, button_id
from rules.i18n import DEFAULT, N_, Lang, number, percent, translator

# What counts, said wherever stats are shown (issue 45: two finished hands left the stats
# empty, and nothing said why).
RATED = N_("Rated: every finished hand at a table of people only. A hand with an AI seat, or "
           "where the AI kept an away player's seat, is not; a stand-in playing a turn or two "
           "for a late player doesn't change that. Practice and the lesson are never rated.")


def rate(losses: float, hands: int, lang: Lang) -> str:
    """Losses per hand as a percentage in ``lang``'s form; a dash before any hand."""
    return percent(losses / hands, lang) if hands else "—"


def stats_id(players: int, page: int) -> str:
    """The custom id of a leaderboard button: a table size and a page."""
    return button_id(0, None, Page.STATS, f"{players}.{page}")


def parse_stats_arg(arg: str) -> tuple[int | None, int] | None:
    """``(players, page)`` from a leaderboard button (``4.0``; an older ``0`` is a page of
    the most played size); None if it is neither."""
    size, _dot, page = arg.rpartition(".")
    if not page.isdigit() or (size and not size.isdigit()):
        return None
    return (int(size) if size else None), int(page)


def _numbers(hands: int, losses: int, players: int, lang: Lang) -> str:
    n_ = translator(lang).ngettext
    return n_("{hands} hand · {losses} lost ({rate}; expected by luck alone: {chance})",
              "{hands} hands · {losses} lost ({rate}; expected by luck alone: {chance})",
              hands).format(hands=number(hands, lang), losses=number(losses, lang),
                            rate=rate(losses, hands, lang),
                            chance=percent(1 / players, lang) if players else "—")


def leaderboard(board: LeaderboardPage, lang: Lang = DEFAULT
                ) -> tuple[discord.Embed, discord.ui.View]:
    """One page of one table size's leaderboard, with buttons for the other sizes and to
    turn pages, in the reader's language; a size asked for that nobody has played (rated)
    yet is said, with a button for each size that has a board, never another size's board
    under its name."""
    _ = translator(lang).gettext
    n_ = translator(lang).ngettext
    if board.asked and board.sizes:
        return unplayed_size(board.asked, board.sizes, lang)
    lines = []
    for i, row in enumerate(board.rows, board.first_place):
        provisional = " *" + _("(provisional)") + "*" if row.hands < PROVISIONAL_HANDS else ""
        shown = _("rating {rating}").format(
            rating=number(Rating(row.mu, row.sigma).shown, lang, 1))
        lines.append(f"**{i}. {safe_name(row.name)}** — {shown}{provisional}\n"
                     f"  {_numbers(row.hands, row.losses, board.players, lang)}")
    title = _("NLK leaderboard")
    if board.players:
        title = n_("NLK leaderboard · tables of {count} player",
                   "NLK leaderboard · tables of {count} players",
                   board.players).format(count=board.players)
    said = "\n".join(lines) or _("No rated hands yet.")
    embed = discord.Embed(title=title, colour=COLOUR,
                          description=f"{said}\n\n*{_(RATED)}*")
    if board.rows:  # an empty board has no pages to count, and no ratings to explain
        embed.set_footer(text=n_(
            "Page {page}/{pages} · the rating rises as you finish ahead of others, cautiously "
            "while it is new · provisional under {count} hand",
            "Page {page}/{pages} · the rating rises as you finish ahead of others, cautiously "
            "while it is new · provisional under {count} hands", PROVISIONAL_HANDS).format(
                page=board.page + 1, pages=board.pages, count=PROVISIONAL_HANDS))
    view = Buttons()
    if board.pages > 1:
        page, pages = board.page, board.pages
        view.add_item(NLKButton(stats_id(board.players, max(page - 1, 0)), _("◀ Previous")))
        view.add_item(NLKButton(stats_id(board.players, min(page + 1, pages - 1)),
                                _("Next ▶")))
    others = [players for players in board.sizes if players != board.players]
    for i, players in enumerate(others):  # at most seven: two rows under the page buttons
        view.add_item(NLKButton(stats_id(players, 0), n_(
            "{count} player", "{count} players", players).format(count=players),
            row=1 + i // 5))
    return embed, view


def unplayed_size(asked: int, sizes: Mapping[int, int], lang: Lang = DEFAULT,
                  button: Callable[[int], str] | None = None
                  ) -> tuple[discord.Embed, discord.ui.View]:
    """The answer for a table size with no rated hand yet (issue 37: the most played size's
    board was shown under it): it says so, and offers the sizes that have a board, a button
    each (``button``: a size's custom id; the all-time board's by default)."""
    _ = translator(lang).gettext
    n_ = translator(lang).ngettext
    played = sorted(sizes)
    embed = discord.Embed(
        title=n_("NLK leaderboard · tables of {count} player",
                 "NLK leaderboard · tables of {count} players", asked).format(count=asked),
        colour=COLOUR,
        description=n_("Nobody has played a rated hand at a table of {count} player yet.",
                       "Nobody has played a rated hand at a table of {count} players yet.",
                       asked).format(count=asked) + " " + _(
            "These table sizes have a leaderboard: {sizes} players. Tap one below.").format(
                sizes=list_of([str(n) for n in played], lang)))
    view = Buttons()
    for i, players in enumerate(played):  # at most eight: two rows
        view.add_item(NLKButton((button or (lambda n: stats_id(n, 0)))(players), n_(
            "{count} player", "{count} players", players).format(count=players),
            row=i // 5))
    return embed, view


def trend(size: SizeRecord, lang: Lang) -> str:
    """How the rating moved over the player's latest hands at this size (a new player's
    rating is where it started)."""
    n_ = translator(lang).ngettext
    before = size.before if size.before is not None else Rating()
    change = size.rating.shown - before.shown
    hands = min(size.hands, TREND_HANDS)
    arrow = "▲" if change >= 0.05 else "▼" if change <= -0.05 else "▬"
    sign = "+" if change >= 0.05 else ""
    return n_("{arrow} {change} over the last {count} hand",
              "{arrow} {change} over the last {count} hands", hands).format(
                  arrow=arrow, change=sign + number(change, lang, 1), count=hands)


def player(display: str, stats: PlayerStats, lang: Lang = DEFAULT,
           place_names: dict[int, str] | None = None) -> discord.Embed:
    """One player's numbers at each table size and their latest places, in the reader's
    language; and where else they played (``place_names``: the servers' names the bot
    knows; any other place is a group DM or a DM)."""
    _ = translator(lang).gettext
    n_ = translator(lang).ngettext
    embed = discord.Embed(title=_("NLK — {name}").format(name=safe_name(display)),
                          colour=COLOUR)
    rating = stats.rating
    if rating is None:
        embed.description = f"{_('No rated hands yet here.')}\n\n*{_(RATED)}*"
        return _elsewhere(embed, stats, place_names or {}, lang)
    lines = [n_("{hands} rated hand · {losses} lost ({rate})",
                "{hands} rated hands · {losses} lost ({rate})", rating.hands).format(
                    hands=number(rating.hands, lang), losses=number(rating.losses, lang),
                    rate=rate(rating.losses, rating.hands, lang))]
    if stats.recent:
        lines.append(n_("Last {count} result (finishing places, latest last): {places}",
                        "Last {count} results (finishing places, latest last): {places}",
                        len(stats.recent)).format(
                            count=len(stats.recent),
                            places=" ".join(str(place) for place, _size in stats.recent)))
    embed.description = "\n".join(lines)
    for size in stats.sizes:
        provisional = " " + _("(provisional)") if size.hands < PROVISIONAL_HANDS else ""
        standing = _("Rating **{rating}**{provisional} · rank {rank} of {ranked}").format(
            rating=number(size.rating.shown, lang, 1), provisional=provisional,
            rank=size.rank, ranked=size.ranked)
        embed.add_field(
            name=n_("Tables of {count} player", "Tables of {count} players",
                    size.players).format(count=size.players),
            value="\n".join((standing, _numbers(size.hands, size.losses, size.players, lang),
                             trend(size, lang))),
            inline=False)
    embed.set_footer(text=n_(
        "The rating rises as you finish ahead of others, cautiously while it is new · "
        "provisional under {count} hand",
        "The rating rises as you finish ahead of others, cautiously while it is new · "
        "provisional under {count} hands", PROVISIONAL_HANDS).format(count=PROVISIONAL_HANDS))
    return _elsewhere(embed, stats, place_names or {}, lang)


def _elsewhere(embed: discord.Embed, stats: PlayerStats, names: dict[int, str],
               lang: Lang) -> discord.Embed:
    """The other places the player has rated hands in, most first."""
    if stats.elsewhere:
        _, n_ = translator(lang).gettext, translator(lang).ngettext
        embed.add_field(name=_("Elsewhere"), value="\n".join(
            n_("{where}: {count} rated hand", "{where}: {count} rated hands", hands).format(
                where=safe_name(names[place]) if place in names else
                _("another server, a group DM or a DM"), count=number(hands, lang))
            for place, hands in stats.elsewhere), inline=False)
    return embed
