"""Ratings over the finishing order."""

from bot.guilds.ratings import Rating, rate


def test_first_out_gains_and_loser_drops_and_everyone_grows_surer():
    start = [Rating()] * 4
    after = rate(start)
    assert after[0].mu > start[0].mu > after[3].mu
    assert [r.mu for r in after] == sorted((r.mu for r in after), reverse=True)
    assert all(r.sigma < start[0].sigma for r in after)


def test_beating_a_strong_player_is_worth_more_than_beating_a_weak_one():
    strong, weak = Rating(35.0, 4.0), Rating(15.0, 4.0)
    me = Rating()
    over_strong = rate([me, strong])[0].mu
    over_weak = rate([me, weak])[0].mu
    assert over_strong > over_weak > me.mu
