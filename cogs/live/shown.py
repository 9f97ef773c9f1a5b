"""What a table message shows: drawn once, its fingerprint taken from what was sent, and
the record of it that lets a restart edit only what is out of date (``MessageRecord``; the
format written before, ``ShownRecord``, is read once and written again in it)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

import orjson

from bot.tables.service import Table
from cogs import render
from cogs.live.owner import Drawing
from rules.i18n import DEFAULT, Lang


@dataclass(frozen=True)
class ShownRecord:
    """What a table message showed (the fingerprint of what was sent) and when."""

    digest: str
    at: float

    def dump(self) -> str:
        return json.dumps({"digest": self.digest, "at": self.at})

    @classmethod
    def load(cls, text: str) -> ShownRecord | None:
        """The record, or None if it can't be read (then the message is redrawn)."""
        try:
            data = json.loads(text)
            return cls(str(data["digest"]), float(data["at"]))
        except (ValueError, TypeError, KeyError):
            digest, _, at = text.partition(" ")  # as written before records were JSON
            try:
                return cls(digest, float(at))
            except ValueError:
                return None


@dataclass(frozen=True)
class MessageRecord:
    """What a table message shows, written down: the message, and the fingerprint of what
    it shows (None: not known)."""

    message_id: int | None
    digest: str | None

    def dump(self) -> str:
        return orjson.dumps({"message": self.message_id, "digest": self.digest}).decode()

    @classmethod
    def load(cls, text: str) -> MessageRecord | None:
        """The record, or None if it can't be read (then the message is drawn again)."""
        try:
            data = json.loads(text)
            message, digest = data["message"], data["digest"]
            return cls(None if message is None else int(message),
                       None if digest is None else str(digest))
        except (ValueError, TypeError, KeyError):
            return None


def draw(table: Table, lang: Lang = DEFAULT, ai_allowed: bool = True, *,
         quiet: bool = False) -> Drawing:
    """The table message, drawn once (``ai_allowed``: the server's AI players setting;
    ``quiet``: a group DM's, left before its last token lapses)."""
    embed = render.table_embed(table, lang)
    if quiet and table.is_open:
        return Drawing(*render.quiet_table(embed, table, lang))
    return Drawing(embed, render.table_view(table, lang, ai_allowed=ai_allowed))


def fingerprint(drawing: Drawing) -> str:
    """A short fingerprint of everything a table message shows: a restart redraws a message
    whose table changed, or whose server changed language."""
    embed = drawing.embed.to_dict()
    # Not the picture sending set on the embed: the fingerprint is of the table as drawn,
    # whatever the server's picture style (as a restart draws it again to compare).
    embed.pop("image", None)
    drawn = [embed, drawing.view.to_components()]
    text = json.dumps(drawn, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def carries(message: Any, table_id: int) -> bool:
    """Whether a raw message has a component of table ``table_id`` (its custom ids)."""
    prefix = f"nlk:{table_id}:"
    stack = list(message.get("components") or [])
    while stack:
        node = stack.pop()
        if str(node.get("custom_id", "")).startswith(prefix):
            return True
        stack.extend(node.get("components") or [])
    return False
