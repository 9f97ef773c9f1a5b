"""Where a replay comes from: a finished hand of this server, or an uploaded
``nlk-replay/1`` file kept under its content hash; and what each replay is called in a custom
id (its *ref*), so a step button finds the same hand again, after a restart too.

A hand in play is never opened (its hands are secret until it ends), nor a hand of another
server, whatever a custom id says.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from enum import StrEnum

from bot.db.records import StoredHand
from bot.db.repository import Repository
from bot.errors import HandInPlay
from bot.guilds.service import GuildService
from rules.errors import NLKError
from rules.replay import Replay, read_records

MAX_FILE = 1_000_000  # bytes: a whole hand of nine seats is some 20 KB
DIGEST_CHARS = 32  # 128 bits of the file's SHA-256: no two files meet by chance
REF = re.compile(rf"h(?P<hand>[0-9]{{1,18}})|f(?P<file>[0-9a-f]{{{DIGEST_CHARS}}})")


class ReplayReason(StrEnum):
    """Why a replay cannot be opened: each picks one sentence for the reader."""

    IN_PLAY = "in_play"  # details: number, table
    NONE_YET = "none_yet"  # no hand of this channel has finished
    TOO_BIG = "too_big"  # details: limit (KB)
    BAD_FILE = "bad_file"  # details: why (``Record.why``), line, column, index
    UNREADABLE = "unreadable"  # Discord did not let the bot read the file
    GONE = "gone"  # the replay a button named is not here any more
    NO_STEP = "no_step"  # a step button that makes no sense any more


class ReplayRefused(Exception):
    """A replay that cannot be opened; ``reason`` (a ``ReplayReason``) picks the sentence the
    reader gets, ``details`` fill it. No English text travels in it: each reader's sentence
    is whole, in their language (issue 37: "bad JSON: Expecting value: line…" was English,
    and cut)."""

    def __init__(self, reason: ReplayReason, **details: object) -> None:
        super().__init__(reason)
        self.reason = reason
        self.details = details


@dataclass(frozen=True)
class Opened:
    """A replay and what names it: its ref, and its table and hand number when stored."""

    ref: str
    replay: Replay
    table_id: int | None = None
    number: int | None = None


class ReplaySource:
    """Opens replays for reading; stores nothing but uploaded files."""

    def __init__(self, repo: Repository, servers: GuildService) -> None:
        self.repo = repo
        self.servers = servers

    async def from_channel(self, channel_id: int, which: str | None) -> Opened:
        """A finished hand of this channel, chosen as ``/nlk export`` chooses it."""
        try:
            stored = await self.servers.hand_to_export(channel_id, which)
        except HandInPlay as in_play:
            raise ReplayRefused(ReplayReason.IN_PLAY, **in_play.details) from None
        return _stored(stored)

    async def from_file(self, data: bytes) -> Opened:
        """An uploaded file's first replay, kept so its buttons can find it again."""
        if len(data) > MAX_FILE:
            raise ReplayRefused(ReplayReason.TOO_BIG, limit=MAX_FILE // 1000)
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ReplayRefused(ReplayReason.BAD_FILE, why="utf8") from None
        replay = _first_replay(text)
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:DIGEST_CHARS]
        await self.repo.uploads.keep(digest, text)
        return Opened(f"f{digest}", replay)

    async def by_ref(self, ref: str, guild_id: int | None) -> Opened:
        """The replay a button names, if it is still there and belongs to this place (a
        server, or a group DM or DM)."""
        found = REF.fullmatch(ref)
        if found is None:
            raise ReplayRefused(ReplayReason.GONE)
        if found["file"]:
            text = await self.repo.uploads.body(found["file"])
            if text is None:
                raise ReplayRefused(ReplayReason.GONE)
            return Opened(ref, _first_replay(text))
        stored = await self.repo.replay(int(found["hand"]))
        if stored is None:
            raise ReplayRefused(ReplayReason.GONE)
        table = await self.repo.table(stored.hand.table_id)
        if table is None or (table.guild_id if table.guild_id is not None
                             else table.channel_id) != guild_id:
            raise ReplayRefused(ReplayReason.GONE)
        if not stored.hand.finished and table.status.is_open:
            # (A hand cut short because its table ended is over: its seed is public.)
            raise ReplayRefused(ReplayReason.IN_PLAY, number=stored.hand.number, table=table.id)
        return _stored(stored)


def _stored(stored: StoredHand) -> Opened:
    hand = stored.hand
    return Opened(f"h{hand.id}", stored.replay(), hand.table_id, hand.number)


def _first_replay(text: str) -> Replay:
    """The file's first replay; a file whose first object is not one is refused with what
    is wrong with it."""
    try:
        for record in read_records(text):
            if record.replay is None:
                raise ReplayRefused(ReplayReason.BAD_FILE, why=record.why or "invalid",
                                    **record.details)
            return record.replay
    except (NLKError, ValueError, TypeError, KeyError, AttributeError):
        # Whatever else a hand-made file trips over in the reader: still one polite line.
        raise ReplayRefused(ReplayReason.BAD_FILE, why="invalid") from None
    raise ReplayRefused(ReplayReason.BAD_FILE, why="empty")
