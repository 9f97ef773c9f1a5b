"""A Hungarian and a French table with AI seats each play a whole hand through the fake
Discord, and no English word reaches any message (issue 30): not the AI seats' names, not
their levels, not a line built outside the catalogue. Player names are the only words the
bot does not translate; cards show the language's letters."""

import random
import re

import pytest
from babel.messages.pofile import read_po

from rules.i18n import LOCALES, Lang, catalogue_path
from tests.helpers import play_out_by_ids
from tests.nlk_driver import running_bot, title

OVER = {"hu": " · vége", "fr": " · terminée"}
HUMANS = ("amelie", "otto")
# Discord's markup carries no words: mentions, timestamps, links, custom emoji.
MARKUP = re.compile(r"<[@#/:t][^>]*>|https?://\S+|`[^`]*`")


def _words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[^\W\d_]{3,}", text)}


def english_words(lang: Lang) -> set[str]:
    """Words of the English messages that the language's own catalogue never uses: were
    one of them to reach a message, it came from English ("heuristic", "strong", "AI")."""
    with (LOCALES / "nlk.pot").open("rb") as f:
        template = read_po(f)
    with catalogue_path(lang).open("rb") as f:
        translated = read_po(f)

    def texts(catalogue, attribute):
        for message in catalogue:
            value = getattr(message, attribute)
            for text in value if isinstance(value, tuple | list) else (value,):
                if text:
                    yield re.sub(r"\{\w+\}", " ", text)

    english = set().union(*map(_words, texts(template, "id")))
    english -= set().union(*map(_words, texts(translated, "string")))
    # The terminal's help names the levels as they are typed; a table never shows them.
    return english | {"heuristic", "strong", "random", "missing", "permissions"}


def test_the_english_word_list_can_catch_a_leak():
    assert {"heuristic", "strong", "turn", "hand"} <= english_words(Lang.FR)
    assert {"heuristic", "strong", "turn", "seats"} <= english_words(Lang.HU)
    assert "table" not in english_words(Lang.FR)  # a French word too


@pytest.mark.parametrize("lang", ["hu", "fr"])
async def test_a_table_with_ai_seats_plays_a_hand_without_an_english_word(
        fake_discord, tmp_path, lang):
    fake = fake_discord
    fake.set_guild_locale(lang)
    for name in HUMANS:
        fake.add_user(name)
        fake.set_locale(name, lang)
    fake.set_channel_rate_limit(limit=200, per=5.0)
    async with running_bot(fake, tmp_path / "nlk.sqlite3", channel_edits=150):
        ix = await fake.slash("otto", None, "nlk", "new", {"seats": 4})
        table = await ix.wait_message()

        def tap(who, ending):
            button = next(b for b in table.buttons() if b.custom_id.endswith(ending))
            return fake.click(who, table, custom_id=button.custom_id)

        await (await tap("amelie", ":join")).wait_response()
        await (await tap("otto", ":addai.HEURISTIC")).wait_response()
        await (await tap("otto", ":addai.STRONG")).wait_response()
        lobby = table.text()
        await (await tap("otto", ":start")).wait_response()
        hands = [hand for _, hand in await play_out_by_ids(
            fake, table, OVER[lang], random.Random(5), humans=set(HUMANS))]
        await fake.wait_until(lambda: any(m.content and ("leosztás vége" in m.content or
                                                         "est finie" in m.content)
                                          for m in fake.public_messages()), timeout=10)
        looked = []
        for ending in (":moves", ":fair"):
            ix = await tap("amelie", ending)
            looked.append(await ix.wait_message())
    fake.assert_clean()
    assert title(table).endswith(OVER[lang])
    texts = [lobby, *(v.text() for v in table.versions),
             *(m.all_text() for m in fake.messages(include_deleted=True)),
             *(h.all_text() for h in hands), *(m.text() for m in looked)]
    texts += [a.description or "" for m in fake.messages(include_deleted=True)
              for v in m.versions for a in v.attachments]  # pictures' alt text
    everything = MARKUP.sub(" ", "\n".join(texts))
    for name in HUMANS:
        everything = everything.replace(name, " ")
    leaked = sorted(_words(everything) & english_words(Lang(lang)))
    assert not leaked, leaked
    assert not re.search(r"\bAI\b", everything)  # "IA 1", "Gép 1": never "AI 1"
    if lang == "fr":  # lines built from pieces keep the no-break space before : ; ! ?
        assert not re.findall(r".{0,20} [:;!?]", everything)
        assert not re.search(r"\bde IA\b", everything)  # "d’IA 1"
    ai = {"hu": ("Gép 1", "Gép 2 (erős)"), "fr": ("IA 1", "IA 2 (forte)")}[lang]
    assert all(name in lobby for name in ai), lobby
    assert any(ai[1] in v.text() for v in table.versions[1:])  # named so during the hand
