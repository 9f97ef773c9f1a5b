"""Whole hands through the real discord.py client and the fake Discord, by taps only."""

import asyncio
import json
import random
from pathlib import Path

from rules import Card, pack
from tests.helpers import table_id_of
from tests.nlk_driver import (
    Driver,
    actor,
    check_no_hand_leaks,
    database_rows,
    description,
    is_over,
    running_bot,
    spawn_bot,
    title,
)


def check_pings(fake, table):
    """Every turn ping mentions exactly one player and nobody else is notified."""
    every = fake.messages(include_deleted=True)
    pings = [m for m in every if "your turn" in m.versions[0].content]
    assert pings
    for ping in pings:
        assert len(ping.pinged_user_ids) == 1
        assert ping.allowed_mentions.get("parse") == []
    others = [m for m in every if m not in pings and m.pinged_user_ids]
    assert others == []


async def test_four_player_hand_from_new_to_the_losers_announcement(nlk):
    fake, bot, driver, path = nlk
    table = await driver.seat_and_start("ann", ["bob", "cy", "dee"])
    await driver.play_hand(table)
    assert "loses this hand" in table.text()
    order = next(f for f in table.embeds[0]["fields"] if f["name"] == "Finishing order")
    assert len(order["value"].splitlines()) == 4
    assert any(b.label == "Next hand" for b in table.buttons())
    # The notice is posted by its own loop, maybe after the table message shows the end.
    await fake.wait_until(lambda: any("is over" in m.content
                      for m in fake.public_messages()), timeout=30)
    announcement = [m for m in fake.public_messages() if "is over" in m.content]
    assert len(announcement) == 1
    # The hand's story in one picture, and a button that replays it.
    [notice] = announcement
    assert [a.filename.split(".")[0] for a in notice.attachments] == ["hand-over"]
    assert [b.label for b in notice.buttons()] == ["Replay"]
    hands, actions = database_rows(path, table_id_of(table))
    # Every tap made one move; moves with no choice played themselves, marked as such.
    chosen = [a for a in actions[hands[0]["id"]] if not a["forced"]]
    assert hands[0]["loser"] is not None and len(chosen) == driver.actions
    assert len(chosen) < len(actions[hands[0]["id"]])
    assert check_no_hand_leaks(fake, path, table_id_of(table)) > 0
    check_pings(fake, table)
    # At most one live turn ping: the others were deleted.
    live = [m for m in fake.public_messages() if "your turn" in m.content and not m.deleted]
    assert len(live) <= 1


async def test_nine_player_hand_with_french_rules(nlk):
    fake, bot, driver, path = nlk
    names = [f"p{i}" for i in range(9)]
    table = await driver.seat_and_start(names[0], names[1:], last_card="free",
                                        must_beat_in_suit=True)
    assert "beat in suit when you can" in table.text()
    await driver.play_hand(table)
    order = next(f for f in table.embeds[0]["fields"] if f["name"] == "Finishing order")
    assert len(order["value"].splitlines()) == 9
    assert check_no_hand_leaks(fake, path, table_id_of(table)) > 0


def towering_deck():
    """Nine players, dealer 0: every talon card fits on seat 0's stack in turn."""
    cards = list(pack(9))
    talon = []
    for i in range(43):
        rank = (i + 1) % 13 + 2  # 3, 4, … A, 2, 3 …
        card = next(c for c in cards if c.rank == rank and c not in talon
                    and str(c) != "2S")
        talon.append(card)
    seat0 = Card.parse("2S")
    rest = [c for c in cards if c not in talon and c != seat0]
    return [*rest, seat0, *talon]  # seats 1..8 then the dealer, seat 0


async def test_a_hand_of_more_than_thirty_cards_is_fully_playable(nlk):
    fake, bot, driver, path = nlk
    driver.rng = random.Random(5)  # with this deal, p0 leads its 40-odd cards at least once
    deck = towering_deck()
    bot.service.shuffle = lambda n, seed: list(deck)
    bot.service.choose_dealer = lambda n: 0
    names = [f"p{i}" for i in range(9)]
    table = await driver.seat_and_start(names[0], names[1:])
    # Seat 1 draws everything and gives it to p0 (the last card is kept, R3.4).
    while " · collect" in title(table):
        give = [b for b in table.buttons() if "Give" in b.label and "to p0" in b.label]
        label = give[0].label if give else "p1: Draw"
        await driver.click("p1", table, label)
    assert "43 cards" in table.text() or "p0 — 43 cards" in table.text()
    # p0's hand: at most 20 play buttons, so its 43 cards come as selects by suit.
    await driver.play_hand(table)
    p0 = fake.user("p0").id
    selected = [ix for ix in fake.interactions
                if ix.payload.get("type") == 3 and ix.payload["data"].get("component_type") == 3
                and ix.payload["member"]["user"]["id"] == str(p0)]
    assert selected, "p0's big hand was never played through its selects"
    assert check_no_hand_leaks(fake, path, table_id_of(table)) > 0


async def test_an_outsider_tapping_changes_nothing(nlk):
    fake, bot, driver, path = nlk
    table = await driver.seat_and_start("ann", ["bob", "cy"])
    # The start's answer goes without waiting for the picture, which follows in an edit.
    await fake.wait_until(lambda: table.embeds and table.embeds[0].get("image"), 30.0,
                          "the table's picture")
    versions = len(table.versions)
    name = actor(table)
    hands, actions = database_rows(path, table_id_of(table))
    before = len(actions[hands[0]["id"]])  # moves with no choice may have played themselves
    move = next(b for b in table.buttons() if b.label != "My stack")
    ix, response = await driver.click("zed", table, custom_id=move.custom_id, expect=4)
    assert response.ephemeral and f"It's {name}'s turn" in response.data["content"]
    other = next(n for n in ("ann", "bob", "cy") if n != name)
    ix, response = await driver.click(other, table, custom_id=move.custom_id, expect=4)
    # (their first refusal at a table links the lesson on a line of its own)
    assert response.ephemeral and response.data["content"].split("\n")[0] == \
        f"It's {name}'s turn."
    assert len(table.versions) == versions
    hands, actions = database_rows(path, table_id_of(table))
    assert len(actions[hands[0]["id"]]) == before


async def test_a_double_click_applies_once_and_a_stale_button_is_refused(nlk):
    fake, bot, driver, path = nlk
    table = await driver.seat_and_start("ann", ["bob", "cy"])
    name = actor(table)
    draw = next(b for b in table.buttons() if b.label != "My stack")
    first, second = await asyncio.gather(fake.click(name, table, custom_id=draw.custom_id),
                                         fake.click(name, table, custom_id=draw.custom_id))
    responses = [await first.wait_response(), await second.wait_response()]
    # Both update the table message: the move, and the tap on the table message as it
    # showed before the move, answered by bringing it up to date; its refusal follows,
    # privately.
    assert [r.type for r in responses] == [7, 7]
    def refusals():
        return [m for ix in (first, second) for m in ix.followups
                if "out of date" in m.text()]
    [refusal] = await fake.wait_until(refusals, timeout=5)
    assert refusal.ephemeral
    hands, actions = database_rows(path, table_id_of(table))
    assert len([a for a in actions[hands[0]["id"]] if not a["forced"]]) == 1


async def test_a_second_table_in_the_channel_points_at_the_first(nlk):
    fake, bot, driver, path = nlk
    table = await driver.new_table("ann", seats=3)
    await fake.wait_until(lambda: all(t.message_id for t in bot.service.cached()))
    ix = await fake.slash("bob", None, "nlk", "new")
    response = await ix.wait_response()
    assert response.ephemeral and str(table.id) in response.data["content"]
    ix, response = await driver.click("bob", table, "Start (host)", expect=4)
    assert "host" in response.data["content"]
    ix, response = await driver.click("ann", table, "Start (host)", expect=4)
    assert "at least two" in response.data["content"]
    await driver.click("bob", table, "Join")
    await driver.click("cy", table, "Join")
    join = next(b for b in table.buttons() if b.label == "Join")
    assert join.disabled  # full: a click that raced the redraw still gets "full" (TableFull)
    await driver.click("ann", table, "Cancel the table (host)")
    assert "cancelled" in table.text() and table.buttons() == []
    again = await driver.new_table("dee", seats=2)
    assert again.id != table.id


async def test_commands_hand_rules_leave_and_end(nlk):
    fake, bot, driver, path = nlk
    ix = await fake.slash("ann", None, "nlk", "hand")
    assert "no NLK table" in (await ix.wait_response()).data["content"]
    ix = await fake.slash("ann", None, "nlk", "rules")
    response = await ix.wait_response()
    assert response.ephemeral and "trump" in json.dumps(response.data["embeds"])
    table = await driver.new_table("ann", seats=4)
    await driver.click("bob", table, "Join")
    ix = await fake.slash("bob", None, "nlk", "leave")
    assert (await ix.wait_response()).ephemeral
    await fake.wait_until(lambda: "bob" not in table.text(), timeout=5)
    await driver.click("bob", table, "Join")
    await driver.click("ann", table, "Start (host)")
    ix = await fake.slash("bob", None, "nlk", "leave")
    assert "when this hand ends" in (await ix.wait_response()).data["content"]
    ix = await fake.slash("bob", None, "nlk", "hand")
    response = await ix.wait_response()
    assert response.ephemeral and "Your stack" in response.data["embeds"][0]["title"]
    ix = await fake.slash("bob", None, "nlk", "end")
    assert "Only the host" in (await ix.wait_response()).data["content"]
    from tests.fakediscord import Perm

    fake.add_user("mod", permissions=Perm.MANAGE_CHANNELS)
    ix = await fake.slash("mod", None, "nlk", "end")
    response = await ix.wait_response()
    assert not response.ephemeral and "ended" in response.data["content"]
    await fake.wait_until(lambda: table.buttons() == [], timeout=5)
    assert "ended before this hand finished" in table.text()


async def test_restart_mid_hand_keeps_every_table_and_old_button(fake_discord, tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    driver = Driver(fake, random.Random(8))
    async with running_bot(fake, path):
        table = await driver.seat_and_start("ann", ["bob", "cy", "dee"])
        for _ in range(5):
            await driver._collect_step(table)
        before = table.text()
    # The bot is gone. Its buttons are not: a new process picks them up.
    async with running_bot(fake, path):
        assert table.text() == before
        while " · collect" in title(table):
            await driver._collect_step(table)
        # Mid-shed: open a hand, restart again, and tap the old ephemeral's buttons.
        name = actor(table)
        hand = await driver.open_hand(name, table)
    async with running_bot(fake, path):
        await driver._play_from(name, hand, table)
        await driver.play_hand(table)
    assert is_over(table)
    assert check_no_hand_leaks(fake, path, table_id_of(table)) > 0
    fake.assert_clean()


async def test_killed_bot_process_resumes_the_hand(fake_discord, tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    driver = Driver(fake, random.Random(3))
    # Both runs' logs, kept for the failure's message: what the bot said, not a guess.
    with open(tmp_path / "bot.log", "wb") as log:
        process = await spawn_bot(fake, path, stdout=log, stderr=log)
        try:
            session = await fake.wait_for_bot(timeout=30)
            table = await driver.seat_and_start("ann", ["bob", "cy"])
            for _ in range(4):
                await driver._collect_step(table)
            process.kill()  # SIGKILL, right after the last answer
            await process.wait()
            await fake.wait_for_disconnect(session)
            process = await spawn_bot(fake, path, stdout=log, stderr=log)
            await fake.wait_for_bot(timeout=30, after=session)
            await driver.play_hand(table)
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
    hands, actions = database_rows(path, table_id_of(table))
    # Every tap made one move; moves with no choice played themselves, marked as such.
    chosen = [a for a in actions[hands[0]["id"]] if not a["forced"]]
    said = (tmp_path / "bot.log").read_text(errors="replace")[-4000:]
    assert hands[0]["loser"] is not None and len(chosen) == driver.actions, said
    assert len(chosen) < len(actions[hands[0]["id"]])
    fake.assert_clean()


async def test_sigterm_closes_the_bot_cleanly(fake_discord, tmp_path):
    """A service manager's stop: the bot leaves the gateway, closes its database, exits 0."""
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    process = await spawn_bot(fake, path, stdout=asyncio.subprocess.PIPE,
                              stderr=asyncio.subprocess.STDOUT)
    try:
        session = await fake.wait_for_bot(timeout=30)
        table = await Driver(fake, random.Random(5)).seat_and_start("ann", ["bob"])
        process.terminate()
        output, _ = await asyncio.wait_for(process.communicate(), 20)
        await fake.wait_for_disconnect(session)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode == 0, output.decode()
    assert b"Traceback" not in output
    # Closed, not abandoned: the last connection checkpointed and removed the write-ahead log.
    assert not Path(f"{path}-wal").exists()
    hands, _ = database_rows(path, table_id_of(table))
    assert len(hands) == 1 and hands[0]["loser"] is None


async def test_sigterm_waits_for_work_in_flight_then_closes(fake_discord, tmp_path):
    """Posts, pings and edits caught in flight by SIGTERM finish or are cancelled before the
    HTTP session closes: no "Session is closed", no traceback, exit 0."""
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    process = await spawn_bot(fake, path, stdout=asyncio.subprocess.PIPE,
                              stderr=asyncio.subprocess.STDOUT)
    holds = []
    try:
        session = await fake.wait_for_bot(timeout=30)
        driver = Driver(fake, random.Random(6))
        table = await driver.seat_and_start("ann", ["bob", "cy"])
        # From now on every channel post, edit, delete and follow-up waits in the fake.
        holds = [fake.hold(method, pattern) for method, pattern in (
            ("POST", r"/channels/\d+/messages"), ("PATCH", r"/channels/\d+/messages/"),
            ("DELETE", r"/channels/\d+/messages/"), ("POST", r"/webhooks/"),
            ("PATCH", r"/webhooks/"))]
        held = asyncio.ensure_future(asyncio.wait(
            [asyncio.ensure_future(h.reached.wait()) for h in holds],
            return_when=asyncio.FIRST_COMPLETED))
        while not held.done() and not is_over(table):
            await driver._collect_step(table)  # each turn change pings the next player
        assert any(h.count for h in holds), "no background request was caught in flight"
        process.terminate()
        await asyncio.sleep(0.5)
        for hold in holds[: len(holds) // 2]:
            hold.release()  # some requests answer during the shutdown, the rest never do
        output, _ = await asyncio.wait_for(process.communicate(), 30)
        await fake.wait_for_disconnect(session)
    finally:
        for hold in holds:
            hold.release()
        if process.returncode is None:
            process.kill()
            await process.wait()
    text = output.decode()
    assert process.returncode == 0, text
    assert "Traceback" not in text and "ERROR" not in text and "Session is closed" not in text
    assert not Path(f"{path}-wal").exists()


async def test_next_hand_is_dealt_by_the_loser(nlk):
    fake, bot, driver, path = nlk
    table = await driver.seat_and_start("ann", ["bob"])
    await driver.play_hand(table)
    loser_line = description(table)
    await driver.click("bob", table, "Next hand")
    assert " · hand 2 · " in title(table)
    hands, _ = database_rows(path, table_id_of(table))
    assert hands[1]["dealer"] == hands[0]["loser"]
    assert loser_line
