"""``/nlk export format:animation``: the finished hand as one animated picture, one frame
per move, only for the reader, in their language, within the interaction's size limit."""

import io

from PIL import Image

from bot.db.repository import Repository
from bot.db.sqlite import SQLiteDatabase
from cogs.pictures.ending import end_of_hand_message, end_of_hand_picture
from rules.i18n import Lang
from tests.cogs.test_replay import finished_hand
from tests.helpers import table_id_of
from tests.nlk_driver import running_bot


async def test_export_offers_the_hand_as_an_animated_picture(fake_discord, tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    fake.set_channel_rate_limit(limit=200, per=5.0)
    async with running_bot(fake, path, channel_edits=150):
        _driver, table = await finished_hand(fake, path)
        t = table_id_of(table)
        fake.set_locale("bob", "fr")
        ix = await fake.slash("bob", None, "nlk", "export", {"format": "animation"})
        assert (await ix.wait_message()).ephemeral  # "thinking…" while it is drawn
        await ix.wait_until(lambda ix: any(m.attachments for m in ix.messages), timeout=30,
                            what="the animation")
        message = next(m for m in ix.messages if m.attachments)
        assert message.ephemeral
        assert message.content.startswith(f"Donne 1 de la table {t}, un coup par image.")
        (attachment,) = message.attachments
        assert attachment.filename.rsplit(".", 1)[1] in ("gif", "webp")
        animation = Image.open(io.BytesIO(attachment.data))
        db = await SQLiteDatabase.open(str(path))
        try:
            stored = await Repository(db).last_hand(t)
        finally:
            await db.close()
        assert stored is not None
        moves = len(stored.replay().actions)
        if "Pour respecter" not in message.content:  # the whole hand fitted
            assert animation.n_frames == moves + 1
        else:
            assert 2 <= animation.n_frames < moves + 1
        # The replay file is still the default.
        ix = await fake.slash("bob", None, "nlk", "export")
        message = await ix.wait_message()
        assert message.attachments[0].filename == f"nlk-table{t}-hand1.json"
    fake.assert_clean()


async def test_the_end_of_hand_pictures_replay_button_opens_the_hand_for_whoever_taps(
        fake_discord, tmp_path):
    """The notice is sent through discord.py as ``end_of_hand_message`` builds it; its Replay
    button opens the hand's replay, privately, and leaves the notice as it is."""
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    fake.set_channel_rate_limit(limit=200, per=5.0)
    async with running_bot(fake, path, channel_edits=150) as bot:
        _driver, table = await finished_hand(fake, path)
        t = table_id_of(table)
        db = await SQLiteDatabase.open(str(path))
        try:
            stored = await Repository(db).last_hand(t)
        finally:
            await db.close()
        assert stored is not None
        game = stored.replay().run()[0]
        names = game.names
        order = [names[s] for s in game.out]
        assert game.loser is not None
        picture = end_of_hand_picture(order, names[game.loser],
                                      list(game.stacks[game.loser]), Lang.EN,
                                      hand_number=stored.hand.number)
        channel = bot.get_channel(table.channel_id)
        assert channel is not None
        notice = await channel.send(**end_of_hand_message(picture, stored.hand.id, Lang.EN,
                                                          "Hand 1 is over."))
        message = fake.find_message(notice.id)
        before = list(message.attachments)
        assert before and before[0].filename == picture.filename
        ix = await fake.click("bob", message, label="Replay")
        shown = await ix.wait_message()
        assert shown.ephemeral and shown.id != message.id
        assert shown.embeds[0]["title"] == f"Replay · table {t} · hand 1"
        assert shown.embeds[0]["description"].startswith("**Move 0 of ")
        assert list(message.attachments) == before  # the notice is untouched
    fake.assert_clean()
