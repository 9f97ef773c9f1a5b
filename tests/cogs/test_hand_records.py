"""An open hand's record keeps a token that can edit it: written when a hand is followed in
a new message, not again for each tap on the same message until its token gets old."""

from cogs.live.open_hands import REWRITE, HandsShown, OpenHand, Token


class Driver:
    def __init__(self) -> None:
        self.notes: list[tuple[int, int, str | None]] = []

    def note(self, table_id, user_id, hand) -> None:
        self.notes.append((table_id, user_id, hand.token.value if hand else None))


def hand(token: str, since: float, message_id: int | None) -> OpenHand:
    return OpenHand(Token(1, 2, token), since, 0, None, message_id=message_id)


def test_taps_on_the_same_hand_write_its_record_once_until_the_token_gets_old():
    driver = Driver()
    shown = HandsShown(driver, 7)
    shown.follow(5, hand("a", 0.0, None))  # My hand: a new message
    shown.follow(5, hand("b", 1.0, 900))  # a tap on it: its id is known now
    shown.follow(5, hand("c", 2.0, 900))  # another tap on the same message
    shown.follow(5, hand("d", 3.0 + REWRITE, 900))  # the recorded token is getting old
    shown.follow(5, hand("e", 4.0 + REWRITE, 901))  # a hand in another message
    assert driver.notes == [(7, 5, "a"), (7, 5, "b"), (7, 5, "d"), (7, 5, "e")]


def test_a_hand_dropped_or_forgotten_loses_its_record():
    driver = Driver()
    shown = HandsShown(driver, 7)
    first = hand("a", 0.0, 900)
    shown.follow(5, first)
    shown.follow(6, hand("b", 0.0, 901))
    shown.drop(5, first)
    shown.forget()
    assert driver.notes[2:] == [(7, 5, None), (7, 6, None)]
