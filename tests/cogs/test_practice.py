"""Through the fake Discord: ``/nlk practice``, an unrated hand against AI seats, privately,
with a Hint button. A whole hand is played with hints in English, Hungarian and French;
nothing reaches the channel, the stats or the boards; a restart in the middle resumes it."""

import random
import re
import sqlite3

import pytest

from cogs.practice import ids
from tests.learners import description, play_out
from tests.learners import practice_moves as moves
from tests.learners import practice_way as way
from tests.nlk_driver import running_bot

# Where the stats and the boards read: a practice hand writes none of it.
RATED = ("tables", "seats", "hands", "actions", "results", "ratings", "size_ratings",
         "podiums_shown")


def rated_rows(path):
    db = sqlite3.connect(path)
    try:
        return {name: db.execute(f"SELECT COUNT(*) FROM {name}").fetchone()[0]
                for name in RATED}
    finally:
        db.close()


@pytest.mark.parametrize(("locale", "over", "processes"), [
    ("en-GB", "Play again", 1),  # the AI, the hints and the pictures in processes, as deployed
    ("hu", "Még egy leosztás", 0), ("fr", "Rejouer", 0)])
async def test_a_whole_practice_hand_with_hints_is_never_rated(fake_discord, tmp_path, locale,
                                                               over, processes):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    fake.add_user("pia")
    fake.set_locale("pia", locale)
    async with running_bot(fake, path, ai_processes=processes,
                           picture_processes=processes) as bot:
        ix = await fake.slash("pia", None, "nlk", "practice", {"ai_players": 2,
                                                               "level": "heuristic"})
        message = await ix.wait_message()
        assert message.ephemeral
        message, taps, hints = await play_out(fake, "pia", message, random.Random(34))
        assert hints >= 1 and taps >= 5
        assert way(message, "again").label.startswith(over)
        assert bool(bot.ai_pool and bot.ai_pool.processes) == bool(processes)
    assert not fake.public_messages()
    assert all(count == 0 for count in rated_rows(path).values()), rated_rows(path)
    fake.assert_clean()


async def test_a_restart_in_the_middle_resumes_the_practice_hand(fake_discord, tmp_path):
    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    fake.add_user("pia")
    rng = random.Random(5)
    async with running_bot(fake, path):
        ix = await fake.slash("pia", None, "nlk", "practice", {"ai_players": 1})
        message = await ix.wait_message()
        message, _taps, _hints = await play_out(fake, "pia", message, rng, stop_after=2)
        where = [b.custom_id for b in message.buttons()]
    async with running_bot(fake, path):
        # A fresh /nlk practice (the message expired) shows the same hand, same buttons.
        ix = await fake.slash("pia", None, "nlk", "practice")
        resumed = await ix.wait_message()
        assert [b.custom_id for b in resumed.buttons()] == where
        # The old message's buttons still answer.
        ix = await fake.click("pia", message, custom_id=moves(message)[0].custom_id)
        assert (await ix.wait_response()).type == 7
        # An outdated one says so and shows the hand as it is; nothing is played twice.
        ix = await fake.click("pia", resumed, custom_id=moves(resumed)[0].custom_id)
        assert (await ix.wait_response()).type == 7
        assert "moved on" in description(resumed)
    assert not fake.public_messages()


def test_every_practice_button_has_an_id_its_family_reads():
    """At every step of random hands of 2 to 9 seats (menus of cards where a hand has more
    moves than buttons), each component's id is read back by the practice's template,
    within Discord's limits, and a damaged id falls to the polite refusal."""
    from cogs.practice.handler import practice_view
    from cogs.practice.routes import practice_families
    from rules import practice
    from rules.i18n import Lang

    template, unknown = re.compile(ids.TEMPLATE), re.compile(ids.UNKNOWN)
    step, menus = practice_families(None)
    rng = random.Random(9)
    for players in (2, 4, 9):
        game = practice.replay(practice.deal(players, "heuristic", f"ids{players}"))
        while not game.is_over:
            if game.to_act != practice.PLAYER:
                game.apply(rng.choice(game.legal_actions()))
                continue
            view = practice_view(game, 7, game.version, Lang.FR)
            rows = view.to_components()
            assert 0 < len(rows) <= 5 and sum(len(r["components"]) for r in rows) <= 25
            for item in view.children:
                assert template.fullmatch(item.custom_id) and len(item.custom_id) <= 100
                assert step.__discord_ui_compiled_template__.fullmatch(item.custom_id)
                for option in getattr(item, "options", []):
                    assert re.fullmatch(ids.MOVES, option.value)
            game.apply(rng.choice(game.legal_actions()))
        assert practice_view(game, 7, game.version, Lang.FR).children[0].custom_id.endswith(
            ":again")
    for damaged in ("nlkp:1:3:give.ZZ.1", "nlkp:1:x:draw", "nlkp:1:3:fly"):
        assert unknown.fullmatch(damaged) and not template.fullmatch(damaged)
        assert menus.__discord_ui_compiled_template__.fullmatch(damaged)


def test_kept_games_are_copies_and_a_hand_not_kept_is_replayed():
    """A tap's answer reads its hand's game from the latest ones kept: always the hand's
    own replay, a copy the caller may play on, and replayed again once no longer kept."""
    from cogs.practice.handler import Games
    from rules import practice

    games = Games(size=2)
    hand = practice.deal(4, "heuristic", "kept")
    game = games.game(hand)
    moved, _made = practice.advance(hand, game)
    games.keep(moved, game)

    def same(one, other):
        return one.actions == other.actions and one.history() == other.history() and \
            one.stacks == other.stacks and one.to_act == other.to_act

    assert same(games.game(moved), practice.replay(moved))
    mine = games.game(moved, ("pia", "a", "b", "c"))
    assert mine.names == ("pia", "a", "b", "c")
    mine.apply(mine.legal_actions()[0])  # played on: what is kept is not
    assert games.game(moved).version == len(moved.moves) < mine.version
    assert games.game(moved).names == moved.names
    for seed in ("x", "y", "z"):  # pushes it out
        games.game(practice.deal(3, "heuristic", seed))
    assert same(games.game(moved), practice.replay(moved))


async def test_slow_ai_seats_defer_the_answer_rather_than_miss_discords_three_seconds(
        fake_discord, tmp_path, monkeypatch):
    """AI seats that think for longer than Discord waits for a first answer (a busy machine,
    their process still starting): the command's answer, and a tap's, is deferred in time,
    and then shows the hand as it is after their moves."""
    import time

    from rules import practice

    thought = practice.advance

    def slow(hand):  # thought in a thread here (no AI processes): the patch applies
        time.sleep(3.5)
        return thought(hand)

    fake, path = fake_discord, tmp_path / "nlk.sqlite3"
    fake.add_user("pia")
    async with running_bot(fake, path):
        monkeypatch.setattr(practice, "advance", slow)
        ix = await fake.slash("pia", None, "nlk", "practice", {"ai_players": 2})
        assert (await ix.wait_response()).deferred
        message = await ix.wait_until(lambda ix: ix.original is not None and
                                      bool(ix.original.embeds), timeout=10,
                                      what="the hand")
        message = ix.original
        assert message.ephemeral and moves(message)
        ix = await fake.click("pia", message, custom_id=moves(message)[-1].custom_id)
        assert (await ix.wait_response()).deferred
        before = description(message)
        await fake.wait_until(lambda: description(message) != before, timeout=10,
                              what="the hand after the AI seats' moves")
        assert moves(message) or way(message, "again")
