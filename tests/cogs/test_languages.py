"""The bot in three languages: private replies follow the player's locale, public messages
the server's language, commands are named in each language within Discord's rules, and
every message fits Discord's limits at nine seats in every language."""

import asyncio
import json
import random

import pytest

from bot import errors
from cogs import render
from cogs.answers.replies import sentence
from cogs.render import stats
from rules import Card, Game, Variant, pack, shuffled_deck
from rules.i18n import Lang
from tests.fakediscord.models import Perm
from tests.helpers import LONG, play_out_by_ids, table_for
from tests.nlk_driver import actor, description, running_bot, title

# --- rendering, without Discord ------------------------------------------------------------

def test_cards_show_each_languages_letters_with_the_suit_colour_marks():
    queen, jack, ten = Card.parse("QS"), Card.parse("JH"), Card.parse("TD")
    assert [render.card_text(c) for c in (queen, jack, ten)] == ["Q♠︎", "J♥️", "10♦️"]
    assert [render.card_text(c, Lang.HU) for c in (queen, jack, ten)] == ["D♠︎", "B♥️", "10♦️"]
    assert [render.card_text(c, Lang.FR) for c in (queen, jack, ten)] == ["D♠︎", "V♥️", "10♦️"]


def _check_embed(embed) -> None:
    data = embed.to_dict()
    assert len(data.get("title", "")) <= 256 and len(data.get("description", "")) <= 4096
    assert len(data.get("footer", {}).get("text", "")) <= 2048
    for f in data.get("fields", []):
        assert len(f["name"]) <= 256 and len(f["value"]) <= 1024
    assert len(embed) <= 6000


def _check_view(view) -> None:
    rows = view.to_components()
    assert len(rows) <= 5 and sum(len(r["components"]) for r in rows) <= 25
    for row in rows:
        for item in row["components"]:
            assert len(item["custom_id"]) <= 100
            if item["type"] == 2:
                assert 1 <= len(item["label"]) <= 80, item
            else:
                assert len(item.get("placeholder", "")) <= 150
                assert all(len(o["label"]) <= 100 for o in item["options"])


@pytest.mark.e2e  # every state of a nine-seat hand, every message: seconds
@pytest.mark.parametrize("lang", list(Lang))
def test_every_message_fits_discords_limits_at_nine_seats(lang: Lang) -> None:
    rng = random.Random(9)
    game = Game.from_deck(shuffled_deck(9, "limits"), 0, names=LONG,
                          variant=Variant("free", True))
    table = table_for(game, next_seats=[], turn_seconds=60)
    checked = 0
    while True:
        for user in range(1000, 1009):
            embed, view = render.hand_message(table, user, note="x" * 300, lang=lang)
            _check_embed(embed)
            _check_view(view)
        to_act = table.user_to_act()
        if to_act is not None:
            content, view = render.ping_message(table, to_act, deadline=2e9, reminder=True,
                                                lang=lang)
            assert len(content) <= 2000
            _check_view(view)
        if checked % 10 == 0:
            # The moves log's latest page: drawing it reads the whole log, so every state's
            # would cost the square of the hand's length. Every page is checked at the end.
            moves, view = render.moves_message(table, None, lang)
            _check_embed(moves)
            _check_view(view)
        _check_embed(render.fair_message(table, lang))
        _check_view(render.table_view(table, lang))
        checked += 1
        if game.is_over:
            break
        game.apply(rng.choice(game.legal_actions()))
    assert checked > 50
    # Every page of the whole hand's log, as someone turning them from the first sees them.
    latest = render.moves_message(table, None, lang)[0].description
    for page in range(100):
        moves, view = render.moves_message(table, page, lang)
        _check_embed(moves)
        _check_view(view)
        if moves.description == latest:
            break
    assert page > 3, "the log of this hand fills several pages"
    _check_embed(render.fair_message(table, lang))  # with the seed revealed
    rules = render.rules_text(Variant("keep", True), lang)
    assert len(rules) <= 4096


@pytest.mark.parametrize("lang", list(Lang))
def test_a_43_card_lead_fits_in_every_language(lang: Lang) -> None:
    everything = [str(c) for c in pack(9)]
    hands = [" ".join(everything[:43]), *everything[43:51]]
    game = Game.from_shed_position([[Card.parse(c) for c in h.split()] for h in hands],
                                   "SHDC".index("H"), 0, names=LONG)
    embed, view = render.hand_message(table_for(game, next_seats=[], turn_seconds=60), 1000,
                                      lang=lang)
    _check_embed(embed)
    _check_view(view)
    assert len(json.dumps(embed.to_dict())) < 6000


@pytest.mark.parametrize("lang", list(Lang))
def test_the_leaderboard_and_a_players_numbers_in_every_language(lang: Lang) -> None:
    from bot.db.records import RatingRecord, SizeRecord
    from bot.guilds.ratings import Rating
    from bot.guilds.service import LeaderboardPage, PlayerStats

    rows = [RatingRecord(1000 + i, LONG[i], 25.0, 3.0, i + 1, i, 0.5)
            for i in range(9)] + [RatingRecord(2000, "one", 25.0, 3.0, 1, 1, 0.5)]
    embed, view = stats.leaderboard(LeaderboardPage(rows, 0, 3, 1), lang)
    _check_embed(embed)
    _check_view(view)
    sizes = [SizeRecord(n, 5, 2, Rating(30.0, 2.0), 2, 40, Rating()) for n in range(2, 10)]
    player = stats.player(LONG[0], PlayerStats(rows[0], sizes, [(9, 9)] * 20), lang)
    _check_embed(player)
    if lang == Lang.FR:
        assert embed.title == "Classement NLK"
        assert "1 donne ·" in embed.description and "2 donnes ·" in embed.description


def test_refusals_of_the_rules_keep_their_rule_number_in_every_language() -> None:
    engine = "You can't give 9♥ to bob: a card must be exactly one rank above their top card."
    refusal = errors.AgainstTheRules("R3.2", engine)
    # The engine's own sentence, closed by the rule number.
    assert sentence(refusal, Lang.EN) == f"{engine[:-1]} (R3.2)"
    french = sentence(refusal, Lang.FR)
    assert french.startswith("Cette carte ne va pas là") and french.endswith("(R3.2)")
    hungarian = sentence(refusal, Lang.HU)
    assert hungarian.startswith("Ez a lap nem illik oda") and hungarian.endswith("(R3.2)")
    # A rule without its own sentence falls back to the engine's English, number kept.
    unknown = errors.AgainstTheRules("R9.9", "Something new.")
    assert sentence(unknown, Lang.HU) == "Something new (R9.9)"


def test_refusals_with_names_and_numbers_in_french_and_hungarian() -> None:
    assert sentence(errors.WaitYourTurn(name="**bob**"), Lang.FR) == \
        "C’est au tour de \\*\\*bob\\*\\*."
    assert sentence(errors.TableFull(seats=4), Lang.HU) == "Ez az asztal megtelt (4 hely)."
    timer = sentence(errors.BadSetting("timer", value=3), Lang.FR)
    assert "au moins 15 secondes" in timer
    assert sentence(errors.NotSeated(turn_of="ann"), Lang.FR) == \
        "Vous ne jouez pas à cette table. C’est au tour d’ann."


# --- through the fake Discord --------------------------------------------------------------

async def test_a_hungarian_server_and_a_french_player_at_one_table(fake_discord, tmp_path):
    fake = fake_discord
    fake.set_guild_locale("hu")
    fake.add_user("amelie")
    fake.add_user("hugo")  # keeps the fake's default locale, en-US
    fake.set_locale("amelie", "fr")
    # Every shed play waits for the table message's paced redraw: raise the channel's limit
    # (and the bot's pace with it) so the hand is not held to five edits per five seconds.
    fake.set_channel_rate_limit(limit=200, per=5.0)
    async with running_bot(fake, tmp_path / "nlk.sqlite3", channel_edits=150):
        ix = await fake.slash("hugo", None, "nlk", "new", {"seats": 2})
        table = await ix.wait_message()
        assert title(table) == "NLK-asztal — játékosokra vár"
        assert "Koppints a **Beszállás** gombra" in description(table)
        await (await fake.click("amelie", table, label="Beszállás")).wait_response()
        await (await fake.click("hugo", table, label="Indítás (házigazda)")).wait_response()
        assert title(table) == "NLK · 1. leosztás · gyűjtés"
        labels = {b.label for b in table.buttons()}
        assert {"Kupacom", "Lépések", "Ellenőrizhető keverés"} <= labels
        # A refusal, privately in French: amelie taps a move while it is hugo's turn.
        while actor(table) == "amelie":
            move = next(b for b in table.buttons() if b.custom_id.split(":")[2] != "-")
            await (await fake.click("amelie", table, custom_id=move.custom_id)).wait_response()
        move = next(b for b in table.buttons() if b.custom_id.split(":")[2] != "-")
        ix = await fake.click("amelie", table, custom_id=move.custom_id)
        refusal = await ix.wait_response()
        first, link = refusal.data["content"].split("\n")  # a first refusal links the lesson
        assert refusal.ephemeral and first == "C’est au tour d’hugo."
        assert link.startswith("Vous découvrez le NLK\u202f? </nlk learn:")
        # Each player's own stack in their own language.
        ix = await fake.click("amelie", table, label="Kupacom")
        stack = await ix.wait_message()
        assert stack.ephemeral and stack.embeds[0]["title"].startswith("Votre pile — ")
        ix = await fake.click("hugo", table, label="Kupacom")
        assert (await ix.wait_message()).embeds[0]["title"].startswith("Your stack — ")
        hands = await play_out_by_ids(fake, table, " · vége", random.Random(2))
        await fake.wait_until(lambda: any("leosztás vége" in m.content
                                          for m in fake.public_messages()), timeout=10)
    fake.assert_clean()
    assert hands, "phase two was played from private hands"
    for who, hand in hands:
        heading = hand.all_text()
        assert ("Votre main" in heading) if who == "amelie" else ("Your hand" in heading)
    # Every public message, every version of the table message included, is Hungarian.
    pings = [m for m in fake.messages(include_deleted=True) if m.pinged_user_ids]
    assert pings and all("te jössz az NLK-asztalnál" in m.versions[0].content for m in pings)
    for version in table.versions:
        heading = version.embeds[0]["title"]
        assert "leosztás" in heading or "NLK-asztal" in heading, heading
    assert "vesztett" in table.text() and "Következő leosztás" in table.text()


async def test_the_servers_language_setting_wins_over_its_locale(fake_discord, tmp_path):
    fake = fake_discord
    fake.set_guild_locale("hu")
    fake.add_user("owner", permissions=Perm.MANAGE_GUILD)
    async with running_bot(fake, tmp_path / "nlk.sqlite3"):
        ix = await fake.slash("owner", None, "nlk", "settings", {"language": "fr"})
        response = await ix.wait_response()
        assert response.ephemeral and "French" in json.dumps(response.data["embeds"])
        ix = await fake.slash("ann", None, "nlk", "new", {"seats": 2})
        table = await ix.wait_message()
        assert title(table) == "Table NLK — en attente de joueurs"
        await (await fake.slash("owner", None, "nlk", "settings",
                                {"language": "auto"})).wait_response()
        await (await fake.click("bob", table, label="Rejoindre")).wait_response()
        assert title(table) == "NLK-asztal — játékosokra vár"
    fake.assert_clean()


async def test_localised_commands_pass_discords_rules_when_synced(fake_discord, tmp_path):
    fake = fake_discord
    async with running_bot(fake, tmp_path / "nlk.sqlite3"):
        pass
    assert fake.command_sync_count() >= 1  # the fake checks every name, length and locale
    (command,) = fake.commands()
    assert command["name_localizations"] == {"hu": "nlk", "fr": "nlk"} or \
        command["name_localizations"] in ({}, None)
    options = {o["name"]: o for o in command["options"]}
    assert options["new"]["name_localizations"] == {"hu": "új", "fr": "nouvelle"}
    assert options["remove"]["name_localizations"] == {"hu": "eltávolítás", "fr": "retirer"}
    settings = {o["name"]: o for o in options["settings"]["options"]}
    language = settings["language"]
    assert language["name_localizations"] == {"hu": "nyelv", "fr": "langue"}
    choices = {c["value"]: c for c in language["choices"]}
    assert choices["hu"]["name_localizations"] == {"hu": "Magyar", "fr": "Hongrois"}
    for option in command["options"]:
        for local in (option.get("description_localizations") or {}).values():
            assert len(local) <= 100
    # An option description can't hold a mention: it names the command as the reader's
    # Discord lists it (issue 46).
    replay = {o["name"]: o for o in options["replay"]["options"]}
    described = replay["file"]["description_localizations"]
    assert "/nlk exportálás" in described["hu"] and "/nlk exporter" in described["fr"]


EDITS = "PATCH /channels/{channel_id}/messages/{message_id}"


async def test_a_new_server_language_redraws_every_open_table_there(fake_discord, tmp_path):
    fake = fake_discord
    fake.add_user("owner", permissions=Perm.MANAGE_GUILD)
    channels = [fake.channel().id, fake.add_channel("nlk-2")]
    async with running_bot(fake, tmp_path / "nlk.sqlite3"):
        tables = []
        for i, channel in enumerate(channels):
            ix = await fake.slash(f"host{i}", channel, "nlk", "new", {"seats": 3})
            tables.append(await ix.wait_message())
        assert [title(t) for t in tables] == ["NLK table — waiting for players"] * 2
        edits = fake.request_counts[EDITS]
        ix = await fake.slash("owner", None, "nlk", "settings", {"language": "hu"})
        await ix.wait_response()
        # Nobody touches the tables: the bot redraws them itself, as channel edits.
        await fake.wait_until(lambda: all(title(t) == "NLK-asztal — játékosokra vár"
                                          for t in tables), timeout=10)
        assert fake.request_counts[EDITS] - edits == 2
        assert "Koppints a **Beszállás** gombra" in description(tables[1])
        # The same language again, or another setting, redraws nothing.
        for options in ({"language": "hu"}, {"seats": 5}):
            await (await fake.slash("owner", None, "nlk", "settings", options)).wait_response()
        await asyncio.sleep(0.5)
        assert fake.request_counts[EDITS] - edits == 2
    fake.assert_clean()


async def test_a_restart_redraws_a_table_whose_servers_language_changed_meanwhile(
        fake_discord, tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    async with running_bot(fake, path):
        table = await (await fake.slash("ann", None, "nlk", "new", {"seats": 3})).wait_message()
        await (await fake.click("bob", table, label="Join")).wait_response()
        await asyncio.sleep(2.5)  # what the message shows is written down in batches
    assert title(table) == "NLK table — waiting for players"
    edits = fake.request_counts[EDITS]
    async with running_bot(fake, path):  # unchanged: nothing to redraw
        await asyncio.sleep(1.0)
        assert fake.request_counts[EDITS] == edits
    fake.set_guild_locale("fr")  # while the bot is away: its own locale, no setting
    async with running_bot(fake, path):
        await fake.wait_until(lambda: title(table) == "Table NLK — en attente de joueurs",
                              timeout=10)
        await asyncio.sleep(2.5)
    assert fake.request_counts[EDITS] == edits + 1
    async with running_bot(fake, path):  # drawn in French and written down as such
        await asyncio.sleep(1.0)
        assert fake.request_counts[EDITS] == edits + 1
    fake.assert_clean()


def test_a_quarter_is_named_each_languages_way():
    from bot.guilds.seasons import Season
    from cogs.render.seasons import season_name

    q4 = Season.parse("2026Q4")
    assert [season_name(q4, lang) for lang in (Lang.EN, Lang.HU, Lang.FR)] == [
        "Q4 2026", "2026. IV. negyedév", "T4 2026"]


def test_a_french_place_beside_an_ai_seat_agrees_with_it():
    """*Une* IA finishes "1re", a person "1er" (issue 46); other places read alike."""
    from cogs.pictures.ending import end_of_hand_picture
    from rules.i18n import is_ai_name, ordinal

    assert ordinal(1, Lang.FR) == "1er" and ordinal(1, Lang.FR, ai=True) == "1re"
    assert ordinal(2, Lang.FR, ai=True) == "2e" and ordinal(1, Lang.EN, ai=True) == "1st"
    assert ordinal(1, Lang.HU, ai=True) == "1."
    assert is_ai_name("IA 2 (forte)", Lang.FR) and is_ai_name("AI 1 (heuristic)")
    assert not is_ai_name("IA 2 (forte)", Lang.HU) and not is_ai_name("Ann 1", Lang.FR)
    # The end-of-hand picture's finishing order, in its alt text.
    for first, place in (("IA 2 (forte)", "1re"), ("Ann", "1er")):
        picture = end_of_hand_picture([first, "Bob"], "Cy", [Card.parse("KS")], Lang.FR,
                                      hand_number=1)
        assert f"{place} {first}, 2e Bob" in picture.alt, picture.alt
