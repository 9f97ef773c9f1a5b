"""A file held in memory (a picture, an export) to send with a message.

discord.py's ``File`` stubs its buffer's ``close`` while a request may still retry, and puts
the buffer's own ``close`` back once the request is done, in the buffer's attributes: the
buffer then holds a method that holds the buffer, a cycle that only Python's cyclic collector
frees. Every picture sent made one, and with the other cycles of a tap they had the collector
stop the event loop every few seconds. ``MemoryFile`` puts ``close`` back by removing the stub,
which leaves the buffer as it was made: nothing to collect but by its count of references.
"""

from __future__ import annotations

import io

import discord


class MemoryFile(discord.File):
    """A ``discord.File`` of bytes in memory that leaves no cycle behind once sent."""

    def __init__(self, data: bytes, filename: str, *, description: str | None = None,
                 spoiler: bool = False) -> None:
        super().__init__(io.BytesIO(data), filename=filename, description=description,
                         spoiler=spoiler)

    def close(self) -> None:
        # The buffer's own ``close`` again, as made (a buffer of bytes is not this file's
        # to close: ``File`` closes only a file it opened itself).
        vars(self.fp).pop("close", None)
