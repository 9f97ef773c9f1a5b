"""Seasons and uploaded replays on both storage backends: results read by finish time, the
months a server played, a podium shown once per reader, and a replay file kept once under
its hash."""

from datetime import UTC, datetime

from bot.db.repository import Repository
from bot.guilds.seasons import MONTHLY, Season, SeasonService

GUILD = 7
FINISHED = ["2026-09-30T23:59:59.999Z", "2026-10-01T00:00:00.000Z", "2026-10-31T12:00:00.000Z",
            "2026-11-02T08:00:00.000Z"]


async def test_seasonal_results_podiums_and_uploads(database):
    repo = Repository(database)
    async with repo.transaction() as db:
        await db.execute("INSERT INTO tables (id, guild_id, channel_id, host_id, max_seats) "
                         "VALUES (1, ?, 10, 1, 9)", (GUILD,))
        await db.execute("INSERT INTO ratings (guild_id, user_id, name, mu, sigma) "
                         "VALUES (?, 1, 'ann', 25, 8), (?, 2, 'bob', 25, 8)", (GUILD, GUILD))
        for number, finished in enumerate(FINISHED, 1):
            await db.execute(
                "INSERT INTO hands (id, table_id, number, seed, deck, dealer, players, names, "
                "last_card, must_beat_in_suit, rated, finished_at) VALUES (?, 1, ?, 's', '[]', "
                "0, '[]', '[]', 'keep', 0, 1, ?)", (number, number, finished))
            for place, user in enumerate((1, 2) if number % 2 else (2, 1), 1):
                await db.execute("INSERT INTO results (hand_id, guild_id, user_id, players, "
                                 "place) VALUES (?, ?, ?, 2, ?)", (number, GUILD, user, place))
        await db.execute("INSERT INTO guild_settings (guild_id, seasons) VALUES (?, ?)",
                         (GUILD, MONTHLY))
    assert await repo.seasons.months_played(GUILD) == ["2026-09", "2026-10", "2026-11"]
    seasons = SeasonService(repo, datetime(2026, 11, 5, tzinfo=UTC).timestamp)
    assert await seasons.kind(GUILD) == MONTHLY
    october = Season.parse("202610")
    board = await seasons.board(GUILD, MONTHLY, october, 0)
    assert board.sizes == {2: 2} and [r.hands for r in board.rows] == [2, 2]
    assert board.left is None and [s.key for s in board.seasons] == ["202611", "202610",
                                                                     "202609"]
    current = await seasons.board(GUILD, MONTHLY, None, 0)
    assert current.season.key == "202611" and current.sizes == {2: 1}
    assert current.left == (datetime(2026, 12, 1, tzinfo=UTC) -
                            datetime(2026, 11, 5, tzinfo=UTC)).total_seconds()
    assert current.rows[0].name == "bob"  # bob won November's one hand
    shown = await seasons.podium_to_show(GUILD, 1, MONTHLY)
    assert shown is not None and shown[0] == october and len(shown[2]) == 2
    assert await seasons.podium_to_show(GUILD, 1, MONTHLY) is None  # once per reader
    assert await seasons.podium_to_show(GUILD, 2, MONTHLY) is not None

    await repo.uploads.keep("ab" * 16, '{"a": 1}')
    await repo.uploads.keep("ab" * 16, '{"a": 1}')  # the same file again: kept once
    assert await repo.uploads.body("ab" * 16) == '{"a": 1}'
    assert await repo.uploads.body("cd" * 16) is None
