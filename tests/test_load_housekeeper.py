"""The load benchmark's housekeeper frees the fake's records without changing what Discord
would answer: an interaction's token keeps working for its 15 minutes, however long ago the
interaction was answered, because the bot redraws open hands through it."""

import random

from tests.fakediscord.interactions import TOKEN_LIFETIME
from tests.helpers import PLAYERS, open_every_hand, tap_once, to_the_shed_phase
from tests.load import Housekeeper
from tests.nlk_driver import Driver, actor, is_over, move_of, running_bot


async def test_a_swept_interaction_still_edits_its_hand_until_its_token_lapses(fake_discord,
                                                                               tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    keeper = Housekeeper(fake, keep=60.0)
    async with running_bot(fake, path):
        driver = Driver(fake, random.Random(7))
        table = await driver.seat_and_start(PLAYERS[0], PLAYERS[1:], turn_timer=0)
        await to_the_shed_phase(driver, table)
        hands = await open_every_hand(driver, table)
        tokens = {name: hand.interaction_token for name, hand in hands.items()}
        # Two minutes pass for Discord (the players think): the housekeeper sweeps, yet
        # every open hand's token has thirteen minutes left.
        fake.clock.advance(120.0)
        keeper.sweep()
        assert keeper.interactions > 0 and keeper.samples
        name = actor(table)
        before = move_of(table)
        edits = {n: len(h.versions) for n, h in hands.items()}
        await tap_once(driver, name, hands[name])
        await fake.wait_until(lambda: move_of(table) > before or is_over(table), timeout=10)
        # The others' hands are redrawn through their two-minute-old tokens.
        for other in (n for n in PLAYERS if n != name):
            await fake.wait_until(
                lambda o=other: len(hands[o].versions) > edits[o]
                and hands[o].versions[-1].via == "webhook_edit", timeout=5)
    fake.assert_clean()
    # Once the tokens have lapsed, their interactions are freed.
    fake.clock.advance(TOKEN_LIFETIME)
    keeper.sweep()
    assert not set(tokens.values()) & set(fake.state.interactions_by_token)
