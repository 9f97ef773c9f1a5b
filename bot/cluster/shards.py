"""Which Discord shards a process owns, and so which servers' tables it runs.

A server belongs to shard ``(guild_id >> 22) % shard_count``; events without a server (DMs)
reach shard 0. ``NLK_SHARDS=0-3/8`` makes a process own shards 0 to 3 of 8:

>>> shards = Shards.parse("0-3/8")
>>> shards.ids, shards.count
((0, 1, 2, 3), 8)
>>> shards.owns_guild(5 << 22), shards.owns_guild(None)
(False, True)
>>> [str(part) for part in deal(3, 8)]
['0-2/8', '3-5/8', '6-7/8']
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_FORM = re.compile(r"^(\d+)(?:-(\d+))?/(\d+)$")


@dataclass(frozen=True)
class Shards:
    """A contiguous run of shard ids out of ``count``."""

    first: int
    last: int
    count: int

    def __post_init__(self) -> None:
        if self.count < 1:
            raise ValueError(f"a bot has at least one shard, not {self.count}")
        if not 0 <= self.first <= self.last < self.count:
            raise ValueError(f"shards {self.first}-{self.last} are not among 0-{self.count - 1}")

    @classmethod
    def parse(cls, text: str) -> Shards:
        """``"2/8"`` (one shard) or ``"0-3/8"`` (a run of them); ``ValueError`` otherwise."""
        found = _FORM.match(text.strip())
        if found is None:
            raise ValueError(f"{text!r} is not FIRST-LAST/COUNT (for example 0-3/8) or ID/COUNT")
        first = int(found[1])
        last = int(found[2]) if found[2] is not None else first
        return cls(first, last, int(found[3]))

    def __str__(self) -> str:
        run = str(self.first) if self.first == self.last else f"{self.first}-{self.last}"
        return f"{run}/{self.count}"

    @property
    def ids(self) -> tuple[int, ...]:
        return tuple(range(self.first, self.last + 1))

    @property
    def everything(self) -> bool:
        """Whether this is the whole bot (one process owns every shard)."""
        return self.first == 0 and self.last == self.count - 1

    @property
    def share(self) -> float:
        """The part of the bot's shards (and so of its global REST budget) owned here."""
        return len(self.ids) / self.count

    def owns_guild(self, guild_id: int | None) -> bool:
        """Whether the server's events reach this process (None: a DM, shard 0's)."""
        return self.owns(shard_of(guild_id, self.count))

    def owns(self, shard_id: int) -> bool:
        return self.first <= shard_id <= self.last


def shard_of(guild_id: int | None, count: int) -> int:
    """The shard a server belongs to, as Discord computes it."""
    return 0 if guild_id is None else (guild_id >> 22) % count


def deal(processes: int, count: int) -> list[Shards]:
    """``count`` shards dealt evenly to ``processes`` processes, in order (the first ones
    take one more when they do not divide)."""
    if not 1 <= processes <= count:
        raise ValueError(f"{processes} processes cannot share {count} shard(s): "
                         "each process needs at least one")
    parts, first = [], 0
    for n in range(processes):
        size = count // processes + (1 if n < count % processes else 0)
        parts.append(Shards(first, first + size - 1, count))
        first += size
    return parts
