"""Places: a table belongs to a server, or to the group DM or DM it is played in; boards are
per place, and a player's own numbers show where else they played."""

from bot.db.records import TableStatus
from bot.db.repository import Repository
from bot.db.sqlite import MIGRATIONS, SQLiteDatabase, connect, migrate
from bot.guilds.service import GuildService
from bot.tables.table import Table
from cogs.render import stats
from rules import Variant

SERVER, GROUP_DM, OTHER_SERVER = 7_000, 8_000, 9_000


def test_a_table_outside_servers_belongs_to_its_conversation():
    in_server = Table(1, SERVER, 11, 1, 4, Variant(), TableStatus.LOBBY, None)
    in_group_dm = Table(2, None, GROUP_DM, 1, 4, Variant(), TableStatus.LOBBY, None)
    assert (in_server.place, in_server.private) == (SERVER, False)
    assert (in_group_dm.place, in_group_dm.private) == (GROUP_DM, True)


async def test_your_own_numbers_show_every_other_place_you_played(tmp_path):
    db = await connect(str(tmp_path / "nlk.sqlite3"))
    await migrate(db, MIGRATIONS)
    for place, user, hands in ((SERVER, 1, 5), (GROUP_DM, 1, 3), (OTHER_SERVER, 1, 9),
                               (GROUP_DM, 2, 4)):
        await db.execute("INSERT INTO ratings (guild_id, user_id, name, mu, sigma, hands, "
                         "losses) VALUES (?, ?, ?, 25.0, 8.0, ?, 1)",
                         (place, user, f"p{user}", hands))
    await db.commit()
    await db.close()
    database = await SQLiteDatabase.open(str(tmp_path / "nlk.sqlite3"))
    try:
        servers = GuildService(Repository(database))
        mine = await servers.player(GROUP_DM, 1, everywhere=True)
        assert mine.rating is not None and mine.rating.hands == 3
        assert mine.elsewhere == [(OTHER_SERVER, 9), (SERVER, 5)]  # most first, not here
        theirs = await servers.player(GROUP_DM, 1)
        assert theirs.elsewhere == []  # someone else's places are not shown
        nowhere_here = await servers.player(SERVER, 2, everywhere=True)
        assert nowhere_here.rating is None and nowhere_here.elsewhere == [(GROUP_DM, 4)]
    finally:
        await database.close()
    embed = stats.player("ann", mine, place_names={SERVER: "Card club"})
    elsewhere = next(f.value for f in embed.fields if f.name == "Elsewhere")
    assert elsewhere.splitlines() == ["another server, a group DM or a DM: 9 rated hands",
                                      "Card club: 5 rated hands"]
