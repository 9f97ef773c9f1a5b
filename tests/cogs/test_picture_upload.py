"""A picture sent as one body built as bytes (``cogs.transport.multipart``): Discord reads
the same message from it as from discord.py's own upload, through a token and in a channel,
and aiohttp's form machinery is not used for it."""

import io

import aiohttp
import discord
import pytest

from cogs.transport.multipart import multipart_body
from cogs.transport.raw import (
    answer_by_editing,
    answer_with_message,
    edit_in_channel,
    edit_through_token,
    post_through_token,
)
from tests.nlk_driver import running_bot

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40 + b"--\r\n\r\n"  # any bytes at all
ALT = "Your hand, 2 cards: spades: ace; hearts (trump): 7, 8."


def picture(name: str = "hand.png") -> discord.File:
    return discord.File(io.BytesIO(PNG), filename=name, description=ALT)


def embed(title: str) -> discord.Embed:
    shown = discord.Embed(title=title, description="♠ A\n♥ 7 8")
    shown.set_image(url="attachment://hand.png")
    return shown


def read(message) -> tuple[object, ...]:
    """What Discord keeps of a message's upload: its embeds and each file's name, bytes,
    type and description."""
    version = message.current
    embeds = [{k: v for k, v in e.items() if k != "title"} for e in version.embeds]
    return embeds, [(a.filename, a.data, a.content_type, a.description)
                    for a in version.attachments]


@pytest.fixture
def forms(monkeypatch):
    """How many of aiohttp's forms are built from now on."""
    built = []

    class Counted(aiohttp.FormData):
        def __init__(self, *args, **kwargs):
            built.append(1)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(aiohttp, "FormData", Counted)
    return built


async def test_a_picture_through_a_token_or_in_a_channel_reads_as_discord_py_sends_it(
        fake_discord, tmp_path, forms):
    fake = fake_discord
    async with running_bot(fake, tmp_path / "nlk.sqlite3") as bot:
        ix = await fake.slash("ann", None, "nlk", "new")
        await ix.wait_response()
        [original] = ix.messages
        app = bot.application_id
        # Through the token: discord.py's upload, then the same fields as one body.
        webhook = discord.Webhook.partial(app, ix.token, client=bot)
        await webhook.edit_message(original.id, embed=embed("py"), attachments=[picture()])
        assert len(forms) == 1
        sent = read(original)
        await edit_through_token(bot, app, ix.token, "@original", embed=embed("raw"),
                                 attachments=[picture()])
        assert len(forms) == 1 and original.current.embeds[0]["title"] == "raw"
        assert read(original) == sent
        assert sent[1][0][0] == "hand.png" and sent[1][0][1] == PNG and sent[1][0][3] == ALT
        # Posted through the token, then edited in its channel.
        interaction = type("Tapped", (), {"client": bot, "application_id": app,
                                          "token": ix.token})()
        posted = await post_through_token(interaction, embed=embed("raw"),
                                          files=[picture()])
        message = next(m for m in fake.messages() if m.id == posted.id)
        assert len(forms) == 1 and read(message) == sent
        channel = bot.get_channel(message.channel_id)
        await channel.get_partial_message(message.id).edit(embed=embed("py"),
                                                           attachments=[picture()])
        assert len(forms) == 2 and read(message) == sent
        await edit_in_channel(bot, message.channel_id, message.id, embed=embed("raw"),
                              attachments=[picture()])
        assert len(forms) == 2 and message.current.embeds[0]["title"] == "raw"
        assert read(message) == sent
        # An edit without a file goes as JSON, as before, and keeps the picture.
        await edit_in_channel(bot, message.channel_id, message.id, content="text")
        assert read(message) == sent and message.current.content == "text"


async def test_a_body_it_cannot_write_plainly_is_left_to_discord_py(fake_discord, tmp_path,
                                                                     forms):
    fake = fake_discord
    params = discord.http.handle_message_parameters(
        content="x", files=[picture("kéz.png")])
    assert multipart_body(params.multipart) is None
    async with running_bot(fake, tmp_path / "nlk.sqlite3") as bot:
        ix = await fake.slash("ann", None, "nlk", "new")
        await ix.wait_response()
        [original] = ix.messages
        await edit_in_channel(bot, original.channel_id, original.id, embed=embed("py"),
                              attachments=[picture("kéz.png")])
        assert len(forms) == 1  # discord.py's upload
        assert original.current.attachments[0].filename == "kéz.png"


async def test_an_answer_with_a_picture_reads_as_discord_py_sends_it(fake_discord, tmp_path,
                                                                     forms):
    """A hand shown as a new private message, then a tap on it answered by editing it: the
    same message as discord.py's ``InteractionResponse`` makes, and answered from then on."""
    fake = fake_discord
    async with running_bot(fake, tmp_path / "nlk.sqlite3") as bot:
        arrived: list[dict] = []
        parsers = bot._connection.parsers
        monkeypatch = pytest.MonkeyPatch()
        monkeypatch.setitem(parsers, "INTERACTION_CREATE", arrived.append)  # answered here
        try:
            async def interaction(tap) -> tuple[object, discord.Interaction]:
                ix = await tap()
                await fake.state.wait_until(lambda: len(arrived) == 1, 5, "the interaction")
                return ix, discord.Interaction(data=arrived.pop(), state=bot._connection)

            shown = []
            for answer in ("py", "raw"):
                ix, tapped = await interaction(lambda: fake.slash("ann", None, "nlk", "hand"))
                view = discord.ui.View()
                view.add_item(discord.ui.Button(label="Refresh", custom_id=f"r:{answer}"))
                view.stop()
                if answer == "py":
                    await tapped.response.send_message(embed=embed(answer), view=view,
                                                       ephemeral=True, files=[picture()])
                    assert len(forms) == 1
                else:
                    await answer_with_message(tapped, embed=embed(answer), view=view,
                                              ephemeral=True, files=[picture()])
                    assert len(forms) == 1 and tapped.response.is_done()
                [message] = ix.messages
                shown.append(message)
            assert read(shown[0]) == read(shown[1])
            assert [m.current.flags for m in shown] == [64, 64]  # ephemeral, both
            edited = []
            for message, answer in zip(shown, ("py", "raw"), strict=True):
                ix, tapped = await interaction(
                    lambda m=message, a=answer: fake.click("ann", m, f"r:{a}"))
                again = picture()
                if answer == "py":
                    await tapped.response.edit_message(embed=embed(answer), view=None,
                                                       attachments=[again])
                    assert len(forms) == 2
                else:
                    await answer_by_editing(tapped, embed=embed(answer), view=None,
                                            attachments=[again])
                    assert len(forms) == 2 and tapped.response.is_done()
                    with pytest.raises(discord.InteractionResponded):
                        await answer_by_editing(tapped, embed=embed(answer), view=None)
                edited.append((*read(message), message.current.components))
            assert edited[0] == edited[1] and len(shown[1].versions) == 2
        finally:
            monkeypatch.undo()

