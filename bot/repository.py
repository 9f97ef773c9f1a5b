"""All SQL the bot runs, one named method each; it returns typed records, never rows.

This is the only module that speaks SQL: another backend would implement the same methods.
JSON columns are decoded here and nowhere else.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from datetime import UTC, datetime
from typing import Any

from rules import Action, Variant

from .ratings import TREND_HANDS, Placed, Rating, rate, rate_all
from .records import (
    OPEN,
    ActionRecord,
    By,
    Finish,
    GuildSettings,
    HandRecord,
    HandState,
    RatingRecord,
    SeatRecord,
    SizeRecord,
    StoredHand,
    TableRecord,
    TableStatus,
)
from .storage import Database, Duplicate, Row, Transaction

# Advisory lock class (PostgreSQL) for a server's ratings while a hand's result is written.
RATINGS_LOCK = 19


class Outdated(Exception):
    """The table changed in the database since this process cached it (another process
    played, e.g. during a hand-over): nothing was written; reload the table and judge the
    request again."""


def _table(row: Row) -> TableRecord:
    return TableRecord(
        id=row["id"], guild_id=row["guild_id"], channel_id=row["channel_id"],
        host_id=row["host_id"], max_seats=row["max_seats"],
        variant=Variant(row["last_card"], bool(row["must_beat_in_suit"])),
        status=TableStatus(row["status"]), message_id=row["message_id"],
        turn_seconds=row["turn_seconds"], quarantined=row["quarantined"])


def hand_record(row: Row) -> HandRecord:
    """A ``hands`` row as the bot reads it (JSON columns decoded)."""
    players = json.loads(row["players"])
    state = None
    if row["turn_started"] is not None:
        state = HandState(json.loads(row["away"]), json.loads(row["missed"]) or
                          [0] * len(players), bool(row["stand_in"]), row["turn_started"])
    return HandRecord(
        id=row["id"], table_id=row["table_id"], number=row["number"], seed=row["seed"],
        deck=json.loads(row["deck"]), dealer=row["dealer"], players=players,
        names=json.loads(row["names"]), ai=json.loads(row["ai"]) or [None] * len(players),
        variant=Variant(row["last_card"], bool(row["must_beat_in_suit"])), state=state,
        loser=row["loser"], finished=row["finished_at"] is not None)


def action_record(row: Row) -> ActionRecord:
    """An ``actions`` row as the bot reads it."""
    action = Action.from_json({"act": row["act"], "card": row["card"], "to": row["target"]})
    return ActionRecord(row["seat"], action, By(row["by"]), bool(row["forced"]))


class Repository:
    """Tables, seats, hands, the action log, ratings and server settings."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def transaction(self) -> AbstractAsyncContextManager[Transaction]:
        """All or nothing: see ``Database.transaction``."""
        return self.db.transaction()

    async def _one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        return await self.db.one(sql, params)

    async def _all(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return await self.db.all(sql, params)

    async def _lock(self, db: Transaction, sql: str, params: Sequence[Any]) -> None:
        """Take a row or advisory lock on PostgreSQL, where transactions run side by side;
        on SQLite, ``BEGIN IMMEDIATE`` already holds the one write lock."""
        if self.db.dialect == "postgresql":
            await db.execute(sql, params)

    # --- tables ----------------------------------------------------------------------------

    async def create_table(self, guild_id: int | None, channel_id: int, host_id: int,
                           host_name: str, max_seats: int, variant: Variant,
                           turn_seconds: int, now: float) -> int:
        """A new lobby with its host seated; raises ``Duplicate`` if one is open."""
        async with self.transaction() as db:
            row = await db.one(
                "INSERT INTO tables (guild_id, channel_id, host_id, max_seats, last_card, "
                "must_beat_in_suit, turn_seconds, active_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                "RETURNING id",
                (guild_id, channel_id, host_id, max_seats, variant.last_card,
                 int(variant.must_beat_in_suit), turn_seconds, now))
            assert row is not None
            table_id = int(row["id"])
            await db.execute("INSERT INTO seats (table_id, user_id, name, joined) "
                             "VALUES (?, ?, ?, 0)", (table_id, host_id, host_name))
        return table_id

    async def table(self, table_id: int) -> TableRecord | None:
        """One table by id."""
        row = await self._one("SELECT * FROM tables WHERE id = ?", (table_id,))
        return _table(row) if row else None

    async def open_table_in(self, channel_id: int) -> TableRecord | None:
        """The channel's open table (lobby, playing or over), if any."""
        row = await self._one(
            "SELECT * FROM tables WHERE channel_id = ? AND status IN (?, ?, ?)",
            (channel_id, *OPEN))
        return _table(row) if row else None

    async def open_tables(self) -> list[TableRecord]:
        """Every open table, for resuming after a restart."""
        rows = await self._all("SELECT * FROM tables WHERE status IN (?, ?, ?) ORDER BY id",
                               OPEN)
        return [_table(row) for row in rows]

    async def set_message(self, table_id: int, message_id: int) -> None:
        """Remember the table message."""
        async with self.transaction() as db:
            await db.execute("UPDATE tables SET message_id = ? WHERE id = ?",
                             (message_id, table_id))

    async def set_status(self, table_id: int, status: TableStatus, now: float) -> None:
        """Move a table to ``status``."""
        async with self.transaction() as db:
            await db.execute("UPDATE tables SET status = ?, active_at = ? WHERE id = ?",
                             (str(status), now, table_id))

    async def quarantine_table(self, table_id: int, reason: str, now: float) -> None:
        """Stop a table whose hand does not rebuild: it is ended (no longer open, so its
        channel may open another) and keeps the reason; its hand and actions stay as stored."""
        async with self.transaction() as db:
            await db.execute("UPDATE tables SET status = 'ended', quarantined = ?, active_at = ? "
                             "WHERE id = ?", (reason, now, table_id))

    # --- seats -----------------------------------------------------------------------------

    async def seats(self, table_id: int) -> list[SeatRecord]:
        """The seats of the next hand (the lobby's, before the first), in join order."""
        rows = await self._all("SELECT * FROM seats WHERE table_id = ? ORDER BY joined",
                               (table_id,))
        return [SeatRecord(row["user_id"], row["name"], row["ai"]) for row in rows]

    async def add_seat(self, table_id: int, user_id: int, name: str, ai: str | None,
                       now: float) -> None:
        """Seat a person (or an AI, with a negative id) after everyone already seated."""
        async with self.transaction() as db:
            await db.execute(
                "INSERT INTO seats (table_id, user_id, name, joined, ai) VALUES (?, ?, ?, "
                "(SELECT COALESCE(MAX(joined), -1) + 1 FROM seats WHERE table_id = ?), ?)",
                (table_id, user_id, name, table_id, ai))
            await db.execute("UPDATE tables SET active_at = ? WHERE id = ?", (now, table_id))

    async def remove_seat(self, table_id: int, user_id: int, now: float, *,
                          host_id: int | None = None) -> None:
        """Free a seat for the next hand (a running hand keeps its own seats); ``host_id``
        hands the table on in the same transaction, so it never has a host who left."""
        async with self.transaction() as db:
            await db.execute("DELETE FROM seats WHERE table_id = ? AND user_id = ?",
                             (table_id, user_id))
            if host_id is not None:
                await db.execute("UPDATE tables SET host_id = ? WHERE id = ?",
                                 (host_id, table_id))
            await db.execute("UPDATE tables SET active_at = ? WHERE id = ?", (now, table_id))

    # --- hands and actions -----------------------------------------------------------------

    async def start_hand(self, table_id: int, number: int, seed: str, deck: Sequence[str],
                         dealer: int, players: Sequence[int], names: Sequence[str],
                         ai: Sequence[str | None], variant: Variant, now: float) -> int:
        """Record a new deal and set the table playing, in one transaction; ``Outdated``
        if the table already has hand ``number`` (another process dealt it)."""
        try:
            async with self.transaction() as db:
                row = await db.one(
                    "INSERT INTO hands (table_id, number, seed, deck, dealer, players, names, "
                    "last_card, must_beat_in_suit, ai, away, missed, turn_started) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '[]', ?, ?) RETURNING id",
                    (table_id, number, seed, json.dumps(list(deck)), dealer,
                     json.dumps(list(players)), json.dumps(list(names), ensure_ascii=False),
                     variant.last_card, int(variant.must_beat_in_suit), json.dumps(list(ai)),
                     json.dumps([0] * len(players)), now))
                await db.execute("UPDATE tables SET status = 'playing', active_at = ? WHERE id = ?",
                                 (now, table_id))
        except Duplicate:
            raise Outdated() from None
        assert row is not None
        return int(row["id"])

    async def last_hand(self, table_id: int) -> StoredHand | None:
        """The table's most recent hand, with its action log."""
        row = await self._one(
            "SELECT * FROM hands WHERE table_id = ? ORDER BY number DESC LIMIT 1", (table_id,))
        return await self._stored(row) if row else None

    async def last_finished_hand_in(self, channel_id: int) -> StoredHand | None:
        """The newest finished hand played in a channel, for export."""
        row = await self._one(
            "SELECT hands.* FROM hands JOIN tables ON tables.id = hands.table_id "
            "WHERE tables.channel_id = ? AND hands.finished_at IS NOT NULL "
            "ORDER BY hands.finished_at DESC, hands.id DESC LIMIT 1", (channel_id,))
        return await self._stored(row) if row else None

    async def finished_hands_in(self, channel_id: int, limit: int) -> list[HandRecord]:
        """A channel's latest finished hands, newest first."""
        rows = await self._all(
            "SELECT hands.* FROM hands JOIN tables ON tables.id = hands.table_id "
            "WHERE tables.channel_id = ? AND hands.finished_at IS NOT NULL "
            "ORDER BY hands.finished_at DESC, hands.id DESC LIMIT ?", (channel_id, limit))
        return [hand_record(row) for row in rows]

    async def hand_in_channel(self, channel_id: int, number: int, table_id: int | None
                              ) -> StoredHand | None:
        """Hand ``number`` of a table played in this channel: ``table_id``'s, or the
        channel's latest table that has such a hand; finished or not."""
        if table_id is None:
            row = await self._one(
                "SELECT hands.* FROM hands JOIN tables ON tables.id = hands.table_id "
                "WHERE tables.channel_id = ? AND hands.number = ? "
                "ORDER BY tables.id DESC LIMIT 1", (channel_id, number))
        else:
            row = await self._one(
                "SELECT hands.* FROM hands JOIN tables ON tables.id = hands.table_id "
                "WHERE tables.channel_id = ? AND hands.number = ? AND tables.id = ?",
                (channel_id, number, table_id))
        return await self._stored(row) if row else None

    async def replay(self, hand_id: int) -> StoredHand | None:
        """One hand and its action log: ``.game()`` rebuilds it, ``.replay()`` exports it."""
        row = await self._one("SELECT * FROM hands WHERE id = ?", (hand_id,))
        return await self._stored(row) if row else None

    async def _stored(self, row: Row) -> StoredHand:
        actions = await self._all("SELECT * FROM actions WHERE hand_id = ? ORDER BY idx",
                                  (row["id"],))
        return StoredHand(hand_record(row), [action_record(a) for a in actions])

    async def set_hand_state(self, table_id: int, hand_id: int, state: HandState,
                             now: float) -> None:
        """Store who the AI plays for and the turn clock (e.g. after "I'm back")."""
        async with self.transaction() as db:
            await self._write_hand_state(db, hand_id, state)
            await db.execute("UPDATE tables SET active_at = ? WHERE id = ?", (now, table_id))

    async def _write_hand_state(self, db: Transaction, hand_id: int,
                                state: HandState) -> None:
        await db.execute(
            "UPDATE hands SET away = ?, missed = ?, stand_in = CASE WHEN stand_in > ? "
            "THEN stand_in ELSE ? END, turn_started = ? WHERE id = ?",
            (json.dumps(state.away), json.dumps(state.missed), int(state.stand_in),
             int(state.stand_in), state.turn_started, hand_id))

    async def record_action(self, table_id: int, hand_id: int, index: int, seat: int,
                            action: Action, user_id: int | None, by: By, state: HandState,
                            finished: Finish | None, now: float, *, forced: bool = False
                            ) -> None:
        """Append action ``index`` with the hand's new state; a hand's result and ratings
        are written in the same transaction.

        The database serializes a table's moves, across processes too: the table's row is
        locked, and ``Outdated`` is raised (nothing written) unless ``index`` is the next
        one of the stored log, e.g. when two processes both received the same click.
        """
        try:
            async with self.transaction() as db:
                await self._record(db, table_id, hand_id, index)
                await db.execute(
                    "INSERT INTO actions (hand_id, idx, seat, act, card, target, user_id, by, "
                    "forced) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (hand_id, index, seat, action.act,
                     str(action.card) if action.card is not None else None, action.to, user_id,
                     str(by), int(forced)))
                await self._write_hand_state(db, hand_id, state)
                await db.execute("UPDATE tables SET active_at = ? WHERE id = ?", (now, table_id))
                if finished is not None:
                    await self._finish(db, table_id, hand_id, finished)
        except Duplicate:
            raise Outdated() from None

    async def _record(self, db: Transaction, table_id: int, hand_id: int, index: int) -> None:
        """Lock the table's row, and refuse an ``index`` other than the log's next."""
        await self._lock(db, "SELECT id FROM tables WHERE id = ? FOR UPDATE", (table_id,))
        row = await db.one("SELECT COALESCE(MAX(idx) + 1, 0) FROM actions WHERE hand_id = ?",
                           (hand_id,))
        if row is None or int(row[0]) != index:
            raise Outdated()

    async def _finish(self, db: Transaction, table_id: int, hand_id: int,
                      finished: Finish) -> None:
        outcome = finished.outcome
        await db.execute(
            "UPDATE hands SET loser = ?, finishing_order = ?, rated = ?, finished_at = "
            "? WHERE id = ?",
            (outcome.loser, json.dumps(list(outcome.order)), int(finished.rated), _now_text(),
             hand_id))
        await db.execute("UPDATE tables SET status = 'over' WHERE id = ?", (table_id,))
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

    # --- server settings -------------------------------------------------------------------

    async def guild_settings(self, guild_id: int | None) -> GuildSettings:
        """The server's defaults for new tables."""
        row = await self._one("SELECT * FROM guild_settings WHERE guild_id = ?", (guild_id,))
        if row is None:
            return GuildSettings()
        return GuildSettings(row["seats"], row["last_card"], bool(row["must_beat_in_suit"]),
                             row["turn_seconds"], bool(row["allow_ai"]), row["language"],
                             row["pictures"])

    async def save_guild_settings(self, guild_id: int, settings: GuildSettings) -> None:
        async with self.transaction() as db:
            await db.execute(
                "INSERT INTO guild_settings (guild_id, seats, last_card, must_beat_in_suit, "
                "turn_seconds, allow_ai, language, pictures) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (guild_id) DO "
                "UPDATE SET seats = excluded.seats, last_card = excluded.last_card, "
                "must_beat_in_suit = excluded.must_beat_in_suit, "
                "turn_seconds = excluded.turn_seconds, allow_ai = excluded.allow_ai, "
                "language = excluded.language, pictures = excluded.pictures",
                (guild_id, settings.seats, settings.last_card, int(settings.must_beat_in_suit),
                 settings.turn_seconds, int(settings.allow_ai), settings.language,
                 settings.pictures))

    # --- a player's own choices ------------------------------------------------------------

    async def card_style(self, user_id: int) -> str | None:
        """How a player chose to see their own cards (None: as the server shows them)."""
        row = await self._one("SELECT cards FROM player_settings WHERE user_id = ?",
                              (user_id,))
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
        row = await self._one("SELECT value FROM bot_state WHERE key = ?", (key,))
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
        """Keep (or, for None, forget) several values in one transaction."""
        kept = [(k, v) for k, v in values.items() if v is not None]
        gone = [(k,) for k, v in values.items() if v is None]
        async with self.transaction() as db:
            await db.executemany("INSERT INTO bot_state (key, value) VALUES (?, ?) "
                                 "ON CONFLICT (key) DO UPDATE SET value = excluded.value", kept)
            await db.executemany("DELETE FROM bot_state WHERE key = ?", gone)

    async def active_times(self) -> dict[int, float]:
        """When each open table last changed (unix time)."""
        rows = await self._all("SELECT id, active_at FROM tables WHERE status IN (?, ?, ?)",
                               OPEN)
        return {row["id"]: float(row["active_at"] or 0.0) for row in rows}

    # --- idle tables -----------------------------------------------------------------------

    async def idle_tables(self, before: float) -> list[int]:
        """Open tables with no change since ``before`` (unix time)."""
        rows = await self._all(
            "SELECT id FROM tables WHERE status IN (?, ?, ?) AND COALESCE(active_at, 0) < ?",
            (*OPEN, before))
        return [row["id"] for row in rows]


def _rating(row: Row) -> RatingRecord:
    return RatingRecord(row["user_id"], row["name"], row["mu"], row["sigma"], row["hands"],
                        row["losses"], float(row["chance_losses"] or 0.0))


def _now_text() -> str:
    """Now, as the text timestamps of the schema: ``2026-01-31T12:00:00.000Z``."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
