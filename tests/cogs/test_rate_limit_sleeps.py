"""A request that spends the last place in a rate-limit bucket: Discord says so
(``X-RateLimit-Remaining: 0``), and discord.py waits out the bucket's reset before it returns
that request. It has landed all the same: what waited for it goes on once Discord answered."""

import asyncio

from cogs.live import open_hands, table_message
from tests.helpers import tap_once, to_the_shed_phase
from tests.nlk_driver import actor, is_over, move_of, my_turn

COLLECT_MOVES = ("give", "draw", "keep")


def moves(message):
    return [b for b in message.buttons()
            if b.custom_id and b.custom_id.split(":")[3].split(".")[0] in COLLECT_MOVES]


def channel_edits(fake):
    return fake.request_counts["PATCH /channels/{channel_id}/messages/{message_id}"]


async def test_an_answer_does_not_wait_for_an_edit_discord_py_holds_for_its_rate_limit(
        nlk, monkeypatch):
    """A move tapped on a turn ping leaves the table message to a paced edit in the
    channel. Discord answers it saying the channel's budget is spent for the next 30 s
    (advertised as Discord does), and discord.py holds that edit until then. The next move,
    tapped on the table message, is answered at once (it need not wait behind the edit,
    which Discord has applied), and the table message shows it."""
    fake, bot, driver, path = nlk
    # However long an answer may wait for a request to the message to land: the edit's.
    monkeypatch.setattr(table_message, "HOLD_SECONDS", 120.0)
    table = await driver.seat_and_start("ann", ["bob"])
    fake.set_channel_rate_limit(limit=1, per=30.0, advertise=True)
    edits = channel_edits(fake)
    name = actor(table)
    user = fake.user(name).id
    await fake.wait_until(lambda: any(
        not m.deleted and user in m.pinged_user_ids and moves(m)
        for m in fake.public_messages()), timeout=10)
    ping = [m for m in fake.public_messages()
            if not m.deleted and user in m.pinged_user_ids and moves(m)][-1]
    await driver.click(name, ping, custom_id=moves(ping)[0].custom_id)
    # The table message is brought up to the move by an edit in the channel, which spends
    # the channel's budget: discord.py now sleeps inside it for 30 s.
    await fake.wait_until(lambda: channel_edits(fake) > edits, timeout=10)
    shown = move_of(table)
    name = actor(table)
    assert moves(table), "no move on the table message"
    await asyncio.wait_for(
        driver.click(name, table, custom_id=moves(table)[0].custom_id), 10)
    assert move_of(table) > shown


async def test_a_play_does_not_wait_for_a_redraw_discord_py_holds_for_its_rate_limit(
        nlk, monkeypatch):
    """In the shed phase a player's open hand is redrawn, through its token, when their
    turn comes. Discord answers that the token's bucket is spent for the next 30 s (the
    fake's webhook bucket, advertised as Discord does), and discord.py holds the redraw
    until then. The move the player taps on the redrawn hand is answered at once."""
    fake, bot, driver, path = nlk
    monkeypatch.setattr(open_hands, "HOLD_SECONDS", 120.0)
    table = await driver.seat_and_start("ann", ["bob"])
    await to_the_shed_phase(driver, table)
    first = actor(table)
    other = "bob" if first == "ann" else "ann"
    waiting = await driver.open_hand(other, table)
    assert "Not your turn yet" in waiting.text()
    mine = await driver.open_hand(first, table)
    fake.set_webhook_rate_limit(1, 30.0)
    await tap_once(driver, first, mine)
    # The waiting hand is redrawn for its turn, through its token, which that spends.
    await fake.wait_until(lambda: my_turn(waiting), timeout=10)
    await asyncio.wait_for(tap_once(driver, other, waiting), 10)
    assert "Not your turn yet" in waiting.text() or is_over(table)
    # The bot stops with the redraw still held: what waited behind it then goes.
    fake.set_webhook_rate_limit(None)


async def test_a_hand_held_for_its_rate_limit_does_not_hold_the_others(nlk, monkeypatch):
    """Three players in the shed phase, each with their hand open. The turn comes to the
    second player: their hand is redrawn through its token, which spends that token's
    bucket for 30 s (advertised as Discord does), and discord.py holds the redraw until
    then. The second player plays; the turn comes to another player, whose hand is redrawn
    through a token of its own at once, not once the held redraw returns."""
    fake, bot, driver, path = nlk
    monkeypatch.setattr(open_hands, "HOLD_SECONDS", 120.0)
    table = await driver.seat_and_start("ann", ["bob", "cid"])
    await to_the_shed_phase(driver, table)
    hands = {name: await driver.open_hand(name, table) for name in ("ann", "bob", "cid")}
    fake.set_webhook_rate_limit(1, 30.0)

    def turn_of(*but: str) -> list[str]:
        return [name for name, hand in hands.items() if name not in but and my_turn(hand)]

    first = turn_of()
    assert len(first) == 1, first
    await tap_once(driver, first[0], hands[first[0]])
    # The second player's hand comes to them through its token, which that spends.
    await fake.wait_until(lambda: turn_of(first[0]), timeout=10)
    second = turn_of(first[0])[0]
    await asyncio.wait_for(tap_once(driver, second, hands[second]), 10)
    # Whoever's turn it is now sees it on their hand well before the held redraw returns.
    await fake.wait_until(lambda: is_over(table) or turn_of(second), timeout=10)
    fake.set_webhook_rate_limit(None)
