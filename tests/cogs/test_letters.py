"""Card letters follow the reader (issue 46): a private hand shows its owner's own letters,
everywhere in it (its cards, its buttons, its menu), while the table message everyone reads
shows the place's. An English player at a Hungarian table reads "Take Q♣️" in her hand and
"D♣️" on the table; a Hungarian at an English table the other way round."""

from __future__ import annotations

import random
import re

import pytest

from tests.helpers import ANY_ACTOR
from tests.nlk_driver import description, running_bot

PLAYERS = ("ann", "bob", "cy")
# The court letters each language has and the others don't read the same way.
COURTS = {"en": "KQJ", "hu": "KDB", "fr": "RDV"}
SUIT = "[♠♥♦♣]"
COLLECT_MOVES = ("give", "draw", "keep")
LOCALE = {"en": "en-US", "hu": "hu", "fr": "fr"}  # Discord's name of each language


def letters_in(text: str) -> set[str]:
    """The court letters of the cards in ``text``: those before a suit ("D♣️", on buttons
    and in sentences) and those standing alone in a hand's suit rows ("♠︎ 7 9 B")."""
    found = set(re.findall(rf"(?<!\w)([A-Z]){SUIT}", text))
    for line in text.splitlines():
        if re.match(rf"{SUIT}", line):  # a suit row: the suit, then its ranks
            found |= set(re.findall(r"(?<!\w)([A-Z])(?!\w)", line)) - {"A"}
    return found - {"A"}


def foreign(reader: str, place: str) -> set[str]:
    """Letters that, in a message for ``reader``, could only be the other language's."""
    return set(COURTS[place]) - set(COURTS[reader])


def test_the_letter_finder_reads_buttons_sentences_and_suit_rows():
    assert letters_in("Take D♣️\n♠︎ 7 9 B\n♥️ (adu) 8 K A") == {"D", "B", "K"}
    assert letters_in("Ann: K♠︎ · Keep 10♥️") == {"K"}
    assert letters_in("A♠︎ and Bob") == set()


async def play_collect(fake, table, rng: random.Random) -> list[str]:
    """Tap the collect phase through (by custom ids, so in any language); every text the
    table message showed meanwhile."""
    shown = [table.text()]
    for _ in range(500):
        moves = [b for b in table.buttons()
                 if b.custom_id.split(":")[3].split(".")[0] in COLLECT_MOVES]
        if not moves:
            return shown
        found = ANY_ACTOR.search(description(table))
        assert found, description(table)
        ix = await fake.click(found[1], table, custom_id=rng.choice(moves).custom_id)
        assert (await ix.wait_response()).type == 7
        shown.append(table.text())
    raise AssertionError("the collect phase did not end")


async def shed_table(fake, tmp_path, place: str, reader: str):
    """A three-seat table at a ``place`` server, its players reading ``reader``, in the shed
    phase; and every text its table message showed through the collect phase."""
    fake.set_guild_locale(LOCALE[place])
    for name in PLAYERS:
        fake.add_user(name)
        fake.set_locale(name, LOCALE[reader])
    ix = await fake.slash("ann", None, "nlk", "new", {"seats": 3})
    table = await ix.wait_message()

    def tap(who: str, ending: str):
        button = next(b for b in table.buttons() if b.custom_id.endswith(ending))
        return fake.click(who, table, custom_id=button.custom_id)

    for name in PLAYERS[1:]:
        await (await tap(name, ":join")).wait_response()
    await (await tap("ann", ":start")).wait_response()
    shown = await play_collect(fake, table, random.Random(3))
    return table, shown


PAIRS = [("en", "hu"), ("hu", "en"), ("en", "fr")]


@pytest.mark.parametrize(("place", "reader"), PAIRS)
async def test_a_private_hand_shows_its_readers_letters_and_the_table_the_places(
        fake_discord, tmp_path, place, reader):
    fake = fake_discord
    fake.set_channel_rate_limit(limit=200, per=5.0)
    async with running_bot(fake, tmp_path / "nlk.sqlite3"):
        table, shown = await shed_table(fake, tmp_path, place, reader)
        public = "\n".join(shown)
        # The table message, which everyone reads, keeps the place's letters.
        assert letters_in(public) & foreign(reader, place), public
        assert not letters_in(public) & foreign(place, reader), public
        hands = []
        for name in PLAYERS:
            ix = await fake.slash(name, None, "nlk", "hand")
            assert (await ix.wait_response()).ephemeral
            hands.append((await ix.wait_message()).text())
        seen = "\n".join(hands)
        # Three hands of the 28 highest cards hold court cards, each one
        # (in the cards, the buttons and the menu) in the reader's own letters.
        assert letters_in(seen) & foreign(place, reader), seen
        assert not letters_in(seen) & foreign(reader, place), seen
    fake.assert_clean()


@pytest.mark.parametrize(("place", "reader"), PAIRS[:2])
async def test_the_hand_and_moves_buttons_and_a_taps_answer_show_the_readers_letters(
        fake_discord, tmp_path, place, reader):
    fake = fake_discord
    fake.set_channel_rate_limit(limit=200, per=5.0)
    async with running_bot(fake, tmp_path / "nlk.sqlite3"):
        table, _shown = await shed_table(fake, tmp_path, place, reader)
        seen = []
        for name in PLAYERS:
            for ending in (":hand", ":moves"):
                button = next(b for b in table.buttons() if b.custom_id.endswith(ending))
                ix = await fake.click(name, table, custom_id=button.custom_id)
                assert (await ix.wait_response()).ephemeral
                seen.append((await ix.wait_message()).text())
        # A move tapped on one's own hand: its answer redraws the hand.
        found = ANY_ACTOR.search(description(table))
        assert found, description(table)
        ix = await fake.slash(found[1], None, "nlk", "hand")
        hand = await ix.wait_message()
        move = next(b for b in hand.buttons() if ":play." in b.custom_id
                    or b.custom_id.endswith(":take"))
        ix = await fake.click(found[1], hand, custom_id=move.custom_id)
        assert (await ix.wait_response()).type == 7
        seen.append(hand.text())
        text = "\n".join(seen)
        assert letters_in(text) & foreign(place, reader), text
        assert not letters_in(text) & foreign(reader, place), text
    fake.assert_clean()
