"""A new kind of message is one file: this test defines one (a counter of the hand's moves,
"Moves so far: N"), registers it, and sees it converge in a server channel and in a group
DM, across a restart, with no edit anywhere else: it sends through its table's way, and its
owner writes down and restores its record."""

from __future__ import annotations

import json
import random

import pytest

from cogs.live import kinds
from cogs.live.owner import LiveTable
from cogs.live.ways import Spec
from tests.cogs.test_group_dm import FRIENDS, play_one, start_table, to_act
from tests.groupdm_member import group_dm
from tests.nlk_driver import Driver, actor, running_bot

COUNTER = "Moves so far: "


class CounterShown:
    """What one table's counter shows: its message and the count in it."""

    def __init__(self, live: LiveTable) -> None:
        self.message_id: int | None = None
        self.count = -1

    @staticmethod
    def wants(table) -> int:
        return table.game.version if table.game is not None else 0

    def behind(self, table) -> bool:
        return table.is_open and (self.message_id is None or self.count != self.wants(table))

    async def step(self, live: LiveTable) -> None:
        async with live.way.turn():
            count = self.wants(live.newest)
            spec = Spec(content=f"{COUNTER}{count}")
            if self.message_id is None or not live.way.reaches(self.message_id):
                # (In a group DM a message is reached only through the token that made it:
                # one made before a restart is posted afresh.)
                self.message_id = await live.way.post(spec)
            else:
                await live.way.edit(self.message_id, spec)
            self.count = count

    def holds(self) -> bool:
        return False

    def give_up(self) -> None:
        pass

    def dump(self) -> str | None:
        return json.dumps([self.message_id, self.count])

    def restore(self, record: str) -> None:
        self.message_id, self.count = json.loads(record)


class Counter:
    name = "moves_counter"

    def shown_for(self, live: LiveTable) -> CounterShown:
        return CounterShown(live)


@pytest.fixture
def counter():
    def make(parts: kinds.Parts) -> Counter:
        return Counter()

    kinds.register(make)
    yield
    kinds.unregister(make)


def counters(messages):
    return [m for m in messages if m.content.startswith(COUNTER) and not m.deleted]


def stored_moves(bot) -> int:
    (table,) = [t for t in bot.service.cached() if t.is_open]
    return CounterShown.wants(table)


async def shows_the_moves(fake, bot, messages, count: int = 1) -> None:
    def right() -> bool:
        shown = counters(messages())
        return len(shown) == count and shown[-1].content == f"{COUNTER}{stored_moves(bot)}"

    await fake.wait_until(right, timeout=30, what="one counter showing the moves")


async def test_a_kind_defined_in_a_test_converges_in_a_server_across_a_restart(
        fake_discord, tmp_path, counter):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    driver = Driver(fake, random.Random(3))
    messages = fake.public_messages
    async with running_bot(fake, path) as bot:
        table = await driver.seat_and_start("ann", ["bob", "cy"], turn_timer=0)
        for _ in range(4):
            moves = [b for b in table.buttons() if ":give." in b.custom_id
                     or b.custom_id.endswith((":draw", ":keep"))]
            if not moves:
                break
            await driver.click(actor(table), table, custom_id=moves[0].custom_id)
        await shows_the_moves(fake, bot, messages)
        (posted,) = counters(messages())
    async with running_bot(fake, path) as bot:
        # Restored from its record: the same message, not a second one.
        moves = [b for b in table.buttons() if ":give." in b.custom_id
                 or b.custom_id.endswith((":draw", ":keep"))]
        await driver.click(actor(table), table, custom_id=moves[0].custom_id)
        await shows_the_moves(fake, bot, messages)
        assert counters(messages()) == [posted]
    fake.assert_clean()


async def test_a_kind_defined_in_a_test_converges_in_a_group_dm_across_a_restart(
        fake_discord, tmp_path, counter):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    members = {m.name: m for m in group_dm(fake, FRIENDS[:3], installed=["alice"])}

    def messages():
        return members["bob"].app_messages()

    async with running_bot(fake, path, dev_guild=None) as bot:
        await bot.tree.sync()
        await start_table(members, {"seats": 3, "turn_timer": 0})
        for seed in range(3):
            await play_one(fake, members, to_act(members["alice"].table_message()),
                           random.Random(seed))
        await shows_the_moves(fake, bot, messages)
        (posted,) = counters(messages())
        for seed in range(3, 5):  # edited through a token, never posted again
            await play_one(fake, members, to_act(members["alice"].table_message()),
                           random.Random(seed))
        await shows_the_moves(fake, bot, messages)
        assert counters(messages()) == [posted]
    async with running_bot(fake, path, dev_guild=None) as bot:
        # The tokens of the last run are gone with it: the next tap's token posts it afresh
        # (the old one can't be reached to delete), and edits it from then on.
        for seed in range(5, 7):
            await play_one(fake, members, to_act(members["alice"].table_message()),
                           random.Random(seed))
        await shows_the_moves(fake, bot, messages, count=2)
    assert fake.refused.get("group_dm_channel", 0) == 0
