"""A Hungarian and a French table each play a whole hand through the fake Discord, and read
as the language review asked: seat lines, prompts, the end of the hand and the leaderboard
(issue 21), with French elision before names and no breakable space before :;!? (issue 22)."""

import random
import re

import pytest

from tests.helpers import play_out_by_ids
from tests.nlk_driver import running_bot

OVER = {"hu": " · vége", "fr": " · terminée"}
BREAKABLE = re.compile(r" [:;!?]")


@pytest.mark.parametrize("lang", ["hu", "fr"])
async def test_a_whole_hand_reads_as_the_review_asked(fake_discord, tmp_path, lang):
    fake = fake_discord
    fake.set_guild_locale(lang)
    for name in ("amelie", "otto", "ede"):  # names with a vowel first: French elides them
        fake.add_user(name)
        fake.set_locale(name, lang)
    fake.set_channel_rate_limit(limit=200, per=5.0)
    async with running_bot(fake, tmp_path / "nlk.sqlite3", channel_edits=150):
        ix = await fake.slash("otto", None, "nlk", "new", {"seats": 3})
        table = await ix.wait_message()
        join, start = (next(b for b in table.buttons() if b.custom_id.endswith(action))
                       for action in (":join", ":start"))
        for name in ("amelie", "ede"):
            await (await fake.click(name, table, custom_id=join.custom_id)).wait_response()
        await (await fake.click("otto", table, custom_id=start.custom_id)).wait_response()
        hands = [hand for _, hand in await play_out_by_ids(fake, table, OVER[lang],
                                                             random.Random(4))]
        await fake.wait_until(lambda: any(m.content and ("leosztás vége" in m.content or
                                                         "est finie" in m.content)
                                          for m in fake.public_messages()), timeout=10)
        ix = await fake.slash("amelie", None, "nlk", "stats")
        board = await ix.wait_message()
    fake.assert_clean()
    versions = [v.text() for v in table.versions]
    private = "\n".join(h.all_text() for h in hands)
    ending = next(m.content for m in fake.public_messages()
                  if m.content and ("leosztás vége" in m.content or "est finie" in m.content))
    everything = "\n".join([*versions, private, ending, board.text()])
    if lang == "hu":
        assert any(re.search(r"— végzett \(1\.\)", v) for v in versions)  # a seat line
        assert "pakli" not in everything.lower() and "kiszállt" not in everything
        assert not re.search(r"\b(üsse|vegyen|tegye|tartsa|húzzon)\b", everything)
        assert any("következik: a kupaca felső lapját ráteheti" in v for v in versions)
        assert any("következik: üti a legfelső lapot (" in v for v in versions)
        assert "**Te jössz**: üsd a legfelső lapot (" in private or \
            "**Te jössz**: a legfelső lapot (" in private
        assert re.match(r"\d+\\\. leosztás vége: \*\*", ending) and "Helyezések: " in ending
        assert "Helyezések" in table.text()
        assert board.embeds[0]["title"] == "NLK-ranglista · 3 fős asztalok"
        assert "puszta szerencsével várható: 33,3%" in board.embeds[0]["description"]
    else:
        assert not BREAKABLE.search(everything), BREAKABLE.findall(everything)
        assert any(re.search(r"Au tour d’\*\*(amelie|otto|ede)\*\*", v) for v in versions)
        assert not re.search(r"\bde \*\*(amelie|otto|ede)", everything)
        assert any("doit battre" in v and "ou ramasser" in v for v in versions)
        assert "ramassez" in private and "prenez" not in private
        assert "Ordre de sortie\u202f: " in ending and "d’arrivée" not in everything
        assert board.embeds[0]["title"] == "Classement NLK · tables de 3 joueurs"
        assert "attendu au hasard\u202f: 33,3\u00a0%" in board.embeds[0]["description"]
