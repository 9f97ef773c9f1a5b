"""NLK in a group DM, through the app a person installed to their own account.

The bot is not a member there: every request to the channel is refused (403, 50001), it
speaks only through the tokens of the interactions it answers, a token lasts 15 minutes and
gets 5 follow-ups. Four friends play, one of whom installed the app; two AI seats fill the
table. They act as people do: they look at the newest messages they see and their own hand.
"""

from __future__ import annotations

import random

import pytest

from tests.fakediscord.models import Message
from tests.groupdm_member import GroupDMMember, group_dm
from tests.helpers import ANY_ACTOR
from tests.nlk_driver import description, running_bot, title

FRIENDS = ["alice", "bob", "carol", "dave"]
OVER = {"en": " · over", "hu": " · vége", "fr": " · terminée"}
LOSER = {"en": "loses", "hu": "vesztett", "fr": "perd"}


def table_message(member: GroupDMMember) -> Message:
    """The newest table message the member sees (the app's, public, with buttons)."""
    for message in reversed(member.app_messages()):
        if message.visible_to is None and message.embeds and any(
                b.custom_id.startswith("nlk:") for b in message.buttons()):
            return message
    raise AssertionError(f"{member.name} sees no table message")


def to_act(table: Message) -> str | None:
    found = ANY_ACTOR.search(description(table))
    return found[1] if found else None


def move_of(table: Message) -> str:
    """What a person reads on the table message (any move changes it)."""
    return table.text()


async def start_table(fake, members: dict[str, GroupDMMember], lang: str) -> None:
    alice = members["alice"]
    ix = await alice.slash("nlk", "new", {"seats": 5})
    await ix.wait_message()
    for name in FRIENDS[1:]:
        ix = await members[name].click(table_message(members[name]),
                                       custom_id=_ending(table_message(members[name]),
                                                         ":join"))
        assert (await ix.wait_response()).type == 7
    for level in ("STRONG",):
        ix = await alice.click(table_message(alice),
                               custom_id=_ending(table_message(alice), f":addai.{level}"))
        await ix.wait_response()
    ix = await alice.click(table_message(alice),
                           custom_id=_ending(table_message(alice), ":start"))
    await ix.wait_response()


def _ending(message: Message, ending: str) -> str:
    return next(b.custom_id for b in message.buttons() if b.custom_id.endswith(ending))


async def play_hand(fake, members: dict[str, GroupDMMember], lang: str,
                    rng: random.Random, *, idle: float = 0.0) -> int:
    """Play until the table says the hand is over; returns the number of taps. With
    ``idle``, the fake's clock jumps that far between some taps (tokens lapse)."""
    watcher = members["alice"]
    taps = 0
    for _ in range(2000):
        table = table_message(watcher)
        if title(table).endswith(OVER[lang]):
            return taps
        who = to_act(table)
        if who not in members:
            # An AI seat's turn: it moves within the last tap's token.
            before = move_of(table)
            await fake.wait_until(lambda: move_of(table_message(watcher)) != before,
                                  timeout=15)
            continue
        if idle and rng.random() < 0.1:
            fake.clock.advance(idle)
        member = members[who]
        table = table_message(member)
        taps += 1
        moves = [b for b in table.buttons()
                 if b.custom_id.split(":")[3].split(".")[0] in ("give", "draw", "keep")]
        before = move_of(table)
        if moves:
            ix = await member.click(table, custom_id=rng.choice(moves).custom_id)
            response = await ix.wait_response()
            assert response.type == 7
        else:
            ix = await member.click(table, custom_id=_ending(table, ":hand"))
            assert (await ix.wait_response()).ephemeral
            hand = await ix.wait_message()
            # Beat when they can (a hand of takes goes on for long), else take.
            plays = [b for b in hand.buttons() if ":play." in b.custom_id] or \
                [b for b in hand.buttons() if b.custom_id.endswith(":take")]
            options = [(s, o["value"]) for s in hand.selects()
                       for o in s.raw.get("options", [])]
            if plays and (not options or rng.random() < 0.5):
                ix = await member.click(hand, custom_id=rng.choice(plays).custom_id)
            else:
                select, value = rng.choice(options)
                ix = await fake.select(who, hand, select.custom_id, [value])
            assert (await ix.wait_response()).type == 7
        # The table everyone sees is current within a second of any tap.
        await fake.wait_until(lambda: move_of(table_message(watcher)) != before,
                              timeout=5)
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
        await start_table(fake, members, lang)
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
