"""``/nlk export format:animation``: the finished hand as one animated picture, one frame
per move, only for the reader, in their language, within the interaction's size limit."""

import io

from PIL import Image

from bot.db.repository import Repository
from bot.db.sqlite import SQLiteDatabase
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
