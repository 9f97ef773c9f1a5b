"""The repository's seasons: the rated results of a span of time (a season's boards are
rated from them afresh), the seasons a server has results in, and who has seen a season's
podium."""

from __future__ import annotations

from bot.db.queries import Queries
from bot.guilds.ratings import Placed


class SeasonQueries(Queries):
    """Results by finish time, and the podiums shown."""

    async def results_between(self, guild_id: int, start: str, end: str
                              ) -> tuple[list[Placed], dict[int, str]]:
        """The server's rated results of hands finished in ``[start, end)`` (timestamps as
        the schema writes them), in the order they were played, and each player's latest
        name."""
        rows = await self._all(
            "SELECT r.hand_id, r.guild_id, r.user_id, r.players, r.place FROM results r "
            "JOIN hands h ON h.id = r.hand_id WHERE r.guild_id = ? AND h.finished_at >= ? "
            "AND h.finished_at < ? ORDER BY r.hand_id, r.place", (guild_id, start, end))
        names = await self._all("SELECT user_id, name FROM ratings WHERE guild_id = ?",
                                (guild_id,))
        return ([Placed(int(r["hand_id"]), int(r["guild_id"]), int(r["user_id"]),
                        int(r["players"]), int(r["place"])) for r in rows],
                {int(r["user_id"]): str(r["name"]) for r in names})

    async def months_played(self, guild_id: int) -> list[str]:
        """The months (``2026-11``) in which the server finished a rated hand, oldest
        first."""
        rows = await self._all(
            "SELECT DISTINCT substr(h.finished_at, 1, 7) AS month FROM results r "
            "JOIN hands h ON h.id = r.hand_id WHERE r.guild_id = ? "
            "AND h.finished_at IS NOT NULL ORDER BY month", (guild_id,))
        return [str(r["month"]) for r in rows]

    async def podium_shown(self, guild_id: int, user_id: int, season: str) -> bool:
        """Whether this reader was already shown the podium of ``season``; marks it shown."""
        async with self.transaction() as db:
            row = await db.one("SELECT 1 FROM podiums_shown WHERE guild_id = ? AND "
                               "user_id = ? AND season = ?", (guild_id, user_id, season))
            if row is None:
                await db.execute("INSERT INTO podiums_shown (guild_id, user_id, season) "
                                 "VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                                 (guild_id, user_id, season))
        return row is not None
