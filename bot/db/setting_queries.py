"""The repository's settings: a server's defaults, a player's own choices, and values the
bot keeps between starts."""

from __future__ import annotations

from bot.db.queries import Queries
from bot.db.records import GuildSettings
from bot.db.storage import Database


class SettingQueries(Queries):
    """Server settings, player settings and the bot's own state."""

    def __init__(self, db: Database) -> None:
        super().__init__(db)
        # Each server's settings once read: read at every /nlk new and every deal, and
        # written only through ``save_guild_settings``, by the process whose shard the
        # server is on (every interaction of a server comes to that process).
        self._guilds: dict[int | None, GuildSettings] = {}

    # --- server settings -------------------------------------------------------------------

    async def guild_settings(self, guild_id: int | None) -> GuildSettings:
        """The server's defaults for new tables."""
        if guild_id in self._guilds:
            return self._guilds[guild_id]
        row = await self._one("SELECT * FROM guild_settings WHERE guild_id = ?", (guild_id,),
                              keyed=True)
        settings = GuildSettings() if row is None else GuildSettings(
            row["seats"], row["last_card"], bool(row["must_beat_in_suit"]), row["turn_seconds"],
            bool(row["allow_ai"]), row["language"], row["pictures"], row["seasons"],
            bool(row["hints"]))
        self._guilds[guild_id] = settings
        return settings

    async def save_guild_settings(self, guild_id: int, settings: GuildSettings) -> None:
        async with self.transaction() as db:
            await db.execute(
                "INSERT INTO guild_settings (guild_id, seats, last_card, must_beat_in_suit, "
                "turn_seconds, allow_ai, language, pictures, seasons, hints) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (guild_id) DO "
                "UPDATE SET seats = excluded.seats, last_card = excluded.last_card, "
                "must_beat_in_suit = excluded.must_beat_in_suit, "
                "turn_seconds = excluded.turn_seconds, allow_ai = excluded.allow_ai, "
                "language = excluded.language, pictures = excluded.pictures, "
                "seasons = excluded.seasons, hints = excluded.hints",
                (guild_id, settings.seats, settings.last_card, int(settings.must_beat_in_suit),
                 settings.turn_seconds, int(settings.allow_ai), settings.language,
                 settings.pictures, settings.seasons, int(settings.hints)))
        self._guilds[guild_id] = settings

    # --- a player's own choices ------------------------------------------------------------

    async def card_style(self, user_id: int) -> str | None:
        """How a player chose to see their own cards (None: as the server shows them)."""
        row = await self._one("SELECT cards FROM player_settings WHERE user_id = ?",
                              (user_id,), keyed=True)
        return str(row["cards"]) if row and row["cards"] is not None else None

    async def save_card_style(self, user_id: int, style: str | None) -> None:
        async with self.transaction() as db:
            await db.execute(
                "INSERT INTO player_settings (user_id, cards) VALUES (?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET cards = excluded.cards",
                (user_id, style))

    # --- the bot's own state ---------------------------------------------------------------

    async def state_value(self, key: str) -> str | None:
        """A value the bot kept between starts, or None."""
        row = await self._one("SELECT value FROM bot_state WHERE key = ?", (key,), keyed=True)
        return str(row["value"]) if row else None

    async def set_state_value(self, key: str, value: str) -> None:
        async with self.transaction() as db:
            await db.execute("INSERT INTO bot_state (key, value) VALUES (?, ?) "
                             "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                             (key, value))

    async def state_values(self, prefix: str) -> dict[str, str]:
        """Every value kept between starts whose key starts with ``prefix``."""
        rows = await self._all("SELECT key, value FROM bot_state WHERE substr(key, 1, ?) = ?",
                               (len(prefix), prefix))
        return {str(row["key"]): str(row["value"]) for row in rows}

    async def set_state_values(self, values: dict[str, str | None]) -> None:
        """Keep (or, for None, forget) several values, all or none. They are written often
        (what the tables' messages show, ``cogs/live/records.py``): on PostgreSQL as one
        statement, one round trip where a transaction takes three or four."""
        kept = {k: v for k, v in values.items() if v is not None}
        gone = [k for k, v in values.items() if v is None]
        if self.db.dialect == "postgresql":
            await self.db.write(
                "WITH gone AS (DELETE FROM bot_state WHERE key = ANY(?::text[])) "
                "INSERT INTO bot_state (key, value) SELECT * FROM unnest(?::text[], ?::text[]) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (gone, list(kept), list(kept.values())))
            return
        async with self.transaction() as db:
            await db.executemany("INSERT INTO bot_state (key, value) VALUES (?, ?) "
                                 "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                                 kept.items())
            await db.executemany("DELETE FROM bot_state WHERE key = ?", [(k,) for k in gone])
