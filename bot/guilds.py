"""A server's side of NLK: its defaults for new tables, its leaderboard, its exports."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from .errors import BadSetting, NoTable, NotAllowed
from .records import GuildSettings, RatingRecord, SizeRecord, StoredHand
from .repository import Repository
from .tables import check_timer

LANGUAGES = ("en", "hu", "fr")
PICTURES = ("on", "four-colour", "off")  # /nlk settings pictures
CARD_STYLES = ("pictures", "four-colour", "text")  # /nlk cards; "server": none of its own
FOLLOW_SERVER = "server"
SERVER_LOCALE = "auto"  # the /nlk settings choice that goes back to the server's own locale

PAGE_SIZE = 10


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


class GuildService:
    """Server settings, ratings and finished hands; reads only, apart from the settings."""

    def __init__(self, repo: Repository) -> None:
        self.repo = repo

    async def settings(self, guild_id: int | None) -> GuildSettings:
        """The server's defaults for new tables."""
        return await self.repo.guild_settings(guild_id)

    async def change_settings(self, guild_id: int, changes: dict[str, Any], *,
                              can_manage: bool) -> GuildSettings:
        """Save changed defaults (needs Manage Server); no changes just reads them."""
        current = await self.repo.guild_settings(guild_id)
        if not changes:
            return current
        if not can_manage:
            raise NotAllowed("settings")
        check_timer(changes.get("turn_seconds", 0))
        if "language" in changes:
            changes = {**changes, "language": check_language(changes["language"])}
        if changes.get("pictures") not in (None, *PICTURES):
            raise BadSetting("pictures", value=changes["pictures"])
        current = replace(current, **changes)
        await self.repo.save_guild_settings(guild_id, current)
        return current

    async def card_style(self, user_id: int) -> str | None:
        """How a player sees their own cards (None: as the server shows them)."""
        return await self.repo.card_style(user_id)

    async def set_card_style(self, user_id: int, style: str) -> str | None:
        """Save a player's choice ("server" drops their own); returns what is saved."""
        if style != FOLLOW_SERVER and style not in CARD_STYLES:
            raise BadSetting("cards", value=style)
        chosen = None if style == FOLLOW_SERVER else style
        await self.repo.save_card_style(user_id, chosen)
        return chosen

    async def leaderboard(self, guild_id: int, page: int) -> LeaderboardPage:
        """One page of rated players, best first (the page is clamped to those that exist)."""
        total = await self.repo.rated_players(guild_id)
        pages = max(1, -(-total // PAGE_SIZE))
        page = min(max(page, 0), pages - 1)
        rows = await self.repo.leaderboard(guild_id, PAGE_SIZE, page * PAGE_SIZE)
        return LeaderboardPage(rows, page, pages, page * PAGE_SIZE + 1)

    async def player(self, guild_id: int, user_id: int
                     ) -> tuple[RatingRecord | None, list[SizeRecord]]:
        """One player's rating and results by table size."""
        rating = await self.repo.rating(guild_id, user_id)
        if rating is None:
            return None, []
        return rating, await self.repo.results_by_size(guild_id, user_id)

    async def last_finished_hand(self, channel_id: int) -> StoredHand:
        """The channel's newest finished hand, for export (hands in play are never given)."""
        stored = await self.repo.last_finished_hand_in(channel_id)
        if stored is None:
            raise NoTable("export")
        return stored
