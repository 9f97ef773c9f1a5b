"""Group DMs and a user-installed app: what Discord allows a bot there, driven with discord.py."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import discord
import pytest
import yarl
from discord import app_commands
from discord.http import Route

from tests.fakediscord import FakeDiscord
from tests.groupdm_member import group_dm

EVERYWHERE = {"guilds": True, "dms": True, "private_channels": True}


class TapView(discord.ui.View):
    """A public button anyone in the group DM can press; it edits the message it is on."""

    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.button(label="Tap", custom_id="gdm:tap")
    async def tap(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        bot = interaction.client
        assert isinstance(bot, GroupBot)
        bot.seen.append(interaction)
        await interaction.response.edit_message(content=f"tapped by {interaction.user.name}")

    @discord.ui.button(label="Peek", custom_id="gdm:peek")
    async def peek(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        await interaction.response.send_message(f"only {interaction.user.name}", ephemeral=True)


class GroupBot(discord.Client):
    def __init__(self) -> None:
        super().__init__(intents=discord.Intents.default(), guild_ready_timeout=0.05)
        self.tree = app_commands.CommandTree(self)
        self.seen: list[discord.Interaction] = []
        self.results: dict[str, Any] = {}
        self.gate = asyncio.Event()
        build_commands(self)

    async def setup_hook(self) -> None:
        data = await self.http.request(Route("GET", "/gateway"))
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(data["url"])
        self.add_view(TapView())
        await self.tree.sync()

    def record(self, key: str, exc: discord.HTTPException) -> None:
        self.results[key] = (exc.status, exc.code)


def build_commands(bot: GroupBot) -> None:
    group = app_commands.Group(name="gdm", description="Group DM self-test commands")
    group = app_commands.allowed_installs(guilds=True, users=True)(group)
    group = app_commands.allowed_contexts(**EVERYWHERE)(group)

    @group.command(description="Post a table with buttons")
    async def table(interaction: discord.Interaction) -> None:
        bot.seen.append(interaction)
        await interaction.response.send_message("table", view=TapView())

    @group.command(description="Try the channel directly, as a server bot would")
    async def direct(interaction: discord.Interaction) -> None:
        await interaction.response.defer()
        channel = interaction.channel
        assert channel is not None
        for key, call in (
            ("send", lambda: channel.send("hello")),  # type: ignore[union-attr]
            ("fetch", lambda: bot.fetch_channel(channel.id)),
            ("typing", lambda: bot.http.send_typing(channel.id)),
            ("history", lambda: bot.http.logs_from(channel.id, 5)),
        ):
            try:
                await call()
            except discord.HTTPException as exc:
                bot.record(key, exc)
        await interaction.followup.send("tried")

    @group.command(description="Send follow-ups")
    async def many(interaction: discord.Interaction, count: int) -> None:
        await interaction.response.send_message("start")
        sent = 0
        try:
            for n in range(count):
                await interaction.followup.send(f"follow-up {n + 1}")
                sent += 1
        except discord.HTTPException as exc:
            bot.record("many", exc)
        bot.results["sent"] = sent

    @group.command(description="Answer, wait for the test, then touch the token again")
    async def later(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("first")
        await bot.gate.wait()
        for key, call in (
            ("followup", lambda: interaction.followup.send("late")),
            ("edit", lambda: interaction.edit_original_response(content="late edit")),
            ("delete", lambda: interaction.delete_original_response()),
        ):
            try:
                await call()
            except discord.HTTPException as exc:
                bot.record(key, exc)
        bot.results["done"] = True

    bot.tree.add_command(group)

    @app_commands.command(description="Installable to servers only (the default)")
    async def serveronly(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("server")

    @app_commands.command(description="User-installable but not for private channels")
    @app_commands.allowed_installs(guilds=True, users=True)
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=False)
    async def nogroup(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("no group")

    bot.tree.add_command(serveronly)
    bot.tree.add_command(nogroup)


@contextlib.asynccontextmanager
async def running(fake: FakeDiscord) -> AsyncIterator[GroupBot]:
    bot = GroupBot()
    task = asyncio.create_task(bot.start(fake.token))
    try:
        await fake.wait_for_bot(timeout=5)
        await asyncio.wait_for(bot.wait_until_ready(), 2)
        await fake.wait_until(lambda: fake.command_syncs, what="the command sync")
        yield bot
    finally:
        await bot.close()
        with contextlib.suppress(Exception):
            await task


@pytest.fixture
async def bot(fake_discord: FakeDiscord) -> AsyncIterator[GroupBot]:
    async with running(fake_discord) as bot:
        yield bot


@pytest.fixture
def group(fake_discord: FakeDiscord) -> int:
    """alice (who installed the app), bob and carol (who did not)."""
    fake_discord.install_app("alice")
    return fake_discord.add_group_dm(["alice", "bob", "carol"], name="friends")


# -- tests -------------------------------------------------------------------------


async def test_command_sync_keeps_installs_and_contexts(
    fake_discord: FakeDiscord, bot: GroupBot
) -> None:
    by_name = {c["name"]: c for c in fake_discord.commands(global_=True)}
    assert by_name["gdm"]["integration_types"] == [0, 1]
    assert by_name["gdm"]["contexts"] == [0, 1, 2]
    assert by_name["nogroup"]["contexts"] == [0, 1]
    assert "integration_types" not in by_name["serveronly"] or by_name["serveronly"][
        "integration_types"
    ] in (None, [0])
    fake_discord.assert_clean()


async def test_slash_in_a_group_dm_carries_the_user_install(
    fake_discord: FakeDiscord, bot: GroupBot, group: int
) -> None:
    alice = fake_discord.user("alice")
    ix = await fake_discord.slash("alice", group, "gdm", "table")
    message = await ix.wait_message()
    assert message.content == "table" and message.channel_id == group
    payload = ix.payload
    assert payload["context"] == 2
    assert payload["authorizing_integration_owners"] == {"1": str(alice.id)}
    assert "guild_id" not in payload and "member" not in payload
    assert payload["user"]["username"] == "alice"
    assert payload["channel"]["type"] == 3 and payload["channel"]["id"] == str(group)
    assert "app_permissions" in payload
    seen = bot.seen[-1]
    assert seen.context.private_channel and seen.is_user_integration()
    assert not seen.is_guild_integration()
    assert isinstance(seen.channel, discord.GroupChannel)
    assert fake_discord.channel_requests[group] == 0
    # The bot is not in the group DM: no gateway event tells it about messages there.
    frames = [f for s in fake_discord.sessions for f in s._buffer]
    assert any(f["t"] == "INTERACTION_CREATE" for f in frames)
    assert not [f for f in frames if f["t"].startswith("MESSAGE_")]
    fake_discord.assert_clean()


async def test_clicks_come_from_people_who_never_installed(
    fake_discord: FakeDiscord, bot: GroupBot, group: int
) -> None:
    alice = fake_discord.user("alice")
    table = await (await fake_discord.slash("alice", group, "gdm", "table")).wait_message()
    click = await fake_discord.click("bob", table, label="Tap")
    await click.wait_response()
    assert fake_discord.find_message(table.id).content == "tapped by bob"
    assert click.payload["context"] == 2
    assert click.payload["authorizing_integration_owners"] == {"1": str(alice.id)}
    assert click.payload["user"]["username"] == "bob"
    assert fake_discord.user("bob").id not in fake_discord.state.user_installs
    peek = await fake_discord.click("carol", table, label="Peek")
    secret = await peek.wait_message()
    assert secret.ephemeral and secret.can_be_seen_by(fake_discord.user("carol").id)
    assert not secret.can_be_seen_by(fake_discord.user("bob").id)
    fake_discord.assert_clean()


async def test_people_outside_the_group_cannot_click(
    fake_discord: FakeDiscord, bot: GroupBot, group: int
) -> None:
    table = await (await fake_discord.slash("alice", group, "gdm", "table")).wait_message()
    with pytest.raises(AssertionError, match="cannot open"):
        await fake_discord.click("mallory", table, label="Tap")


async def test_every_channel_request_in_a_group_dm_is_missing_access(
    fake_discord: FakeDiscord, bot: GroupBot, group: int
) -> None:
    ix = await fake_discord.slash("alice", group, "gdm", "direct")
    await ix.wait_until(lambda ix: ix.followups, what="the follow-up")
    assert bot.results == {
        "send": (403, 50001),
        "fetch": (403, 50001),
        "typing": (403, 50001),
        "history": (403, 50001),
    }
    assert fake_discord.channel_requests[group] == 4
    assert fake_discord.refused["group_dm_channel"] == 4
    assert {v.message for v in fake_discord.violations} == {"Missing Access"}
    assert fake_discord.public_messages(group)[-1].content == "tried"
    fake_discord.violations.clear()


async def test_sixth_followup_of_a_user_install_is_refused(
    fake_discord: FakeDiscord, bot: GroupBot, group: int
) -> None:
    ix = await fake_discord.slash("alice", group, "gdm", "many", options={"count": 6})
    await fake_discord.wait_until(lambda: "sent" in bot.results, what="the follow-ups")
    assert bot.results["sent"] == 5
    assert bot.results["many"] == (400, 40094)
    assert fake_discord.followup_counts()[ix.id] == 5
    assert fake_discord.refused["followup_limit"] == 1
    fake_discord.violations.clear()


async def test_guild_install_has_no_followup_cap(fake_discord: FakeDiscord, bot: GroupBot) -> None:
    ix = await fake_discord.slash("alice", None, "gdm", "many", options={"count": 6})
    await fake_discord.wait_until(lambda: "sent" in bot.results, what="the follow-ups")
    assert bot.results == {"sent": 6}
    assert ix.payload["authorizing_integration_owners"] == {"0": str(fake_discord.guild_id)}
    fake_discord.assert_clean()


@pytest.mark.parametrize("where", ["group", "guild"])
async def test_expired_token_is_invalid_webhook_token(
    fake_discord: FakeDiscord, bot: GroupBot, group: int, where: str
) -> None:
    fake_discord.set_token_ttl(2.0)
    ix = await fake_discord.slash("alice", group if where == "group" else None, "gdm", "later")
    await ix.wait_message()
    fake_discord.clock.advance(2.5)
    bot.gate.set()
    await fake_discord.wait_until(lambda: "done" in bot.results, what="the late calls")
    assert bot.results == {
        "followup": (401, 50027),
        "edit": (401, 50027),
        "delete": (401, 50027),
        "done": True,
    }
    assert fake_discord.refused["token_expired"] == 3
    assert ix.followups == [] and not ix.original.deleted
    fake_discord.violations.clear()


async def test_token_works_until_its_ttl(
    fake_discord: FakeDiscord, bot: GroupBot, group: int
) -> None:
    fake_discord.set_token_ttl(2.0)
    ix = await fake_discord.slash("alice", group, "gdm", "later")
    await ix.wait_message()
    fake_discord.clock.advance(1.5)
    bot.gate.set()
    await fake_discord.wait_until(lambda: "done" in bot.results, what="the calls")
    assert bot.results == {"done": True}
    assert ix.original.deleted and [m.content for m in ix.followups] == ["late"]
    fake_discord.assert_clean()


@pytest.mark.parametrize(
    ("who", "command", "reason"),
    [
        ("bob", "gdm table", "has not installed the app"),
        ("alice", "serveronly", "not installable to a user"),
        ("alice", "nogroup", "not allowed in private channels"),
    ],
)
async def test_slash_in_a_group_dm_needs_an_install_and_context_2(
    fake_discord: FakeDiscord, bot: GroupBot, group: int, who: str, command: str, reason: str
) -> None:
    name, *sub = command.split()
    with pytest.raises(AssertionError, match=reason):
        await fake_discord.slash(who, group, name, sub[0] if sub else None)
    assert fake_discord.refused["command_not_available"] == 1
    assert fake_discord.interactions == []


async def test_a_member_sees_and_acts_like_a_person(
    fake_discord: FakeDiscord, bot: GroupBot
) -> None:
    alice, bob, carol, dave = group_dm(
        fake_discord, ["alice", "bob", "carol", "dave"], installed=["alice"]
    )
    assert alice.installed and not bob.installed
    with pytest.raises(AssertionError, match="has not installed"):
        await bob.slash("gdm", "table")
    await (await alice.slash("gdm", "table")).wait_message()
    table = bob.latest("table")
    assert table in carol.app_messages() and table in dave.sees()
    await (await bob.click(table, "Tap")).wait_response()
    assert carol.latest().content == "tapped by bob"
    await (await dave.click(table, "Peek")).wait_message()
    assert [m.content for m in dave.ephemerals()] == ["only dave"]
    assert carol.ephemerals() == [] and "only dave" not in {m.content for m in bob.sees()}
    assert fake_discord.channel_requests[alice.channel] == 0
    fake_discord.assert_clean()


async def test_a_dm_between_two_people_is_a_private_channel_too(
    fake_discord: FakeDiscord, bot: GroupBot
) -> None:
    fake_discord.install_app("alice")
    dm = fake_discord.add_user_dm("alice", "bob")
    ix = await fake_discord.slash("alice", dm, "gdm", "direct")
    await ix.wait_until(lambda ix: ix.followups, what="the follow-up")
    assert ix.payload["context"] == 2 and ix.payload["channel"]["type"] == 1
    assert bot.results["send"] == (403, 50001)
    # The DM with the bot itself stays the bot's own: context 1, no refusal.
    own = await fake_discord.slash_dm("alice", "gdm", "table")
    await own.wait_message()
    assert own.payload["context"] == 1
    assert fake_discord.channel_requests[fake_discord.dm_channel("alice")] == 0
    fake_discord.violations.clear()
