"""The repository's lessons: where each learner is in the guided first hand, and each
player's practice hand."""

from __future__ import annotations

from dataclasses import dataclass

from bot.db.queries import Queries


@dataclass(frozen=True)
class Progress:
    """A learner's place in a lesson: the step reached, and whether they finished it."""

    lesson: str
    step: int
    finished: bool


class LessonQueries(Queries):
    """Each learner's progress through ``/nlk learn``, and who was pointed to it."""

    async def link_once(self, user_id: int) -> bool:
        """Whether ``user_id`` is to be shown the lesson's link now: true the first time,
        never again (kept across restarts)."""
        async with self.transaction() as db:
            if await db.one("SELECT 1 FROM lesson_links WHERE user_id = ?", (user_id,)):
                return False
            await db.execute("INSERT INTO lesson_links (user_id) VALUES (?) "
                             "ON CONFLICT (user_id) DO NOTHING", (user_id,))
            return True

    async def progress(self, user_id: int) -> Progress | None:
        """Where ``user_id`` is in their lesson, or None if they never started one."""
        row = await self._one("SELECT lesson, step, finished FROM lessons WHERE user_id = ?",
                              (user_id,), keyed=True)
        if row is None:
            return None
        return Progress(str(row["lesson"]), int(row["step"]), bool(row["finished"]))

    async def save_progress(self, user_id: int, progress: Progress) -> None:
        """Remember where ``user_id`` is (one row per learner)."""
        async with self.transaction() as db:
            await db.execute(
                "INSERT INTO lessons (user_id, lesson, step, finished) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET lesson = excluded.lesson, "
                "step = excluded.step, finished = excluded.finished",
                (user_id, progress.lesson, progress.step, int(progress.finished)))


@dataclass(frozen=True)
class StoredPractice:
    """A player's practice hand as stored: its number (the how-many-th of theirs), its
    seats, the AI's level, the deal's seed, its moves (rule-book notation) and hints."""

    number: int
    players: int
    level: str
    seed: str
    moves: str
    hints: int


class PracticeQueries(Queries):
    """Each player's practice hand (``/nlk practice``), never rated."""

    async def practice(self, user_id: int) -> StoredPractice | None:
        """``user_id``'s practice hand, or None if they never started one."""
        row = await self._one("SELECT number, players, level, seed, moves, hints "
                              "FROM practice_hands WHERE user_id = ?", (user_id,),
                              keyed=True)
        if row is None:
            return None
        return StoredPractice(int(row["number"]), int(row["players"]), str(row["level"]),
                              str(row["seed"]), str(row["moves"]), int(row["hints"]))

    async def save_practice(self, user_id: int, hand: StoredPractice) -> None:
        """Keep ``user_id``'s practice hand (one row per player: a new hand replaces it)."""
        async with self.transaction() as db:
            await db.execute(
                "INSERT INTO practice_hands (user_id, number, players, level, seed, moves, "
                "hints) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET "
                "number = excluded.number, players = excluded.players, "
                "level = excluded.level, seed = excluded.seed, moves = excluded.moves, "
                "hints = excluded.hints",
                (user_id, hand.number, hand.players, hand.level, hand.seed, hand.moves,
                 hand.hints))
