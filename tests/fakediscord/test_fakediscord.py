"""The fake Discord drives a real discord.py bot: commands, views, limits and timing rules."""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import discord
import pytest
import yarl
from discord import app_commands
from discord.ext import commands
from discord.http import Route

from tests.fakediscord import FakeDiscord, Perm, limits
from tests.fakediscord.errors import FormErrors

ROOT = Path(__file__).resolve().parents[2]

# -- a tiny bot ------------------------------------------------------------------


class CounterButton(discord.ui.DynamicItem[discord.ui.Button], template=r"demo:count:(?P<n>\d+)"):
    """Stateless counter: the count lives in the custom_id, so it survives restarts."""

    def __init__(self, n: int) -> None:
        super().__init__(discord.ui.Button(label=f"+1 ({n})", custom_id=f"demo:count:{n}"))
        self.n = n

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Button, match: Any
    ) -> CounterButton:
        return cls(int(match["n"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.edit_message(
            content=f"count: {self.n + 1}", view=panel(self.n + 1)
        )


class PanelButtons(discord.ui.View):
    """Fixed custom_ids, registered once in setup_hook: a classic persistent view."""

    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.button(label="Peek", custom_id="demo:peek")
    async def peek(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        await interaction.response.send_message("only you can see this", ephemeral=True)

    @discord.ui.button(label="Close", custom_id="demo:close", style=discord.ButtonStyle.danger)
    async def close(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        await interaction.response.edit_message(content="closed", view=None)


def panel(n: int) -> discord.ui.View:
    view = PanelButtons()
    view.add_item(CounterButton(n))
    return view


class RawView(discord.ui.View):
    """Sends hand-written components, bypassing discord.py's own checks."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        super().__init__(timeout=None)
        self.rows = rows

    def to_components(self) -> list[dict[str, Any]]:
        return self.rows


def button_rows(rows: int) -> list[dict[str, Any]]:
    button = {"type": 2, "style": 1, "label": "b"}
    return [{"type": 1, "components": [{**button, "custom_id": f"b{r}"}]} for r in range(rows)]


class EchoModal(discord.ui.Modal, title="Name your table"):
    name = discord.ui.TextInput(label="Table name", custom_id="demo:modal:name", max_length=30)

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"table {self.name.value} created")


class DemoBot(commands.Bot):
    def __init__(self, guild_id: int) -> None:
        super().__init__(
            command_prefix="!",
            intents=discord.Intents.default(),
            guild_ready_timeout=0.05,  # discord.py waits this long after the last GUILD_CREATE
        )
        self.guild = discord.Object(guild_id)
        self.gate = asyncio.Event()
        self.results: dict[str, Any] = {}
        self.tree.add_command(build_demo_group(self), guild=self.guild)
        self.tree.add_command(ping)  # global, so it also works in DMs

    async def setup_hook(self) -> None:
        # A non-sharded client ignores /gateway/bot's URL and uses DEFAULT_GATEWAY.
        data = await self.http.request(Route("GET", "/gateway"))
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(data["url"])
        self.add_view(PanelButtons())
        self.add_dynamic_items(CounterButton)
        await self.tree.sync(guild=self.guild)
        await self.tree.sync()

    def record(self, key: str, exc: discord.HTTPException) -> None:
        self.results[key] = (exc.status, exc.code)


@app_commands.command(description="Where am I, and in which language")
async def ping(interaction: discord.Interaction) -> None:
    where = "dm" if isinstance(interaction.channel, discord.DMChannel) else "guild"
    await interaction.response.send_message(
        f"pong {where} guild={interaction.guild_id} locale={interaction.locale.value} "
        f"guild_locale={interaction.guild_locale and interaction.guild_locale.value}"
    )


def build_demo_group(bot: DemoBot) -> app_commands.Group:
    demo = app_commands.Group(name="demo", description="Harness self-test commands")

    @demo.command(description="Greet someone")
    async def hello(
        interaction: discord.Interaction,
        name: str,
        times: int = 1,
        loud: bool = False,
        who: discord.Member | None = None,
    ) -> None:
        whom = who.display_name if who else "-"
        await interaction.response.send_message(f"hello {name} x{times} loud={loud} who={whom}")

    @demo.command(description="An ephemeral reply")
    async def secret(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("your hand: 7 of hearts", ephemeral=True)

    @demo.command(name="panel", description="A panel with persistent buttons")
    async def show_panel(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("count: 0", view=panel(0))

    @demo.command(description="Defer, then follow up twice")
    async def slow(interaction: discord.Interaction) -> None:
        await interaction.response.defer(thinking=True)
        await interaction.followup.send("slow done")
        await interaction.followup.send("and one more", ephemeral=True)

    @demo.command(description="Post and edit a plain channel message")
    async def post(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("posting", ephemeral=True)
        message = await interaction.channel.send("v1")
        await message.edit(content="v2")

    @demo.command(description="Edit a channel message many times")
    async def burst(interaction: discord.Interaction, edits: int) -> None:
        await interaction.response.defer(ephemeral=True)
        message = await interaction.channel.send("edit 0")
        for n in range(1, edits + 1):
            await message.edit(content=f"edit {n}")
        await interaction.followup.send("burst done")

    @demo.command(description="Try payloads Discord refuses")
    @app_commands.choices(
        kind=[
            app_commands.Choice(name=k, value=k)
            for k in ("rows", "custom_id", "embed", "reply_rows")
        ]
    )
    async def bad(interaction: discord.Interaction, kind: str) -> None:
        if kind == "reply_rows":
            try:
                await interaction.response.send_message("six rows", view=RawView(button_rows(6)))
            except discord.HTTPException as exc:
                bot.record(kind, exc)
            # The refused attempt did not acknowledge; a normal reply still works.
            await interaction.response.send_message("fallback")
            return
        await interaction.response.defer(ephemeral=True)
        try:
            if kind == "rows":
                await interaction.channel.send("six rows", view=RawView(button_rows(6)))
            elif kind == "custom_id":
                view = discord.ui.View()
                view.add_item(discord.ui.Button(label="long", custom_id="c" * 101))
                await interaction.channel.send("long id", view=view)
            elif kind == "embed":
                embeds = [discord.Embed(description="x" * 3500) for _ in range(2)]
                await interaction.channel.send(embeds=embeds)
        except discord.HTTPException as exc:
            bot.record(kind, exc)
        await interaction.followup.send("tried")

    @demo.command(description="Post in this channel, and report app_permissions")
    @app_commands.choices(
        kind=[app_commands.Choice(name=k, value=k) for k in ("text", "embed", "file", "edit")]
    )
    async def probe(interaction: discord.Interaction, kind: str) -> None:
        await interaction.response.defer(ephemeral=True)
        channel = interaction.channel
        try:
            if kind == "text":
                bot.results["last"] = await channel.send("probe")
            elif kind == "embed":
                await channel.send(embed=discord.Embed(title="probe"))
            elif kind == "file":
                await channel.send(file=discord.File(io.BytesIO(b"x"), filename="x.txt"))
            elif kind == "edit":
                await bot.results["last"].edit(content="probe edited")
            bot.results[kind] = "ok"
        except discord.HTTPException as exc:
            bot.record(kind, exc)
        mine = channel.permissions_for(channel.guild.me).value
        await interaction.followup.send(f"app={interaction.app_permissions.value} mine={mine}")

    @demo.command(description="Post some messages, then delete them")
    async def sweep(interaction: discord.Interaction, count: int) -> None:
        await interaction.response.defer(ephemeral=True)
        posted = [await interaction.channel.send(f"sweep {n}") for n in range(count)]
        for message in posted:
            await message.delete()
        await interaction.followup.send("swept")

    @demo.command(description="Answer the same interaction twice")
    async def twice(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("one")
        try:
            # A fresh InteractionResponse skips discord.py's local "already responded" guard,
            # as a second bot process answering the same interaction would.
            await discord.InteractionResponse(interaction).send_message("two")
        except discord.HTTPException as exc:
            bot.record("twice", exc)

    @demo.command(description="Respond only when the test opens the gate")
    async def gated(interaction: discord.Interaction) -> None:
        await bot.gate.wait()
        try:
            await interaction.response.send_message("finally")
        except discord.HTTPException as exc:
            bot.record("gated", exc)

    @demo.command(description="Respond, then follow up when the test opens the gate")
    async def later(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("started")
        await bot.gate.wait()
        try:
            await interaction.followup.send("much later")
        except discord.HTTPException as exc:
            bot.record("later", exc)

    @demo.command(description="Reply with a file")
    async def export(interaction: discord.Interaction) -> None:
        file = discord.File(io.BytesIO(b'{"moves": 42}'), filename="game.json")
        await interaction.response.send_message("here is your game", file=file)

    @demo.command(description="Ping one player")
    async def turn(interaction: discord.Interaction, who: discord.Member) -> None:
        mentions = discord.AllowedMentions(everyone=False, roles=False, users=[who])
        await interaction.response.send_message(
            f"{who.mention} your turn (cc {interaction.user.mention})", allowed_mentions=mentions
        )

    @demo.command(description="Edit an ephemeral message through the channel route")
    async def leak(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("secret", ephemeral=True)
        original = await interaction.original_response()
        try:
            await interaction.channel.get_partial_message(original.id).edit(content="oops")
        except discord.HTTPException as exc:
            bot.record("leak", exc)

    @demo.command(description="Open a modal")
    async def rename(interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(EchoModal())

    @demo.command(description="Who may manage tables")
    async def admin(interaction: discord.Interaction) -> None:
        allowed = interaction.permissions.manage_channels
        await interaction.response.send_message(f"manage_channels={allowed}", ephemeral=True)

    return demo


@contextlib.asynccontextmanager
async def running_bot(fake: FakeDiscord) -> AsyncIterator[DemoBot]:
    previous = fake.sessions[-1] if fake.sessions else None
    bot = DemoBot(fake.guild_id)
    task = asyncio.create_task(bot.start(fake.token))
    try:
        await fake.wait_for_bot(timeout=5, after=previous)
        await asyncio.wait_for(bot.wait_until_ready(), 2)
        yield bot
    finally:
        await bot.close()
        with contextlib.suppress(Exception):
            await task


@pytest.fixture
async def bot(fake_discord: FakeDiscord) -> AsyncIterator[DemoBot]:
    async with running_bot(fake_discord) as bot:
        yield bot
    fake_discord.assert_clean()


# -- tests -----------------------------------------------------------------------


async def test_login_ready_and_command_sync(fake_discord: FakeDiscord, bot: DemoBot) -> None:
    assert bot.user is not None and bot.user.id == fake_discord.bot_id
    guild = bot.get_guild(fake_discord.guild_id)
    assert guild is not None and guild.get_channel(fake_discord.channel_id) is not None
    (demo,) = fake_discord.commands()
    assert demo["name"] == "demo"
    assert {o["name"] for o in demo["options"]} >= {"hello", "secret", "panel", "slow"}


async def test_slash_options_are_parsed(fake_discord: FakeDiscord, bot: DemoBot) -> None:
    bob = fake_discord.add_user("bob", global_name="Bobby")
    ix = await fake_discord.slash(
        "alice", None, "demo", "hello", {"name": "world", "times": 3, "loud": True, "who": bob}
    )
    response = await ix.wait_response()
    assert response.type == 4 and not response.ephemeral
    assert response.message.content == "hello world x3 loud=True who=Bobby"
    assert fake_discord.public_messages() == [response.message]


async def test_unknown_subcommand_is_refused_locally(
    fake_discord: FakeDiscord, bot: DemoBot
) -> None:
    with pytest.raises(ValueError, match="no subcommand"):
        await fake_discord.slash("alice", None, "demo", "nope")


async def test_ephemeral_is_visible_only_to_its_user(
    fake_discord: FakeDiscord, bot: DemoBot
) -> None:
    ix = await fake_discord.slash("alice", None, "demo", "secret")
    message = await ix.wait_message()
    assert message.ephemeral and message.visible_to == fake_discord.user("alice").id
    assert message in fake_discord.visible_to("alice")
    fake_discord.add_user("bob")
    assert message not in fake_discord.visible_to("bob")
    assert fake_discord.public_messages() == []
    assert fake_discord.ephemerals_for("alice") == [message]


async def test_click_edits_the_message(fake_discord: FakeDiscord, bot: DemoBot) -> None:
    ix = await fake_discord.slash("alice", None, "demo", "panel")
    message = await ix.wait_message()
    assert [b.label for b in message.buttons()] == ["Peek", "Close", "+1 (0)"]

    click = await fake_discord.click("bob", message, prefix="demo:count:")
    response = await click.wait_response()
    assert response.type == 7 and response.message is message
    assert message.content == "count: 1"
    assert message.find_button(prefix="demo:count:").custom_id == "demo:count:1"
    assert [v.content for v in message.versions] == ["count: 0", "count: 1"]

    peek = await fake_discord.click("bob", message, label="Peek")
    private = await peek.wait_message()
    assert private.visible_to == fake_discord.user("bob").id


async def test_defer_then_followups(fake_discord: FakeDiscord, bot: DemoBot) -> None:
    ix = await fake_discord.slash("alice", None, "demo", "slow")
    response = await ix.wait_response()
    assert response.type == 5
    first, second = await ix.wait_followups(2)
    # The first followup after a "thinking" defer fills in the loading message.
    assert first is ix.original and first.content == "slow done" and not first.loading
    assert second.ephemeral and second.content == "and one more"
    assert first.versions[0].flags & 128  # it really started as a loading message


async def test_channel_message_send_and_edit(fake_discord: FakeDiscord, bot: DemoBot) -> None:
    ix = await fake_discord.slash("alice", None, "demo", "post")
    await ix.wait_response()
    message = await fake_discord.wait_until(
        lambda: next((m for m in fake_discord.public_messages() if m.edited), None)
    )
    assert [v.content for v in message.versions] == ["v1", "v2"]
    assert message.interaction_token is None and message.author.id == fake_discord.bot_id


@pytest.mark.parametrize("kind", ["rows", "custom_id", "embed"])
async def test_limits_are_refused(fake_discord: FakeDiscord, bot: DemoBot, kind: str) -> None:
    ix = await fake_discord.slash("alice", None, "demo", "bad", {"kind": kind})
    await ix.wait_followups(1)
    assert bot.results[kind] == (400, 50035)
    (violation,) = fake_discord.violations
    assert violation.code == 50035 and violation.path.endswith("/messages")
    expected = {"rows": "components", "custom_id": "custom_id", "embed": "embeds"}[kind]
    assert expected in str(violation)
    fake_discord.violations.clear()


def _row(*components: dict[str, Any]) -> dict[str, Any]:
    return {"type": 1, "components": list(components)}


def _button(custom_id: str = "b", **extra: Any) -> dict[str, Any]:
    return {"type": 2, "style": 1, "label": "b", "custom_id": custom_id, **extra}


def _select(options: int = 3, **extra: Any) -> dict[str, Any]:
    choices = [{"label": str(i), "value": str(i)} for i in range(options)]
    return {"type": 3, "custom_id": "s", "options": choices, **extra}


LIMIT_CASES = {
    "six rows": ({"components": button_rows(6)}, "components"),
    "six buttons": ({"components": [_row(*(_button(str(i)) for i in range(6)))]}, "0.components"),
    "select shares row": ({"components": [_row(_select(), _button())]}, "0.components"),
    "26 options": ({"components": [_row(_select(26))]}, "options"),
    "min > max": ({"components": [_row(_select(min_values=3, max_values=2))]}, "min_values"),
    "long placeholder": ({"components": [_row(_select(placeholder="p" * 151))]}, "placeholder"),
    "long option": (
        {"components": [_row({**_select(), "options": [{"label": "l" * 101, "value": "v"}]})]},
        "options.0.label",
    ),
    "101-char custom_id": ({"components": [_row(_button("c" * 101))]}, "custom_id"),
    "duplicate custom_id": ({"components": [_row(_button("x"), _button("x"))]}, "1.custom_id"),
    "long label": ({"components": [_row(_button(label="l" * 81))]}, "label"),
    "link with custom_id": (
        {"components": [_row(_button(style=5, url="https://a.b"))]},
        "custom_id",
    ),
    "button without id": (
        {"components": [_row({"type": 2, "style": 1, "label": "b"})]},
        "custom_id",
    ),
    "long content": ({"content": "x" * 2001}, "content"),
    "eleven embeds": ({"embeds": [{"title": "t"}] * 11}, "embeds"),
    "long title": ({"embeds": [{"title": "t" * 257}]}, "embeds.0.title"),
    "long description": ({"embeds": [{"description": "d" * 4097}]}, "embeds.0.description"),
    "26 fields": ({"embeds": [{"fields": [{"name": "n", "value": "v"}] * 26}]}, "fields"),
    "long field value": ({"embeds": [{"fields": [{"name": "n", "value": "v" * 1025}]}]}, "value"),
    "empty field value": ({"embeds": [{"fields": [{"name": "n", "value": ""}]}]}, "value"),
    "long footer": ({"embeds": [{"footer": {"text": "f" * 2049}}]}, "footer.text"),
    "long author": ({"embeds": [{"author": {"name": "a" * 257}}]}, "author.name"),
    "6001 embed chars": ({"embeds": [{"description": "d" * 3001}] * 2}, "embeds"),
}


@pytest.mark.parametrize(("payload", "where"), LIMIT_CASES.values(), ids=LIMIT_CASES.keys())
def test_limit_table(payload: dict[str, Any], where: str) -> None:
    errors = FormErrors()
    limits.check_message(payload, errors)
    assert errors, "Discord would refuse this payload"
    assert any(path.endswith(where) for path, _, _ in errors.flat), errors.flat


def test_real_discord_py_payloads_pass_the_limits() -> None:
    view = discord.ui.View()
    view.add_item(discord.ui.Button(label="Rules", url="https://example.com"))
    view.add_item(discord.ui.Button(emoji="\N{PLAYING CARD BLACK JOKER}", custom_id="joker"))
    options = [discord.SelectOption(label=str(i), value=str(i)) for i in range(25)]
    view.add_item(discord.ui.Select(custom_id="pick", options=options, max_values=25))
    embed = discord.Embed(title="Table 1", description="Round 3").add_field(name="a", value="b")
    embed.set_image(url="attachment://hand.png").set_footer(text="footer")
    layout = discord.ui.LayoutView()
    layout.add_item(
        discord.ui.Container(
            discord.ui.TextDisplay("hello"),
            discord.ui.ActionRow(discord.ui.Button(label="Go", custom_id="go")),
        )
    )
    for payload in (
        {"content": "hi", "embeds": [embed.to_dict()], "components": view.to_components()},
        {
            "components": layout.to_components(),
            "flags": discord.MessageFlags(components_v2=True).value,
        },
    ):
        errors = FormErrors()
        limits.check_message(payload, errors)
        assert not errors, errors.flat


async def test_refused_response_does_not_acknowledge(
    fake_discord: FakeDiscord, bot: DemoBot
) -> None:
    ix = await fake_discord.slash("alice", None, "demo", "bad", {"kind": "reply_rows"})
    response = await ix.wait_response()
    assert response.message.content == "fallback"
    assert bot.results["reply_rows"] == (400, 50035)
    assert [v.errors[0][0] for v in ix.rejections] == ["data.components"]
    fake_discord.violations.clear()


async def test_second_initial_response_is_refused(fake_discord: FakeDiscord, bot: DemoBot) -> None:
    ix = await fake_discord.slash("alice", None, "demo", "twice")
    await ix.wait_until(lambda ix: ix.rejections, what="the second response")
    await fake_discord.wait_until(lambda: "twice" in bot.results, what="the bot's record")
    assert ix.response.message.content == "one"
    assert bot.results["twice"] == (400, 40060)
    assert [v.code for v in fake_discord.violations] == [40060]
    fake_discord.violations.clear()


async def test_late_first_response_is_refused(fake_discord: FakeDiscord, bot: DemoBot) -> None:
    ix = await fake_discord.slash("alice", None, "demo", "gated")
    fake_discord.clock.advance(3.5)
    bot.gate.set()
    await ix.wait_until(lambda ix: ix.rejections, what="the late response")
    # The bot records the refusal once discord.py has raised it, a moment after the fake
    # refused (later still on a busy machine).
    await fake_discord.wait_until(lambda: "gated" in bot.results, what="the bot's record")
    assert bot.results["gated"] == (404, 10062)
    with pytest.raises(AssertionError, match="This interaction failed"):
        await ix.wait_response(timeout=0.05)
    fake_discord.violations.clear()


async def test_token_expires_after_15_minutes(fake_discord: FakeDiscord, bot: DemoBot) -> None:
    ix = await fake_discord.slash("alice", None, "demo", "later")
    await ix.wait_response()
    fake_discord.clock.advance(15 * 60 + 1)
    bot.gate.set()
    await ix.wait_until(lambda ix: ix.rejections, what="the expired followup")
    # The bot reads the refusal a moment after the fake sent it: on a busy machine, later.
    await fake_discord.wait_until(lambda: "later" in bot.results, what="the bot's error")
    assert bot.results["later"] == (401, 50027)  # Invalid Webhook Token
    assert ix.followups == []
    fake_discord.violations.clear()


async def test_no_response_fails_the_interaction(fake_discord: FakeDiscord, bot: DemoBot) -> None:
    ix = await fake_discord.slash("alice", None, "demo", "gated")  # the gate stays shut
    with pytest.raises(AssertionError, match="This interaction failed"):
        await ix.wait_response(timeout=0.1)
    bot.gate.set()  # let the handler finish; its reply now arrives in time
    await ix.wait_response()


async def test_ephemeral_cannot_be_edited_through_the_channel(
    fake_discord: FakeDiscord, bot: DemoBot
) -> None:
    ix = await fake_discord.slash("alice", None, "demo", "leak")
    await fake_discord.wait_until(lambda: "leak" in bot.results, what="the channel edit")
    assert bot.results["leak"] == (404, 10008)
    assert ix.original.all_text() == "secret"
    assert fake_discord.violations[0].kind == "ephemeral"
    fake_discord.violations.clear()


async def test_attachments_keep_their_bytes(fake_discord: FakeDiscord, bot: DemoBot) -> None:
    ix = await fake_discord.slash("alice", None, "demo", "export")
    message = await ix.wait_message()
    (attachment,) = message.attachments
    assert attachment.filename == "game.json" and attachment.data == b'{"moves": 42}'
    async with aiohttp.ClientSession() as session, session.get(attachment.url) as resp:
        assert await resp.read() == b'{"moves": 42}'


async def test_only_the_allowed_user_is_pinged(fake_discord: FakeDiscord, bot: DemoBot) -> None:
    bob = fake_discord.add_user("bob")
    ix = await fake_discord.slash("alice", None, "demo", "turn", {"who": bob})
    message = await ix.wait_message()
    assert message.pinged_user_ids == [bob]
    assert message.allowed_mentions["users"] == [bob]


async def test_modal_round_trip(fake_discord: FakeDiscord, bot: DemoBot) -> None:
    opened = await fake_discord.slash("alice", None, "demo", "rename")
    assert (await opened.wait_response()).type == 9
    submitted = await fake_discord.submit_modal(opened, {"demo:modal:name": "Table 7"})
    assert (await submitted.wait_message()).content == "table Table 7 created"


async def test_member_permissions_reach_the_bot(fake_discord: FakeDiscord, bot: DemoBot) -> None:
    fake_discord.add_user("mod", permissions=Perm.MANAGE_CHANNELS)
    mod = await fake_discord.slash("mod", None, "demo", "admin")
    alice = await fake_discord.slash("alice", None, "demo", "admin")
    assert (await mod.wait_message()).content == "manage_channels=True"
    assert (await alice.wait_message()).content == "manage_channels=False"


async def test_restart_keeps_persistent_buttons_working(fake_discord: FakeDiscord) -> None:
    async with running_bot(fake_discord):
        ix = await fake_discord.slash("alice", None, "demo", "panel")
        message = await ix.wait_message()
    first = fake_discord.sessions[-1]
    assert first.closed

    async with running_bot(fake_discord):
        assert fake_discord.sessions[-1].number == first.number + 1
        counted = await fake_discord.click("bob", message, prefix="demo:count:")
        await counted.wait_response()
        assert message.content == "count: 1"
        closed = await fake_discord.click("bob", message, label="Close")
        await closed.wait_response()
        assert message.content == "closed" and message.components == []
    fake_discord.assert_clean()


async def test_killed_bot_process_is_replaced(fake_discord: FakeDiscord) -> None:
    env = {**os.environ, **fake_discord.env(), "FAKE_GUILD_ID": str(fake_discord.guild_id)}

    async def spawn() -> asyncio.subprocess.Process:
        return await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tests.fakediscord.test_fakediscord",
            cwd=ROOT,
            env=env,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )

    first = await spawn()
    second = None
    try:
        session = await fake_discord.wait_for_bot(timeout=20)
        ix = await fake_discord.slash("alice", None, "demo", "panel")
        message = await ix.wait_message()
        first.kill()  # SIGKILL: no clean gateway close
        await first.wait()
        await fake_discord.wait_for_disconnect(session)

        second = await spawn()
        await fake_discord.wait_for_bot(timeout=20, after=session)
        click = await fake_discord.click("bob", message, prefix="demo:count:")
        await click.wait_response()
        assert message.content == "count: 1"
        assert len(fake_discord.commands()) == 1  # re-synced, same command
    finally:
        for process in (first, second):
            if process is not None and process.returncode is None:
                process.kill()
                await process.wait()
    fake_discord.assert_clean()


async def test_many_tables_at_once(fake_discord: FakeDiscord, bot: DemoBot) -> None:
    async def table(n: int) -> None:
        ix = await fake_discord.slash(f"player{n}", None, "demo", "panel")
        message = await ix.wait_message()
        click = await fake_discord.click(f"player{n}", message, prefix="demo:count:")
        await click.wait_response()
        assert message.content == "count: 1"

    await asyncio.gather(*(table(n) for n in range(100)))
    assert len(fake_discord.interactions) == 200


async def test_gateway_resume_after_drop(fake_discord: FakeDiscord, bot: DemoBot) -> None:
    session = await fake_discord.wait_for_bot()
    await fake_discord.disconnect_bot()
    await fake_discord.wait_until(lambda: session.ready and session.live, timeout=5, what="RESUME")
    assert fake_discord.sessions == [session]  # resumed, not re-identified
    ix = await fake_discord.slash("alice", None, "demo", "secret")
    await ix.wait_response()


async def test_burst_of_edits_is_rate_limited_and_retried(
    fake_discord: FakeDiscord, bot: DemoBot
) -> None:
    fake_discord.set_channel_rate_limit(5, 0.3)
    ix = await fake_discord.slash("alice", None, "demo", "burst", {"edits": 10})
    await ix.wait_followups(1, timeout=5)
    message = next(m for m in fake_discord.public_messages() if m.content.startswith("edit"))
    assert message.content == "edit 10" and len(message.versions) == 11
    assert fake_discord.rate_limited, "the burst should have hit the per-channel limit"
    assert all(hit.channel_id == fake_discord.channel_id for hit in fake_discord.rate_limited)
    fake_discord.rate_limited.clear()


async def test_unknown_routes_are_loud(fake_discord: FakeDiscord) -> None:
    headers = {"Authorization": f"Bot {fake_discord.token}"}
    url = fake_discord.api_base + "/guilds/1/emojis"
    async with aiohttp.ClientSession() as session, session.get(url, headers=headers) as resp:
        assert resp.status == 404 and resp.headers["Content-Type"] == "application/json"
        assert await resp.json() == {"message": "404: Not Found", "code": 0}
    assert fake_discord.violations[0].kind == "unknown_route"
    fake_discord.violations.clear()


# -- the bot's permissions -------------------------------------------------------


async def probe(fake: FakeDiscord, kind: str, channel: int | None = None) -> str:
    ix = await fake.slash("alice", channel, "demo", "probe", {"kind": kind})
    (report,) = await ix.wait_followups(1)
    return report.content


async def test_bot_permissions_reach_app_permissions_and_are_enforced(
    fake_discord: FakeDiscord, bot: DemoBot
) -> None:
    fake_discord.set_channel_rate_limit(50, 1.0)  # refused posts use up the bucket too
    everything = fake_discord.bot_permissions()
    assert everything & Perm.SEND_MESSAGES and everything & Perm.EMBED_LINKS
    assert await probe(fake_discord, "text") == f"app={everything} mine={everything}"

    # Read-only: interaction replies and followups still work, channel posts do not.
    read_only = discord.Permissions(view_channel=True, read_message_history=True)
    fake_discord.set_bot_permissions(fake_discord.channel_id, read_only)
    assert await probe(fake_discord, "text") == f"app={read_only.value} mine={read_only.value}"
    assert bot.results["text"] == (403, 50013)
    assert await probe(fake_discord, "edit")  # the bot may still edit its own message
    assert bot.results["edit"] == "ok"

    no_extras = discord.Permissions(view_channel=True, send_messages=True)
    fake_discord.set_bot_permissions(fake_discord.channel_id, no_extras)
    await probe(fake_discord, "embed")
    await probe(fake_discord, "file")
    assert bot.results["embed"] == bot.results["file"] == (403, 50013)
    await probe(fake_discord, "text")
    assert bot.results["text"] == "ok"
    refused = [v for v in fake_discord.violations if v.path.endswith("/messages")]
    assert [(v.status, v.code) for v in refused] == [(403, 50013)] * 3
    assert all(v.message == "Missing Permissions" for v in refused)

    fake_discord.set_bot_permissions(fake_discord.channel_id, None)
    assert fake_discord.bot_permissions() == everything
    fake_discord.violations.clear()


async def test_guild_wide_bot_permissions_and_threads(
    fake_discord: FakeDiscord, bot: DemoBot
) -> None:
    thread = fake_discord.add_channel("table-1", type=11)
    no_threads = discord.Permissions(
        view_channel=True, send_messages=True, embed_links=True, read_message_history=True
    )
    fake_discord.set_bot_permissions(None, no_threads)  # guild-wide, despite @everyone
    assert fake_discord.bot_permissions() == no_threads.value
    await probe(fake_discord, "text")
    assert bot.results["text"] == "ok"
    await probe(fake_discord, "text", thread)
    assert bot.results["text"] == (403, 50013)  # no Send Messages in Threads
    with pytest.raises(ValueError, match="parent"):
        fake_discord.set_bot_permissions(thread, no_threads)
    other = fake_discord.add_channel("other")
    assert fake_discord.bot_permissions(other) == no_threads.value
    fake_discord.set_bot_permissions(None, None)
    await probe(fake_discord, "text", thread)
    assert bot.results["text"] == "ok"
    assert [v.code for v in fake_discord.violations] == [50013]
    fake_discord.violations.clear()


async def test_message_deleted_by_a_moderator_cannot_be_edited(
    fake_discord: FakeDiscord, bot: DemoBot
) -> None:
    await probe(fake_discord, "text")
    posted = fake_discord.find_message(bot.results["last"].id)
    fake_discord.delete_message(posted)
    await fake_discord.wait_until(lambda: posted.id not in {m.id for m in bot.cached_messages})
    await probe(fake_discord, "edit")
    assert bot.results["edit"] == (404, 10008)
    assert posted.deleted and posted.content == "probe"
    # A click on it that arrives after the delete cannot update it either.
    click = await fake_discord.forge_component("bob", "demo:close", message=posted)
    await click.wait_until(lambda ix: ix.rejections, what="the refused update")
    assert [v.code for v in click.rejections] == [10008]
    fake_discord.violations.clear()


# -- forged clicks, DMs and locales ---------------------------------------------


async def test_forged_clicks(fake_discord: FakeDiscord, bot: DemoBot) -> None:
    hello = await (
        await fake_discord.slash("alice", None, "demo", "hello", {"name": "x"})
    ).wait_message()

    # A custom_id no view knows: discord.py drops it and the user sees a failure.
    unknown = await fake_discord.forge_component("mallory", "nlk:steal:1", message=hello)
    assert unknown.payload["message"]["id"] == str(hello.id)
    assert unknown.payload["data"] == {"custom_id": "nlk:steal:1", "component_type": 2}
    with pytest.raises(AssertionError, match="This interaction failed"):
        await unknown.wait_response(timeout=0.3)

    # A real handler reached from a message that never carried its button.
    close = await fake_discord.forge_component("mallory", "demo:close", message=hello)
    await close.wait_response()
    assert hello.content == "closed"

    # A message from another channel, and a message id that does not exist.
    other = fake_discord.add_channel("other")
    moved = await fake_discord.forge_component("mallory", "demo:peek", channel=other, message=hello)
    assert moved.payload["channel_id"] == str(other)
    assert moved.payload["message"]["channel_id"] == str(fake_discord.channel_id)
    await moved.wait_response()
    ghost = await fake_discord.forge_component("mallory", "demo:close", message=12345)
    assert ghost.payload["message"]["id"] == "12345"
    await ghost.wait_until(lambda ix: ix.rejections, what="the refused update")
    assert ghost.rejections[0].code == 10008

    select = await fake_discord.forge_component(
        "mallory", "nlk:pick", component_type=3, values=["A♠", 7]
    )
    assert select.payload["data"]["values"] == ["A♠", "7"]
    assert select.payload["data"]["component_type"] == 3
    fake_discord.violations.clear()


async def test_slash_in_a_dm(fake_discord: FakeDiscord, bot: DemoBot) -> None:
    ix = await fake_discord.slash_dm("dora", "ping")
    message = await ix.wait_message()
    assert message.content == "pong dm guild=None locale=en-US guild_locale=None"
    payload = ix.payload
    assert "guild_id" not in payload and "member" not in payload and "guild_locale" not in payload
    assert payload["user"]["username"] == "dora" and payload["channel"]["type"] == 1
    assert int(payload["app_permissions"]) & Perm.SEND_MESSAGES
    with pytest.raises(ValueError, match="guild command"):
        await fake_discord.slash_dm("dora", "demo", "secret")  # guild-only command


async def test_locales_reach_the_bot(fake_discord: FakeDiscord, bot: DemoBot) -> None:
    fake_discord.add_user("hanna")
    fake_discord.set_locale("hanna", "hu")
    fake_discord.set_guild_locale("fr")
    await fake_discord.wait_until(
        lambda: bot.get_guild(fake_discord.guild_id).preferred_locale.value == "fr"
    )
    ix = await fake_discord.slash("hanna", None, "ping")
    expected = f"pong guild guild={fake_discord.guild_id} locale=hu guild_locale=fr"
    assert (await ix.wait_message()).content == expected
    ix = await fake_discord.slash("alice", None, "ping")
    assert ix.payload["locale"] == "en-US" and ix.payload["guild_locale"] == "fr"
    with pytest.raises(ValueError, match="not a Discord locale"):
        fake_discord.set_locale("hanna", "hu-HU")


# -- rate limits ------------------------------------------------------------------


async def test_global_rate_limit_is_enforced_and_counted(
    fake_discord: FakeDiscord, bot: DemoBot
) -> None:
    assert fake_discord.rate_limited == []
    fake_discord.set_global_rate_limit(3, 0.2)
    channels = await asyncio.gather(
        *(bot.fetch_channel(fake_discord.channel_id) for _ in range(10))
    )
    assert {c.id for c in channels} == {fake_discord.channel_id}
    hits = fake_discord.rate_limited
    assert hits and all(h.scope == "global" and h.channel_id is None for h in hits)
    assert fake_discord.rate_limit_counts == {"GET /channels/{channel_id}": len(hits)}
    before = len(hits)

    # The wire format: discord.py needs Via, and the global flag in body and headers.
    url = f"{fake_discord.api_base}/channels/{fake_discord.channel_id}"
    headers = {"Authorization": f"Bot {fake_discord.token}"}
    fake_discord.set_global_rate_limit(1, 60)
    async with aiohttp.ClientSession() as session:
        async with session.get(url, headers=headers) as resp:
            assert resp.status == 200
        async with session.get(url, headers=headers) as resp:
            assert resp.status == 429
            assert resp.headers["Content-Type"] == "application/json"
            assert resp.headers["Via"] == "1.1 google"
            assert resp.headers["X-RateLimit-Global"] == "true"
            assert resp.headers["X-RateLimit-Scope"] == "global"
            body = await resp.json()
    assert body["global"] is True and body["message"] == "You are being rate limited."
    assert 59 < body["retry_after"] <= 60

    # Interaction callbacks and followups do not count against it.
    ix = await fake_discord.slash("alice", None, "demo", "slow")
    assert len(await ix.wait_followups(2)) == 2
    assert len(fake_discord.rate_limited) == before + 1  # only the raw request above
    fake_discord.set_global_rate_limit()
    fake_discord.rate_limited.clear()


async def test_deletes_have_their_own_channel_bucket(
    fake_discord: FakeDiscord, bot: DemoBot
) -> None:
    fake_discord.set_channel_rate_limit(50, 1.0)
    fake_discord.set_delete_rate_limit(2, 0.2)
    ix = await fake_discord.slash("alice", None, "demo", "sweep", {"count": 6})
    await ix.wait_followups(1, timeout=5)
    assert [m for m in fake_discord.public_messages() if m.content.startswith("sweep")] == []
    route = "DELETE /channels/{channel_id}/messages/{message_id}"
    assert set(fake_discord.rate_limit_counts) == {route}
    assert all(h.channel_id == fake_discord.channel_id for h in fake_discord.rate_limited)
    fake_discord.rate_limited.clear()


# -- command syncs ------------------------------------------------------------------


async def test_command_syncs_are_recorded(fake_discord: FakeDiscord, bot: DemoBot) -> None:
    assert fake_discord.command_sync_count() == 1
    assert fake_discord.command_sync_count(global_=True) == 1
    assert {(s.guild_id, tuple(s.names)) for s in fake_discord.command_syncs} == {
        (fake_discord.guild_id, ("demo",)),
        (None, ("ping",)),
    }
    await bot.tree.sync(guild=bot.guild)
    assert fake_discord.command_sync_count() == 2
    assert len(fake_discord.command_syncs) == 3


def _cmd(**extra: Any) -> dict[str, Any]:
    return {"name": "nlk", "description": "Play NLK", "type": 1, **extra}


def _opt(**extra: Any) -> dict[str, Any]:
    return {"name": "seats", "description": "How many", "type": 4, **extra}


BAD_COMMANDS = {
    "capital name": (_cmd(name="Nlk"), "0.name"),
    "space in name": (_cmd(name="new game"), "0.name"),
    "33-char name": (_cmd(name="n" * 33), "0.name"),
    "empty description": (_cmd(description=""), "0.description"),
    "101-char description": (_cmd(description="d" * 101), "0.description"),
    "unknown locale": (_cmd(name_localizations={"hu-HU": "nlk"}), "name_localizations.hu-HU"),
    "capital localized name": (_cmd(name_localizations={"hu": "Új"}), "name_localizations.hu"),
    "long localized description": (
        _cmd(description_localizations={"fr": "d" * 101}),
        "description_localizations.fr",
    ),
    "bad option name": (_cmd(options=[_opt(name="Seats")]), "options.0.name"),
    "bad option locale": (
        _cmd(options=[_opt(description_localizations={"xx": "x"})]),
        "options.0.description_localizations.xx",
    ),
    "26 options": (
        _cmd(options=[_opt(name=f"o{i}") for i in range(26)]),
        "0.options",
    ),
    "26 choices": (
        _cmd(options=[_opt(choices=[{"name": str(i), "value": i} for i in range(26)])]),
        "options.0.choices",
    ),
    "101-char choice": (
        _cmd(options=[_opt(type=3, choices=[{"name": "c" * 101, "value": "c"}])]),
        "choices.0.name",
    ),
    "empty localized choice": (
        _cmd(
            options=[
                _opt(
                    type=3, choices=[{"name": "c", "value": "c", "name_localizations": {"de": ""}}]
                )
            ]
        ),
        "choices.0.name_localizations.de",
    ),
}


@pytest.mark.parametrize(("command", "where"), BAD_COMMANDS.values(), ids=BAD_COMMANDS.keys())
async def test_invalid_commands_are_refused(
    fake_discord: FakeDiscord, bot: DemoBot, command: dict[str, Any], where: str
) -> None:
    app_id, before = fake_discord.application_id, len(fake_discord.command_syncs)
    with pytest.raises(discord.HTTPException) as caught:
        await bot.http.bulk_upsert_guild_commands(app_id, fake_discord.guild_id, [command])
    assert (caught.value.status, caught.value.code) == (400, 50035)
    (violation,) = fake_discord.violations
    assert any(path.endswith(where) for path, _, _ in violation.errors), violation.errors
    assert len(fake_discord.command_syncs) == before
    fake_discord.violations.clear()


async def test_localized_commands_are_accepted(fake_discord: FakeDiscord, bot: DemoBot) -> None:
    command = _cmd(
        name_localizations={"hu": "új-játék", "hi": "खेल", "th": "เกม"},
        description_localizations={"hu": "NLK játék", "en-GB": "Play NLK"},
        options=[_opt(choices=[{"name": "két", "value": 2, "name_localizations": {"de": "zwei"}}])],
    )
    await bot.http.bulk_upsert_guild_commands(
        fake_discord.application_id, fake_discord.guild_id, [command]
    )
    assert fake_discord.command_syncs[-1].names == ["nlk"]
    assert fake_discord.commands()[0]["name_localizations"]["hu"] == "új-játék"


async def run_from_environment() -> None:
    """Run the demo bot configured only by environment variables, as a real deployment is."""
    Route.BASE = os.environ["DISCORD_API_BASE"]
    bot = DemoBot(int(os.environ["FAKE_GUILD_ID"]))
    async with bot:
        await bot.start(os.environ["DISCORD_TOKEN"])


if __name__ == "__main__":
    asyncio.run(run_from_environment())
