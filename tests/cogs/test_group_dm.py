"""NLK in a group DM, through the app a person installed to their own account.

The bot is not a member there: every request to the channel is refused (403, 50001), it
speaks only through the tokens of the interactions it answers, a token lasts 15 minutes and
gets 5 follow-ups. Four friends play, one of whom installed the app; two AI seats fill the
table. They act as people do: they look at the newest messages they see and their own hand.
"""

from __future__ import annotations

import asyncio
import random

import pytest

from tests.fakediscord.models import Message
from tests.groupdm_member import GroupDMMember, group_dm
from tests.helpers import ANY_ACTOR
from tests.nlk_driver import TimeMachine, description, running_bot, title

FRIENDS = ["alice", "bob", "carol", "dave"]
OVER = {"en": " · over", "hu": " · vége", "fr": " · terminée"}
LOSER = {"en": "loses", "hu": "vesztett", "fr": "perd"}


def table_message(member: GroupDMMember) -> Message:
    return member.table_message()


def to_act(table: Message) -> str | None:
    found = ANY_ACTOR.search(description(table))
    return found[1] if found else None


def move_of(table: Message) -> str:
    """What a person reads on the table message (any move changes it)."""
    return table.text()


async def start_table(members: dict[str, GroupDMMember], options: dict,
                      ai: tuple[str, ...] = ()) -> None:
    """The first member opens a table with ``options``, the others join by its button, the
    host adds ``ai`` seats (their levels) and starts."""
    host, *others = members.values()
    ix = await host.slash("nlk", "new", options)
    await ix.wait_message()
    for member in others:
        table = member.table_message()
        ix = await member.click(table, custom_id=_ending(table, ":join"))
        assert (await ix.wait_response()).type == 7
    for level in ai:
        table = host.table_message()
        await (await host.click(table, custom_id=_ending(table, f":addai.{level}"))
               ).wait_response()
    table = host.table_message()
    await (await host.click(table, custom_id=_ending(table, ":start"))).wait_response()


def _ending(message: Message, ending: str) -> str:
    return next(b.custom_id for b in message.buttons() if b.custom_id.endswith(ending))


async def play_hand(fake, members: dict[str, GroupDMMember], lang: str,
                    rng: random.Random) -> int:
    """Play until the table says the hand is over; returns the number of taps."""
    for taps in range(2000):
        table = table_message(members["alice"])
        if title(table).endswith(OVER[lang]):
            return taps
        await play_one(fake, members, to_act(table), rng)
    raise AssertionError("the hand did not end")


@pytest.mark.parametrize("lang", ["en", "hu", "fr"])
async def test_four_friends_play_a_hand_in_a_group_dm(fake_discord, tmp_path, lang):
    fake = fake_discord
    people = group_dm(fake, FRIENDS, installed=["alice"])
    members = {m.name: m for m in people}
    for name in FRIENDS:
        fake.set_locale(name, {"en": "en-US", "hu": "hu", "fr": "fr"}[lang])
    async with running_bot(fake, tmp_path / "nlk.sqlite3", dev_guild=None) as bot:
        await bot.tree.sync()  # published globally, as `python -m bot sync` does
        await start_table(members, {"seats": 5}, ai=("STRONG",))
        await play_hand(fake, members, lang, random.Random(3))
        # Everyone sees who lost, through a follow-up.
        await fake.wait_until(lambda: any(LOSER[lang] in m.text()
                                          for m in members["dave"].app_messages()),
                              timeout=10)
    channel = people[0].channel
    assert fake.channel_requests.get(channel, 0) == 0
    assert fake.refused.get("followup_limit", 0) == 0
    assert fake.refused.get("group_dm_channel", 0) == 0
    fake.assert_clean()


def current_actor(bot) -> str | None:
    """Whose turn the bot's stored table says it is (the truth the table must show)."""
    (table,) = [t for t in bot.service.cached() if t.is_open]
    return table.name_to_act()


async def test_tokens_that_lapse_between_taps_hold_nothing_up(fake_discord, tmp_path):
    """Tokens live 10 s here and the friends go idle for 20 s now and then, longer than the
    15 s turn timer: every token lapses, a lapsed turn is played, and the next tap brings the
    table up to date at once; the hand finishes. (Real time flows under the fake's clock: a
    token must outlive a step on a slow machine, or one could lapse in the middle of a move
    the test reads as current.)"""
    fake = fake_discord
    people = group_dm(fake, FRIENDS, installed=["alice"])
    members = {m.name: m for m in people}
    fake.set_token_ttl(10)
    clock = TimeMachine()
    rng = random.Random(8)
    async with running_bot(fake, tmp_path / "nlk.sqlite3", dev_guild=None,
                           clock=clock) as bot:
        await bot.tree.sync()
        await start_table(members, {"seats": 4, "turn_timer": 15})
        gaps = 0
        for _ in range(400):
            table = table_message(members["alice"])
            if title(table).endswith(OVER["en"]):
                break
            if rng.random() < 0.15 and gaps < 4:
                gaps += 1
                fake.clock.advance(20)  # every token lapses
                clock.advance(20)  # and the turn runs out: a stand-in plays it
                await asyncio.sleep(0.3)
                # Whoever the (stale) table names taps it; whatever the answer, the table
                # everyone sees is current at once.
                who = to_act(table) or "alice"
                ix = await members[who].click(table, custom_id=_ending(table, ":moves"))
                await ix.wait_response()
                await fake.wait_until(
                    lambda: to_act(table_message(members["bob"])) == current_actor(bot),
                    timeout=5)
                continue
            await play_one(fake, members, to_act(table), rng)
        else:
            raise AssertionError("the hand did not end")
    assert gaps >= 2
    assert fake.refused.get("group_dm_channel", 0) == 0
    assert fake.refused.get("followup_limit", 0) == 0


async def play_one(fake, members: dict[str, GroupDMMember], who: str | None,
                   rng: random.Random) -> None:
    """The person to act makes one move as a person does (an AI's turn: it moves within
    the last tap's token); the table everyone sees is current right after. A person may
    read a copy of the table message on its way out (a tap on an older copy made that one
    the table message, and this one goes), or one a move is on its way to (an away
    player's turn, played by the AI a moment later): they find the turn gone on, and look
    again once the table shows it."""
    watcher = members["alice"]
    before = move_of(table_message(watcher))
    if who in members:
        member = members[who]
        table = table_message(member)
        seen = move_of(table)
        moves = [b for b in table.buttons()
                 if b.custom_id.split(":")[3].split(".")[0] in ("give", "draw", "keep")]
        if moves:
            ix = await member.click(table, custom_id=rng.choice(moves).custom_id)
            answer = await ix.wait_response()
            if answer.type != 7:
                await until_the_copy_read_moves_on(fake, member, table, seen)
                return
        else:
            ix = await member.click(table, custom_id=_ending(table, ":hand"))
            assert (await ix.wait_response()).ephemeral
            hand = await ix.wait_message()
            # Beat when they can (a hand of takes goes on for long), else take.
            plays = [b for b in hand.buttons() if ":play." in b.custom_id] or \
                [b for b in hand.buttons() if b.custom_id.endswith(":take")]
            if plays:
                ix = await member.click(hand, custom_id=rng.choice(plays).custom_id)
            elif hand.selects():
                select = hand.selects()[0]
                ix = await fake.select(who, hand, select.custom_id,
                                       [rng.choice(select.raw["options"])["value"]])
            else:  # nothing to play: not their turn after all
                await until_the_copy_read_moves_on(fake, member, table, seen)
                return
            answer = await ix.wait_response()
            if answer.type != 7:
                await until_the_copy_read_moves_on(fake, member, table, seen)
                return
    await fake.wait_until(lambda: move_of(table_message(watcher)) != before, timeout=5)


async def until_the_copy_read_moves_on(fake, member: GroupDMMember, table: Message,
                                     seen: str) -> None:
    """The copy of the table message ``member`` read (showing ``seen``) was not current
    after all: it is deleted, or no longer the newest they see, or it moves on within a few
    seconds (a move already on its way to it: an AI's, paced to be followed). Fails if it
    stays as it was."""
    await fake.wait_until(lambda: table.deleted or table_message(member) is not table or
                          move_of(table) != seen, timeout=5)


async def test_a_restart_mid_hand_is_caught_up_by_the_next_tap(fake_discord, tmp_path):
    fake = fake_discord
    people = group_dm(fake, FRIENDS[:3], installed=["alice"])
    members = {m.name: m for m in people}
    rng = random.Random(4)
    database = tmp_path / "nlk.sqlite3"
    async with running_bot(fake, database, dev_guild=None) as bot:
        await bot.tree.sync()
        # A group DM has no server settings: said politely, privately.
        ix = await members["alice"].slash("nlk", "settings", {"seats": 4})
        answer = await ix.wait_message()
        assert answer.ephemeral and "server's setting" in answer.text()
        await start_table(members, {"seats": 3})
        for _ in range(6):
            await play_one(fake, members, to_act(table_message(members["alice"])), rng)
    async with running_bot(fake, database, dev_guild=None) as bot:
        table = table_message(members["alice"])
        who = to_act(table)
        assert who == current_actor(bot)  # nothing moved while it was down
        await play_one(fake, members, who, rng)
        await fake.wait_until(
            lambda: to_act(table_message(members["carol"])) == current_actor(bot), timeout=5)
        for _ in range(4):
            await play_one(fake, members, to_act(table_message(members["alice"])), rng)
    assert fake.refused.get("group_dm_channel", 0) == 0


async def test_the_lesson_works_in_a_group_dm_and_posts_nothing(fake_discord, tmp_path):
    from tests.learners import learn

    fake = fake_discord
    people = group_dm(fake, ["alice", "bob"], installed=["alice"])
    async with running_bot(fake, tmp_path / "nlk.sqlite3", dev_guild=None) as bot:
        await bot.tree.sync()
        message, taps, _wrong, _named = await learn(fake, "alice", random.Random(2),
                                                    stop_after=5, channel=people[0].channel)
        assert message.ephemeral and taps >= 5
    assert [m for m in people[1].sees() if m.visible_to is None] == []  # nothing public
    assert fake.refused.get("followup_limit", 0) == 0
    assert fake.channel_requests.get(people[0].channel, 0) == 0


async def test_a_table_in_the_dm_with_the_bot_plays_against_ai(fake_discord, tmp_path):
    """The DM with the bot is a place like a group DM: one person and AI seats."""
    fake = fake_discord
    fake.add_user("ema")
    async with running_bot(fake, tmp_path / "nlk.sqlite3", dev_guild=None) as bot:
        await bot.tree.sync()
        ix = await fake.slash_dm("ema", "nlk", "new", {"seats": 2})
        table = await ix.wait_message()
        assert not table.ephemeral and table.embeds
        for ending in (":addai.HEURISTIC", ":start"):
            ix = await fake.click("ema", table, custom_id=_ending(table, ending))
            assert (await ix.wait_response()).type == 7
        assert " · collect" in title(table)
        ix = await fake.slash_dm("ema", "nlk", "settings")
        assert "server's setting" in (await ix.wait_message()).text()
    fake.assert_clean()


async def test_the_table_message_is_edited_through_tokens_without_reading_the_answer(
        fake_discord, tmp_path, monkeypatch):
    """Edits through a token (the table message after an AI's move) read nothing of
    Discord's answer: discord.py's calls that build a message from it are not used."""
    import discord

    parsed: list[object] = []  # the messages edited through them (an answer: "@original")
    for owner, name in ((discord.Interaction, "edit_original_response"),
                        (discord.Webhook, "edit_message")):
        real = getattr(owner, name)

        def counted(self, *args, _real=real, **kwargs):
            parsed.append(args[0] if args else "@original")
            return _real(self, *args, **kwargs)

        monkeypatch.setattr(owner, name, counted)
    fake = fake_discord
    people = group_dm(fake, ["alice", "bob"], installed=["alice"])
    members = {m.name: m for m in people}
    async with running_bot(fake, tmp_path / "nlk.sqlite3", dev_guild=None) as bot:
        await bot.tree.sync()
        await start_table(members, {"seats": 4}, ai=("HEURISTIC", "HEURISTIC"))
        rng = random.Random(5)

        def edited() -> int:
            table = table_message(members["alice"])
            return sum(v.via == "webhook_edit" for v in table.versions)

        for _ in range(60):
            if edited() >= 2:
                break
            await play_one(fake, members, to_act(table_message(members["alice"])), rng)
        assert edited() >= 2  # the AI's moves were shown through a token
        table_id = table_message(members["alice"]).id
    assert "@original" not in parsed and table_id not in parsed
    fake.assert_clean()
