"""The tokens a group DM's table holds: which can edit which message, which may still send a
follow-up (a user-installed app gets 5 per interaction), and which are let go."""

from cogs.live.tokens import FOLLOWUPS, TOKEN_SECONDS, Tokens


class Tapped:
    """An answered interaction as the tokens see it: authorised by a server's installation,
    or only by a person's (the follow-up cap applies)."""

    def __init__(self, in_server: bool = False) -> None:
        self.in_server = in_server

    def is_guild_integration(self) -> bool:
        return self.in_server


def test_the_freshest_token_that_made_a_message_edits_it():
    tokens = Tokens()
    posted, tapped, other = Tapped(), Tapped(), Tapped()
    tokens.heard(posted, 0.0, original=100)  # /nlk new: its answer is the table message
    tokens.heard(other, 5.0)  # a tap on a hand: its answer is an ephemeral message
    assert tokens.editor(100, 10.0).interaction is posted
    tokens.heard(tapped, 20.0, original=100)  # a tap on the table message edits it
    assert tokens.editor(100, 30.0).interaction is tapped
    assert tokens.editor(100, 21.0 + TOKEN_SECONDS) is None  # every one lapsed
    assert tokens.editor(999, 30.0) is None  # nobody made that one


def test_a_user_installed_tap_sends_five_follow_ups_then_only_edits():
    tokens = Tokens()
    capped, older = Tapped(), Tapped()
    tokens.heard(older, 0.0)
    held = tokens.heard(capped, 1.0)
    for n in range(FOLLOWUPS):
        assert tokens.sender(2.0) is held
        tokens.sent(held, 200 + n)
    assert tokens.sender(2.0).interaction is older  # the newest spent its budget
    assert tokens.editor(203, 2.0) is held  # what it posted, it can still edit
    server = tokens.heard(Tapped(in_server=True), 3.0)
    for n in range(FOLLOWUPS + 3):
        tokens.sent(server, 300 + n)
    assert tokens.sender(4.0) is server  # no cap where a server installed the bot
    assert tokens.sender(4.0, max_age=0.5) is None  # none that young


def test_old_tokens_go_but_not_those_that_made_a_message():
    tokens = Tokens(keep=2)
    maker = Tapped()
    tokens.heard(maker, 0.0, original=100)
    for n in range(5):
        tokens.heard(Tapped(), 1.0 + n)
    assert len(tokens) == 3 and tokens.editor(100, 6.0).interaction is maker
    late = 2 * TOKEN_SECONDS
    tokens.heard(Tapped(), late)  # the others lapsed meanwhile: let go, the maker too
    assert len(tokens) == 1 and tokens.editor(100, late) is None
    assert tokens.until() == late + TOKEN_SECONDS  # the newest lapses last
    tokens.forget(tokens.sender(late + 1.0).interaction)  # refused: gone
    assert tokens.sender(late + 1.0) is None and tokens.until() is None


def test_a_server_table_holds_only_its_newest_token():
    tokens = Tokens(1, makers=False)  # a server's: it has its channel besides
    first = tokens.heard(Tapped(in_server=True), 0.0, original=100)
    tokens.sent(first, 101)
    tokens.heard(Tapped(in_server=True), 1.0)
    assert len(tokens) == 1 and tokens.editor(100, 2.0) is None
