"""Start-up: one table that does not rebuild stops alone; commands sync only when changed."""

import logging
import random
import sqlite3

import pytest

from bot.client import NLKBot
from bot.db.records import TableStatus
from bot.db.repository import Repository
from bot.db.sqlite import SQLiteDatabase
from bot.errors import NoTable
from bot.settings import Settings
from bot.tables.service import TableService
from cogs.commands.nlk import NLK
from rules import Variant
from tests.nlk_driver import Driver, is_over, running_bot


async def mid_hand(service, channel, host, moves=3):
    """A two-player table in ``channel`` with a few moves played; its id."""
    table = (await service.create(1, channel, host, f"H{host}", 2, Variant())).table
    await service.join(table.id, host + 1, f"G{host}")
    table = (await service.start(table.id, host)).table
    rng = random.Random(host)
    for _ in range(moves):
        game = table.game
        legal = game.legal_actions()
        table = (await service.act(table.id, table.seats[game.to_act].user_id, game.version,
                                   legal[rng.randrange(len(legal))])).table
    return table.id


def break_first_action(path, table_id):
    """Make the table's first stored action one the rules refuse there (keep before draw)."""
    with sqlite3.connect(path) as raw:
        changed = raw.execute(
            "UPDATE actions SET act = 'keep', card = NULL, target = NULL WHERE idx = 0 AND "
            "hand_id = (SELECT MAX(id) FROM hands WHERE table_id = ?)", (table_id,)).rowcount
    assert changed == 1


async def test_a_table_that_does_not_rebuild_is_quarantined_alone(tmp_path, caplog):
    path = tmp_path / "nlk.sqlite3"
    db = await SQLiteDatabase.open(str(path))
    await db.migrate()
    service = TableService(Repository(db))
    good = await mid_hand(service, 100, 10)
    bad = await mid_hand(service, 101, 20)
    break_first_action(path, bad)

    fresh = TableService(Repository(db))  # a restart: nothing cached
    with caplog.at_level(logging.ERROR, logger="bot.tables.service"):
        tables = await fresh.open_tables()
    assert [t.id for t in tables] == [good]
    assert tables[0].game is not None and tables[0].game.version >= 3  # plus forced moves
    [(record, reason)] = fresh.quarantined
    assert record.id == bad and record.channel_id == 101 and "WrongStep" in reason
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 1 and str(bad) in errors[0].getMessage()
    assert "\n" not in errors[0].getMessage() and errors[0].exc_info is None
    stored = await fresh.repo.table(bad)
    assert stored.status is TableStatus.ENDED and stored.quarantined == reason

    # No longer open: not resumed, not idle, not in its channel, and its old buttons say so.
    assert await fresh.repo.open_table_in(101) is None
    assert bad not in await fresh.repo.idle_tables(before=1e12)
    with pytest.raises(NoTable):
        await fresh.get(bad)
    caplog.clear()
    again = TableService(Repository(db))  # a second restart does not try it again
    with caplog.at_level(logging.ERROR, logger="bot.tables.service"):
        assert [t.id for t in await again.open_tables()] == [good]
    assert again.quarantined == [] and not caplog.records
    # Its channel may open a new table.
    assert (await again.create(1, 101, 30, "Zed", 2, Variant())).table.channel_id == 101
    await db.close()


async def test_the_bot_starts_and_plays_on_past_a_table_that_does_not_rebuild(
        fake_discord, tmp_path, monkeypatch):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    driver = Driver(fake, random.Random(6))
    other = fake.add_channel("second")
    async with running_bot(fake, path):
        good = await driver.seat_and_start("ann", ["bob"])
        ix = await fake.slash("cy", other, "nlk", "new", {"seats": 2})
        await ix.wait_response()
        bad = await ix.wait_message()
        await driver.click("dee", bad, "Join")
        await driver.click("cy", bad, "Start (host)")
        for _ in range(2):
            await driver._collect_step(good)
            await driver._collect_step(bad)
    bad_id = int(bad.embeds[0]["footer"]["text"].split()[1])
    break_first_action(path, bad_id)

    told = []

    resume = NLK.resume

    def resume_and_note(self, tables, quarantined):
        told.extend(quarantined)
        resume(self, tables, quarantined)

    monkeypatch.setattr(NLK, "resume", resume_and_note)
    async with running_bot(fake, path) as bot:
        assert [(record.id, record.channel_id) for record, _ in told] == [(bad_id, other)]
        # Its channel is told why the table stopped.
        await fake.wait_until(lambda: any("was stopped" in m.content
                                          for m in fake.public_messages(other)), timeout=10)
        assert bad_id not in {t.id for t in bot.service.cached()}
        await driver.play_hand(good)
        assert is_over(good)
        # The stopped table's channel may open a new one.
        ix = await fake.slash("cy", other, "nlk", "new", {"seats": 2})
        response = await ix.wait_response()
        assert response.type == 4 and not response.ephemeral
    with sqlite3.connect(path) as raw:
        status, reason = raw.execute("SELECT status, quarantined FROM tables WHERE id = ?",
                                     (bad_id,)).fetchone()
    assert status == "ended" and "WrongStep" in reason


async def test_commands_sync_to_the_dev_guild_only_when_they_changed(
        fake_discord, tmp_path, monkeypatch):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    async with running_bot(fake, path):
        pass
    async with running_bot(fake, path):
        pass
    assert fake.command_sync_count(guild=fake.guild_id) == 1
    # A new version of the bot describes /nlk differently (each start loads the cog afresh).
    add_cog = NLKBot.add_cog

    async def add_and_change(self, cog, **kwargs):
        await add_cog(self, cog, **kwargs)
        self.tree.get_command("nlk").description = "Play NLK: a changed description."

    monkeypatch.setattr(NLKBot, "add_cog", add_and_change)
    async with running_bot(fake, path):
        pass
    assert fake.command_sync_count(guild=fake.guild_id) == 2
    assert fake.command_syncs[-1].guild_id == fake.guild_id
    async with running_bot(fake, path):
        pass
    assert fake.command_sync_count(guild=fake.guild_id) == 2
    assert fake.command_sync_count(global_=True) == 0


async def test_a_sync_run_always_syncs(fake_discord, tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    async with running_bot(fake, path):
        pass
    before = fake.command_sync_count(guild=fake.guild_id)
    settings = Settings(token=fake.token, database=str(path), dev_guild=fake.guild_id,
                        api_base=fake.api_base, log_level="WARNING")
    async with NLKBot(settings, sync_only=True, ai_processes=0) as bot:
        await bot.login(fake.token)  # as ``python -m bot sync`` does
    assert fake.command_sync_count(global_=True) == 0  # a development server: there only
    assert fake.command_sync_count(guild=fake.guild_id) == before + 1
