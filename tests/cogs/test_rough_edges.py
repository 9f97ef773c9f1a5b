"""The rough edges a newcomer met (issue 30): no button that can only refuse, refusals that
say what is possible, an empty leaderboard without pages, a one-page log without Latest,
and lines that keep each language's typography."""

import dataclasses
import random

import pytest

from bot import errors
from bot.db.records import RatingRecord, TableStatus
from bot.guilds.service import LeaderboardPage
from bot.tables.service import Seat
from cogs import render
from cogs.answers.replies import sentence
from cogs.pictures.scenes import hand_scene, table_scene
from cogs.render import stats
from rules import Game, Variant, shuffled_deck
from rules.i18n import Lang, stored_ai_name
from tests.helpers import table_for


def _labels(view) -> list[str]:
    return [item["label"] for row in view.to_components() for item in row["components"]]


def _lobby(seats: list[Seat], max_seats: int = 3):
    game = Game.from_deck(shuffled_deck(3, "x"), 0, names=("ann", "bob", "cy"))
    table = table_for(game, status=TableStatus.LOBBY, next_seats=seats, max_seats=max_seats,
                      seats=[])
    return dataclasses.replace(table, game=None)


ANN, BOB = Seat(1000, "ann"), Seat(1001, "bob")
AI = Seat(-1, stored_ai_name(1, "heuristic"), "heuristic")


def test_the_lobby_offers_only_the_ai_buttons_that_can_do_something():
    lobby = set(_labels(render.table_view(_lobby([ANN]))))
    assert {"Add AI (host)", "Add strong AI (host)"} <= lobby
    assert "Remove AI (host)" not in _labels(render.table_view(_lobby([ANN])))  # none to remove
    full = _labels(render.table_view(_lobby([ANN, BOB, AI])))
    assert "Add AI (host)" not in full and "Add strong AI (host)" not in full
    assert "Remove AI (host)" in full
    off = _labels(render.table_view(_lobby([ANN, AI]), ai_allowed=False))
    assert not [label for label in off if "AI" in label], off


def test_ai_seats_are_named_and_marked_alike_in_every_list():
    game = Game.from_deck(shuffled_deck(3, "y"), 0,
                          names=("ann", stored_ai_name(1, "heuristic"),
                                 stored_ai_name(2, "strong")))
    table = table_for(game)
    table.seats = [table.seats[0], *(dataclasses.replace(s, ai="heuristic")
                                     for s in table.seats[1:])]
    table.next_seats = list(table.seats)
    embed = render.table_embed(table, Lang.HU)
    text = "\n".join(f.value for f in embed.fields)
    assert "🤖 Gép 1" in text and "🤖 Gép 2 (erős)" in text and "AI" not in text
    rng = random.Random(1)
    for _ in range(5000):
        if game.is_over:
            break
        game.apply(rng.choice(game.legal_actions()))
    view = table.public_view()
    assert view is not None
    order = render.finishing_order(table, view, Lang.FR)
    seats = render.next_hand_seats(table, lang=Lang.FR)
    for name in ("IA 1", "IA 2 (forte)"):  # 🤖 in both lists of the end-of-hand notice
        assert (f"🤖 {name}" in order) == (name in order) and f"🤖 {name}" in seats


def test_a_long_name_is_cut_and_the_words_around_it_are_not():
    long = "Zsófia Tóth-Kovács-Nagy-Szabó-Horváth"
    game = Game.from_deck(shuffled_deck(2, "z"), 0, names=(long, stored_ai_name(2, "strong")))
    table = table_for(game)
    short = render.table.short_names(game.names, Lang.EN)
    assert short[1] == "AI 2 (strong)" and short[0].startswith("Zsófia Tóth")
    assert short[0].endswith("…") and len(short[0]) == 16
    # A button labelled with the actor's name cuts the name, and keeps its move whole.
    button = render.table.collect_button(table.id, table.public_view(),
                                         game.legal_actions()[0], Lang.EN, long)
    name, _colon, move = button.label.partition(": ")
    assert name == long[:31] + "…" and (move in ("Draw", "Keep") or move.startswith("Give "))


def test_a_one_page_log_has_no_latest_button():
    game = Game.from_deck(shuffled_deck(3, "w"), 0, names=("ann", "bob", "cy"))
    embed, view = render.moves_message(table_for(game), None, Lang.EN)
    assert "Latest" not in _labels(view)
    assert embed.footer.text and "page 1 of 1" in embed.footer.text


def test_the_moves_log_keeps_french_typography():
    game = Game.from_deck(shuffled_deck(3, "v"), 0, names=("Éva", "bob", "cy"))
    for _ in range(4):
        game.apply(game.legal_actions()[0])
    embed, _view = render.moves_message(table_for(game), None, Lang.FR)
    lines = [line for line in (embed.description or "").splitlines()
             if line.startswith(("Éva", "bob", "cy"))]
    assert lines and all("\u202f: " in line for line in lines), lines


def test_an_empty_leaderboard_counts_no_pages():
    embed, view = stats.leaderboard(LeaderboardPage([], 0, 1, 1), Lang.EN)
    assert "No rated hands yet" in (embed.description or "")
    assert not embed.footer.text and not _labels(view)


def test_a_size_without_hands_says_so_and_offers_the_sizes_with_a_board():
    """Issue 37: not another size's board under its name, but the sizes that have one."""
    rows = [RatingRecord(1, "ann", 25.0, 3.0, 4, 1, 0.5)]
    board = LeaderboardPage(rows, 0, 1, 1, 3, {3: 4, 5: 1}, asked=9)
    embed, view = stats.leaderboard(board, Lang.EN)
    assert embed.title == "NLK leaderboard · tables of 9 players"
    assert embed.description == (
        "Nobody has played a rated hand at a table of 9 players yet. These table sizes have "
        "a leaderboard: 3 and 5 players. Tap one below.")
    assert "ann" not in str(embed.to_dict())
    assert [item.label for item in view.children] == ["3 players", "5 players"]
    hungarian, _view = stats.leaderboard(board, Lang.HU)
    assert (hungarian.description or "").startswith("9 fős asztalnál még senki sem játszott")
    assert "3 és 5 fős" in (hungarian.description or "")


@pytest.mark.parametrize("lang", list(Lang))
def test_refusals_name_choices_as_the_reader_sees_them(lang):
    text = sentence(errors.BadSetting("cards", value="x"), lang)
    # The values Discord sends ("server", "four-colour", "text"), never as they are.
    assert "server," not in text and "four-colour or" not in text and "text." not in text
    french = sentence(errors.BadSetting("language", value="de"), Lang.FR)
    assert "«\u202fde\u202f»" in french and "Hongrois" in french


def test_a_channel_with_a_table_tells_what_can_be_done_with_it():
    lobby = sentence(errors.TableExists(1, None, "lobby"), Lang.EN)
    assert "cancel" in lobby
    playing = sentence(errors.TableExists(1, None), Lang.EN)
    assert "cancel" not in playing and "`/nlk end`" in playing
    assert "Join next hand" in sentence(errors.NotSeated("next"), Lang.EN)
    assert "Join" not in sentence(errors.NotSeated("next_full"), Lang.EN)


async def test_export_refuses_a_negative_hand(database):
    from bot.db.repository import Repository
    from bot.guilds.service import GuildService

    servers = GuildService(Repository(database))
    for typed in ("-1", "42.-1", "0"):
        with pytest.raises(errors.NoSuchHand):
            await servers.hand_to_export(5, typed)
    assert "-1”" in sentence(errors.NoSuchHand("-1"), Lang.EN)  # as typed, escaped


def test_alt_text_keeps_french_typography():
    game = Game.from_deck(shuffled_deck(3, "u"), 0, names=("Éva", "bob", "cy"),
                          variant=Variant("free", True))
    view = table_for(game).public_view()
    assert view is not None
    scene = table_scene(view, Lang.FR, False)
    assert scene is not None
    alt = scene[1]
    assert "Dessus des piles\u202f: " in alt and "Éva\u202f: " in alt
    assert " ; " not in alt and ": " not in alt.replace("\u202f: ", "")
    while game.phase.name == "COLLECT":
        game.apply(game.legal_actions()[0])
    seat = game.to_act or 0
    _scene, hand_alt = hand_scene(table_for(game).seat_view(seat), Lang.FR, False)
    assert "\u202f: " in hand_alt and " : " not in hand_alt


async def test_a_server_without_ai_players_shows_no_ai_button(fake_discord, tmp_path):
    from tests.fakediscord.models import Perm
    from tests.nlk_driver import running_bot

    fake = fake_discord
    fake.add_user("owner", permissions=Perm.MANAGE_GUILD)
    async with running_bot(fake, tmp_path / "nlk.sqlite3"):
        await (await fake.slash("owner", None, "nlk", "settings",
                                {"allow_ai": False})).wait_response()
        table = await (await fake.slash("ann", None, "nlk", "new", {"seats": 3})).wait_message()
        assert not [b for b in table.buttons() if "AI" in (b.label or "")]
        await (await fake.slash("owner", None, "nlk", "settings",
                                {"allow_ai": True})).wait_response()
        # The open table follows the setting, with nobody touching it.
        await fake.wait_until(lambda: any(b.label == "Add AI (host)" for b in table.buttons()),
                              timeout=10)
    fake.assert_clean()
