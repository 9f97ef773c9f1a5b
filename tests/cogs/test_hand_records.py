"""An open hand's record keeps a token that can edit it: written when a hand is followed in
a new message, not again for each tap on the same message until its token gets old; one
record per table (the kind's, as the owner writes it), restored at the next start for the
players still seated, and read once from the format before (a record per hand)."""

import asyncio
import json

from cogs.live.open_hands import LEGACY, REWRITE, HandsShown, OpenHand, OpenHands, Token
from cogs.live.owner import Flights, LiveTables, record_key
from cogs.live.records import Notes
from rules import Game, Variant, shuffled_deck
from tests.helpers import StateStore as Store
from tests.helpers import table_for


class Owner:
    """The owner's side of a table's open hands: the records it would write down."""

    def __init__(self) -> None:
        self.shown: HandsShown | None = None
        self.records: list[dict[str, str]] = []
        self.at_once: list[bool] = []  # whether each was to be written without waiting

    def record(self, name: str, *, now: bool = False) -> None:
        assert name == OpenHands.name
        self.at_once.append(now)
        text = self.shown.dump() if self.shown else None
        self.records.append({user: hand["token"] for user, hand in
                             json.loads(text).items()} if text else {})


class Driver:
    clock = staticmethod(lambda: 0.0)
    lifetime = 14 * 60.0


def hand(token: str, since: float, message_id: int | None) -> OpenHand:
    return OpenHand(Token(1, 2, token), since, 0, None, message_id=message_id)


def shown_with_owner() -> tuple[HandsShown, Owner]:
    owner = Owner()
    owner.shown = HandsShown(Driver(), owner)
    return owner.shown, owner


def test_taps_on_the_same_hand_write_its_record_once_until_the_token_gets_old():
    shown, owner = shown_with_owner()
    shown.follow(5, hand("a", 0.0, None))  # My hand: a new message
    shown.follow(5, hand("b", 1.0, 900))  # a tap on it: its id is known now
    shown.follow(5, hand("c", 2.0, 900))  # another tap on the same message
    shown.follow(5, hand("d", 3.0 + REWRITE, 900))  # the recorded token is getting old
    shown.follow(5, hand("e", 4.0 + REWRITE, 901))  # a hand in another message
    assert [record["5"] for record in owner.records] == ["a", "b", "d", "e"]
    # Each new token is written at once: a bot stopped hard right after could not reach
    # the hand again, and it would go on showing a turn long over.
    assert owner.at_once == [True, True, True, True]
    assert json.loads(shown.dump())["5"]["token"] == "e"


def test_the_first_tap_on_a_hand_just_opened_writes_nothing_new():
    shown, owner = shown_with_owner()
    shown.follow(5, OpenHand(Token(70, 2, "a"), 0.0, 0, None))  # My hand, interaction 70
    # The first tap on it: its message, posted by interaction 70, is the one followed.
    shown.follow(5, OpenHand(Token(71, 2, "b"), 1.0, 0, None, message_id=900), made_by=70)
    shown.follow(5, OpenHand(Token(72, 2, "c"), 2.0, 0, None, message_id=900))
    assert [record["5"] for record in owner.records] == ["a"]
    # A hand another interaction posted (an older hand of the same player) is another one.
    shown.follow(5, OpenHand(Token(73, 2, "d"), 3.0, 0, None))
    shown.follow(5, OpenHand(Token(74, 2, "e"), 4.0, 0, None, message_id=800), made_by=60)
    assert [record["5"] for record in owner.records] == ["a", "d", "e"]


def test_a_hand_dropped_or_forgotten_loses_its_record():
    shown, owner = shown_with_owner()
    first = hand("a", 0.0, 900)
    shown.follow(5, first)
    shown.follow(6, hand("b", 0.0, 901))
    shown.drop(5, first)
    shown.forget()
    assert owner.records[2:] == [{"6": "b"}, {}]
    assert shown.dump() is None


def record_of(token: str, issued: float) -> dict:
    return {"interaction": 1, "application": 2, "token": token, "issued": issued,
            "lang": "en", "letters": None}


async def test_a_restart_follows_the_hands_of_players_still_seated_from_either_format():
    import time

    game = Game.from_deck(shuffled_deck(3, "1"), 0, names=["ann", "bob", "cy"],
                          variant=Variant("free", True))
    table = table_for(game)
    seated, gone = table.seats[0].user_id, 999_999
    now = time.time()
    new = {str(seated): record_of("new", now), str(gone): record_of("gone", now),
           str(table.seats[1].user_id): record_of("old", now - 20 * 60)}  # lapsed
    legacy = {f"{LEGACY}{table.id}:{user}": json.dumps(data) for user, data in new.items()}
    for values in ({record_key(OpenHands.name, table.id): json.dumps(new)}, legacy):
        store = Store(values)
        notes = Notes(store, delay=0)
        tables = LiveTables(notes=notes)
        hands = tables.register(OpenHands(None, tables, notes))
        tables.scope.begin()
        records = await tables.read_records()
        for table_id, text in (await hands.read_legacy()).items():
            records.setdefault(table_id, {}).setdefault(OpenHands.name, text)
        live = tables.of(table)
        live.restore(records.get(table.id, {}))
        followed = OpenHands.of(live).hands
        assert {user: h.token.value for user, h in followed.items()} == {seated: "new"}
        await notes.close()
        assert not any(key.startswith(LEGACY) for key in store.values)  # read once
        await tables.scope.close()


def test_a_request_told_it_landed_before_it_returned_leaves_the_next_ones_flights_alone():
    """A redraw is told it landed as soon as Discord answered (discord.py may then wait out
    the token's rate limit before it returns). A tap's answer to the same hand flies and
    lands meanwhile; when the redraw at last returns, the answer's requests are not
    touched, and a third request to the hand waits for none of them."""
    shown, _owner = shown_with_owner()
    with shown.flying(5, 1) as redraw:
        redraw.answered()  # Discord answered: it has landed
        with shown.flying(5, 2) as answer:
            assert redraw.crossed == set()  # it had landed before the answer flew
        assert Flights.outcome(answer) == 2
        with shown.flying(5, 3) as later:
            pass
        assert Flights.outcome(later) == 3
    assert 5 not in shown.flights


async def test_two_requests_waiting_for_the_same_landing_do_not_then_fly_together():
    """A tap's answer and a redraw of the same hand both wait for a request on its way to it
    (a redraw of the hand's last message). Once it lands, its entry goes; the first waiter
    to wake flies, and the second waits for that one in turn rather than crossing it (two
    requests crossing leave the hand showing either; a person would see a card they just
    played come back until the next redraw)."""
    shown, _owner = shown_with_owner()
    loop = asyncio.get_running_loop()
    until = loop.time() + 5
    flew: list[tuple[str, set[int]]] = []
    first_in_flight = asyncio.Event()
    release_first = asyncio.Event()

    async def earlier() -> None:
        with shown.flying(5, 1):
            first_in_flight.set()
            await release_first.wait()

    async def request(name: str, revision: int, holds: float) -> None:
        await first_in_flight.wait()
        assert await shown.clear(5, until, lambda: None, None)
        with shown.flying(5, revision) as flight:
            await asyncio.sleep(holds)
        flew.append((name, flight.crossed))

    tasks = [asyncio.create_task(earlier()), asyncio.create_task(request("answer", 2, 0.05)),
             asyncio.create_task(request("redraw", 3, 0))]
    await asyncio.sleep(0.01)  # both wait for the first request to land
    release_first.set()
    await asyncio.wait_for(asyncio.gather(*tasks), 5)
    assert flew == [("answer", set()), ("redraw", set())]
    assert 5 not in shown.flights
