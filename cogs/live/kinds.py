"""Kinds of message added to every live table by the module that defines them.

The table message, the turn ping, the open hands and the end-of-hand notice are the
publisher's own (``Publisher.__init__``, one line each). Any other kind registers itself
here, in its own module, with one line: ``register(lambda parts: MyKind(...))``. Every bot
made from then on gives each live table one of its ``Shown`` (``Kind.shown_for``); the
table's owner runs its loop, writes down its record (``Shown.dump``) and restores it at the
next start, and the kind sends through its table's way (``LiveTable.way``), in a server or
a group DM alike. So a kind is one file: what it shows, how it is sent, its registration.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import discord

from bot.tables.service import TableService
from cogs.i18n.translator import Languages
from cogs.live.owner import Kind
from cogs.pictures import Pictures


@dataclass(frozen=True)
class Parts:
    """What a kind of message may need besides its table's owner."""

    client: discord.Client
    service: TableService
    languages: Languages
    pictures: Pictures


KindMaker = Callable[[Parts], Kind]
_MAKERS: list[KindMaker] = []


def register(maker: KindMaker) -> KindMaker:
    """Every bot made from now on has the kind ``maker`` makes. Returns ``maker``."""
    _MAKERS.append(maker)
    return maker


def unregister(maker: KindMaker) -> None:
    """Bots made from now on no longer have it."""
    _MAKERS.remove(maker)


def made(parts: Parts) -> list[Kind]:
    """One of each registered kind, for a bot."""
    return [maker(parts) for maker in _MAKERS]
