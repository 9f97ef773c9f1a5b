"""Seasons through the fake Discord: results spread over three months (a clock the test
controls) give three monthly boards, an all-time board that is today's, how long is left, the
podium of the season that ended once per reader; and the season arithmetic itself."""

import random
from datetime import UTC, datetime

from bot.db.sqlite import SQLiteDatabase
from bot.guilds.seasons import MONTHLY, QUARTERLY, Season, stamp
from tests.fakediscord.models import Perm
from tests.helpers import table_id_of
from tests.nlk_driver import Driver, running_bot

NOW = datetime(2026, 11, 20, 12, tzinfo=UTC)
MONTHS = ["2026-09-15T10:00:00.000Z", "2026-10-15T10:00:00.000Z", "2026-11-15T10:00:00.000Z"]


def test_seasons_follow_the_utc_calendar():
    november = Season.of(MONTHLY, NOW)
    assert (november.key, november.start, november.end) == (
        "202611", datetime(2026, 11, 1, tzinfo=UTC), datetime(2026, 12, 1, tzinfo=UTC))
    assert november.previous().key == "202610"
    assert Season.of(MONTHLY, datetime(2027, 1, 3, tzinfo=UTC)).previous().key == "202612"
    q4 = Season.of(QUARTERLY, NOW)
    assert (q4.key, q4.start, q4.end) == ("2026Q4", datetime(2026, 10, 1, tzinfo=UTC),
                                          datetime(2027, 1, 1, tzinfo=UTC))
    assert q4.previous().key == "2026Q3" and Season.parse("2026Q1").previous().key == "2025Q4"
    assert Season.parse("202611") == november and Season.parse("2026Q4") == q4
    assert Season.parse("202613") is None and Season.parse("2026Q5") is None
    assert stamp(november.start) == "2026-11-01T00:00:00.000Z"


def board_names(message) -> list[str]:
    return [b.label for b in message.buttons()]


async def test_three_months_of_results_give_three_monthly_boards_and_all_time(fake_discord,
                                                                             tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    fake.set_channel_rate_limit(limit=200, per=5.0)
    fake.add_user("owner", permissions=Perm.MANAGE_GUILD)
    async with running_bot(fake, path, channel_edits=150) as bot:
        bot.servers.seasons.clock = NOW.timestamp
        driver = Driver(fake, random.Random(3))
        table = await driver.new_table("ann", seats=2)
        await driver.click("bob", table, "Join")
        await driver.click("ann", table, "Start (host)")
        await driver.play_hand(table)
        for _ in range(2):
            await driver.click("bob", table, "Next hand")
            await driver.play_hand(table)
        t = table_id_of(table)
        db = await SQLiteDatabase.open(str(path))
        try:
            async with db.transaction() as tx:
                for number, finished in enumerate(MONTHS, 1):
                    await tx.execute("UPDATE hands SET finished_at = ? WHERE table_id = ? AND "
                                     "number = ?", (finished, t, number))
        finally:
            await db.close()

        ix = await fake.slash("dee", None, "nlk", "stats")
        all_time = (await ix.wait_message()).embeds[0]
        assert all_time["title"] == "NLK leaderboard · tables of 2 players"
        assert "3 hands · " in all_time["description"]

        ix = await fake.slash("owner", None, "nlk", "settings", {"seasons": "monthly"})
        fields = {f["name"]: f["value"] for f in (await ix.wait_message()).embeds[0]["fields"]}
        assert fields["Seasons"] == "monthly"

        # The current season at once, computed from the stored results, and what is left;
        # the first look after October ended shows October's podium, once.
        ix = await fake.slash("dee", None, "nlk", "stats")
        board = await ix.wait_message()
        podium, current = board.embeds
        assert podium["title"] == "Season October 2026 is over: its podium"
        assert podium["description"].count("🥇") == 1 and "🥈" in podium["description"]
        assert current["title"] == "NLK season November 2026 · tables of 2 players"
        assert current["description"].startswith("*Ends in 10 days (UTC).*")
        assert current["description"].count("1 hand · ") == 2
        assert board_names(board) == ["All-time", "October 2026", "September 2026"]
        ix = await fake.slash("dee", None, "nlk", "stats")
        assert len((await ix.wait_message()).embeds) == 1  # the podium was shown already

        boards = {}
        for label in ("October 2026", "September 2026", "All-time"):
            ix = await fake.click("dee", board, label=label)
            assert (await ix.wait_response()).type == 7
            boards[label] = board.embeds[0]
        for month in ("October 2026", "September 2026"):
            assert boards[month]["title"] == f"NLK season {month} · tables of 2 players"
            assert boards[month]["description"].startswith("*This season is over.*")
            assert boards[month]["description"].count("1 hand · ") == 2
        # All-time agrees with today's board, seasons or not.
        assert boards["All-time"]["title"] == all_time["title"]
        assert boards["All-time"]["description"].endswith(all_time["description"])
        assert "November 2026" in board_names(board)

        # Turning seasons off brings back today's board; the results are all still there.
        ix = await fake.slash("owner", None, "nlk", "settings", {"seasons": "off"})
        await ix.wait_response()
        ix = await fake.slash("dee", None, "nlk", "stats")
        assert (await ix.wait_message()).embeds[0] == all_time
    fake.assert_clean()


def test_board_ids_belong_to_their_family_only():
    from cogs.render.seasons import ALL_TIME, board_id
    from cogs.routes.families import families as table_families
    from cogs.routes.replay import replay_families
    from cogs.routes.seasons import season_families

    every = (*table_families(None), *replay_families(None), *season_families(None))

    def families(custom_id):
        return [f.__name__ for f in every
                if f.__discord_ui_compiled_template__.fullmatch(custom_id)]

    for key in (ALL_TIME, "202611", "2026Q4"):
        assert families(board_id(key, 9, 12345)) == ["BoardButton"]
    for forged in ("nlkb:202613:2:0", "nlkb:2026Q5:2:0", "nlkb:A:10:0"):
        assert families(forged) == ["UnknownBoard"], forged
