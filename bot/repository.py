"""All SQL the bot runs, one named method each."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import aiosqlite

from rules import Action, Outcome, Variant

OPEN = ("lobby", "playing", "over")


class Repository:
    """Tables, seats, hands and the action log, over one aiosqlite connection."""

    def __init__(self, db: aiosqlite.Connection) -> None:
        self.db = db
        # One connection is shared by every coroutine: transactions must not interleave.
        self._write = asyncio.Lock()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """``BEGIN IMMEDIATE`` … ``COMMIT``, or ``ROLLBACK`` on any error."""
        async with self._write:
            await self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
            except BaseException:
                await self.db.rollback()
                raise
            await self.db.commit()

    async def _one(self, sql: str, params: Sequence[Any] = ()) -> aiosqlite.Row | None:
        async with self.db.execute(sql, params) as cursor:
            return await cursor.fetchone()

    async def _all(self, sql: str, params: Sequence[Any] = ()) -> list[aiosqlite.Row]:
        async with self.db.execute(sql, params) as cursor:
            return list(await cursor.fetchall())

    # --- tables ----------------------------------------------------------------------------

    async def create_table(self, guild_id: int | None, channel_id: int, host_id: int,
                           host_name: str, max_seats: int, variant: Variant) -> int:
        """A new lobby with its host seated; raises ``sqlite3.IntegrityError`` if one is open."""
        async with self.transaction() as db:
            cursor = await db.execute(
                "INSERT INTO tables (guild_id, channel_id, host_id, max_seats, last_card, "
                "must_beat_in_suit) VALUES (?, ?, ?, ?, ?, ?)",
                (guild_id, channel_id, host_id, max_seats, variant.last_card,
                 int(variant.must_beat_in_suit)))
            table_id = cursor.lastrowid
            assert table_id is not None
            await db.execute("INSERT INTO seats (table_id, user_id, name, joined) "
                             "VALUES (?, ?, ?, 0)", (table_id, host_id, host_name))
        return table_id

    async def table(self, table_id: int) -> aiosqlite.Row | None:
        """One table by id."""
        return await self._one("SELECT * FROM tables WHERE id = ?", (table_id,))

    async def open_table_in(self, channel_id: int) -> aiosqlite.Row | None:
        """The channel's open table (lobby, playing or over), if any."""
        return await self._one(
            "SELECT * FROM tables WHERE channel_id = ? AND status IN (?, ?, ?)",
            (channel_id, *OPEN))

    async def open_tables(self) -> list[aiosqlite.Row]:
        """Every open table, for resuming after a restart."""
        return await self._all("SELECT * FROM tables WHERE status IN (?, ?, ?) ORDER BY id",
                               OPEN)

    async def set_message(self, table_id: int, message_id: int) -> None:
        """Remember the table message."""
        async with self.transaction() as db:
            await db.execute("UPDATE tables SET message_id = ? WHERE id = ?",
                             (message_id, table_id))

    async def set_status(self, table_id: int, status: str) -> None:
        """Move a table to ``status``."""
        async with self.transaction() as db:
            await db.execute(
                "UPDATE tables SET status = ?, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', "
                "'now') WHERE id = ?", (status, table_id))

    async def set_host(self, table_id: int, host_id: int) -> None:
        """Hand the table to another seated user."""
        async with self.transaction() as db:
            await db.execute("UPDATE tables SET host_id = ? WHERE id = ?", (host_id, table_id))

    # --- seats -----------------------------------------------------------------------------

    async def seats(self, table_id: int) -> list[aiosqlite.Row]:
        """The lobby's seats in join order."""
        return await self._all("SELECT * FROM seats WHERE table_id = ? ORDER BY joined",
                               (table_id,))

    async def add_seat(self, table_id: int, user_id: int, name: str) -> None:
        """Seat a user after everyone already seated."""
        async with self.transaction() as db:
            await db.execute(
                "INSERT INTO seats (table_id, user_id, name, joined) VALUES (?, ?, ?, "
                "(SELECT COALESCE(MAX(joined), -1) + 1 FROM seats WHERE table_id = ?))",
                (table_id, user_id, name, table_id))

    async def remove_seat(self, table_id: int, user_id: int) -> None:
        """Free a user's lobby seat."""
        async with self.transaction() as db:
            await db.execute("DELETE FROM seats WHERE table_id = ? AND user_id = ?",
                             (table_id, user_id))

    # --- hands and actions -----------------------------------------------------------------

    async def start_hand(self, table_id: int, number: int, seed: str, deck: Sequence[str],
                         dealer: int, players: Sequence[int], names: Sequence[str],
                         variant: Variant) -> int:
        """Record a new deal and set the table playing, in one transaction."""
        async with self.transaction() as db:
            cursor = await db.execute(
                "INSERT INTO hands (table_id, number, seed, deck, dealer, players, names, "
                "last_card, must_beat_in_suit) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (table_id, number, seed, json.dumps(list(deck)), dealer,
                 json.dumps(list(players)),
                 json.dumps(list(names), ensure_ascii=False), variant.last_card,
                 int(variant.must_beat_in_suit)))
            await db.execute("UPDATE tables SET status = 'playing' WHERE id = ?", (table_id,))
            hand_id = cursor.lastrowid
        assert hand_id is not None
        return hand_id

    async def last_hand(self, table_id: int) -> aiosqlite.Row | None:
        """The table's most recent hand."""
        return await self._one(
            "SELECT * FROM hands WHERE table_id = ? ORDER BY number DESC LIMIT 1", (table_id,))

    async def actions(self, hand_id: int) -> list[aiosqlite.Row]:
        """A hand's action log in order."""
        return await self._all("SELECT * FROM actions WHERE hand_id = ? ORDER BY idx",
                               (hand_id,))

    async def record_action(self, table_id: int, hand_id: int, index: int, seat: int,
                            action: Action, user_id: int | None,
                            outcome: Outcome | None) -> None:
        """Append an action; if it ended the hand, record the result in the same transaction."""
        async with self.transaction() as db:
            await db.execute(
                "INSERT INTO actions (hand_id, idx, seat, act, card, target, user_id) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (hand_id, index, seat, action.act,
                 str(action.card) if action.card is not None else None, action.to, user_id))
            if outcome is not None:
                await db.execute(
                    "UPDATE hands SET loser = ?, finishing_order = ?, finished_at = "
                    "strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?",
                    (outcome.loser, json.dumps(list(outcome.order)), hand_id))
                await db.execute("UPDATE tables SET status = 'over' WHERE id = ?", (table_id,))
