"""Seats between hands: people join and leave while a hand is over, the loser still deals
(R5.1) at the renumbered seats (R1.1), hosting passes on, and an away seat can be freed."""

import json
import random
from contextlib import asynccontextmanager

import pytest

from bot.db.records import By, TableStatus
from bot.errors import AlreadyStarted, NotAllowed, NotAway, NotSeated, TooFewPlayers
from bot.tables.service import Seat, TableService
from rules import Variant, shuffled_deck
from rules.i18n import Lang
from tests.helpers import LONG, MARKDOWN, case_seed, check_budget, play, table_id_of
from tests.nlk_driver import (
    Driver,
    TimeMachine,
    actor,
    database_rows,
    description,
    field_value,
    is_over,
    move_of,
    running_bot,
    title,
)


@pytest.fixture
def service(service):
    """The shared ``service`` (conftest.py), dealing the same hands from seat 0 every run."""
    deals = random.Random(3)  # the same deals every run
    service.shuffle = lambda n, _seed: shuffled_deck(n, deals.random())
    service.choose_dealer = lambda n: 0
    return service


async def seated(service, players):
    """A table with users 10, 11, … seated (10 hosts) and its first hand dealt."""
    table = (await service.create(1, 100, 10, "P0", 6, Variant())).table
    for i in range(1, players):
        await service.join(table.id, 10 + i, f"P{i}")
    await service.start(table.id, 10)
    return table.id


async def play_out(service, table_id, *, lapse=None, seed=0):
    """Play the hand to its end; ``lapse``'s turns lapse (a stand-in plays them) until the
    AI keeps the seat for its away owner. Returns the table, over."""
    rng = random.Random(seed)
    table = await service.get(table_id)
    while not table.game.is_over:
        game = table.game
        seat = table.seats[game.to_act]
        by = By.PLAYER
        if game.to_act in table.away:
            by = By.AI
        elif seat.user_id == lapse:
            by = By.STAND_IN
        legal = game.legal_actions()
        table = (await service.act(table_id, seat.user_id, game.version,
                                   legal[rng.randrange(len(legal))], by)).table
    assert table.status is TableStatus.OVER
    return table


def ids(seats):
    return [s.user_id for s in seats]


async def test_a_player_who_joins_between_hands_is_dealt_in_and_the_loser_deals(service):
    table_id = await seated(service, 3)
    over = await play_out(service, table_id)
    loser = over.game.outcome().loser
    with pytest.raises(NotSeated):  # not seated yet: only the next hand's players deal it
        await service.next_hand(table_id, 13)
    await service.join(table_id, 13, "New")
    table = (await service.next_hand(table_id, 13)).table
    assert ids(table.seats) == [10, 11, 12, 13]  # the newcomer sits after everyone (R1.1)
    assert table.game.n == 4 and table.game.dealer == loser  # R5.1
    with pytest.raises(AlreadyStarted):  # seats stay put under a running hand
        await service.join(table_id, 14, "Late")


async def test_leaving_between_hands_renumbers_the_seats_and_the_loser_still_deals(service):
    table_id = await seated(service, 4)
    over = await play_out(service, table_id)
    loser = over.game.outcome().loser
    assert loser > 0, "this deal must have a loser after seat 0 for the test to mean much"
    await service.leave(table_id, 11 if loser != 1 else 10)  # someone seated before the loser
    table = (await service.next_hand(table_id, 12)).table
    assert len(table.seats) == 3
    assert table.seats[table.game.dealer].user_id == over.seats[loser].user_id
    assert table.game.dealer == loser - 1  # the loser moved up a seat


async def test_if_the_loser_left_the_next_player_still_seated_deals(service):
    table_id = await seated(service, 4)
    over = await play_out(service, table_id)
    loser = over.game.outcome().loser
    after = over.seats[(loser + 1) % 4].user_id
    await service.leave(table_id, over.seats[loser].user_id)
    table = (await service.next_hand(table_id, after)).table
    assert table.seats[table.game.dealer].user_id == after


async def test_a_hand_needs_two_seats_and_the_last_person_leaving_ends_the_table(service):
    table_id = await seated(service, 2)
    await play_out(service, table_id)
    change = await service.leave(table_id, 11)
    assert change.table.status is TableStatus.OVER and not change.closed
    with pytest.raises(TooFewPlayers):
        await service.next_hand(table_id, 10)
    change = await service.leave(table_id, 10)
    assert change.closed and change.table.status is TableStatus.ENDED


async def test_the_host_leaving_hands_hosting_on_and_it_survives_a_restart(service):
    table_id = await seated(service, 3)
    await service.leave(table_id, 10)  # during the hand: when it ends
    table = await service.get(table_id)
    assert table.host_id == 11 and table.seat_of(10) == 0 and table.status is \
        TableStatus.PLAYING
    with pytest.raises(NotSeated):
        await service.leave(table_id, 10)  # already leaving
    await play_out(service, table_id)
    await service.leave(table_id, 11)  # between hands: at once, and hosting passes on
    fresh = TableService(service.repo)  # a restart: nothing cached
    table = await fresh.get(table_id)
    assert table.host_id == 12 and table.status is TableStatus.OVER and table.is_open
    assert ids(table.next_seats) == [12]
    await fresh.join(table_id, 13, "New")
    table = (await fresh.next_hand(table_id, 13)).table
    assert ids(table.seats) == [12, 13] and table.host_id == 12


async def test_the_host_or_a_moderator_removes_an_away_seat_after_the_hand(service):
    table_id = await seated(service, 4)
    table = await service.get(table_id)
    slow = table.seats[table.game.to_act].user_id
    # Two lapsed turns and the AI keeps the seat (MISSES_BEFORE_AWAY).
    rng = random.Random(1)
    while not table.away:
        game = table.game
        seat = table.seats[game.to_act]
        legal = game.legal_actions()
        table = (await service.act(table_id, seat.user_id, game.version,
                                   legal[rng.randrange(len(legal))],
                                   By.STAND_IN if seat.user_id == slow else By.PLAYER)).table
    assert not table.game.is_over
    with pytest.raises(NotAway):
        await service.remove(table_id, 10, 11 if slow != 11 else 12, moderator=False)
    other = next(s.user_id for s in table.seats if s.user_id not in (10, slow))
    with pytest.raises(NotAllowed):
        await service.remove(table_id, other, slow, moderator=False)
    change = await service.remove(table_id, other, slow, moderator=True)
    # The AI plays the seat to the end of this hand, so the hand stays whole.
    assert change.table.status is TableStatus.PLAYING
    assert change.table.seat_of(slow) is not None and not change.table.in_next_hand(slow)
    with pytest.raises(NotSeated):
        await service.remove(table_id, 10, slow, moderator=False)
    await play_out(service, table_id, seed=2)
    table = (await service.next_hand(table_id, other)).table
    assert slow not in ids(table.seats) and len(table.seats) == 3


# --- through Discord -------------------------------------------------------------------------

def button(message, start):
    return next(b for b in message.buttons() if (b.label or "").startswith(start))


def players_of(hand_row):
    return json.loads(hand_row["players"])


async def test_join_is_disabled_when_the_lobby_is_full(fake_discord, tmp_path):
    fake, driver = fake_discord, Driver(fake_discord, random.Random(1))
    async with running_bot(fake, tmp_path / "nlk.sqlite3"):
        table = await driver.new_table("ann", seats=2)
        assert not button(table, "Join").disabled
        await driver.click("bob", table, "Join")
        assert button(table, "Join").disabled and "2/2" in table.text()
        with pytest.raises(AssertionError, match="disabled"):
            await fake.click("cy", table, label="Join")
        await driver.click("bob", table, "Leave")
        assert not button(table, "Join").disabled
    fake.assert_clean()


async def test_joins_and_leaves_between_hands_survive_a_restart(fake_discord, tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    driver = Driver(fake, random.Random(4))
    async with running_bot(fake, path):
        table = await driver.seat_and_start("ann", ["bob", "cy"])  # three seats, all taken
        await driver.play_hand(table)
        assert button(table, "Join next hand").disabled
        hands, _ = database_rows(path, table_id_of(table))
        names = {fake.user(n).id: n for n in ("ann", "bob", "cy")}
        loser = names[players_of(hands[0])[hands[0]["loser"]]]
        leaver = next(n for n in ("bob", "cy") if n != loser)  # not the host, not the loser
        await driver.click(leaver, table, "Leave")
        await driver.click("dee", table, button(table, "Join next hand").label)
        assert button(table, "Join next hand").label == "Join next hand (3/3)"
    async with running_bot(fake, path):  # a restart between hands keeps the new seats
        ix, response = await driver.click(leaver, table, "Next hand", expect=4)
        # Every seat is taken: not told to tap a Join button that is disabled.
        assert "every seat of it is taken" in response.data["content"]
        assert "Join" not in response.data["content"]
        await driver.click("dee", table, "Next hand")
        assert " · hand 2 · " in title(table)
    hands, _ = database_rows(path, table_id_of(table))
    seats = [n for n in ("ann", "bob", "cy") if n != leaver] + ["dee"]  # renumbered (R1.1)
    assert players_of(hands[1]) == [fake.user(n).id for n in seats]
    assert hands[1]["dealer"] == seats.index(loser)  # the loser deals (R5.1)
    fake.assert_clean()


async def test_the_host_leaving_between_hands_passes_hosting_on(fake_discord, tmp_path):
    fake, driver = fake_discord, Driver(fake_discord, random.Random(6))
    async with running_bot(fake, tmp_path / "nlk.sqlite3"):
        table = await driver.seat_and_start("ann", ["bob", "cy"])
        await driver.play_hand(table)
        await driver.click("ann", table, "Leave")
        assert any(b.label == "Next hand" for b in table.buttons())  # not cancelled
        ix, response = await driver.click("cy", table, "End table", expect=4)
        assert "Only the host" in response.data["content"]
        ix, asked = await driver.click("bob", table, "End table", expect=4)  # bob hosts now
        await driver.click("bob", await ix.wait_message(), "End the table")
        await fake.wait_until(lambda: table.buttons() == [], timeout=10)
    fake.assert_clean()


class MovesOnly(Driver):
    """Taps moves only: "I'm back" is for the away player, and Moves and Fair deal only show
    things privately."""

    async def _collect_step(self, table) -> None:
        name = actor(table)
        choices = [b for b in table.buttons()
                   if b.label not in ("My stack", "I'm back", "Moves", "Fair deal")]
        ix = await self.fake.click(name, table, custom_id=self.rng.choice(choices).custom_id)
        assert (await ix.wait_response()).type == 7
        self.actions += 1


async def miss_two_turns(driver, table, clock, name) -> None:
    """Play on until ``name``'s turn, and let its 30 s timer lapse; twice in a row."""
    for _ in range(2):
        while actor(table) != name:
            if " · collect" in title(table):
                await driver._collect_step(table)
            else:
                await driver._shed_turn(table, actor(table))
        move = move_of(table)
        clock.advance(31)
        await driver.fake.wait_until(lambda m=move: move_of(table) > m, timeout=10)


@asynccontextmanager
async def cy_sent_away(fake, path):
    """ann, bob and cy at a table with a 30 s turn timer, mid-hand: cy has missed two turns
    in a row, and the AI keeps cy's seat. Yields the driver and the table message."""
    clock = TimeMachine()
    driver = MovesOnly(fake, random.Random(5), humans={"ann", "bob"})
    # The AI's moves come faster than Discord's per-channel rate: raise both limits together.
    fake.set_channel_rate_limit(limit=200, per=5.0)
    async with running_bot(fake, path, clock=clock, channel_edits=150) as bot:
        table = await driver.seat_and_start("ann", ["bob", "cy"], turn_timer=30)
        await miss_two_turns(driver, table, clock, "cy")
        state = await bot.service.get(table_id_of(table))
        assert state.seat_of(fake.user("cy").id) in state.away and not is_over(table)
        yield driver, table


async def test_the_host_removes_an_away_seat_between_hands(fake_discord, tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    async with cy_sent_away(fake, path) as (driver, table):
        await driver.play_hand(table)
        remove = button(table, "Remove cy")
        ix, response = await driver.click("bob", table, custom_id=remove.custom_id, expect=4)
        assert "Only the host" in response.data["content"]
        await driver.click("ann", table, custom_id=remove.custom_id)
        assert not any((b.label or "").endswith("(away)") for b in table.buttons())
        assert button(table, "Join next hand").label == "Join next hand (2/3)"
        await driver.click("bob", table, "Next hand")
    hands, _ = database_rows(path, table_id_of(table))
    assert players_of(hands[1]) == [fake.user("ann").id, fake.user("bob").id]
    fake.assert_clean()


async def test_the_remove_command_needs_the_host_and_an_away_seat(fake_discord, tmp_path):
    fake, driver = fake_discord, Driver(fake_discord, random.Random(2))
    async with running_bot(fake, tmp_path / "nlk.sqlite3"):
        table = await driver.seat_and_start("ann", ["bob", "cy"])
        ix = await fake.slash("bob", None, "nlk", "remove", {"player": fake.user("cy")})
        assert "Only the host" in (await ix.wait_response()).data["content"]
        ix = await fake.slash("ann", None, "nlk", "remove", {"player": fake.user("cy")})
        assert "isn't away" in (await ix.wait_response()).data["content"]
        ix = await fake.slash("cy", None, "nlk", "leave")  # mid-hand: when the hand ends
        assert "when this hand ends" in (await ix.wait_response()).data["content"]
        ix = await fake.slash("ann", None, "nlk", "remove", {"player": fake.user("cy")})
        assert "already leaving" in (await ix.wait_response()).data["content"]
        assert not is_over(table)
    fake.assert_clean()


# --- the next hand, told truly ---------------------------------------------------------------

async def test_ai_seats_come_and_go_between_hands_only(service):
    table_id = await seated(service, 2)
    with pytest.raises(AlreadyStarted):  # the running hand keeps its seats
        await service.add_ai(table_id, 10, "heuristic", allowed=True)
    over = await play_out(service, table_id)
    with pytest.raises(NotAllowed):
        await service.add_ai(table_id, 11, "heuristic", allowed=True)
    table = (await service.add_ai(table_id, 10, "strong", allowed=True)).table
    ai = table.next_seats[-1]
    assert ai.ai == "strong" and ai.user_id < 0 and ai.user_id not in ids(over.seats)
    await service.remove_ai(table_id, 10)
    await service.add_ai(table_id, 10, "heuristic", allowed=True)
    table = (await service.next_hand(table_id, 10)).table
    assert [s.ai for s in table.seats] == [None, None, "heuristic"]
    assert table.game.dealer == over.game.outcome().loser  # R5.1, the AI sits after


@pytest.mark.e2e  # every state of a nine-seat hand, drawn in each language: seconds
@pytest.mark.parametrize("lang", list(Lang))
@pytest.mark.parametrize("names", [LONG, MARKDOWN], ids=["long", "markdown"])
def test_leavers_and_the_next_hands_seats_keep_the_table_message_small(names, lang):
    """Every other seat leaving mid-hand, then a full next hand whose loser has left."""
    for table in play(names, case_seed(names, lang)):
        table.away, table.stand_in = frozenset({3, 4}), True
        table.next_seats = [s for i, s in enumerate(table.seats) if i % 2 == 0]
        view = table.public_view()
        if not view.is_over:
            assert sum(table.leaving(i) for i in range(9)) == 4
            check_budget(table, lang)
            continue
        table.status = TableStatus.OVER
        table.next_seats = [s for s in table.seats
                            if s.user_id != table.seats[view.loser].user_id]
        table.next_seats.append(Seat(5000, names[0][::-1], "strong"))
        assert table.next_dealer() is not None
        check_budget(table, lang)
        table.next_seats = [Seat(5000 + i, n[::-1]) for i, n in enumerate(names)]
        assert table.next_dealer() is None  # nobody stays: drawn at random
        check_budget(table, lang)
        table.next_seats = table.next_seats[:1]  # and too few for a next hand
        check_budget(table, lang)
        table.status = TableStatus.PLAYING


def next_hand_field(table):
    return field_value(table, "Next hand · ")


async def test_the_finished_hand_tells_the_next_hands_seats_and_dealer_as_people_come_and_go(
        fake_discord, tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    driver = Driver(fake, random.Random(2))
    async with running_bot(fake, path):
        table = await driver.seat_and_start("ann", ["bob", "cy", "dee"])
        for name in ("bob", "cy"):  # mid-hand: they go when it ends, and everyone sees it
            ix = await fake.slash(name, None, "nlk", "leave")
            response = await ix.wait_response()
            assert response.ephemeral and "when this hand ends" in response.data["content"]
        await fake.wait_until(lambda: table.text().count("👋 leaves after this hand") == 2,
                              timeout=10)
        lines = field_value(table, "Players").split("\n")
        assert ["leaves after" in line for line in lines] == [False, True, True, False]
        await driver.play_hand(table)
        hands, _ = database_rows(path, table_id_of(table))
        names = {fake.user(n).id: n for n in ("ann", "bob", "cy", "dee")}
        loser = names[players_of(hands[0])[hands[0]["loser"]]]
        assert loser in ("bob", "cy"), "this deal must be lost by a leaver for the test"
        # The next of the last hand's players still seated after the loser deals.
        said = f"**{loser} loses this hand** and has left: **dee** deals the next."
        await fake.wait_until(lambda: said in description(table), timeout=10)
        assert "Tap **Next hand**" in description(table)
        assert "Next hand · 2/4" in table.text() and next_hand_field(table) == "ann, dee"
        # The notice is posted by its own loop (its picture drawn meanwhile), maybe after
        # the table message shows the end.
        await fake.wait_until(lambda: any("Hand 1 is over" in m.content
                                          for m in fake.public_messages()), timeout=30)
        [end] = [m for m in fake.public_messages() if "Hand 1 is over" in m.content]
        assert f"**{loser} loses** and has left: **dee** deals next." in end.content
        # No link to the table message: `/nlk table` may post it again elsewhere.
        assert end.content.endswith("Next hand (2/4): ann, dee.") and "[" not in end.content
        # People come and go between hands: the message follows.
        await driver.click("eve", table, button(table, "Join next hand").label)
        assert next_hand_field(table) == "ann, dee, eve" and "Next hand · 3/4" in table.text()
        await driver.click("dee", table, "Leave")
        assert "has left: **ann** deals the next." in description(table)
        await driver.click("ann", table, "Leave")
        assert next_hand_field(table) == "eve"
        assert "the next dealer will be drawn at random" in description(table)
        assert "The next hand needs two players" in description(table)
        await driver.click("fay", table, button(table, "Join next hand").label)
        assert "Tap **Next hand**" in description(table)
        await driver.click("eve", table, "Next hand")
        assert " · hand 2 · " in title(table) and "👋" not in table.text()
    hands, _ = database_rows(path, table_id_of(table))
    assert players_of(hands[1]) == [fake.user("eve").id, fake.user("fay").id]
    fake.assert_clean()


async def test_a_seat_removed_mid_hand_is_marked_and_not_dealt_in(fake_discord, tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    async with cy_sent_away(fake, path) as (driver, table):
        assert "👋" not in table.text()
        ix = await fake.slash("ann", None, "nlk", "remove", {"player": fake.user("cy")})
        assert "removed when this hand ends" in (await ix.wait_response()).data["content"]
        await fake.wait_until(lambda: "👋 leaves after this hand" in table.text(), timeout=10)
        [line] = [x for x in field_value(table, "Players").split("\n") if "cy" in x]
        assert "away (AI playing) · 👋 leaves after this hand" in line
        await driver.play_hand(table)
        assert next_hand_field(table) == "ann, bob"
        assert not any((b.label or "").endswith("(away)") for b in table.buttons())
        await driver.click("bob", table, "Next hand")
    hands, _ = database_rows(path, table_id_of(table))
    assert players_of(hands[1]) == [fake.user("ann").id, fake.user("bob").id]
    fake.assert_clean()


async def test_the_host_adds_and_removes_ai_seats_between_hands(fake_discord, tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    driver = Driver(fake, random.Random(3))
    async with running_bot(fake, path):
        table = await driver.new_table("ann", seats=3)
        await driver.click("bob", table, "Join")
        await driver.click("ann", table, "Start (host)")
        assert not any("AI" in (b.label or "") for b in table.buttons())  # not mid-hand
        await driver.play_hand(table)
        ix, response = await driver.click("bob", table, "Add AI (host)", expect=4)
        assert "Only the host" in response.data["content"]
        await driver.click("ann", table, "Add AI (host)")
        assert next_hand_field(table) == "ann, bob, 🤖 AI 1"
        assert button(table, "Join next hand (3/3)").disabled  # every seat is taken
        with pytest.raises(AssertionError, match="disabled"):
            await fake.click("cy", table, label="Join next hand (3/3)")
        # A full table offers no button that could only refuse: no AI to add.
        labels = [b.label for b in table.buttons()]
        assert "Add AI (host)" not in labels and "Add strong AI (host)" not in labels
        assert "Remove AI (host)" in labels
        await driver.click("ann", table, "Remove AI (host)")
        assert "Remove AI (host)" not in [b.label for b in table.buttons()]  # none left to remove
        assert next_hand_field(table) == "ann, bob"
        assert not button(table, "Join next hand (2/3)").disabled
        await driver.click("ann", table, "Add strong AI (host)")
        await driver.click("ann", table, "Next hand")
        assert " · hand 2 · " in title(table) and "🤖 AI 1 (strong)" in table.text()
    hands, _ = database_rows(path, table_id_of(table))
    players = players_of(hands[1])
    assert players[:2] == [fake.user("ann").id, fake.user("bob").id] and players[2] < 0
    assert json.loads(hands[1]["ai"]) == [None, None, "strong"]
    fake.assert_clean()
