"""Tables that run themselves, through the fake Discord: AI seats, timers, stand-ins,
"I'm back", ratings, fair deals, export, settings and idle tables."""

import asyncio
import hashlib
import json
import random
import subprocess
import sys

import pytest

from bot.guilds.ratings import Rating, rate
from rules import shuffled_deck
from rules.replay import parse
from tests.fakediscord import Perm
from tests.helpers import table_id_of
from tests.nlk_driver import (
    Driver,
    TimeMachine,
    actor,
    database_rows,
    field_value,
    move_of,
    running_bot,
    title,
)


@pytest.fixture
def fast_channel(fake_discord):
    """AI moves come faster than Discord's per-channel rate; raise both limits together."""
    fake_discord.set_channel_rate_limit(limit=200, per=5.0)
    return {"channel_edits": 150}


async def test_one_person_plays_a_whole_hand_against_ai_seats(fake_discord, tmp_path,
                                                              fast_channel):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    async with running_bot(fake, path, ai_processes=1, **fast_channel):
        driver = Driver(fake, random.Random(2), humans={"ann"})
        table = await driver.new_table("ann", seats=4)
        await driver.click("ann", table, "Add AI (host)")
        await driver.click("ann", table, "Add AI (host)")
        ix, response = await driver.click("bob", table, "Add AI (host)", expect=4)
        assert "Only the host" in response.data["content"]
        await driver.click("ann", table, "Add strong AI (host)")
        assert "🤖" in table.text() and "AI 3 (strong)" in table.text()
        await driver.click("ann", table, "Start (host)")
        await driver.play_hand(table)
    hands, actions = database_rows(path, table_id_of(table))
    by = {a["by"] for a in actions[hands[0]["id"]]}
    assert by == {"player", "ai"}
    assert hands[0]["loser"] is not None and hands[0]["rated"] == 0
    fake.assert_clean()


async def test_after_an_ai_moves_the_ping_costs_the_channel_no_post(fake_discord, tmp_path,
                                                                  fast_channel):
    """A person's turn after an AI's move is pinged as a follow-up of the table's newest
    interaction, not as a channel message: the channel's budget of posts and edits (5 in
    5 s) stays for the table message, which shows each move."""
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    async with running_bot(fake, path, ai_processes=1, **fast_channel):
        driver = Driver(fake, random.Random(3), humans={"ann", "bob"})
        table = await driver.new_table("ann", seats=4)
        await driver.click("bob", table, "Join")
        await driver.click("ann", table, "Add AI (host)")
        await driver.click("ann", table, "Add AI (host)")
        await driver.click("ann", table, "Start (host)")
        await driver.play_hand(table)
        await asyncio.sleep(0.3)  # the last pings and deletes land
    pings = [m for m in fake.messages(table.channel_id, include_deleted=True)
             if m.pinged_user_ids and "your turn" in m.content.lower()]
    assert len(pings) > 10
    posted = [m.content for m in pings if m.interaction_id is None]
    assert posted == []
    hands, actions = database_rows(path, table_id_of(table))
    assert {a["by"] for a in actions[hands[0]["id"]]} == {"player", "ai"}
    fake.assert_clean()


async def test_a_lapsed_timer_plays_a_stand_in_even_across_a_restart(fake_discord, tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    clock = TimeMachine()
    driver = Driver(fake, random.Random(5))
    async with running_bot(fake, path, clock=clock):
        table = await driver.seat_and_start("ann", ["bob", "cy"], turn_timer=30)
        slow = actor(table)
        slow_id = fake.user(slow).id
        clock.advance(21)  # the reminder comes 10 s before the end
        reminder = await fake.wait_for_message(lambda m: "⏰" in m.content)
        assert reminder.pinged_user_ids == [slow_id]
        move = move_of(table)
    async with running_bot(fake, path, clock=clock):
        # Time while the bot was down is nobody's fault: the turn's clock starts again.
        clock.advance(10)
        await asyncio.sleep(0.3)
        assert move_of(table) == move
        clock.advance(21)
        await fake.wait_until(lambda: move_of(table) > move, timeout=10)
        # One turn played for a late player leaves the hand theirs, and rated (issue 45).
        assert "Unrated" not in table.text()
        hands, actions = database_rows(path, table_id_of(table))
        # Moves with no choice play themselves; the first move that was a choice lapsed.
        chosen = [a for a in actions[hands[0]["id"]] if not a["forced"]]
        assert chosen[0]["by"] == "stand-in"
        assert hands[0]["stand_in"] == 0
        # The others play their turns; when the slow player's clock lapses a second time in
        # a row, the AI keeps the seat until its owner is back.
        while actor(table) != slow:
            await driver._collect_step(table)
        clock.advance(31)
        await fake.wait_until(lambda: "away (AI playing)" in table.text(), timeout=10)
        # The AI keeps the seat now: no longer a hand of people, so it is not rated.
        assert "Unrated: the AI kept a player's seat" in table.text()
        assert database_rows(path, table_id_of(table))[0][0]["stand_in"] == 1
        assert any(b.label == "I'm back" for b in table.buttons())
        other = next(n for n in ("ann", "bob", "cy") if n != slow)
        ix, response = await driver.click(other, table, "I'm back", expect=4)
        assert "not away" in response.data["content"]
        await driver.click(slow, table, "I'm back")
        assert "away (AI playing)" not in table.text()
        hands, _ = database_rows(path, table_id_of(table))
        assert json.loads(hands[0]["away"]) == []
    fake.assert_clean()


async def test_ratings_and_stats_follow_the_results(fake_discord, tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    async with running_bot(fake, path):
        driver = Driver(fake, random.Random(6))
        table = await driver.seat_and_start("ann", ["bob", "cy"])
        for _ in range(3):
            await driver.play_hand(table)
            await driver.click("bob", table, "Next hand")
        hands, _ = database_rows(path, table_id_of(table))
        finished = [h for h in hands if h["loser"] is not None]
        assert len(finished) == 3 and all(h["rated"] for h in finished)
        # Recompute the ratings from the finishing orders: they must match the leaderboard.
        ratings = {}
        for h in finished:
            players = json.loads(h["players"])
            order = [players[s] for s in json.loads(h["finishing_order"])]
            new = rate([ratings.get(u, Rating()) for u in order])
            ratings.update(zip(order, new, strict=True))
        ix = await fake.slash("dee", None, "nlk", "stats")
        response = await ix.wait_response()
        assert response.ephemeral  # only the reader sees it: the table message stays in view
        board = response.data["embeds"][0]["description"]
        assert response.data["embeds"][0]["title"] == "NLK leaderboard · tables of 3 players"
        for name in ("ann", "bob", "cy"):
            user = fake.user(name).id
            losses = sum(1 for h in finished
                         if json.loads(h["players"])[h["loser"]] == user)
            row = board.split(f"{name}**")[1].split("\n**")[0]
            assert f"3 hands · {losses} lost" in row
            assert "expected by luck alone: 33.3%" in row
            assert f"rating {ratings[user].shown:,.1f}" in row
        assert "provisional" in board and "±" not in board
        ix = await fake.slash("dee", None, "nlk", "stats", {"user": fake.user("ann").id})
        response = await ix.wait_response()
        assert response.ephemeral
        embed = response.data["embeds"][0]
        assert any(f["name"] == "Tables of 3 players" and "3 hands" in f["value"]
                   for f in embed["fields"])
    fake.assert_clean()


async def test_the_revealed_seed_matches_the_commitment_and_export_replays(fake_discord,
                                                                          tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    async with running_bot(fake, path, seed=None):  # the bot's own secret seeds
        driver = Driver(fake, random.Random(7))
        ix = await fake.slash("ann", None, "nlk", "export")
        assert "No hand has finished" in (await ix.wait_response()).data["content"]
        table = await driver.seat_and_start("ann", ["bob"])
        # The table message carries a fingerprint; Fair deal gives the whole commitment.
        ix, response = await driver.click("bob", table, "Fair deal", expect=4)
        assert response.ephemeral
        digest = response.data["embeds"][0]["description"].split("`")[1]
        assert len(digest) == 64 and f"fair deal {digest[:12]}" in table.text()
        ix = await fake.slash("bob", None, "nlk", "export")  # mid-hand: nothing to export yet
        assert "No hand has finished" in (await ix.wait_response()).data["content"]
        await driver.play_hand(table)
        revealed = field_value(table, "Fair deal")
        seed = revealed.split("`")[1]
        assert hashlib.sha256(seed.encode()).hexdigest() == digest
        ix = await fake.slash("bob", None, "nlk", "export")
        message = await ix.wait_message()
    (attachment,) = message.attachments
    replay = json.loads(attachment.data)
    assert replay["deck"] == [str(c) for c in shuffled_deck(2, seed)]
    game, result = parse(replay).run()
    hands, _ = database_rows(path, table_id_of(table))
    assert result["error"] is None and result["phase"] == "over"
    assert result["loser"] == hands[0]["loser"]
    assert list(game.outcome().order) == json.loads(hands[0]["finishing_order"])
    file = tmp_path / attachment.filename
    file.write_bytes(attachment.data)
    done = subprocess.run([sys.executable, "-m", "rules", "replay", str(file)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and json.loads(done.stdout)["loser"] == hands[0]["loser"]
    verify = subprocess.run([sys.executable, "-m", "rules", "verify", seed, digest],
                            capture_output=True, text=True, timeout=60)
    assert verify.returncode == 0
    fake.assert_clean()


async def test_server_settings_need_manage_server_and_set_new_tables(fake_discord, tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    fake.add_user("owner", permissions=Perm.MANAGE_GUILD)
    async with running_bot(fake, path):
        driver = Driver(fake)
        ix = await fake.slash("ann", None, "nlk", "settings", {"seats": 3})
        assert "Manage Server" in (await ix.wait_response()).data["content"]
        ix = await fake.slash("owner", None, "nlk", "settings",
                              {"seats": 3, "allow_ai": False, "turn_timer": 45})
        response = await ix.wait_response()
        assert response.ephemeral and "Saved" in json.dumps(response.data["embeds"])
        with pytest.raises(ValueError, match="not a choice"):  # the picker offers no 5 s
            await fake.slash("owner", None, "nlk", "settings", {"turn_timer": 5})
        table = await driver.new_table("ann")
        assert "(1/3)" in table.text() and "45 s per turn" in table.text()
        # No button that could only answer "switched off".
        assert not [b for b in table.buttons() if "AI" in (b.label or "")]
    fake.assert_clean()


async def test_idle_tables_end_on_their_own_and_keep_their_results(fake_discord, tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    clock = TimeMachine()
    async with running_bot(fake, path, clock=clock, idle_seconds=600) as bot:
        driver = Driver(fake, random.Random(9))
        table = await driver.seat_and_start("ann", ["bob"], turn_timer=0)
        await driver.play_hand(table)
        clock.advance(601)
        ended = await bot.clocks.end_idle_tables()
        assert ended == [table_id_of(table)]
        await fake.wait_until(lambda: table.buttons() == [], timeout=10)
        assert " · over" in title(table)
        hands, _ = database_rows(path, table_id_of(table))
        assert hands[0]["loser"] is not None
        again = await driver.new_table("bob", seats=2)  # the channel is free again
        assert again.id != table.id
    fake.assert_clean()
