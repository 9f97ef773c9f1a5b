"""A group DM's table when the chat goes quiet, as four friends meet it.

The bot reaches a group DM only through the tokens of the taps it answers, and a token lapses
after 15 minutes. Before the last one lapses, the table message and the turn ping are left
with no moves (a turn may pass while nothing can edit them) and one button that brings the
table up to date; any tap on any copy of the table message brings that copy up to date in
place and removes the other; the ping comes after the table message it links to; a turn's
time stands still while nothing can reach the chat; and opening a table where one is between
hands says so on both.
"""

from __future__ import annotations

import contextlib
import random
import time

from tests.cogs.test_group_dm import FRIENDS, _ending, play_one, start_table, to_act
from tests.groupdm_member import GroupDMMember, group_dm
from tests.nlk_driver import TimeMachine, description, running_bot

MOVES = (":give.", ":draw", ":keep")


def nlk(bot):
    return bot.get_cog("NLK")


def moves_on(message) -> list[str]:
    return [b.custom_id for b in message.buttons()
            if any(m in (b.custom_id or "") for m in MOVES)]


def quiet(message) -> bool:
    return [b.label for b in message.buttons()] == ["Show the table"]


class TokenClock:
    """The bot's clock for its tokens' ages, moved forward by the test."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.monotonic() + self.offset


def the_owner(bot):
    (live,) = list(nlk(bot).publisher.tables)
    return live


async def all_taps_held(fake, bot) -> None:
    """Until the bot holds the token of the last tap (it does so just after answering it):
    a test moving the bot's clock before then would make that token new again."""
    last = fake.interactions[-1].id
    await fake.wait_until(lambda: (held := the_owner(bot).tokens.newest()) is not None
                          and held.interaction.id == last, timeout=30, what="the taps held")


def stored(bot):
    (table,) = [t for t in bot.service.cached() if t.is_open]
    return table


@contextlib.asynccontextmanager
async def friends_at_a_table(fake, tmp_path, options, **bot_options):
    """Four friends in a group DM (alice installed the app) at a started table, the bot's
    tokens on a clock the test moves: ``(bot, members, tokens)``."""
    members = {m.name: m for m in group_dm(fake, FRIENDS, installed=["alice"])}
    tokens = TokenClock()
    async with running_bot(fake, tmp_path / "nlk.sqlite3", dev_guild=None,
                           **bot_options) as bot:
        nlk(bot).publisher.tables.clock = tokens
        await bot.tree.sync()
        await start_table(members, options)
        yield bot, members, tokens
    assert fake.refused.get("group_dm_channel", 0) == 0


async def quiet_table(fake, bot, members: dict[str, GroupDMMember], tokens: TokenClock):
    """Play a few moves, then let 13½ minutes pass for the bot's tokens: the table message
    is left quiet. Returns it."""
    rng = random.Random(5)
    for _ in range(3):
        await play_one(fake, members, to_act(members["alice"].table_message()), rng)
    await all_taps_held(fake, bot)
    tokens.offset = 13.5 * 60
    the_owner(bot).wake()  # (its alarm, set for then, rings)
    table = members["alice"].table_message()
    await fake.wait_until(lambda: quiet(table), timeout=30, what="the table left quiet")
    return table


async def test_a_quiet_chat_leaves_the_table_without_moves_and_a_tap_brings_it_back(
        fake_discord, tmp_path):
    fake = fake_discord
    async with friends_at_a_table(fake, tmp_path, {"seats": 4, "turn_timer": 0}) as (
            bot, members, tokens):
        table = await quiet_table(fake, bot, members, tokens)
        assert "tap **Show the table**" in description(table)
        # No message anyone sees offers a move of a turn that may pass meanwhile.
        await fake.wait_until(
            lambda: not any(moves_on(m) for m in members["bob"].app_messages()
                            if not m.deleted),
            timeout=30, what="no moves offered anywhere")
        # One tap, by anyone, brings that message up to date in place.
        ix = await members["bob"].click(table, custom_id=_ending(table, ":table"))
        assert (await ix.wait_response()).type == 7
        assert members["alice"].table_message() is table
        assert not quiet(table) and moves_on(table)
        assert to_act(table) == stored(bot).name_to_act()


async def test_a_tap_on_an_old_copy_brings_that_copy_current_and_removes_the_other(
        fake_discord, tmp_path):
    fake = fake_discord
    async with friends_at_a_table(fake, tmp_path, {"seats": 4, "turn_timer": 0}) as (
            bot, members, tokens):
        old = await quiet_table(fake, bot, members, tokens)
        # Every token lapses, for Discord and for the bot.
        fake.set_token_ttl(60)
        fake.clock.advance(16 * 60)
        tokens.offset = 16 * 60
        # Alice opens her hand: through her fresh token the table is posted afresh.
        await (await members["alice"].slash("nlk", "hand")).wait_response()
        await fake.wait_until(lambda: members["carol"].table_message() is not old, timeout=30,
                              what="the table posted afresh")
        new = members["carol"].table_message()
        assert moves_on(new) or to_act(new) is None or "My hand" in new.text()
        # The ping that links to the table comes after it, and links to the new one.
        if stored(bot).user_to_act() is not None:
            ping = await fake.wait_until(
                lambda: next((m for m in reversed(members["bob"].app_messages())
                              if m.pinged_user_ids and m.id > new.id), None),
                timeout=30, what="a ping after the table")
            assert str(new.id) in ping.text()
        # Bob taps the old, quiet copy: that copy is the table again, the other goes.
        ix = await members["bob"].click(old, custom_id=_ending(old, ":table"))
        assert (await ix.wait_response()).type == 7
        assert not quiet(old) and to_act(old) == stored(bot).name_to_act()
        await fake.wait_until(lambda: new.deleted, timeout=30, what="the newer copy deleted")
        assert members["dave"].table_message() is old


async def test_a_stale_move_on_an_old_copy_brings_it_current_and_says_why_privately(
        fake_discord, tmp_path):
    """Tokens lapse sooner than the bot knows (it cannot), so a move made from a ping
    posts the table afresh and leaves the old copy with the moves of a turn that passed: a
    tap on one of them brings that copy up to date in place, and says privately why
    nothing moved."""
    fake = fake_discord
    people = group_dm(fake, FRIENDS, installed=["alice"])
    members = {m.name: m for m in people}
    async with running_bot(fake, tmp_path / "nlk.sqlite3", dev_guild=None) as bot:
        await bot.tree.sync()
        await start_table(members, {"seats": 4, "turn_timer": 0})
        table = members["alice"].table_message()
        def current_ping(who):
            version = f":{stored(bot).game.version}:"
            return next((m for m in reversed(members[who].pings()) if not m.deleted
                         and any(version in i for i in moves_on(m))), None)

        for _ in range(20):  # to a turn whose ping offers moves
            who = to_act(members["alice"].table_message())
            if who in members and stored(bot).game.phase.value == "collect":
                ping = await fake.wait_until(lambda who=who: current_ping(who), timeout=30,
                                             what="the ping")
                break
            await play_one(fake, members, who, random.Random(2))
        fake.set_token_ttl(60)
        fake.clock.advance(120)  # every token so far lapses, unknown to the bot
        ix = await members[who].click(ping, custom_id=moves_on(ping)[0])
        assert (await ix.wait_response()).type == 7
        old = next(m for m in members["bob"].app_messages() if m.id == table.id) \
            if not table.deleted else None
        await fake.wait_until(lambda: members["carol"].table_message() is not table,
                              timeout=30, what="the table posted afresh")
        # The table was posted afresh (its message's token had lapsed), and the old copy
        # still offers the moves of a turn that passed.
        assert members["carol"].table_message() is not table and old is not None
        assert moves_on(old) and old.text() != members["carol"].table_message().text()
        now = stored(bot).name_to_act()
        ix = await members[now if now in members else "dave"].click(
            old, custom_id=moves_on(old)[0])
        response = await ix.wait_response()
        assert response.type == 7  # the copy tapped, brought up to date in place
        said = await ix.wait_followups(1)
        assert said[0].ephemeral and ("out of date" in said[0].text() or now not in members)
        assert to_act(old) == stored(bot).name_to_act()
        # It is the table message again; the newer copy goes (its token still reaches it).
        await fake.wait_until(lambda: members["carol"].table_message() is old, timeout=30,
                              what="the newer copy deleted")


async def test_a_turn_waits_while_nothing_can_reach_the_chat(fake_discord, tmp_path):
    """The timer ran out while every token had lapsed: no stand-in plays the turn; the
    first tap in the chat starts the turn afresh, and its player plays it."""
    fake = fake_discord
    clock = TimeMachine()
    async with friends_at_a_table(fake, tmp_path, {"seats": 4, "turn_timer": 60},
                                  clock=clock) as (bot, members, tokens):
        table = members["alice"].table_message()
        who = to_act(table)
        turn = stored(bot).turn_key()
        await all_taps_held(fake, bot)
        # Sixteen minutes of silence: every token lapses, and the turn's time runs out.
        tokens.offset = 16 * 60
        fake.set_token_ttl(60)
        fake.clock.advance(16 * 60)
        clock.advance(16 * 60)
        await fake.wait_until(lambda: bot.clocks._clocks[stored(bot).id].waited,
                              timeout=30, what="the clock waiting")
        assert stored(bot).turn_key() == turn and not stored(bot).stand_in
        # Someone looks at the moves: the chat can be reached again, the turn starts afresh.
        ix = await members["carol"].click(table, custom_id=_ending(table, ":moves"))
        await ix.wait_response()
        await fake.wait_until(lambda: (stored(bot).deadline() or 0) > clock() + 40,
                              timeout=30, what="the turn's time renewed")
        assert stored(bot).turn_key() == turn and not stored(bot).covered()
        await play_one(fake, members, who, random.Random(3))
        assert "stand-in" not in stored(bot).marks.values()
        assert not stored(bot).stand_in


async def test_a_new_table_between_hands_says_so_on_the_old_one_and_the_lobby(
        fake_discord, tmp_path):
    """Opening a table where one is between hands closes the old one: its message says
    which table replaced it and offers nothing more; the new lobby says what it replaced."""
    from tests.cogs.test_group_dm import play_hand

    fake = fake_discord
    people = group_dm(fake, FRIENDS[:3], installed=["alice"])
    members = {m.name: m for m in people}
    async with running_bot(fake, tmp_path / "nlk.sqlite3", dev_guild=None) as bot:
        await bot.tree.sync()
        await start_table(members, {"seats": 3, "turn_timer": 0})
        await play_hand(fake, members, "en", random.Random(6))
        old = members["alice"].table_message()
        assert any(b.custom_id.endswith(":next") for b in old.buttons())
        ix = await members["alice"].slash("nlk", "new", {"seats": 3})
        lobby = await ix.wait_message()
        assert "It replaces table 1" in description(lobby)
        await fake.wait_until(lambda: "A new table (2) was opened here" in description(old),
                              timeout=30, what="the old table saying so")
        assert old.buttons() == []  # nothing left that could only refuse
    assert fake.refused.get("group_dm_channel", 0) == 0


async def test_a_first_refusal_in_a_group_dm_offers_the_lessons_button_not_a_command(
        fake_discord, tmp_path):
    """Not everyone in a group DM can run `/nlk` (only those who added the app): their
    first refusal offers the lesson's own button instead of naming `/nlk learn`."""
    fake = fake_discord
    async with friends_at_a_table(fake, tmp_path, {"seats": 4, "turn_timer": 0}) as (
            bot, members, tokens):
        table = members["alice"].table_message()
        who = to_act(table)
        other = next(name for name in FRIENDS if name != who)
        ix = await members[other].click(table, custom_id=moves_on(table)[0])
        answer = await ix.wait_response()
        said = (await ix.wait_followups(1))[0] if answer.type == 7 else \
            await ix.wait_message()
        assert said.ephemeral
        assert "/nlk learn" not in said.text() and "</nlk learn:" not in said.text()
        (learn,) = [b for b in said.buttons() if b.custom_id.endswith(":learn")]
        ix = await members[other].click(said, custom_id=learn.custom_id)
        assert (await ix.wait_response()).ephemeral  # the lesson, privately
