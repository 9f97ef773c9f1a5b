"""Seasons: a fresh race every month or quarter, by the calendar in UTC.

A season's boards are rated afresh from the stored results of the hands finished in it
(per table size, as the all-time boards are), so turning seasons on shows the current season
at once, and turning them off or on again loses nothing. The all-time ratings go on as
before, whatever the setting.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from bot.db.records import RatingRecord
from bot.db.repository import Repository
from bot.guilds.ratings import rate_all

MONTHLY, QUARTERLY = "monthly", "quarterly"
SEASONS = ("off", MONTHLY, QUARTERLY)  # /nlk settings seasons
PAGE_SIZE = 10
PODIUM = 3
KEPT_BOARDS = 256  # seasons' boards kept rated, oldest dropped first
KEY = re.compile(r"(?P<year>[0-9]{4})(?:(?P<month>0[1-9]|1[0-2])|Q(?P<quarter>[1-4]))")


@dataclass(frozen=True, order=True)
class Season:
    """One month (``months`` 1) or quarter (3) of one year, ``first`` its first month."""

    year: int
    first: int
    months: int

    @classmethod
    def of(cls, kind: str, when: datetime) -> Season:
        """The season of ``kind`` that ``when`` falls in."""
        if kind == QUARTERLY:
            return cls(when.year, (when.month - 1) // 3 * 3 + 1, 3)
        return cls(when.year, when.month, 1)

    @classmethod
    def parse(cls, key: str) -> Season | None:
        """A season from its key (``202611``, ``2026Q4``); None if it is not one."""
        found = KEY.fullmatch(key)
        if found is None:
            return None
        if found["quarter"]:
            return cls(int(found["year"]), (int(found["quarter"]) - 1) * 3 + 1, 3)
        return cls(int(found["year"]), int(found["month"]), 1)

    @property
    def key(self) -> str:
        """What names the season in a custom id and in the database: ``202611``,
        ``2026Q4``."""
        if self.months == 3:
            return f"{self.year}Q{(self.first - 1) // 3 + 1}"
        return f"{self.year}{self.first:02d}"

    @property
    def quarter(self) -> int | None:
        return (self.first - 1) // 3 + 1 if self.months == 3 else None

    @property
    def start(self) -> datetime:
        return datetime(self.year, self.first, 1, tzinfo=UTC)

    @property
    def end(self) -> datetime:
        """The first moment after the season."""
        month = self.first + self.months
        return datetime(self.year + (month - 1) // 12, (month - 1) % 12 + 1, 1, tzinfo=UTC)

    def previous(self) -> Season:
        month = self.first - self.months
        return Season(self.year + (month - 1) // 12, (month - 1) % 12 + 1, self.months)


def stamp(when: datetime) -> str:
    """A time as the schema writes finish times: ``2026-01-31T12:00:00.000Z``."""
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


@dataclass(frozen=True)
class SeasonBoard:
    """One page of one season's board at one table size."""

    season: Season
    rows: list[RatingRecord]
    page: int
    pages: int
    first_place: int
    players: int  # 0: no rated hand in this season yet
    sizes: dict[int, int]  # rated hands at each table size in this season
    left: float | None  # seconds until the season ends; None: it is over
    seasons: list[Season]  # the server's seasons with results, newest first, this one too
    asked: int = 0  # a size asked for that has no rated hand in this season (none shown)


class SeasonService:
    """Seasonal boards and podiums, computed from the stored results; reads only (apart
    from remembering who has seen a podium)."""

    def __init__(self, repo: Repository, clock: Callable[[], float] = time.time) -> None:
        self.repo = repo
        self.clock = clock  # seconds since the epoch (tests move it)
        # (server, season) → (its results' count and last hand, its boards, its sizes)
        self._boards: dict[tuple[int, str], tuple[tuple[int, int],
                                                  dict[int, list[RatingRecord]],
                                                  dict[int, int]]] = {}

    def now(self) -> datetime:
        return datetime.fromtimestamp(self.clock(), UTC)

    async def kind(self, guild_id: int) -> str | None:
        """``monthly`` or ``quarterly``; None when the server plays without seasons."""
        chosen = (await self.repo.settings.guild_settings(guild_id)).seasons
        return chosen if chosen in (MONTHLY, QUARTERLY) else None

    def current(self, kind: str) -> Season:
        return Season.of(kind, self.now())

    async def played(self, guild_id: int, kind: str) -> list[Season]:
        """The server's seasons of ``kind`` with rated hands, and the current one, newest
        first."""
        seasons = {Season.of(kind, datetime(int(m[:4]), int(m[5:7]), 1, tzinfo=UTC))
                   for m in await self.repo.seasons.months_played(guild_id)}
        seasons.add(self.current(kind))
        return sorted(seasons, reverse=True)

    async def ratings(self, guild_id: int, season: Season
                      ) -> tuple[dict[int, list[RatingRecord]], dict[int, int]]:
        """Each table size's rated players in ``season``, best first, and how many rated
        hands each size had. Rated off the event loop, and kept while the season's results
        are the same (a past season's never change)."""
        results, names = await self.repo.seasons.results_between(
            guild_id, stamp(season.start), stamp(season.end))
        mark = (len(results), results[-1].hand_id if results else 0)
        kept = self._boards.get((guild_id, season.key))
        if kept is not None and kept[0] == mark:
            return kept[1], kept[2]
        rated, _after = await asyncio.to_thread(rate_all, results)
        boards: dict[int, list[RatingRecord]] = {}
        for (_guild, players, user), kept_rating in rated.items():
            boards.setdefault(players, []).append(RatingRecord(
                user, names.get(user, str(user)), kept_rating.rating.mu,
                kept_rating.rating.sigma, kept_rating.hands, kept_rating.losses,
                kept_rating.hands / players))
        for rows in boards.values():
            rows.sort(key=lambda r: (-(r.mu - 3 * r.sigma), -r.hands, r.user_id))
        hands: dict[int, set[int]] = {}
        for result in results:
            hands.setdefault(result.players, set()).add(result.hand_id)
        sizes = {n: len(ids) for n, ids in sorted(hands.items())}
        if len(self._boards) >= KEPT_BOARDS:
            self._boards.pop(next(iter(self._boards)))
        self._boards[(guild_id, season.key)] = (mark, boards, sizes)
        return boards, sizes

    async def board(self, guild_id: int, kind: str, season: Season | None, page: int,
                    players: int | None = None) -> SeasonBoard:
        """One page of a season's board (default: the current season) at ``players`` (or
        the size with the most rated hands in it)."""
        season = season or self.current(kind)
        boards, sizes = await self.ratings(guild_id, season)
        asked = players if players is not None and players not in sizes else 0
        if players not in sizes:
            players = max(sizes, key=lambda n: (sizes[n], -n)) if sizes else 0
        assert players is not None
        rows = boards.get(players, [])
        pages = max(1, -(-len(rows) // PAGE_SIZE))
        page = min(max(page, 0), pages - 1)
        now = self.now()
        left = (season.end - now).total_seconds() if season.start <= now < season.end else None
        return SeasonBoard(season, rows[page * PAGE_SIZE:(page + 1) * PAGE_SIZE], page, pages,
                           page * PAGE_SIZE + 1, players, sizes, left,
                           await self.played(guild_id, kind), asked)

    async def podium_to_show(self, guild_id: int, user_id: int, kind: str
                             ) -> tuple[Season, int, list[RatingRecord]] | None:
        """The final top three of the season that just ended (at its most played size),
        the first time this reader asks for the boards after it ended; else None."""
        ended = self.current(kind).previous()
        boards, sizes = await self.ratings(guild_id, ended)
        if not boards:
            return None
        if await self.repo.seasons.podium_shown(guild_id, user_id, ended.key):
            return None
        players = max(sizes, key=lambda n: (sizes[n], -n))
        return ended, players, boards[players][:PODIUM]
