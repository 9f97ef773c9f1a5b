"""Seasonal boards as the reader sees them: which season, how long is left, one table size's
rows as the all-time board shows them, buttons for the sizes, the pages, all-time and the
other seasons; and the podium of a season that ended. In the reader's language.

Their buttons' custom ids are ``nlkb:<season>:<players>:<page>``, the season ``A`` for
all-time: the family in ``cogs/routes/seasons.py`` answers them, after a restart too.
"""

from __future__ import annotations

from datetime import date

import discord
from babel.dates import format_skeleton

from bot.db.records import RatingRecord
from bot.guilds.ratings import Rating
from bot.guilds.seasons import Season, SeasonBoard
from bot.guilds.service import LeaderboardPage
from cogs.render import COLOUR, safe_name, stats
from cogs.widgets.buttons import Buttons, NLKButton
from rules.i18n import DEFAULT, N_, Lang, number, translator

PREFIX = "nlkb"
ALL_TIME = "A"
TEMPLATE = (rf"{PREFIX}:(?P<season>{ALL_TIME}|[0-9]{{4}}(?:0[1-9]|1[0-2]|Q[1-4])):"
            r"(?P<players>[0-9]):(?P<page>[0-9]{1,5})")
SEASON_BUTTONS = 4  # the latest seasons offered beside all-time
MEDALS = ("🥇", "🥈", "🥉")


def board_id(season: str, players: int, page: int) -> str:
    return f"{PREFIX}:{season}:{players}:{page}"


# A quarter's name, one entry per quarter, so each language writes its own way ("Q4 2026",
# "2026. IV. negyedév", "T4 2026") without numbering code.
QUARTERS = (N_("Q1 {year}"), N_("Q2 {year}"), N_("Q3 {year}"), N_("Q4 {year}"))


def season_name(season: Season, lang: Lang = DEFAULT) -> str:
    """``November 2026``, ``2026. november``, ``novembre 2026``; ``Q4 2026`` …"""
    if season.quarter is not None:
        return translator(lang).gettext(QUARTERS[season.quarter - 1]).format(year=season.year)
    return format_skeleton("yMMMM", date(season.year, season.first, 1), locale=lang.value)


def time_left(seconds: float, lang: Lang = DEFAULT) -> str:
    """``12 days``, ``5 hours``, ``40 minutes``: the largest whole unit."""
    n_ = translator(lang).ngettext
    if seconds >= 86400:
        count = int(seconds // 86400)
        return n_("{count} day", "{count} days", count).format(count=count)
    if seconds >= 3600:
        count = int(seconds // 3600)
        return n_("{count} hour", "{count} hours", count).format(count=count)
    count = max(1, int(seconds // 60))
    return n_("{count} minute", "{count} minutes", count).format(count=count)


def season_board(board: SeasonBoard, lang: Lang = DEFAULT
                 ) -> tuple[discord.Embed, discord.ui.View]:
    """One page of a season's board, drawn as the all-time board is, saying which season it
    is and how long is left."""
    _ = translator(lang).gettext
    n_ = translator(lang).ngettext
    page = LeaderboardPage(board.rows, board.page, board.pages, board.first_place,
                           board.players, board.sizes)
    embed, _view = stats.leaderboard(page, lang)
    name = season_name(board.season, lang)
    if board.asked and board.sizes:  # nobody played that size this season: say so
        key = board.season.key
        embed, _view = stats.unplayed_size(board.asked, board.sizes, lang,
                                           lambda n: board_id(key, n, 0))
        embed.title = n_("NLK season {season} · tables of {count} player",
                         "NLK season {season} · tables of {count} players",
                         board.asked).format(season=name, count=board.asked)
    elif board.players:
        embed.title = n_("NLK season {season} · tables of {count} player",
                         "NLK season {season} · tables of {count} players",
                         board.players).format(season=name, count=board.players)
    else:
        embed.title = _("NLK season {season}").format(season=name)
    when = (_("Ends in {left} (UTC).").format(left=time_left(board.left, lang))
            if board.left is not None else _("This season is over."))
    embed.description = f"*{when}*\n" + (embed.description or "")
    key = board.season.key
    unplayed = bool(board.asked and board.sizes)  # every size that has a board, a button
    return embed, _view_of(key, 0 if unplayed else board.players, board.page,
                           1 if unplayed else board.pages, board.sizes, board.seasons, lang)


def all_time_board(board: LeaderboardPage, seasons: list[Season], lang: Lang = DEFAULT
                   ) -> tuple[discord.Embed, discord.ui.View]:
    """The all-time board, while the server plays in seasons, with the seasons' buttons."""
    embed, _view = stats.leaderboard(board, lang)
    embed.description = "*" + translator(lang).gettext("All-time, every season together.") + \
        "*\n" + (embed.description or "")
    unplayed = bool(board.asked and board.sizes)  # every size that has a board, a button
    return embed, _view_of(ALL_TIME, 0 if unplayed else board.players, board.page,
                           1 if unplayed else board.pages, board.sizes, seasons, lang)


def _view_of(key: str, players: int, page: int, pages: int, sizes: dict[int, int],
             seasons: list[Season], lang: Lang) -> discord.ui.View:
    _ = translator(lang).gettext
    n_ = translator(lang).ngettext
    view = Buttons()
    if pages > 1:
        view.add_item(NLKButton(board_id(key, players, max(page - 1, 0)), _("◀ Previous")))
        view.add_item(NLKButton(board_id(key, players, min(page + 1, pages - 1)),
                                _("Next ▶")))
    others = [n for n in sizes if n != players]
    for i, n in enumerate(others):  # at most seven: rows 1 and 2
        view.add_item(NLKButton(board_id(key, n, 0), n_(
            "{count} player", "{count} players", n).format(count=n), row=1 + i // 5))
    if key != ALL_TIME:
        view.add_item(NLKButton(board_id(ALL_TIME, 0, 0), _("All-time"),
                                discord.ButtonStyle.primary, row=3))
    for season in [s for s in seasons if s.key != key][:SEASON_BUTTONS]:
        view.add_item(NLKButton(board_id(season.key, 0, 0), season_name(season, lang),
                                row=3))
    return view


def podium(season: Season, players: int, rows: list[RatingRecord], lang: Lang = DEFAULT
           ) -> discord.Embed:
    """The final top three of a season that ended."""
    _ = translator(lang).gettext
    n_ = translator(lang).ngettext
    lines = [f"{medal} **{safe_name(row.name)}** — " + _("rating {rating}").format(
        rating=number(Rating(row.mu, row.sigma).shown, lang, 1))
        for medal, row in zip(MEDALS, rows, strict=False)]
    return discord.Embed(
        title=_("Season {season} is over: its podium").format(
            season=season_name(season, lang)),
        colour=COLOUR, description=n_("Tables of {count} player", "Tables of {count} players",
                                      players).format(count=players) + "\n" + "\n".join(lines))
