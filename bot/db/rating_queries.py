"""The repository's ratings and stats: a finished hand's results rated, per table size too
(the server's ratings locked on PostgreSQL while they are written), leaderboards and one
player's numbers."""

from __future__ import annotations

from bot.db.queries import Queries
from bot.db.records import Finish, RatingRecord, SizeRecord
from bot.db.storage import Row, Transaction
from bot.guilds.ratings import TREND_HANDS, Placed, Rating, rate, rate_all

# Advisory lock class (PostgreSQL) for a server's ratings while a hand's result is written.
RATINGS_LOCK = 19


class RatingQueries(Queries):
    """Ratings, results and the leaderboards."""

    async def rate(self, db: Transaction, hand_id: int, finished: Finish) -> None:
        """Rate a finished hand's players (overall and at its table size), in its
        transaction; unrated hands and hands outside a server change nothing."""
        outcome = finished.outcome
        if not finished.rated or finished.guild_id is None:
            return
        guild = finished.guild_id
        order = [finished.players[s] for s in outcome.order]
        # Two tables of one server may finish at once in two transactions: one at a time.
        await self._lock(db, "SELECT pg_advisory_xact_lock(?, ?)",
                         (RATINGS_LOCK, guild % 2**31))
        size = len(order)
        old, old_by_size = [], []
        for user in order:
            row = await db.one("SELECT mu, sigma FROM ratings WHERE guild_id = ? AND "
                               "user_id = ?", (guild, user))
            old.append(Rating(row["mu"], row["sigma"]) if row else Rating())
            row = await db.one("SELECT mu, sigma FROM size_ratings WHERE guild_id = ? AND "
                               "players = ? AND user_id = ?", (guild, size, user))
            old_by_size.append(Rating(row["mu"], row["sigma"]) if row else Rating())
        for place, (user, new, new_at_size) in enumerate(
                zip(order, rate(old), rate(old_by_size), strict=True), 1):
            lost = int(place == size)
            name = finished.names[finished.players.index(user)]
            await db.execute(
                "INSERT INTO ratings (guild_id, user_id, name, mu, sigma, hands, losses) "
                "VALUES (?, ?, ?, ?, ?, 1, ?) ON CONFLICT (guild_id, user_id) DO UPDATE SET "
                "name = excluded.name, mu = excluded.mu, sigma = excluded.sigma, "
                "hands = ratings.hands + 1, losses = ratings.losses + excluded.losses",
                (guild, user, name, new.mu, new.sigma, lost))
            await db.execute(
                "INSERT INTO size_ratings (guild_id, user_id, players, mu, sigma, hands, "
                "losses) VALUES (?, ?, ?, ?, ?, 1, ?) ON CONFLICT (guild_id, players, user_id) "
                "DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma, "
                "hands = size_ratings.hands + 1, losses = size_ratings.losses + excluded.losses",
                (guild, user, size, new_at_size.mu, new_at_size.sigma, lost))
            await db.execute(
                "INSERT INTO results (hand_id, guild_id, user_id, players, place, mu, sigma) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (hand_id, guild, user, size, place, new_at_size.mu, new_at_size.sigma))

    # --- ratings by table size (migration 0006) ----------------------------------------------

    async def results_to_rate(self) -> int:
        """How many stored results have no per-size rating yet (hands from before 0006)."""
        row = await self._one("SELECT COUNT(*) FROM results WHERE mu IS NULL")
        return int(row[0]) if row else 0

    async def rate_results_by_size(self) -> int:
        """Recompute every per-size rating from the stored results, hand by hand in the
        order they were played, in one transaction; returns how many results it rated.
        Running it again gives the same ratings."""
        async with self.transaction() as db:
            rows = await db.all("SELECT hand_id, guild_id, user_id, players, place "
                                "FROM results ORDER BY hand_id, place")
            ratings, after = rate_all(Placed(r["hand_id"], r["guild_id"], r["user_id"],
                                             r["players"], r["place"]) for r in rows)
            await db.execute("DELETE FROM size_ratings")
            await db.executemany(
                "INSERT INTO size_ratings (guild_id, players, user_id, mu, sigma, hands, "
                "losses) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(*key, kept.rating.mu, kept.rating.sigma, kept.hands, kept.losses)
                 for key, kept in ratings.items()])
            await db.executemany(
                "UPDATE results SET mu = ?, sigma = ? WHERE hand_id = ? AND user_id = ?",
                [(new.mu, new.sigma, hand, user) for (hand, user), new in after.items()])
        return len(after)

    # --- stats -----------------------------------------------------------------------------

    async def table_sizes(self, guild_id: int) -> dict[int, int]:
        """How many rated hands the server played at each table size."""
        rows = await self._all(
            "SELECT players, COUNT(DISTINCT hand_id) AS hands FROM results WHERE guild_id = ? "
            "GROUP BY players ORDER BY players", (guild_id,))
        return {int(row["players"]): int(row["hands"]) for row in rows}

    async def leaderboard(self, guild_id: int, players: int, limit: int, offset: int
                          ) -> list[RatingRecord]:
        """Rated players at one table size by rating (μ − 3σ), with the losses expected by
        luck alone (one hand in ``players``)."""
        rows = await self._all(
            "SELECT s.user_id, r.name, s.mu, s.sigma, s.hands, s.losses, "
            "CAST(s.hands AS DOUBLE PRECISION) / s.players AS chance_losses FROM size_ratings s "
            "JOIN ratings r ON r.guild_id = s.guild_id AND r.user_id = s.user_id "
            "WHERE s.guild_id = ? AND s.players = ? "
            "ORDER BY s.mu - 3 * s.sigma DESC, s.hands DESC, s.user_id LIMIT ? OFFSET ?",
            (guild_id, players, limit, offset))
        return [_rating(row) for row in rows]

    async def rated_players(self, guild_id: int, players: int) -> int:
        """How many players have a rating at this table size."""
        row = await self._one("SELECT COUNT(*) FROM size_ratings WHERE guild_id = ? AND "
                              "players = ?", (guild_id, players))
        return int(row[0]) if row else 0

    async def rating(self, guild_id: int, user_id: int) -> RatingRecord | None:
        """One player's name, hands and losses on a server, all table sizes together."""
        row = await self._one(
            "SELECT r.*, 0.0 AS chance_losses FROM ratings r WHERE guild_id = ? AND user_id = ?",
            (guild_id, user_id))
        return _rating(row) if row else None

    async def results_by_size(self, guild_id: int, user_id: int) -> list[SizeRecord]:
        """One player's rating, rank, hands and losses at each table size, with the rating
        they had ``TREND_HANDS`` hands ago there (None: they have played no more than that,
        so their trend starts from a new player's rating)."""
        rows = await self._all(
            "SELECT s.*, (SELECT COUNT(*) FROM size_ratings o WHERE o.guild_id = s.guild_id "
            "AND o.players = s.players AND o.mu - 3 * o.sigma > s.mu - 3 * s.sigma) + 1 AS rank, "
            "(SELECT COUNT(*) FROM size_ratings o WHERE o.guild_id = s.guild_id "
            "AND o.players = s.players) AS ranked FROM size_ratings s "
            "WHERE s.guild_id = ? AND s.user_id = ? ORDER BY s.players", (guild_id, user_id))
        sizes = []
        for row in rows:
            before = await self._one(
                "SELECT mu, sigma FROM results WHERE guild_id = ? AND user_id = ? AND "
                "players = ? AND mu IS NOT NULL ORDER BY hand_id DESC LIMIT 1 OFFSET ?",
                (guild_id, user_id, row["players"], TREND_HANDS))
            sizes.append(SizeRecord(
                row["players"], row["hands"], row["losses"], Rating(row["mu"], row["sigma"]),
                row["rank"], row["ranked"],
                Rating(before["mu"], before["sigma"]) if before else None))
        return sizes

    async def recent_places(self, guild_id: int, user_id: int, limit: int
                            ) -> list[tuple[int, int]]:
        """One player's latest finishing places, oldest first: ``(place, players)``."""
        rows = await self._all(
            "SELECT place, players FROM results WHERE guild_id = ? AND user_id = ? "
            "ORDER BY hand_id DESC LIMIT ?", (guild_id, user_id, limit))
        return [(int(row["place"]), int(row["players"])) for row in reversed(rows)]

    async def places_of(self, user_id: int, limit: int) -> list[tuple[int, int]]:
        """Where one player has rated hands, most first: ``(place, hands)`` (a place is a
        server, or a group DM or DM)."""
        rows = await self._all(
            "SELECT guild_id, hands FROM ratings WHERE user_id = ? "
            "ORDER BY hands DESC, guild_id LIMIT ?", (user_id, limit))
        return [(int(row["guild_id"]), int(row["hands"])) for row in rows]

    async def hand_changes(self, hand_id: int) -> dict[int, tuple[Rating, Rating]]:
        """Each rated player's rating at the hand's table size before and after hand
        ``hand_id`` (none for an unrated hand)."""
        rows = await self._all("SELECT guild_id, user_id, players, mu, sigma FROM results "
                               "WHERE hand_id = ? AND mu IS NOT NULL", (hand_id,))
        changes = {}
        for row in rows:
            before = await self._one(
                "SELECT mu, sigma FROM results WHERE guild_id = ? AND user_id = ? AND "
                "players = ? AND hand_id < ? AND mu IS NOT NULL ORDER BY hand_id DESC LIMIT 1",
                (row["guild_id"], row["user_id"], row["players"], hand_id))
            changes[int(row["user_id"])] = (
                Rating(float(before["mu"]), float(before["sigma"])) if before else Rating(),
                Rating(float(row["mu"]), float(row["sigma"])))
        return changes

    async def rating_history(self, guild_id: int, user_id: int, players: int) -> list[Rating]:
        """One player's rating at one table size after each of their rated hands there,
        oldest first (the rating chart)."""
        rows = await self._all(
            "SELECT mu, sigma FROM results WHERE guild_id = ? AND user_id = ? AND players = ? "
            "AND mu IS NOT NULL ORDER BY hand_id", (guild_id, user_id, players))
        return [Rating(float(row["mu"]), float(row["sigma"])) for row in rows]


def _rating(row: Row) -> RatingRecord:
    return RatingRecord(row["user_id"], row["name"], row["mu"], row["sigma"], row["hands"],
                        row["losses"], float(row["chance_losses"] or 0.0))
