"""Through the fake Discord: ``/nlk replay`` steps through a finished hand privately (each
step's picture decodes and its alt text names the table's cards; the last step names the
loser), opens an exported file and refuses a broken one, refuses a hand in play, keeps its
buttons working after a restart, and shows a step in the channel."""

import io
import json
import random
import re

from PIL import Image

from bot.db.repository import Repository
from bot.db.sqlite import SQLiteDatabase
from cogs.pictures.scenes import card_word
from rules import Card
from rules.i18n import Lang
from rules.replay import parse
from rules.steps import landmarks, step_of
from tests.helpers import table_id_of
from tests.nlk_driver import Driver, running_bot, title

NEXT = "▶"


def image_of(message):
    (attachment,) = [a for a in message.attachments if a.filename == "replay.png"]
    picture = Image.open(io.BytesIO(attachment.data))
    picture.load()
    return picture, attachment.description


def button(message, act):
    return next(b for b in message.buttons() if b.custom_id.endswith(f":{act}"))


def table_cards_said(game, alt):
    """Every card on the table at this step is named in the alt text."""
    if game.phase == "collect":
        shown = [s[-1] for s in game.stacks if s] + ([game.drawn] if game.drawn else [])
    else:
        shown = list(game.trick)
    return all(card_word(Card(c), Lang.EN) in alt for c in shown)


async def finished_hand(fake, path, seats=2):
    driver = Driver(fake, random.Random(5))
    table = await driver.new_table("ann", seats=seats)
    await driver.click("bob", table, "Join")
    await driver.click("ann", table, "Start (host)")
    await driver.play_hand(table)
    return driver, table


async def test_a_finished_hand_replays_step_by_step_to_its_loser(fake_discord, tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    fake.set_channel_rate_limit(limit=200, per=5.0)
    async with running_bot(fake, path, channel_edits=150):
        _driver, table = await finished_hand(fake, path)
        t = table_id_of(table)
        ix = await fake.autocomplete("ann", None, "nlk", "replay", {"hand": ""}, focused="hand")
        await ix.wait_response()
        assert [c["value"] for c in ix.choices] == [f"{t}.1"]

        ix = await fake.slash("cy", None, "nlk", "replay", {"hand": "1"})
        message = await ix.wait_message()
        assert message.ephemeral
        assert message.embeds[0]["title"] == f"Replay · table {t} · hand 1"
        db = await SQLiteDatabase.open(str(path))
        try:
            stored = await Repository(db).last_hand(t)
        finally:
            await db.close()
        assert stored is not None
        replay = stored.replay()
        marks = landmarks(replay)
        assert marks.last == len(stored.actions) and marks.shed is not None
        for at in range(marks.last + 1):
            text = message.embeds[0]["description"]
            assert text.startswith(f"**Move {at} of {marks.last}**"), text
            picture, alt = image_of(message)
            assert picture.width > 100 and picture.height > 100
            game = step_of(replay, at).game
            assert table_cards_said(game, alt), (at, alt)
            if game.to_act is not None:
                assert f"▶ **{game.names[game.to_act]}** is to act." in text
            if at < marks.last:
                assert not button(message, "next").disabled
                ix = await fake.click("cy", message, custom_id=button(message, "next").custom_id)
                assert (await ix.wait_response()).type == 7
        assert button(message, "next").disabled and button(message, "last").disabled
        fields = {f["name"]: f["value"] for f in message.embeds[0]["fields"]}
        loser = game.names[game.loser]
        assert f"{loser} — **loses**" in fields["Finishing order"]
        assert f"**{loser} loses this hand.**" in "\n".join(fields.values())
        assert "Every hand" in alt

        # ⏮ goes back to the deal; the menu jumps to the shed phase.
        ix = await fake.click("cy", message, custom_id=button(message, "first").custom_id)
        await ix.wait_response()
        assert message.embeds[0]["description"].startswith(f"**Move 0 of {marks.last}**")
        (menu,) = message.selects()
        ix = await fake.select("cy", message, menu.custom_id, [str(marks.shed)])
        await ix.wait_response()
        assert message.embeds[0]["description"].startswith(f"**Move {marks.shed} of ")
        assert "**Shed** · trump" in message.embeds[0]["description"]

        # In the reader's language, its card letters included (Hungarian D and B at an
        # English server, on the first move's cards).
        fake.set_locale("cy", "hu")
        ix = await fake.slash("cy", None, "nlk", "replay")
        message = await ix.wait_message()
        assert message.embeds[0]["title"] == f"Visszajátszás · #{t} asztal · 1. leosztás"
        seen = []
        for _step in range(40):  # the first moves, until one shows a queen or a jack
            ix = await fake.click("cy", message, custom_id=button(message, "next").custom_id)
            await ix.wait_response()
            seen.append(message.embeds[0]["description"])
            if re.search(r"(?<!\w)[DBQJ][♠♥♦♣]", seen[-1]):
                break
        said = "\n".join(seen)
        assert re.search(r"(?<!\w)[DB][♠♥♦♣]", said) and not re.search(
            r"(?<!\w)[QJ][♠♥♦♣]", said), said
        _picture, alt = image_of(message)
        assert "Mindenki lapjai" in alt
    fake.assert_clean()


async def test_a_hand_in_play_is_refused(fake_discord, tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    async with running_bot(fake, path):
        ix = await fake.slash("ann", None, "nlk", "replay")
        assert (await ix.wait_response()).data["content"] == (
            "No hand has finished in this channel yet: a hand can be replayed once it is over.")
        driver = Driver(fake, random.Random(5))
        table = await driver.new_table("ann", seats=2)
        await driver.click("bob", table, "Join")
        await driver.click("ann", table, "Start (host)")
        assert " · collect" in title(table)
        t = table_id_of(table)
        ix = await fake.slash("bob", None, "nlk", "replay", {"hand": "1"})
        refusal = await ix.wait_response()
        assert refusal.ephemeral and not refusal.data.get("attachments")
        assert refusal.data["content"] == (
            f"Hand 1 of table {t} is still being played: its replay would reveal the players' "
            "hidden hands. Replay it once it is over.")
    fake.assert_clean()


async def test_an_exported_file_replays_and_a_broken_one_is_refused(fake_discord, tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    fake.set_channel_rate_limit(limit=200, per=5.0)
    async with running_bot(fake, path, channel_edits=150):
        await finished_hand(fake, path)
        ix = await fake.slash("ann", None, "nlk", "export")
        (exported,) = (await ix.wait_message()).attachments
        replay = parse(json.loads(exported.data))
        ix = await fake.slash("dee", None, "nlk", "replay",
                              {"file": ("hand.json", exported.data)})
        message = await ix.wait_message()
        assert message.ephemeral
        assert message.embeds[0]["title"] == f"Replay · {', '.join(replay.players)}"
        ix = await fake.click("dee", message, custom_id=button(message, "last").custom_id)
        await ix.wait_response()
        last = landmarks(replay).last
        assert message.embeds[0]["description"].startswith(f"**Move {last} of {last}**")
        assert "loses this hand" in json.dumps(message.embeds[0]["fields"])
        image_of(message)

        opening = "That file is not a replay NLK can open: "
        for data, problem in (  # each said whole (issue 37: they were cut mid-word)
                (b"{not json", "it is not valid JSON (line 1, column 2)"),
                (b'{"format": "nlk-replay/9"}', "it is in another format than nlk-replay/1"),
                (b"\xff\xfe\x00", "it is not UTF-8 text"),
                (json.dumps({**json.loads(exported.data), "deck": ["ZZ"]}).encode(),
                 "its cards don't make a deal NLK can play"),
                (json.dumps({**json.loads(exported.data), "players": ["a" * 40]}).encode(),
                 "its players must be a list of 2 to 9 names")):
            ix = await fake.slash("dee", None, "nlk", "replay", {"file": ("bad.json", data)})
            answer = await ix.wait_response()
            assert answer.ephemeral and not answer.data.get("embeds")
            assert answer.data["content"] == opening + problem + ".", answer.data["content"]
    fake.assert_clean()


async def test_replay_buttons_work_after_a_restart_and_show_in_the_channel(fake_discord,
                                                                           tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    fake.set_channel_rate_limit(limit=200, per=5.0)
    async with running_bot(fake, path, channel_edits=150):
        await finished_hand(fake, path)
        ix = await fake.slash("ann", None, "nlk", "export")
        (exported,) = (await ix.wait_message()).attachments
        ix = await fake.slash("ann", None, "nlk", "replay")
        stored_message = await ix.wait_message()
        ix = await fake.slash("ann", None, "nlk", "replay", {"file": ("h.json", exported.data)})
        file_message = await ix.wait_message()
    async with running_bot(fake, path, channel_edits=150):
        for message in (stored_message, file_message):
            ix = await fake.click("ann", message, custom_id=button(message, "next").custom_id)
            assert (await ix.wait_response()).type == 7
            assert message.embeds[0]["description"].startswith("**Move 1 of ")
            image_of(message)
        assert button(stored_message, "next").custom_id.split(":")[1].startswith("h")
        assert button(file_message, "next").custom_id.split(":")[1].startswith("f")

        # Show in channel: one public message, the step's picture and its line.
        before = len(fake.public_messages())
        ix = await fake.click("ann", stored_message, custom_id=button(stored_message,
                                                                       "show").custom_id)
        assert (await ix.wait_response()).type == 6  # the post waits its turn in the channel
        (told,) = await ix.wait_followups(timeout=15)
        assert told.ephemeral and told.content.startswith("Shown in the channel: ")
        shown = fake.public_messages()[before:]
        assert len(shown) == 1
        assert shown[0].embeds[0]["description"].startswith("**Move 1 of ")
        assert shown[0].embeds[0]["author"]["name"] == "Shown by ann"
        assert not shown[0].buttons()
        image_of(shown[0])
        # Once per step (issue 37: a second tap posted it again): taps on a step already
        # shown point to the post; another step is its own post, and a double tap on it
        # posts it once.
        link = told.content.removeprefix("Shown in the channel: ")
        show = button(stored_message, "show").custom_id
        taps = [await fake.click("ann", stored_message, custom_id=show),
                await fake.click("ann", stored_message, custom_id=show)]
        for tap in taps:
            assert (await tap.wait_response()).type == 6
        said = sorted([(await tap.wait_followups(timeout=15))[0].content for tap in taps])
        assert said == [f"That step is already shown in the channel: {link}"] * 2
        assert len(fake.public_messages()) == before + 1
        ix = await fake.click("ann", stored_message, custom_id=button(stored_message,
                                                                       "next").custom_id)
        await ix.wait_response()
        doubled = [await fake.click("ann", stored_message, custom_id=button(
            stored_message, "show").custom_id) for _ in range(2)]
        for tap in doubled:
            await tap.wait_response()
        said = sorted([(await tap.wait_followups(timeout=15))[0].content for tap in doubled])
        assert said[0].startswith("Shown in the channel: ") and said[1] in (
            "That step is being shown in the channel already.",
            "That step is already shown in the channel: " + said[0].split(": ", 1)[1])
        assert len(fake.public_messages()) == before + 2

    # A replay that is no longer there (its file was removed from the database) is
    # refused politely on its next click, and the message stays as it was.
    db = await SQLiteDatabase.open(str(path))
    try:
        async with db.transaction() as tx:
            await tx.execute("DELETE FROM uploaded_replays")
    finally:
        await db.close()
    async with running_bot(fake, path, channel_edits=150):
        seen = file_message.embeds[0]
        ix = await fake.click("ann", file_message, custom_id=button(file_message,
                                                                    "next").custom_id)
        answer = await ix.wait_response()
        assert answer.ephemeral and answer.data["content"] == (
            "That replay is no longer here, so nothing changed. Open it again with "
            f"</nlk replay:{fake.state.find_command(fake.guild_id, 'nlk')['id']}>.")
        assert file_message.embeds[0] == seen
    fake.assert_clean()


def test_replay_ids_belong_to_one_family_and_fit_discord():
    from cogs.replay.ids import Act, replay_id
    from cogs.routes.families import families as table_families
    from cogs.routes.replay import replay_families

    every = (*table_families(None), *replay_families(None))

    def families(custom_id):
        return [f.__name__ for f in every
                if f.__discord_ui_compiled_template__.fullmatch(custom_id)]

    for ref in ("h1", "h" + "9" * 18, "f" + "0123456789abcdef" * 2):
        for act in Act:
            custom_id = replay_id(ref, 999999, act)
            assert len(custom_id) <= 100 and families(custom_id) == ["ReplayStep"]
    for forged in ("nlkr:h1:1:explode", "nlkr:x:1:next", "nlkr:h1:1234567:next"):
        assert families(forged) == ["UnknownReplay"], forged


async def test_a_hand_stored_before_the_clock_columns_replays_too(fake_discord, tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    fake.set_channel_rate_limit(limit=200, per=5.0)
    async with running_bot(fake, path, channel_edits=150):
        await finished_hand(fake, path)
    db = await SQLiteDatabase.open(str(path))
    try:  # as a hand dealt before migration 0002 reads: no clock, nobody away
        async with db.transaction() as tx:
            await tx.execute("UPDATE hands SET turn_started = NULL, away = '[]', "
                             "missed = '[]', stand_in = 0")
    finally:
        await db.close()
    async with running_bot(fake, path, channel_edits=150):
        ix = await fake.slash("ann", None, "nlk", "replay", {"hand": "1"})
        message = await ix.wait_message()
        ix = await fake.click("ann", message, custom_id=button(message, "last").custom_id)
        await ix.wait_response()
        assert "loses this hand" in json.dumps(message.embeds[0]["fields"])
        image_of(message)
        # A reader who chose text only reads the table in words, with no picture.
        ix = await fake.slash("ann", None, "nlk", "cards", {"style": "text"})
        await ix.wait_response()
        ix = await fake.slash("ann", None, "nlk", "replay", {"hand": "1"})
        message = await ix.wait_message()
        assert not message.attachments and "image" not in message.embeds[0]
        fields = {f["name"]: f["value"] for f in message.embeds[0]["fields"]}
        assert fields["The table at this step"].startswith("Stack tops: ")
        assert "Every hand: " in fields["The table at this step"]
    fake.assert_clean()
