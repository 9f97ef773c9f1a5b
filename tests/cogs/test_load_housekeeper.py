"""The load benchmark's housekeeper frees the fake's records without changing what Discord
would answer: an interaction's token keeps working for its 15 minutes, however long ago the
interaction was answered, because the bot redraws open hands through it."""

import random

from tests.fakediscord.interactions import TOKEN_LIFETIME
from tests.helpers import PLAYERS, open_every_hand, play_until, to_the_shed_phase
from tests.load import Housekeeper
from tests.nlk_driver import Driver, running_bot


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
        edits = {n: len(h.versions) for n, h in hands.items()}
        tapped: set[str] = set()

        def redrawn() -> list[str]:
            """Hands redrawn by the bot that their owners have not tapped since the sweep."""
            return [n for n, h in hands.items() if n not in tapped
                    and len(h.versions) > edits[n] and h.versions[-1].via == "webhook_edit"]

        # Play on until the turn comes to someone who has not tapped since: their hand is
        # redrawn through its two-minute-old token.
        await play_until(driver, hands, lambda: bool(redrawn()), tapped=tapped)
    fake.assert_clean()
    # Once the tokens have lapsed, their interactions are freed.
    fake.clock.advance(TOKEN_LIFETIME)
    keeper.sweep()
    assert not set(tokens.values()) & set(fake.state.interactions_by_token)
