"""The repository's uploaded replays: files opened with ``/nlk replay file:``, kept under the
hash of their content so that their step buttons find them again after a restart."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.db.queries import Queries


class UploadQueries(Queries):
    """Uploaded replay files, by content hash."""

    async def keep(self, digest: str, body: str) -> None:
        """Keep ``body`` under ``digest`` (a file kept already stays as it is)."""
        now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
        async with self.transaction() as db:
            await db.execute(
                "INSERT INTO uploaded_replays (digest, body, uploaded_at) VALUES (?, ?, ?) "
                "ON CONFLICT (digest) DO NOTHING", (digest, body, now))

    async def body(self, digest: str) -> str | None:
        """The file kept under ``digest``, or None."""
        row = await self._one("SELECT body FROM uploaded_replays WHERE digest = ?", (digest,))
        return str(row["body"]) if row else None
