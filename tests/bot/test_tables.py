"""The table service: who may do what, and that the database alone can rebuild any table."""

import asyncio
import random

import pytest

from bot.db.records import Mark, TableStatus
from bot.errors import (
    AgainstTheRules,
    AlreadySeated,
    NotAllowed,
    NotPlaying,
    NotSeated,
    SeatStays,
    Stale,
    TableExists,
    TableFull,
    TooFewPlayers,
    WaitYourTurn,
    WrongChannel,
)
from bot.tables.service import TableService
from rules import Variant
from rules.views import state_json


async def lobby(service, players=4, channel=100):
    table = (await service.create(1, channel, 10, "Ann", 6, Variant())).table
    for i in range(1, players):
        await service.join(table.id, 10 + i, f"P{i}")
    return table.id


async def test_one_open_table_per_channel(service):
    await lobby(service, 2)
    with pytest.raises(TableExists):
        await service.create(1, 100, 99, "Zed", 4, Variant())
    other = (await service.create(1, 101, 99, "Zed", 4, Variant())).table
    assert other.channel_id == 101


async def test_lobby_rules_join_leave_full_host(service):
    table = (await service.create(1, 100, 10, "Ann", 2, Variant())).table
    with pytest.raises(AlreadySeated):
        await service.join(table.id, 10, "Ann")
    await service.join(table.id, 11, "Bob")
    with pytest.raises(TableFull):
        await service.join(table.id, 12, "Cy")
    with pytest.raises(NotAllowed):
        await service.start(table.id, 11)
    change = await service.leave(table.id, 10)  # the host leaves: Bob hosts now
    assert change.table.host_id == 11
    with pytest.raises(TooFewPlayers):
        await service.start(table.id, 11)


async def test_a_full_lobby_is_dealt_ahead_and_the_start_deals_just_that(service):
    """Once the lobby is full, the first hand is dealt ahead (its picture can be drawn
    before Start): ``ahead`` is told the table as the Start then deals it, after the moves
    that play themselves, and nothing is written; other seats at the Start are dealt
    afresh."""
    told = []
    table = (await service.create(1, 100, 10, "Ann", 3, Variant())).table
    await service.join(table.id, 11, "Bob")
    await service.deal_ahead(table.id, told.append)
    assert told == []  # a seat still free: Start could deal to other seats
    await service.join(table.id, 12, "Cy")
    await service.deal_ahead(table.id, told.append)
    await service.deal_ahead(table.id, told.append)  # dealt already: not again
    assert [t.status for t in told] == [TableStatus.PLAYING]
    assert await service.repo.last_hand(table.id) is None  # written nowhere yet
    started = (await service.start(table.id, 10)).table
    assert state_json(started.game) == state_json(told[0].game)
    assert [s.user_id for s in started.seats] == [10, 11, 12]

    told.clear()
    again = (await service.create(1, 101, 20, "Dee", 3, Variant())).table
    await service.join(again.id, 21, "Eve")
    await service.join(again.id, 22, "Fay")
    await service.deal_ahead(again.id, told.append)
    await service.leave(again.id, 22)  # the deal ahead was for three
    started = (await service.start(again.id, 20)).table
    assert [s.user_id for s in started.seats] == [20, 21]
    assert started.game.n == 2


async def test_actions_are_checked_in_order_turn_version_rules(service):
    table_id = await lobby(service)
    table = (await service.start(table_id, 10)).table
    game = table.game
    actor = table.seats[game.to_act].user_id
    other = next(s.user_id for s in table.seats if s.user_id != actor)
    move = game.legal_actions()[0]  # moves with no choice have played themselves
    start = game.version
    with pytest.raises(NotSeated):
        await service.act(table_id, 999, start, move)
    with pytest.raises(WaitYourTurn):
        await service.act(table_id, other, start, move)
    with pytest.raises(Stale):
        await service.act(table_id, actor, start + 1, move)
    with pytest.raises(WrongChannel):
        await service.act(table_id, actor, start, move, channel_id=555)
    from rules import TAKE

    with pytest.raises(AgainstTheRules) as refused:  # no taking in phase one
        await service.act(table_id, actor, start, TAKE)
    assert refused.value.rule.startswith("R3")
    assert (await service.get(table_id)).game.version == start
    change = await service.act(table_id, actor, start, move)
    assert change.table.game.version > start and change.before == actor
    with pytest.raises((Stale, WaitYourTurn)):  # the same click again
        await service.act(table_id, actor, start, move)


async def test_a_table_is_rebuilt_from_the_database_exactly(service, tmp_path):
    table_id = await lobby(service, 5)
    table = (await service.start(table_id, 10)).table
    rng = random.Random(5)
    for _ in range(120):
        game = table.game
        if game.is_over:
            break
        legal = game.legal_actions()
        table = (await service.act(table_id, table.seats[game.to_act].user_id, game.version,
                                   legal[rng.randrange(len(legal))])).table
    fresh = TableService(service.repo)  # a restart: nothing cached
    again = await fresh.get(table_id)
    assert state_json(again.game) == state_json(table.game)
    assert [s.user_id for s in again.seats] == [s.user_id for s in table.seats]
    assert again.status == table.status


async def test_a_move_with_no_choice_left_unplayed_by_a_stop_is_played_at_the_start(
        service, monkeypatch):
    """A process that stopped between a move and the move with no choice that follows it
    (a draw when no stack takes the top card) left it unplayed: the next start plays it,
    marked as playing itself, before the table is shown."""
    table_id = await lobby(service, 4)
    table = (await service.start(table_id, 10)).table

    async def stopped(_table):  # the process stops right after writing each move
        return None

    monkeypatch.setattr(service, "_play_forced", stopped)
    rng = random.Random(3)
    for _ in range(200):
        if TableService._forced(table) is not None:
            break
        game = table.game
        legal = game.legal_actions()
        table = (await service.act(table_id, table.seats[game.to_act].user_id, game.version,
                                   legal[rng.randrange(len(legal))])).table
    assert TableService._forced(table) is not None, "no move with no choice came up"
    left = table.game.version

    fresh = TableService(service.repo)  # the next start: nothing cached
    [resumed] = [t for t in await fresh.open_tables() if t.id == table_id]
    assert resumed.game.version > left
    assert TableService._forced(resumed) is None
    assert Mark.FORCED in resumed.marks.values()
    again = await TableService(service.repo).get(table_id)  # and it was written first
    assert state_json(again.game) == state_json(resumed.game)


async def test_a_finished_hand_is_recorded_and_the_loser_deals_next(service):
    table_id = await lobby(service, 3)
    change = await service.start(table_id, 10)
    rng = random.Random(9)
    while not change.table.game.is_over:
        game, table = change.table.game, change.table
        legal = game.legal_actions()
        change = await service.act(table_id, table.seats[game.to_act].user_id, game.version,
                                   legal[rng.randrange(len(legal))])
    table = change.table
    assert table.status == TableStatus.OVER and change.hand_over
    loser = table.game.outcome().loser
    stored = await service.repo.last_hand(table_id)
    assert stored.hand.loser == loser and stored.hand.finished
    with pytest.raises(NotSeated):
        await service.next_hand(table_id, 999)
    table = (await service.next_hand(table_id, 11)).table
    assert table.game.dealer == loser and table.hand_number == 2
    assert table.status == TableStatus.PLAYING


async def test_leaving_mid_hand_waits_for_its_end_and_end_needs_host_or_moderator(service):
    table_id = await lobby(service, 3)
    table = (await service.start(table_id, 10)).table
    left = (await service.leave(table_id, 11)).table  # the hand keeps the seat to its end
    assert left.seat_of(11) == 1 and not left.in_next_hand(11)
    await service.leave(table_id, 12)
    with pytest.raises(SeatStays):  # the last person stays: nobody would deal the next hand
        await service.leave(table_id, 10)
    with pytest.raises(NotAllowed):
        await service.end(table_id, 11, moderator=False)
    change = await service.end(table_id, 12, moderator=True)
    assert change.table.status == TableStatus.ENDED and change.closed
    with pytest.raises(NotPlaying):
        await service.act(table_id, 10, 0, table.game.legal_actions()[0])


async def test_closed_tables_free_their_state(service):
    for channel in range(200, 260):
        table_id = await lobby(service, 2, channel)
        await service.start(table_id, 10)
        await service.end(table_id, 10, moderator=False)
    assert service.tracked() == 0


async def test_a_closing_table_keeps_its_one_lock_while_others_wait(service):
    """Changes that wait on a table being closed still run one at a time, and the lock is
    freed only when the last of them is done."""
    table_id = await lobby(service, 2)
    inside, most = 0, 0
    load = service.store.load

    async def slow_load(tid):
        nonlocal inside, most
        inside += 1
        most = max(most, inside)
        try:
            await asyncio.sleep(0.01)
            return await load(tid)
        finally:
            inside -= 1

    service.store.load = slow_load
    closing = asyncio.create_task(service.cancel(table_id, 10))
    await asyncio.sleep(0)
    waiting = [asyncio.create_task(service.get(table_id)) for _ in range(5)]
    await closing
    late = [asyncio.create_task(service.get(table_id)) for _ in range(5)]
    results = await asyncio.gather(*waiting, *late)
    assert most == 1
    assert all(t.status == TableStatus.CANCELLED for t in results)
    assert service.tracked() == 0
