"""The fake Discord shards as Discord does: IDENTIFY names a shard, each session gets its own
shard's guilds and interactions, and IDENTIFYs are paced per max_concurrency bucket."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
import pytest

from tests.fakediscord import FakeDiscord


class RawSession:
    """A gateway session spoken by hand: it records every dispatch it receives."""

    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.invalid = asyncio.Event()  # op 9 came
        self.seq = 0
        self._http = aiohttp.ClientSession()
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self._reader: asyncio.Task[None] | None = None

    async def identify(self, shard: list[int] | None) -> RawSession:
        self.ws = await self._http.ws_connect(f"{self.fake.gateway_url}?v=10&encoding=json")
        hello = await self.ws.receive_json()
        assert hello["op"] == 10
        data: dict[str, Any] = {"token": self.fake.token, "intents": 1, "properties": {}}
        if shard is not None:
            data["shard"] = shard
        await self.ws.send_json({"op": 2, "d": data})
        self._reader = asyncio.create_task(self._read())
        return self

    async def _read(self) -> None:
        assert self.ws is not None
        async for message in self.ws:
            if message.type != aiohttp.WSMsgType.TEXT:
                break
            frame = json.loads(message.data)
            if frame["op"] == 0:
                self.seq = frame["s"]
                self.events.append((frame["t"], frame["d"]))
            elif frame["op"] == 1:  # the fake asks for a heartbeat: we have read all so far
                await self.ws.send_json({"op": 1, "d": self.seq})
            elif frame["op"] == 9:
                self.invalid.set()

    def named(self, event: str) -> list[dict[str, Any]]:
        return [data for name, data in self.events if name == event]

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            await asyncio.gather(self._reader, return_exceptions=True)
        await self._http.close()


@pytest.fixture
async def sharded():
    """A fake with two shards, each its own IDENTIFY bucket (no 5 s waits), and a guild on
    shard 1 beside the default guild (shard 0)."""
    async with FakeDiscord(shards=2, max_concurrency=2) as fake:
        other = fake.add_guild("Shard One", shard=1)
        sessions: list[RawSession] = []

        async def connect(shard: list[int] | None) -> RawSession:
            session = await RawSession(fake).identify(shard)
            sessions.append(session)
            return session

        yield fake, other, connect
        for session in sessions:
            await session.close()


async def test_each_session_gets_its_own_shards_guilds_only(sharded):
    fake, other, connect = sharded
    zero, one = await connect([0, 2]), await connect([1, 2])
    await fake.wait_for_bot(shard=0)
    await fake.wait_for_bot(shard=1)
    assert [g["id"] for g in zero.named("READY")[0]["guilds"]] == [str(fake.guild_id)]
    assert [g["id"] for g in one.named("READY")[0]["guilds"]] == [str(other)]
    assert [g["id"] for g in zero.named("GUILD_CREATE")] == [str(fake.guild_id)]
    assert [g["id"] for g in one.named("GUILD_CREATE")] == [str(other)]
    # Later events follow the guild too.
    fake.add_channel("over-there", guild=other)
    await fake.wait_until(lambda: one.named("CHANNEL_CREATE"))
    assert zero.named("CHANNEL_CREATE") == []
    assert fake.violations == []


async def test_an_interaction_reaches_only_the_session_of_its_guilds_shard(sharded):
    fake, other, connect = sharded
    zero, one = await connect([0, 2]), await connect([1, 2])
    await fake.wait_for_bot(shard=1)
    await fake.forge_component("ann", "x:1", channel=fake.add_channel("t", guild=other))
    await fake.wait_until(lambda: one.named("INTERACTION_CREATE"))
    assert zero.named("INTERACTION_CREATE") == []
    # No guild (a DM): shard 0.
    await fake.forge_component("ann", "x:2", channel=fake.dm_channel("ann"))
    await fake.wait_until(lambda: zero.named("INTERACTION_CREATE"))
    assert len(one.named("INTERACTION_CREATE")) == 1


async def test_during_a_hand_over_both_sessions_of_a_shard_get_the_click(sharded):
    fake, other, connect = sharded
    old = await connect([1, 2])
    await fake.wait_for_bot(shard=1)
    fake.gateway.identified.clear()  # (pacing is tested on its own below)
    new = await connect([1, 2])
    await fake.wait_until(lambda: len(fake.gateway.ready_sessions(shard=1)) == 2)
    channel = fake.add_channel("t", guild=other)
    await fake.forge_component("ann", "x:1", channel=channel)
    await fake.wait_until(lambda: new.named("INTERACTION_CREATE"))
    assert old.named("INTERACTION_CREATE") == []  # normally only the newest session
    fake.gateway.handover = True
    await fake.forge_component("ann", "x:2", channel=channel)
    await fake.wait_until(lambda: old.named("INTERACTION_CREATE"))
    assert old.named("INTERACTION_CREATE") == new.named("INTERACTION_CREATE")[1:]


async def test_gateway_bot_gives_the_shard_count_and_the_session_start_limit(sharded):
    fake, _other, connect = sharded
    async with aiohttp.ClientSession() as http:
        url = f"{fake.api_base}/gateway/bot"
        headers = {"Authorization": f"Bot {fake.token}"}
        async with http.get(url, headers=headers) as answer:
            before = await answer.json()
        await connect([0, 2])
        async with http.get(url, headers=headers) as answer:
            after = await answer.json()
    assert before["shards"] == 2
    assert before["session_start_limit"]["max_concurrency"] == 2
    assert after["session_start_limit"]["remaining"] == \
        before["session_start_limit"]["remaining"] - 1


async def test_an_identify_within_5_s_in_its_bucket_gets_op_9_and_is_a_violation():
    async with FakeDiscord(shards=4, max_concurrency=2) as fake:
        sessions = [RawSession(fake) for _ in range(3)]
        try:
            await sessions[0].identify([0, 4])
            await fake.wait_for_bot(shard=0)
            await sessions[1].identify([1, 4])  # bucket 1: fine
            await fake.wait_for_bot(shard=1)
            await sessions[2].identify([2, 4])  # bucket 0 again, at once: refused
            await asyncio.wait_for(sessions[2].invalid.wait(), 5)
        finally:
            for session in sessions:
                await session.close()
        assert [v.kind for v in fake.violations] == ["identify"]
        assert "bucket 0" in fake.violations[0].message
        assert fake.gateway.active(shard=2) is None


async def test_a_sharded_fake_refuses_an_identify_without_a_valid_shard(sharded):
    fake, _other, connect = sharded
    for shard in (None, [2, 2], [0, 3]):
        session = await connect(shard)
        assert session._reader is not None
        await asyncio.wait_for(session._reader, 5)
        assert session.ws is not None and session.ws.close_code == 4010


async def test_the_unsharded_fake_sends_every_guild_to_its_one_session(fake_discord):
    other = fake_discord.add_guild("Another")
    session = await RawSession(fake_discord).identify(None)
    try:
        await fake_discord.wait_for_bot()
        ids = {g["id"] for g in session.named("GUILD_CREATE")}
        assert ids == {str(fake_discord.guild_id), str(other)}
        # Two quick IDENTIFYs are fine for a small bot: pacing is a sharded fake's rule.
        again = await RawSession(fake_discord).identify(None)
        await fake_discord.wait_for_bot(after=fake_discord.gateway.sessions[0])
        await again.close()
    finally:
        await session.close()
    assert fake_discord.violations == []
