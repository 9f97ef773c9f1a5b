"""A move whose answer Discord refuses with 40060 ("already acknowledged"), as in a hand-over:
two processes receive one click, one plays the move, and the other, finding the table moved
on, answers first with its private "That button is out of date" — which draws nothing of the
table. The process that played the move must still show it, through the channel, and its
ping, once."""

import random

from tests.nlk_driver import Driver, actor, move_of, running_bot

EDITS = "PATCH /channels/{channel_id}/messages/{message_id}"


def live_pings(fake):
    return [m for m in fake.public_messages() if not m.deleted and "your turn" in m.content]


async def test_a_move_whose_answer_was_refused_is_shown_through_the_channel(fake_discord,
                                                                            tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    async with running_bot(fake, path):
        driver = Driver(fake, random.Random(3))
        table = await driver.seat_and_start("ann", ["bob", "cy"], turn_timer=0)
        move = move_of(table)
        edits = fake.request_counts[EDITS]
        # The other process's refusal was the answer that landed: this one's is refused.
        refused = fake.fail("POST", r"/interactions/\d+/[^/]+/callback", status=400,
                            code=40060, message="Interaction has already been acknowledged.")
        choice = next(b for b in table.buttons()
                      if b.label not in ("My stack", "Moves", "Fair deal"))
        await fake.click(actor(table), table, custom_id=choice.custom_id)
        await fake.wait_until(lambda: refused.count == 1, timeout=10)
        # Nothing else will draw it: the table message shows the move all the same.
        await fake.wait_until(lambda: move_of(table) > move, timeout=10)
        assert fake.request_counts[EDITS] > edits
        # And the player to act has one ping.
        await fake.wait_until(lambda: [fake.user(actor(table)).id] == [
            u for m in live_pings(fake) for u in m.pinged_user_ids], timeout=10)
    assert not fake.rate_limited, fake.rate_limited
    assert [v.code for v in fake.violations] == [40060]
