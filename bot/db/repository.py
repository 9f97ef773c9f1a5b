"""All SQL the bot runs, one named method each; it returns typed records, never rows.

This module and its two parts (``ratings_queries``, ``settings_queries``) are the only ones
that speak SQL, the same SQL on SQLite and PostgreSQL, but for what is written at nearly every
tap (a move, ``_MOVE``; the records of what the messages show): PostgreSQL writes it as one
statement, a round trip to its server instead of a transaction's several. JSON columns are
decoded here and nowhere else.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime

import orjson

from bot.db.lesson_queries import LessonQueries, PracticeQueries
from bot.db.queries import Queries
from bot.db.rating_queries import RatingQueries
from bot.db.records import (
    OPEN,
    ActionRecord,
    By,
    Finish,
    HandRecord,
    HandState,
    SeatRecord,
    StoredHand,
    TableRecord,
    TableStatus,
)
from bot.db.season_queries import SeasonQueries
from bot.db.setting_queries import SettingQueries
from bot.db.storage import Database, Duplicate, Row, Transaction
from bot.db.upload_queries import UploadQueries
from rules import Action, Variant

_ACTION = "hand_id, idx, seat, act, card, target, user_id, by, forced"  # an action's row
# What changes on a hand besides its log (``HandState``): a stand-in, once it played, stays.
_HAND_STATE = ("away = ?, missed = ?, stand_in = CASE WHEN stand_in > ? THEN stand_in ELSE ? "
               "END, turn_started = ?")
# A move on PostgreSQL, as one statement (``Repository.record_action``): the table's row
# locked, the log's next index checked, the action, the hand's state and the table's last
# activity written; it answers how many actions it wrote (0: the index was not the next).
_MOVE = (
    "WITH locked AS (SELECT id FROM tables WHERE id = ? FOR UPDATE), "
    f"act AS (INSERT INTO actions ({_ACTION}) SELECT ?, ?, ?, ?, ?, ?, ?, ?, ? FROM locked "
    "WHERE (SELECT COALESCE(MAX(idx) + 1, 0) FROM actions WHERE hand_id = ?) = ? "
    "RETURNING idx), "
    f"hand AS (UPDATE hands SET {_HAND_STATE} WHERE id = ? AND EXISTS (SELECT FROM act)), "
    "tab AS (UPDATE tables SET active_at = ? WHERE id = ? AND EXISTS (SELECT FROM act)) "
    "SELECT count(*) AS written FROM act")


def _hand_state(state: HandState) -> tuple[str, str, int, int, float]:
    """``_HAND_STATE``'s values."""
    return (orjson.dumps(state.away).decode(), orjson.dumps(state.missed).decode(),
            int(state.stand_in), int(state.stand_in), state.turn_started)


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
        loser=row["loser"], finished=row["finished_at"] is not None,
        hints=bool(row["hints"]), assisted=bool(row["assisted"]))


def action_record(row: Row) -> ActionRecord:
    """An ``actions`` row as the bot reads it."""
    action = Action.from_json({"act": row["act"], "card": row["card"], "to": row["target"]})
    return ActionRecord(row["seat"], action, By(row["by"]), bool(row["forced"]))


class Repository(Queries):
    """Tables, seats, hands and the action log; with ``ratings`` (ratings and stats) and
    ``settings`` (server and player settings, the bot's own state) on the same database."""

    def __init__(self, db: Database) -> None:
        super().__init__(db)
        self.ratings = RatingQueries(db)
        self.settings = SettingQueries(db)
        self.uploads = UploadQueries(db)
        self.seasons = SeasonQueries(db)
        self.lessons = LessonQueries(db)
        self.practice = PracticeQueries(db)

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
        row = await self._one("SELECT * FROM tables WHERE id = ?", (table_id,), keyed=True)
        return _table(row) if row else None

    async def open_table_in(self, channel_id: int) -> TableRecord | None:
        """The channel's open table (lobby, playing or over), if any."""
        row = await self._one(
            "SELECT * FROM tables WHERE channel_id = ? AND status IN (?, ?, ?)",
            (channel_id, *OPEN), keyed=True)
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
                               (table_id,), keyed=True)
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
                         ai: Sequence[str | None], variant: Variant, now: float, *,
                         hints: bool = False) -> int:
        """Record a new deal and set the table playing, in one transaction; ``Outdated``
        if the table already has hand ``number`` (another process dealt it)."""
        try:
            async with self.transaction() as db:
                row = await db.one(
                    "INSERT INTO hands (table_id, number, seed, deck, dealer, players, names, "
                    "last_card, must_beat_in_suit, ai, away, missed, turn_started, hints) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '[]', ?, ?, ?) RETURNING id",
                    (table_id, number, seed, json.dumps(list(deck)), dealer,
                     json.dumps(list(players)), json.dumps(list(names), ensure_ascii=False),
                     variant.last_card, int(variant.must_beat_in_suit), json.dumps(list(ai)),
                     json.dumps([0] * len(players)), now, int(hints)))
                await db.execute("UPDATE tables SET status = 'playing', active_at = ? WHERE id = ?",
                                 (now, table_id))
        except Duplicate:
            raise Outdated() from None
        assert row is not None
        return int(row["id"])

    async def mark_assisted(self, hand_id: int) -> None:
        """Someone used a hint in hand ``hand_id``: it is marked assisted."""
        async with self.transaction() as db:
            await db.execute("UPDATE hands SET assisted = 1 WHERE id = ?", (hand_id,))

    async def last_hand(self, table_id: int) -> StoredHand | None:
        """The table's most recent hand, with its action log."""
        row = await self._one(
            "SELECT * FROM hands WHERE table_id = ? ORDER BY number DESC LIMIT 1", (table_id,),
            keyed=True)
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
        row = await self._one("SELECT * FROM hands WHERE id = ?", (hand_id,), keyed=True)
        return await self._stored(row) if row else None

    async def _stored(self, row: Row) -> StoredHand:
        actions = await self._all("SELECT * FROM actions WHERE hand_id = ? ORDER BY idx",
                                  (row["id"],), keyed=True)
        return StoredHand(hand_record(row), [action_record(a) for a in actions])

    async def set_hand_state(self, table_id: int, hand_id: int, state: HandState,
                             now: float) -> None:
        """Store who the AI plays for and the turn clock (e.g. after "I'm back")."""
        async with self.transaction() as db:
            await self._write_hand_state(db, hand_id, state)
            await db.execute("UPDATE tables SET active_at = ? WHERE id = ?", (now, table_id))

    async def _write_hand_state(self, db: Transaction, hand_id: int,
                                state: HandState) -> None:
        await db.execute(f"UPDATE hands SET {_HAND_STATE} WHERE id = ?",
                         (*_hand_state(state), hand_id))

    async def record_action(self, table_id: int, hand_id: int, index: int, seat: int,
                            action: Action, user_id: int | None, by: By, state: HandState,
                            finished: Finish | None, now: float, *, forced: bool = False
                            ) -> None:
        """Append action ``index`` with the hand's new state; a hand's result and ratings
        are written in the same transaction.

        The database serializes a table's moves, across processes too: the table's row is
        locked, and ``Outdated`` is raised (nothing written) unless ``index`` is the next
        one of the stored log, e.g. when two processes both received the same click.

        On PostgreSQL a move that does not end the hand is one statement (``_MOVE``): one
        round trip to the server, where the transaction takes seven. Its snapshot is taken
        before the lock is granted, so its check does not see an action that another process
        wrote meanwhile; the log's primary key refuses the second one (``Duplicate``).
        """
        row = (hand_id, index, seat, action.act,
               str(action.card) if action.card is not None else None, action.to, user_id,
               str(by), int(forced))
        try:
            if finished is None and self.db.dialect == "postgresql":
                written = await self.db.write(_MOVE, (table_id, *row, hand_id, index,
                                                      *_hand_state(state), hand_id, now,
                                                      table_id))
                if written is None or not written["written"]:
                    raise Outdated()
                return
            async with self.transaction() as db:
                await self._record(db, table_id, hand_id, index)
                await db.execute(f"INSERT INTO actions ({_ACTION}) VALUES "
                                 "(?, ?, ?, ?, ?, ?, ?, ?, ?)", row)
                await self._write_hand_state(db, hand_id, state)
                await db.execute("UPDATE tables SET active_at = ? WHERE id = ?", (now, table_id))
                if finished is not None:
                    await self._finish(db, table_id, hand_id, finished)
        except Duplicate:
            raise Outdated() from None

    async def _record(self, db: Transaction, table_id: int, hand_id: int, index: int) -> None:
        """Lock the table's row, and refuse an ``index`` other than the log's next."""
        await self._lock(db, "SELECT id FROM tables WHERE id = ? FOR UPDATE", (table_id,))
        await db.require("SELECT COALESCE(MAX(idx) + 1, 0) = ? FROM actions WHERE hand_id = ?",
                         (index, hand_id), Outdated)

    async def _finish(self, db: Transaction, table_id: int, hand_id: int,
                      finished: Finish) -> None:
        outcome = finished.outcome
        await db.execute(
            "UPDATE hands SET loser = ?, finishing_order = ?, rated = ?, finished_at = "
            "? WHERE id = ?",
            (outcome.loser, json.dumps(list(outcome.order)), int(finished.rated), _now_text(),
             hand_id))
        await db.execute("UPDATE tables SET status = 'over' WHERE id = ?", (table_id,))
        await self.ratings.rate(db, hand_id, finished)

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


def _now_text() -> str:
    """Now, as the text timestamps of the schema: ``2026-01-31T12:00:00.000Z``."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
