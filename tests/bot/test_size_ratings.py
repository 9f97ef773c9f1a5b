"""Ratings per table size: migration 0006 and the start-up step that recomputes the ratings of
hands stored before it, and the leaderboard of one size at a time."""

import json
import shutil

import pytest

from bot.db.repository import Repository
from bot.db.sqlite import MIGRATIONS, SQLiteDatabase, connect, migrate
from bot.guilds.ratings import Rating, rate
from bot.guilds.service import GuildService

GUILD = 7


@pytest.fixture
async def old_database(tmp_path):
    """A database at schema version 5 (before ratings by size) with rated hands at three
    and at four seats, as the bot stored them then: results and one rating per player."""
    folder = tmp_path / "migrations"
    folder.mkdir()
    for path in sorted(MIGRATIONS.glob("000[1-5]-*.sql")):
        shutil.copy(path, folder)
    db = await connect(str(tmp_path / "nlk.sqlite3"))
    assert await migrate(db, folder) == 5
    hands = [[1, 2, 3], [2, 1, 3, 4], [3, 1, 2], [4, 3, 2, 1], [1, 3, 2], [2, 3, 1]]
    await db.execute("INSERT INTO tables (id, guild_id, channel_id, host_id, max_seats) "
                     "VALUES (1, ?, 10, 1, 9)", (GUILD,))
    overall: dict[int, Rating] = {}
    for number, order in enumerate(hands, 1):
        await db.execute(
            "INSERT INTO hands (id, table_id, number, seed, deck, dealer, players, names, "
            "last_card, must_beat_in_suit, rated) VALUES (?, 1, ?, 's', '[]', 0, '[]', '[]', "
            "'keep', 0, 1)", (number, number))
        new = rate([overall.get(u, Rating()) for u in order])
        overall.update(zip(order, new, strict=True))
        for place, user in enumerate(order, 1):
            await db.execute("INSERT INTO results (hand_id, guild_id, user_id, players, place) "
                             "VALUES (?, ?, ?, ?, ?)", (number, GUILD, user, len(order), place))
    for user, rating in overall.items():
        await db.execute("INSERT INTO ratings (guild_id, user_id, name, mu, sigma, hands, "
                         "losses) VALUES (?, ?, ?, ?, ?, 0, 0)",
                         (GUILD, user, f"p{user}", rating.mu, rating.sigma))
    await db.commit()
    await db.close()
    database = await SQLiteDatabase.open(str(tmp_path / "nlk.sqlite3"))
    yield database, hands
    await database.close()


def expected_by_size(hands):
    """Each size's ratings, rated hand by hand at that size only."""
    ratings: dict[tuple[int, int], Rating] = {}
    for order in hands:
        keys = [(len(order), u) for u in order]
        new = rate([ratings.get(k, Rating()) for k in keys])
        ratings.update(zip(keys, new, strict=True))
    return ratings


async def size_rows(db):
    rows = await db.all("SELECT players, user_id, mu, sigma, hands, losses "
                        "FROM size_ratings ORDER BY players, user_id")
    return [tuple(row) for row in rows]


async def test_migration_0006_then_the_start_up_step_rate_every_stored_hand_by_size(
        old_database):
    db, hands = old_database
    assert await db.migrate() >= 6
    servers = GuildService(Repository(db))
    assert await servers.rate_old_results_by_size() == sum(len(h) for h in hands)
    expected = expected_by_size(hands)
    rows = await size_rows(db)
    assert len(rows) == len(expected)
    for players, user, mu, sigma, played, losses in rows:
        at_size = [h for h in hands if len(h) == players and user in h]
        assert (mu, sigma) == pytest.approx((expected[players, user].mu,
                                             expected[players, user].sigma))
        assert played == len(at_size)
        assert losses == sum(h[-1] == user for h in at_size)
    assert (await db.one("SELECT COUNT(*) FROM results WHERE mu IS NULL"))[0] == 0
    # Idempotent: a second start finds nothing to do, and recomputing changes nothing.
    assert await servers.rate_old_results_by_size() == 0
    await servers.repo.ratings.rate_results_by_size()
    assert await size_rows(db) == rows


async def test_the_leaderboard_shows_the_most_played_size_unless_asked_for_another(
        old_database):
    db, hands = old_database
    await db.migrate()
    servers = GuildService(Repository(db))
    await servers.rate_old_results_by_size()
    board = await servers.leaderboard(GUILD, 0)
    assert board.players == 3 and board.sizes == {3: 4, 4: 2}
    expected = expected_by_size(hands)
    shown = [row.user_id for row in board.rows]
    assert shown == sorted((u for (n, u) in expected if n == 3),
                           key=lambda u: -expected[3, u].shown)
    assert all(row.chance_losses == pytest.approx(row.hands / 3) for row in board.rows)
    four = await servers.leaderboard(GUILD, 0, players=4)
    assert four.players == 4 and {row.user_id for row in four.rows} == {1, 2, 3, 4}
    assert (await servers.leaderboard(GUILD, 0, players=9)).players == 3  # none at nine


async def test_a_player_s_stats_have_a_row_per_size_with_rank_and_recent_places(old_database):
    db, hands = old_database
    await db.migrate()
    servers = GuildService(Repository(db))
    await servers.rate_old_results_by_size()
    stats = await servers.player(GUILD, 4)
    assert [s.players for s in stats.sizes] == [4]
    assert stats.recent == [(4, 4), (1, 4)]
    stats = await servers.player(GUILD, 1)
    assert [(s.players, s.hands) for s in stats.sizes] == [(3, 4), (4, 2)]
    assert stats.recent == [(1, 3), (2, 4), (2, 3), (4, 4), (1, 3), (3, 3)]
    expected = expected_by_size(hands)
    three = stats.sizes[0]
    assert three.rating.mu == pytest.approx(expected[3, 1].mu)
    better = sum(expected[3, u].shown > expected[3, 1].shown for (n, u) in expected if n == 3)
    assert (three.rank, three.ranked) == (better + 1, 3)
    assert three.before is None  # fewer than 20 hands: the trend starts from a new rating


def test_the_leaderboard_offers_every_other_size_within_discords_rows():
    from bot.db.records import RatingRecord
    from bot.guilds.service import LeaderboardPage
    from cogs.render import stats

    rows = [RatingRecord(i, f"p{i}", 25.0, 8.0, 3, 1, 0.75) for i in range(10)]
    board = LeaderboardPage(rows, 1, 3, 11, 4, {n: 10 - n for n in range(2, 10)})
    embed, view = stats.leaderboard(board)
    assert embed.title == "NLK leaderboard · tables of 4 players"
    components = view.to_components()
    labels = [[b["label"] for b in row["components"]] for row in components]
    assert labels[0] == ["◀ Previous", "Next ▶"]
    assert [label for row in labels[1:] for label in row] == \
        [f"{n} players" for n in (2, 3, 5, 6, 7, 8, 9)]
    assert all(len(row) <= 5 for row in labels)
    ids = [b["custom_id"] for row in components for b in row["components"]]
    assert ids[:2] == ["nlk:0:-:stats.4.0", "nlk:0:-:stats.4.2"]
    assert stats.parse_stats_arg("4.2") == (4, 2) and stats.parse_stats_arg("3") == (None, 3)
    assert stats.parse_stats_arg("x.1") is None


async def test_ratings_by_size_and_hand_lookups_on_each_backend(database):
    """The start-up recompute, the per-size queries and the export's hand lookups run the
    same on SQLite and PostgreSQL (results stored as before migration 0006)."""
    hands = [[1, 2, 3], [2, 1, 3, 4], [3, 1, 2], [4, 3, 2, 1]]
    async with database.transaction() as tx:
        await tx.execute("INSERT INTO tables (id, guild_id, channel_id, host_id, max_seats) "
                         "VALUES (1, ?, 10, 1, 9)", (GUILD,))
        for number, order in enumerate([*hands, [1, 2]], 1):
            await tx.execute(
                "INSERT INTO hands (id, table_id, number, seed, deck, dealer, players, names, "
                "last_card, must_beat_in_suit, rated, finished_at) VALUES (?, 1, ?, 's', '[]', "
                "0, ?, ?, 'keep', 0, 1, ?)",
                (number, number, json.dumps(order), json.dumps([f"p{u}" for u in order]),
                 None if number == 5 else f"2026-01-01T00:00:0{number}Z"))
            if number == 5:
                continue
            for place, user in enumerate(order, 1):
                await tx.execute("INSERT INTO results (hand_id, guild_id, user_id, players, "
                                 "place) VALUES (?, ?, ?, ?, ?)",
                                 (number, GUILD, user, len(order), place))
        for user in (1, 2, 3, 4):
            await tx.execute("INSERT INTO ratings (guild_id, user_id, name, mu, sigma, hands, "
                             "losses) VALUES (?, ?, ?, 25.0, 8.3, 0, 0)", (GUILD, user, f"p{user}"))
    servers = GuildService(Repository(database))
    assert await servers.rate_old_results_by_size() == 14
    assert await servers.rate_old_results_by_size() == 0
    expected = expected_by_size(hands)
    board = await servers.leaderboard(GUILD, 0)
    assert board.players == 3 and board.sizes == {3: 2, 4: 2}
    assert [r.user_id for r in board.rows] == sorted(
        (u for (n, u) in expected if n == 3), key=lambda u: -expected[3, u].shown)
    assert all(r.chance_losses == pytest.approx(r.hands / 3) for r in board.rows)
    stats = await servers.player(GUILD, 1)
    assert [(s.players, s.hands) for s in stats.sizes] == [(3, 2), (4, 2)]
    assert stats.recent == [(1, 3), (2, 4), (2, 3), (4, 4)]
    assert [h.number for h in await servers.finished_hands(10)] == [4, 3, 2, 1]
    assert (await servers.hand_to_export(10, "1.2")).hand.number == 2
    from bot.errors import HandInPlay, NoSuchHand
    with pytest.raises(HandInPlay):
        await servers.hand_to_export(10, "5")
    with pytest.raises(NoSuchHand):
        await servers.hand_to_export(10, "2.1")
