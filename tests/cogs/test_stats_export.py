"""Through the fake Discord: command mentions with the published ids, the leaderboard one
table size at a time, a player's numbers per size, and exporting any finished hand of the
channel (and refusing one in play)."""

import json
import random
import re
import subprocess
import sys

import pytest

from bot.db.repository import Repository
from bot.db.sqlite import SQLiteDatabase
from rules.replay import parse
from tests.helpers import table_id_of
from tests.nlk_driver import Driver, database_rows, running_bot, title


def nlk_id(fake) -> str:
    """The id Discord gave the /nlk command where the bot published it."""
    return fake.state.find_command(fake.guild_id, "nlk")["id"]


async def test_a_sentence_names_a_command_by_its_mention_with_the_published_id(fake_discord,
                                                                               tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    async with running_bot(fake, path):
        ix = await fake.slash("ann", None, "nlk", "hand")
        text = (await ix.wait_response()).data["content"]
        assert text == ("There is no NLK table in this channel. Start one with "
                        f"</nlk new:{nlk_id(fake)}>.")
    # A restart does not sync again (nothing changed), and still knows the ids.
    fake.set_locale("ann", "hu")
    async with running_bot(fake, path):
        assert fake.command_sync_count() == 1
        ix = await fake.slash("ann", None, "nlk", "hand")
        text = (await ix.wait_response()).data["content"]
        assert text == ("Ebben a csatornában nincs NLK-asztal. Nyiss egyet a "
                        f"</nlk new:{nlk_id(fake)}> paranccsal.")
    fake.assert_clean()


async def test_leaderboards_by_table_size_and_exports_of_any_finished_hand(fake_discord,
                                                                          tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    fake.set_channel_rate_limit(limit=200, per=5.0)
    async with running_bot(fake, path, channel_edits=150):
        driver = Driver(fake, random.Random(3))
        table = await driver.new_table("ann", seats=3)
        await driver.click("bob", table, "Join")
        await driver.click("ann", table, "Start (host)")
        await driver.play_hand(table)
        await driver.click("bob", table, "Next hand")
        await driver.play_hand(table)
        await driver.click("cy", table, "Join next hand (2/3)")
        await driver.click("bob", table, "Next hand")
        await driver.play_hand(table)
        await driver.click("bob", table, "Next hand")
        assert " · collect" in title(table)  # hand 4 is in play
        t = table_id_of(table)

        # The most played size first (two hands at two seats), privately.
        ix = await fake.slash("dee", None, "nlk", "stats")
        board = await ix.wait_message()
        assert board.ephemeral
        assert board.embeds[0]["title"] == "NLK leaderboard · tables of 2 players"
        assert "cy" not in board.embeds[0]["description"]
        assert "expected by luck alone: 50.0%" in board.embeds[0]["description"]
        ix = await fake.click("dee", board, label="3 players")
        assert (await ix.wait_response()).type == 7
        assert board.embeds[0]["title"] == "NLK leaderboard · tables of 3 players"
        rows = board.embeds[0]["description"]
        assert all(f"{name}**" in rows for name in ("ann", "bob", "cy"))
        assert "1 hand · " in rows and "expected by luck alone: 33.3%" in rows
        assert any(b.label == "2 players" for b in board.buttons())
        ix = await fake.slash("dee", None, "nlk", "stats", {"size": 3})
        assert (await ix.wait_message()).embeds[0]["title"].endswith("tables of 3 players")
        # A size nobody has played is said, with the sizes that have a board (issue 37: the
        # 2-player board was shown under it).
        ix = await fake.slash("dee", None, "nlk", "stats", {"size": 4})
        empty = await ix.wait_message()
        assert empty.embeds[0]["title"] == "NLK leaderboard · tables of 4 players"
        assert empty.embeds[0]["description"] == (
            "Nobody has played a rated hand at a table of 4 players yet. These table sizes "
            "have a leaderboard: 2 and 3 players. Tap one below.")
        assert [b.label for b in empty.buttons()] == ["2 players", "3 players"]
        ix = await fake.click("dee", empty, label="2 players")
        assert (await ix.wait_response()).type == 7
        assert empty.embeds[0]["title"] == "NLK leaderboard · tables of 2 players"
        fake.set_locale("dee", "hu")
        ix = await fake.slash("dee", None, "nlk", "stats", {"size": 9})
        empty = await ix.wait_message()
        assert empty.embeds[0]["description"].startswith(
            "9 fős asztalnál még senki sem játszott értékelt leosztást.")
        assert [b.label for b in empty.buttons()] == ["2 játékos", "3 játékos"]
        fake.set_locale("dee", "en-US")

        # One player's rows per size, their places and their trend.
        ix = await fake.slash("dee", None, "nlk", "stats", {"user": fake.user("ann").id})
        embed = (await ix.wait_message()).embeds[0]
        fields = {f["name"]: f["value"] for f in embed["fields"]}
        assert set(fields) == {"Tables of 2 players", "Tables of 3 players",
                               "Rating at tables of 2 players"}  # the chart's sentence
        assert re.search(r"rank [12] of 2", fields["Tables of 2 players"])
        assert re.search(r"[▲▼▬] [+-]?\d+\.\d over the last 2 hands", fields["Tables of 2 players"])
        hands, _ = database_rows(path, t)
        places = []
        for hand in hands[:3]:
            players = json.loads(hand["players"])
            order = [players[s] for s in json.loads(hand["finishing_order"])]
            places.append(str(order.index(fake.user("ann").id) + 1))
        assert f"Last 3 results (finishing places, latest last): {' '.join(places)}" \
            in embed["description"]

        # The channel's finished hands, newest first, to choose from.
        ix = await fake.autocomplete("ann", None, "nlk", "export", {"hand": ""}, focused="hand")
        await ix.wait_response()
        assert [c["value"] for c in ix.choices] == [f"{t}.3", f"{t}.2", f"{t}.1"]
        assert ix.choices[0]["name"] == f"Table {t} · hand 3 · ann, bob, cy"

        # A chosen hand, by its number or by table and number.
        exported = {}
        for which in ("1", f"{t}.3"):
            ix = await fake.slash("ann", None, "nlk", "export", {"hand": which})
            message = await ix.wait_message()
            assert message.ephemeral
            (attachment,) = message.attachments
            exported[which] = attachment
        assert exported["1"].filename == f"nlk-table{t}-hand1.json"
        # Privately, in the reader's language (not the server's).
        fake.set_locale("cy", "fr")
        ix = await fake.slash("cy", None, "nlk", "export", {"hand": "2"})
        message = await ix.wait_message()
        assert message.ephemeral and message.content.startswith(f"Donne 2 de la table {t},")
        # It points to the bot's own command, a mention each reader sees in their words.
        assert f"</nlk replay:{nlk_id(fake)}>" in message.content
        assert "**fichier**" in message.content and "python" not in message.content
        ix = await fake.slash("cy", None, "nlk", "stats")
        board = await ix.wait_message()
        assert board.ephemeral and board.embeds[0]["title"].startswith("Classement NLK")
        assert "attendu au hasard\u202f: 50,0\u00a0%" in board.embeds[0]["description"]
        replay = json.loads(exported[f"{t}.3"].data)
        assert replay["format"] == "nlk-replay/1" and replay["players"] == json.loads(
            hands[2]["names"])
        assert sorted(replay["players"]) == ["ann", "bob", "cy"]
        game, result = parse(replay).run()
        assert result["error"] is None and result["loser"] == hands[2]["loser"]
        file = tmp_path / exported["1"].filename
        file.write_bytes(exported["1"].data)
        done = subprocess.run([sys.executable, "-m", "rules", "replay", str(file)],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0 and json.loads(done.stdout)["loser"] == hands[0]["loser"]

        # The hand in play is refused, and says why; so is a hand that never was.
        ix = await fake.slash("bob", None, "nlk", "export", {"hand": "4"})
        refusal = await ix.wait_response()
        assert refusal.ephemeral and not refusal.data.get("attachments")
        assert refusal.data["content"] == (
            f"Hand 4 of table {t} is still being played: exporting it now would reveal the "
            "players' hidden hands. Export it once it is over.")
        ix = await fake.slash("bob", None, "nlk", "export", {"hand": "99"})
        assert "No hand “99” was played in this channel" in \
            (await ix.wait_response()).data["content"]
    fake.assert_clean()
    # The ratings kept hand by hand are those the start-up step recomputes from the results.
    db = await SQLiteDatabase.open(str(path))
    try:
        kept = await size_rows(db)
        assert {row[0] for row in kept} == {2, 3} and len(kept) == 5
        await Repository(db).ratings.rate_results_by_size()
        again = await size_rows(db)
        assert [r[:2] + r[4:] for r in again] == [r[:2] + r[4:] for r in kept]
        assert [r[2:4] for r in again] == [pytest.approx(r[2:4]) for r in kept]
    finally:
        await db.close()


async def size_rows(db):
    rows = await db.all("SELECT players, user_id, mu, sigma, hands, losses FROM size_ratings "
                        "ORDER BY players, user_id")
    return [tuple(row) for row in rows]
