"""The end-of-hand notice as a kind of message, on its own with a recording way of sending:
posted once per hand that ends, written down as its record, and neither lost nor posted twice
across a restart (nor after one from a run that wrote the format before)."""

import asyncio
import dataclasses
import random

from bot.db.records import GuildSettings, TableStatus
from cogs.live.notices import LEGACY, Notices
from cogs.live.owner import LiveTables, record_key
from cogs.live.records import Notes
from cogs.pictures import Pictures
from rules import Game, Variant, shuffled_deck
from rules.i18n import Lang
from tests.helpers import RecordingWay, table_for
from tests.helpers import StateStore as Store


class Posts(RecordingWay):
    """The tables' way, read as the notices posted: their text, and their files."""

    @property
    def posted(self) -> list[str]:
        return [spec.content for kind, _id, spec in self.requests if kind == "post"]

    @property
    def files(self) -> list:
        return [file for kind, _id, spec in self.requests if kind == "post"
                for file in spec.files]


class Languages:
    async def public(self, guild_id, interaction=None):
        return Lang.EN


def finished_table(number: int):
    """A table whose hand ``number`` has just ended, and the same table mid-hand."""
    game = Game.from_deck(shuffled_deck(3, "7"), 0, names=["ann", "bob", "cy"],
                          variant=Variant("free", True))
    playing = table_for(game.copy(), hand_number=number)
    rng = random.Random(7)
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    over = table_for(game, status=TableStatus.OVER, hand_number=number, hand_id=40)
    return playing, over


class Servers:
    """The server's side: its picture setting, and the ratings a hand changed."""

    def __init__(self, pictures: str) -> None:
        self.pictures = pictures

    async def hand_changes(self, hand_id):
        return {1000: 1.5, 1001: -0.25, 1002: -2.0}

    async def settings(self, guild_id):
        return GuildSettings(pictures=self.pictures)


def owner(store, *, pictures="on"):
    posts, notes, servers = Posts(), Notes(store, delay=0), Servers(pictures)
    tables = LiveTables(ways=lambda live: posts, notes=notes)  # reaching all, as a server's
    notices = tables.register(Notices(Languages(), notes, Pictures(servers), servers))
    tables.scope.begin()  # outermost here: in the bot, it lives within the bot's lifetime
    return tables, notices, posts, notes


async def settle(tables):
    """Until no notice is on its way (the picture is drawn in a thread), and what it
    wrote down is written; then the owners stop, as at a shutdown (each test is done with
    its registry here)."""
    for _ in range(500):
        await asyncio.sleep(0.01)
        if not any(live.converging(Notices.name) for live in tables):
            break
    await asyncio.sleep(0.05)
    await tables.scope.close()


async def test_a_hand_that_ends_is_announced_once_and_written_down():
    store = Store()
    tables, _notices, posts, _notes = owner(store)
    playing, over = finished_table(3)
    live = tables.of(playing)
    live.saw(playing)
    live.saw(dataclasses.replace(over, revision=playing.revision + 1))
    live.saw(dataclasses.replace(over, revision=playing.revision + 2))  # a seat changes
    await settle(tables)
    assert len(posts.posted) == 1 and posts.posted[0].startswith("Hand 3 is over")
    assert store.values == {record_key(Notices.name, playing.id): "3"}


async def restarted(store, over):
    """A start after a stop: the owner restores what the last run wrote down (a record of
    the format before is read once, as the publisher reads it, and forgotten)."""
    tables, notices, posts, _notes = owner(store)
    records = await tables.read_records()
    for table_id, legacy in (await notices.read_legacy()).items():
        records.setdefault(table_id, {}).setdefault(Notices.name, legacy)
    live = tables.of(over)
    live.restore(records.get(over.id, {}))
    live.saw(over)
    await settle(tables)
    return posts


async def test_after_a_restart_a_notice_written_down_is_not_posted_again():
    playing, over = finished_table(3)
    for key in (record_key(Notices.name, playing.id), f"{LEGACY}{playing.id}"):
        store = Store({key: "3"})
        assert (await restarted(store, over)).posted == []
        assert f"{LEGACY}{playing.id}" not in store.values  # read once


async def test_after_a_restart_a_notice_never_posted_is_posted():
    playing, over = finished_table(3)
    for key in (record_key(Notices.name, playing.id), f"{LEGACY}{playing.id}"):
        store = Store({key: "2"})  # stopped before hand 3's notice
        posts = await restarted(store, over)
        assert len(posts.posted) == 1 and posts.posted[0].startswith("Hand 3 is over")
        assert store.values == {record_key(Notices.name, playing.id): "3"}


async def test_the_notice_carries_the_hand_in_a_picture_where_the_server_shows_pictures():
    for style, pictured in (("on", True), ("four-colour", True), ("off", False)):
        tables, _notices, posts, _notes = owner(Store(), pictures=style)
        playing, over = finished_table(3)
        live = tables.of(playing)
        live.saw(dataclasses.replace(over, revision=playing.revision + 1))
        await settle(tables)
        assert len(posts.posted) == 1 and posts.posted[0].startswith("Hand 3 is over")
        assert [f.filename.startswith("hand-over.") for f in posts.files] == \
            ([True] if pictured else [])
