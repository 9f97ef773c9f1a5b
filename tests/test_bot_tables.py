"""The table service: who may do what, and that the database alone can rebuild any table."""

import random

import pytest

from bot.database import connect, migrate
from bot.errors import Illegal, NotAllowed, NotSeated, NotYourTurn, Stale, TableExists, WrongState
from bot.repository import Repository
from bot.tables import TableService
from rules import Variant
from rules.views import state_json


@pytest.fixture
async def service(tmp_path):
    db = await connect(str(tmp_path / "nlk.sqlite3"))
    await migrate(db)
    yield TableService(Repository(db))
    await db.close()


async def lobby(service, players=4, channel=100):
    table = await service.create(1, channel, 10, "Ann", 6, Variant())
    for i in range(1, players):
        await service.join(table, 10 + i, f"P{i}")
    return table


async def test_one_open_table_per_channel(service):
    await lobby(service, 2)
    with pytest.raises(TableExists):
        await service.create(1, 100, 99, "Zed", 4, Variant())
    other = await service.create(1, 101, 99, "Zed", 4, Variant())
    assert other.channel_id == 101


async def test_lobby_rules_join_leave_full_host(service):
    table = await service.create(1, 100, 10, "Ann", 2, Variant())
    with pytest.raises(WrongState, match="already seated"):
        await service.join(table, 10, "Ann")
    await service.join(table, 11, "Bob")
    with pytest.raises(WrongState, match="full"):
        await service.join(table, 12, "Cy")
    with pytest.raises(NotAllowed):
        await service.start(table, 11)
    await service.leave(table, 10)  # the host leaves: Bob hosts now
    assert table.host_id == 11
    with pytest.raises(WrongState, match="at least two"):
        await service.start(table, 11)


async def test_actions_are_checked_in_order_turn_version_rules(service):
    table = await lobby(service)
    await service.start(table, 10)
    game = table.game
    actor = table.seats[game.to_act].user_id
    other = next(s.user_id for s in table.seats if s.user_id != actor)
    draw = next(a for a in game.legal_actions() if a.act == "draw")
    with pytest.raises(NotSeated):
        await service.act(table, 999, game.version, draw)
    with pytest.raises(NotYourTurn, match="turn"):
        await service.act(table, other, game.version, draw)
    with pytest.raises(Stale):
        await service.act(table, actor, game.version + 1, draw)
    from rules import KEEP

    with pytest.raises(Illegal, match="R3.3"):
        await service.act(table, actor, game.version, KEEP)
    assert table.game.version == 0
    await service.act(table, actor, 0, draw)
    assert table.game.version == 1
    with pytest.raises(Stale):  # the same click again
        await service.act(table, actor, 0, draw)


async def test_a_table_is_rebuilt_from_the_database_exactly(service, tmp_path):
    table = await lobby(service, 5)
    await service.start(table, 10)
    rng = random.Random(5)
    for _ in range(120):
        game = table.game
        if game.is_over:
            break
        legal = game.legal_actions()
        await service.act(table, table.seats[game.to_act].user_id, game.version,
                          legal[rng.randrange(len(legal))])
    fresh = TableService(service.repo)  # a restart: nothing cached
    again = await fresh.get(table.id)
    assert state_json(again.game) == state_json(table.game)
    assert [s.user_id for s in again.seats] == [s.user_id for s in table.seats]
    assert again.status == table.status


async def test_a_finished_hand_is_recorded_and_the_loser_deals_next(service):
    table = await lobby(service, 3)
    await service.start(table, 10)
    rng = random.Random(9)
    while not table.game.is_over:
        game = table.game
        legal = game.legal_actions()
        await service.act(table, table.seats[game.to_act].user_id, game.version,
                          legal[rng.randrange(len(legal))])
    assert table.status == "over"
    loser = table.game.outcome().loser
    hand = await service.repo.last_hand(table.id)
    assert hand["loser"] == loser and hand["finished_at"] is not None
    with pytest.raises(NotSeated):
        await service.next_hand(table, 999)
    await service.next_hand(table, 11)
    assert table.game.dealer == loser and table.hand_number == 2 and table.status == "playing"


async def test_leaving_mid_hand_is_refused_and_end_needs_host_or_moderator(service):
    table = await lobby(service, 3)
    await service.start(table, 10)
    with pytest.raises(WrongState, match="seat stays yours"):
        await service.leave(table, 11)
    with pytest.raises(NotAllowed):
        await service.end(table, 11, moderator=False)
    await service.end(table, 12, moderator=True)
    assert table.status == "ended"
    with pytest.raises(WrongState):
        await service.act(table, 10, 0, table.game.legal_actions()[0])
