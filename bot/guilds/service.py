"""A server's side of NLK: its defaults for new tables, its leaderboard, its exports."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field, replace
from typing import Any

from bot.db.records import GuildSettings, HandRecord, RatingRecord, SizeRecord, StoredHand
from bot.db.repository import Repository
from bot.errors import BadSetting, HandInPlay, NoSuchHand, NoTable, NotAllowed
from bot.guilds.seasons import SEASONS, SeasonService
from bot.tables.service import check_timer

log = logging.getLogger(__name__)

LANGUAGES = ("en", "hu", "fr")
PICTURES = ("on", "four-colour", "off")  # /nlk settings pictures
CARD_STYLES = ("pictures", "four-colour", "text")  # /nlk cards; "server": none of its own
FOLLOW_SERVER = "server"
SERVER_LOCALE = "auto"  # the /nlk settings choice that goes back to the server's own locale

PAGE_SIZE = 10
RECENT_RESULTS = 20  # /nlk stats user: the latest results shown
PLACES_SHOWN = 10  # /nlk stats on yourself: the other places you played, most first
RECENT_HANDS = 25  # /nlk export: the hands offered (Discord shows 25 choices at most)


def check_language(value: str | None) -> str | None:
    """A server language setting: one NLK speaks, or None for the server's own locale."""
    if value is None or value == SERVER_LOCALE:
        return None
    if value not in LANGUAGES:
        raise BadSetting("language", value=value)
    return value


@dataclass(frozen=True)
class LeaderboardPage:
    rows: list[RatingRecord]
    page: int  # from 0
    pages: int
    first_place: int  # the place of the first row
    players: int = 0  # the table size shown (0: no rated hand on the server yet)
    sizes: dict[int, int] = field(default_factory=dict)  # rated hands at each table size
    asked: int = 0  # a size asked for that has no rated hand (another is shown instead)


@dataclass(frozen=True)
class PlayerStats:
    rating: RatingRecord | None  # all sizes together; None: no rated hand on this server
    sizes: list[SizeRecord]
    recent: list[tuple[int, int]]  # the latest (place, players), oldest first
    # The other places (servers, group DMs, DMs) where they have rated hands: (place, hands).
    elsewhere: list[tuple[int, int]] = field(default_factory=list)


class GuildService:
    """Server settings, ratings and finished hands; reads only, apart from the settings."""

    def __init__(self, repo: Repository) -> None:
        self.repo = repo
        self.seasons = SeasonService(repo)

    async def rate_old_results_by_size(self) -> int:
        """The start-up step after migration 0006: give every stored result that has none
        its per-size rating, by recomputing them all from the stored results (no hand is
        lost). Does nothing once every result is rated, so it runs once; returns how many
        results it rated."""
        if not await self.repo.ratings.results_to_rate():
            return 0
        rated = await self.repo.ratings.rate_results_by_size()
        log.info("ratings by table size: recomputed from %d stored result(s)", rated)
        return rated

    async def settings(self, guild_id: int | None) -> GuildSettings:
        """The server's defaults for new tables."""
        return await self.repo.settings.guild_settings(guild_id)

    async def change_settings(self, guild_id: int, changes: dict[str, Any], *,
                              can_manage: bool) -> GuildSettings:
        """Save changed defaults (needs Manage Server); no changes just reads them."""
        current = await self.repo.settings.guild_settings(guild_id)
        if not changes:
            return current
        if not can_manage:
            raise NotAllowed("settings")
        check_timer(changes.get("turn_seconds", 0))
        if "language" in changes:
            changes = {**changes, "language": check_language(changes["language"])}
        if changes.get("pictures") not in (None, *PICTURES):
            raise BadSetting("pictures", value=changes["pictures"])
        if "seasons" in changes:
            if changes["seasons"] not in SEASONS:
                raise BadSetting("seasons", value=changes["seasons"])
            changes = {**changes, "seasons": None if changes["seasons"] == "off"
                       else changes["seasons"]}
        current = replace(current, **changes)
        await self.repo.settings.save_guild_settings(guild_id, current)
        return current

    async def card_style(self, user_id: int) -> str | None:
        """How a player sees their own cards (None: as the server shows them)."""
        return await self.repo.settings.card_style(user_id)

    async def set_card_style(self, user_id: int, style: str) -> str | None:
        """Save a player's choice ("server" drops their own); returns what is saved."""
        if style != FOLLOW_SERVER and style not in CARD_STYLES:
            raise BadSetting("cards", value=style)
        chosen = None if style == FOLLOW_SERVER else style
        await self.repo.settings.save_card_style(user_id, chosen)
        return chosen

    async def leaderboard(self, guild_id: int, page: int, players: int | None = None
                          ) -> LeaderboardPage:
        """One page of the rated players at one table size, best first: ``players``, or
        the size with the most rated hands (the page is clamped to those that exist)."""
        sizes = await self.repo.ratings.table_sizes(guild_id)
        asked = players if players is not None and players not in sizes else 0
        if players not in sizes:
            players = max(sizes, key=lambda n: (sizes[n], -n)) if sizes else 0
        assert players is not None
        total = await self.repo.ratings.rated_players(guild_id, players)
        pages = max(1, -(-total // PAGE_SIZE))
        page = min(max(page, 0), pages - 1)
        rows = await self.repo.ratings.leaderboard(guild_id, players, PAGE_SIZE, page * PAGE_SIZE)
        return LeaderboardPage(rows, page, pages, page * PAGE_SIZE + 1, players, sizes, asked)

    async def player(self, guild_id: int, user_id: int, *,
                     everywhere: bool = False) -> PlayerStats:
        """One player's numbers at each table size and their latest results in one place
        (a server, or a group DM or DM); with ``everywhere``, also where else they played."""
        elsewhere = [(place, hands) for place, hands in
                     await self.repo.ratings.places_of(user_id, PLACES_SHOWN + 1)
                     if place != guild_id][:PLACES_SHOWN] if everywhere else []
        rating = await self.repo.ratings.rating(guild_id, user_id)
        if rating is None:
            return PlayerStats(None, [], [], elsewhere)
        return PlayerStats(rating, await self.repo.ratings.results_by_size(guild_id, user_id),
                           await self.repo.ratings.recent_places(guild_id, user_id,
                                                                 RECENT_RESULTS), elsewhere)

    async def hand_changes(self, hand_id: int) -> dict[int, float]:
        """How much each rated player's shown rating at the table's size moved in hand
        ``hand_id``, by user id (none for an unrated hand)."""
        changes = await self.repo.ratings.hand_changes(hand_id)
        return {user: after.shown - before.shown
                for user, (before, after) in changes.items()}

    async def hand_to_export(self, channel_id: int, which: str | None) -> StoredHand:
        """A finished hand of this channel, for export: ``which`` is its number at the
        channel's latest table that has one (``3``), or its table and number (``42.3``, or
        any text with those two numbers, as "Table 42 · hand 3"); None: the newest finished
        hand. A hand in play is refused: its export would reveal the hidden hands. A hand cut
        short because its table ended is over too (its seed was revealed then)."""
        if which is None or not which.strip():
            stored = await self.repo.last_finished_hand_in(channel_id)
            if stored is None:
                raise NoTable("export")
            return stored
        numbers = [int(n) for n in re.findall(r"[0-9]{1,18}", which)]
        # "-1" is no hand (it is not hand 1): hands are numbered from 1, tables from 1.
        if len(numbers) not in (1, 2) or re.search(r"-\s*[0-9]", which) or 0 in numbers:
            raise NoSuchHand(which.strip()[:40])
        table_id, number = (None, numbers[0]) if len(numbers) == 1 else numbers
        stored = await self.repo.hand_in_channel(channel_id, number, table_id)
        if stored is None:
            raise NoSuchHand(which.strip()[:40])
        if not stored.hand.finished:
            table = await self.repo.table(stored.hand.table_id)
            if table is not None and table.status.is_open:
                raise HandInPlay(stored.hand.number, stored.hand.table_id)
        return stored

    async def finished_hands(self, channel_id: int, limit: int = RECENT_HANDS
                             ) -> list[HandRecord]:
        """The channel's latest finished hands, newest first (the export's choices)."""
        return await self.repo.finished_hands_in(channel_id, limit)
