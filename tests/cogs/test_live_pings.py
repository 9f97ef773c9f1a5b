"""The turn ping's owner on its own, with a recording transport and no Discord: given
snapshots and events, the requests it makes and what it ends up showing."""

import asyncio
import dataclasses
import json
import random

import discord
import pytest

from bot.db.records import TableStatus
from cogs.live.owner import LiveTables
from cogs.live.pings import Ping, PingRecord, Pings, PingsRecord, wanted_ping
from cogs.live.records import Notes
from rules import Game, Phase, Variant, shuffled_deck
from rules.i18n import Lang
from tests.helpers import RecordingWay, table_for


class FakeResponse:
    """What discord.py reads of an HTTP response to make its error."""

    def __init__(self, status):
        self.status = status
        self.reason = "Forbidden"


class RecordingIO(RecordingWay):
    """The tables' way, read as the pings' requests: (kind, message id, whom it mentions,
    the version its buttons carry, whether it is a reminder) for a post; (kind, message id,
    version, reminder) for an edit."""

    @property
    def calls(self):
        out = []
        for call in self.requests:
            if call[0] == "post":
                spec = call[2]
                out.append(("post", call[1], spec.mention, _version(spec.view),
                            "⏰" in spec.content))
            elif call[0] == "edit":
                spec = call[2]
                out.append(("edit", call[1], _version(spec.view), "⏰" in spec.content))
            else:
                out.append(call)
        return out


def _version(view) -> int | None:
    if view is None:
        return None
    versions = {item.custom_id.split(":")[2] for item in view.children}
    versions.discard("-")
    return int(versions.pop()) if versions else None


class Service:
    """What the pings ask of the table service: the time, and their notes."""

    def __init__(self) -> None:
        self.now = 1_000_000.0
        self.notes: dict[str, str | None] = {}

    def clock(self) -> float:
        return self.now

    async def owned(self, table_ids):
        return set(table_ids)

    async def set_state_values(self, batch):
        self.notes.update(batch)

    async def state_values(self, prefix):
        return {k: v for k, v in self.notes.items() if k.startswith(prefix) and v is not None}


class Languages:
    async def public(self, guild_id, interaction=None):
        return Lang.EN


MADE: list[LiveTables] = []  # the registries a test made, stopped once it is done


@pytest.fixture(autouse=True)
async def stopped_afterwards():
    """Each test's registries stop at its end, as at a shutdown."""
    yield
    while MADE:
        await MADE.pop().scope.close()


def owner(io=None):
    """The registry with the turn ping as its one kind, sending through ``io`` (a way that
    reaches every message, as a server's channel does)."""
    io = io or RecordingIO()
    service = Service()
    notes = Notes(service, delay=0)
    tables = LiveTables(released=lambda live: None, ways=lambda live: io, notes=notes)
    tables.scope.begin()  # outermost here: in the bot, it lives within the bot's lifetime
    MADE.append(tables)
    pings = Pings(None, service, Languages(), None, None, tables, notes)
    pings.io = io  # (what the tests read)
    pings.written = service.notes  # (the records, as written)
    tables.register(pings)
    return pings, tables


def ping_of(live):
    return Pings.of(live).ping


def snapshots(seed=3, *, turn_seconds=0):
    """Successive tables of one hand, a person to act in each (every seat a person)."""
    game = Game.from_deck(shuffled_deck(3, str(seed)), 0, names=["ann", "bob", "cy"],
                          variant=Variant("free", True))
    table = table_for(game, turn_seconds=turn_seconds, turn_started=1_000_000.0)
    rng = random.Random(seed)
    revision = 0
    while True:
        revision += 1
        yield dataclasses.replace(table, game=game.copy(), revision=revision)
        game.apply(rng.choice(game.legal_actions()))


async def settled(tables, table_id=123456789012345678):
    """Until the ping task has nothing left to do."""
    for _ in range(200):
        await asyncio.sleep(0)
        live = tables.get(table_id)
        if live is None or (not live.converging(Pings.name) and not len(live.scope)):
            return live
    raise AssertionError("the ping did not settle")


def turn_change(stream, table):
    """The next snapshot in which another person is to act."""
    for later in stream:
        if later.user_to_act() != table.user_to_act():
            return later
    raise AssertionError


def same_turn_change(stream, table):
    """The next snapshot in which the same person is still to act, one move later."""
    later = next(stream)
    return later if later.turn_key() == table.turn_key() else None


async def test_two_changes_in_a_row_post_one_ping_for_the_newest():
    pings, tables = owner()
    stream = snapshots()
    first = next(stream)
    second = turn_change(stream, first)
    pings.changed(first)
    pings.changed(second)
    live = await settled(tables)
    assert pings.io.kinds() == ["post"]
    assert pings.io.calls[0][2] == second.user_to_act()
    assert ping_of(live).want == wanted_ping(second, None)


def long_first_turn():
    """A deal whose first person makes two collect moves in their first turn: the stream,
    the first snapshot and the one after the first move."""
    for seed in range(100):
        stream = snapshots(seed)
        first = next(stream)
        later = same_turn_change(stream, first)
        if later is not None and later.game.phase is Phase.COLLECT:
            return stream, first, later
    raise AssertionError("no deal with a two-move first turn")


async def test_a_change_while_an_edit_is_in_flight_is_drawn_after_it():
    io = RecordingIO()
    pings, tables = owner(io)
    stream, first, later = long_first_turn()
    pings.changed(first)
    await settled(tables)
    io.hold = asyncio.Event()
    pings.changed(later)  # the same turn, one move on: an edit
    await asyncio.wait_for(io.editing.wait(), 5)
    newest = next(stream)  # arrives while that edit is on its way
    pings.changed(newest)
    io.hold.set()
    live = await settled(tables)
    assert io.calls[:2] == [("post", 1000, first.user_to_act(), first.game.version, False),
                            ("edit", 1000, later.game.version, False)]
    want = wanted_ping(newest, None)
    assert (ping_of(live).want if ping_of(live) else None) == want
    if want is not None and want.turn == later.turn_key()[1]:
        assert io.calls[2] == ("edit", 1000, newest.game.version, False)


async def test_a_tap_answered_elsewhere_is_not_drawn_again():
    pings, tables = owner()
    _stream, table, later = long_first_turn()
    pings.changed(table)
    live = await settled(tables)
    posted = ping_of(live).message_id
    pings.answered(later, posted, wanted_ping(later, None))  # the tap's answer drew it
    await settled(tables)
    assert pings.io.kinds() == ["post"]
    pings.answered(later, posted, None)  # ... had it said "Done.", a new ping would follow
    await settled(tables)
    assert pings.io.kinds() == ["post", "post", "delete"]


async def test_a_ping_answered_your_turn_is_over_goes_when_nobody_is_to_be_pinged():
    """A late tap on a ping whose turn passed to a stand-in is answered "Your turn is
    over." in place; that message still mentions its person, so it must go, not be taken
    as showing what is wanted (no ping)."""
    pings, tables = owner()
    table = next(snapshots())
    pings.changed(table)
    live = await settled(tables)
    posted = ping_of(live).message_id
    covered = dataclasses.replace(table, lapsed=table.game.to_act, revision=table.revision + 1)
    pings.answered(covered, posted, None)  # the tap's answer drew "Your turn is over."
    await settled(tables)
    assert pings.io.kinds() == ["post", "delete"]
    assert ping_of(live) is None


async def test_a_stand_in_turn_deletes_the_ping_and_wants_none():
    pings, tables = owner()
    table = next(snapshots())
    pings.changed(table)
    await settled(tables)
    covered = dataclasses.replace(table, lapsed=table.game.to_act, revision=table.revision + 1)
    assert wanted_ping(covered, None) is None
    await pings.remind(covered, covered.user_to_act(), 2_000_000.0)  # too late: no reminder
    pings.changed(covered)
    live = await settled(tables)
    assert pings.io.kinds() == ["post", "delete"]
    assert ping_of(live) is None


async def test_a_clock_tick_turns_the_ping_into_a_reminder_once():
    pings, tables = owner()
    table = next(snapshots(turn_seconds=30))
    pings.changed(table)
    await settled(tables)
    await pings.remind(table, table.user_to_act(), table.deadline())
    await settled(tables)
    await pings.remind(table, table.user_to_act(), table.deadline())  # the same turn again
    live = await settled(tables)
    assert pings.io.kinds() == ["post", "post", "delete"]
    assert pings.io.calls[1][4] is True and ping_of(live).want.reminder


async def record_of(pings, table):
    """The table's turn ping record as written (None: none), once the writes are done."""
    for _ in range(10):
        await asyncio.sleep(0)
    text = pings.written.get(f"live:turn_ping:{table.id}")
    return None if text is None else json.loads(text)


async def test_a_restart_edits_the_ping_it_restores_with_the_renewed_deadline():
    pings, tables = owner()
    table = next(snapshots(turn_seconds=60))
    want = wanted_ping(table, None)
    old = dataclasses.replace(want, deadline=want.deadline - 500)  # before the restart
    tables.of(table).restore({Pings.name: PingsRecord(table.channel_id, Ping(77, old)).dump()})
    pings.changed(table)  # the owner converges from what it restored
    live = await settled(tables)
    assert pings.io.kinds() == ["edit"] and pings.io.calls[0][1] == 77
    assert ping_of(live).want == want


async def test_a_restored_ping_whose_turn_is_over_goes_and_the_deletes_owed_are_done():
    """Nothing at start-up asks whether a ping's turn goes on: the restored ping shows
    another turn than the one wanted, so the loop posts the new one and deletes it, as on
    any change; the deletes the last run owed are done by the same loop."""
    pings, tables = owner()
    stream = snapshots()
    first = next(stream)
    later = turn_change(stream, first)
    record = PingsRecord(first.channel_id, Ping(77, wanted_ping(first, None)), (70, 71))
    tables.of(later).restore({Pings.name: record.dump()})
    pings.changed(later)
    live = await settled(tables)
    assert sorted(pings.io.requests[i][1] for i, kind in enumerate(pings.io.kinds())
                  if kind == "delete") == [70, 71, 77]
    assert pings.io.kinds().count("post") == 1
    assert ping_of(live).want == wanted_ping(later, None)
    await settled(tables)
    written = await record_of(pings, later)
    assert written["owed"] == [] and written["ping"]["message"] == ping_of(live).message_id


async def test_a_refused_delete_stays_written_down_and_is_not_tried_again():
    class Refusing(RecordingIO):
        async def delete(self, message_id):
            await super().delete(message_id)
            raise discord.Forbidden(FakeResponse(403), "Missing Permissions")

    pings, tables = owner(Refusing())
    stream = snapshots()
    first = next(stream)
    pings.changed(first)
    live = await settled(tables)
    posted = ping_of(live).message_id
    pings.changed(turn_change(stream, first))
    await settled(tables)
    assert pings.io.kinds() == ["post", "post", "delete"]
    assert (await record_of(pings, first))["owed"] == [posted]  # the next start tries again
    pings.changed(next(stream))
    await settled(tables)
    assert pings.io.kinds().count("delete") <= 2 and \
        [r for r in pings.io.requests if r == ("delete", posted)] == [("delete", posted)]


async def test_a_closed_table_keeps_its_owner_and_record_until_its_ping_is_deleted():
    io = RecordingIO()
    pings, tables = owner(io)
    table = next(snapshots())
    closed = dataclasses.replace(table, status=TableStatus.ENDED, revision=table.revision + 1)
    gate = asyncio.Event()
    deleting = asyncio.Event()

    async def held_delete(message_id):
        deleting.set()
        await gate.wait()
        io.requests.append(("delete", message_id))

    io.delete = held_delete
    live = tables.of(closed)
    record = PingsRecord(table.channel_id, None, (70,)).dump()
    pings.written[f"live:turn_ping:{table.id}"] = record  # as the last run left it
    live.restore({Pings.name: record})
    live.wake()
    await asyncio.wait_for(deleting.wait(), 5)
    for _ in range(20):
        await asyncio.sleep(0)
    assert tables.get(table.id) is live and live.kinds[Pings.name].holds()
    written = await record_of(pings, table)
    assert written is not None and written["owed"] == [70]  # kept for the next start
    gate.set()
    for _ in range(50):
        await asyncio.sleep(0)
    assert io.kinds() == ["delete"] and len(tables) == 0
    assert (await record_of(pings, table)) is None


async def test_the_records_of_the_format_before_are_read_once_into_one_per_table():
    pings, tables = owner()
    stream = snapshots(turn_seconds=60)
    first = next(stream)
    table = turn_change(stream, first)
    want = wanted_ping(table, None)

    def legacy(want):
        return json.dumps({"channel": table.channel_id, "hand": want.hand,
                           "version": want.version, "user": want.user_id, "turn": want.turn,
                           "deadline": want.deadline, "reminder": False, "shed": want.shed,
                           "link": want.link})

    pings.written.update({f"ping:{table.id}:70": legacy(wanted_ping(first, None)),
                          f"ping:{table.id}:90": legacy(want),
                          f"ping:{table.id}:60": "55 3 17 1001",  # before records were JSON
                          "ping:junk": "x"})
    records = {}
    await pings.read_legacy(records)
    assert PingsRecord.load(records[table.id][Pings.name]) == \
        PingsRecord(table.channel_id, Ping(90, want), (60, 70))
    for _ in range(5):
        await asyncio.sleep(0)
    assert not any(key.startswith("ping:") and value is not None
                   for key, value in pings.written.items())
    assert (await record_of(pings, table)) == json.loads(records[table.id][Pings.name])
    # The next start restores it: the live ping stays (its turn goes on), the others go.
    tables.of(table).restore(records[table.id])
    pings.changed(table)
    live = await settled(tables)
    assert pings.io.requests == [("delete", 60), ("delete", 70)]
    assert ping_of(live).message_id == 90 and ping_of(live).want == want
    # A record from before turns were written down shows what is not known: replaced.
    assert PingRecord.load("55 3 17 1001").shows() is None


async def test_closing_the_table_deletes_the_ping_and_lets_the_owner_go():
    pings, tables = owner()
    table = next(snapshots())
    pings.changed(table)
    live = await settled(tables)
    assert isinstance(ping_of(live), Ping)
    closed = dataclasses.replace(table, status=TableStatus.ENDED, revision=table.revision + 1)
    tables.of(closed)  # the owner learns the table closed
    pings.changed(closed)
    for _ in range(50):
        await asyncio.sleep(0)
    assert pings.io.kinds() == ["post", "delete"]
    assert len(tables) == 0


def turn_across_phases():
    """Two snapshots of one turn: in phase one, then in phase two (its player took the last
    talon card and leads)."""
    for seed in range(300):
        stream = snapshots(seed)
        before = next(stream)
        for after in stream:
            if after.game.is_over:
                break
            if before.game.phase is Phase.COLLECT and after.game.phase is Phase.SHED:
                if after.turn_key() == before.turn_key() and after.user_to_act() is not None:
                    return before, after
                break
            before = after
    raise AssertionError("no turn across the phases")


async def test_a_turn_that_goes_on_into_phase_two_gets_my_hand_instead_of_moves():
    pings, tables = owner()
    before, after = turn_across_phases()
    pings.changed(before)
    await settled(tables)
    pings.changed(after)
    live = await settled(tables)
    assert pings.io.kinds() == ["post", "edit"]
    assert pings.io.calls[1][2] is None  # no move buttons: My hand
    assert ping_of(live).want == wanted_ping(after, None) and ping_of(live).want.shed


class ChannelIO(RecordingIO):
    """A channel whose messages from before the restart can be read: ``left``."""

    def __init__(self, left):
        super().__init__()
        self.left = left

    async def history(self, limit, *, before=None):
        return [m for m in self.left if before is None or int(m["id"]) < before][:limit]


def ping_message(message_id, table, user_id, *, edited_unnamed=False):
    """A turn ping of ``table`` as Discord gives it in a channel's history (with
    ``edited_unnamed``: once edited by a bot that did not name its person again, so that
    Discord no longer lists them among its mentions)."""
    return {"id": str(message_id), "author": {"id": str(BOT)},
            "content": f"<@{user_id}> your turn at NLK table {table.id}: tap **My hand**.",
            "mentions": [] if edited_unnamed else [{"id": str(user_id)}],
            "components": [{"components": [{"custom_id": f"nlk:{table.id}:1:hand"}]}]}


BOT = 555


@pytest.mark.parametrize("edited_unnamed", [False, True])
async def test_a_ping_posted_and_not_written_down_before_a_kill_goes_beside_a_recorded_one(
        edited_unnamed):
    """The last run wrote down a ping, posted the next turn's and was killed before writing
    that down: the first step after the restart finds the unrecorded one in the channel and
    deletes it with the recorded one, whose turn is over (else two pings stay live). It is
    found by the text that mentions its person, even once an edit that did not name them
    again dropped them from its mentions (``edited_unnamed``)."""
    stream = snapshots()
    first = next(stream)
    later = turn_change(stream, first)
    io = ChannelIO([ping_message(80, first, later.user_to_act(), edited_unnamed=edited_unnamed),
                    ping_message(77, first, first.user_to_act())])
    pings, tables = owner(io)
    pings.client = type("Client", (), {"user": type("User", (), {"id": BOT})()})()
    pings._started = 10**6  # every message above is from before this run
    record = PingsRecord(first.channel_id, Ping(77, wanted_ping(first, None)))
    tables.of(later).restore({Pings.name: record.dump()})
    pings.changed(later)
    live = await settled(tables)
    deleted = sorted(r[1] for r in pings.io.requests if r[0] == "delete")
    assert deleted == [77, 80]
    assert pings.io.kinds().count("post") == 1 and ping_of(live).want == wanted_ping(later, None)


async def test_an_edited_ping_names_its_person_again_without_notifying_anyone_else():
    """An edit of the live ping (a move within the turn: new buttons) names the person it
    mentions, so that Discord, reading the edit's mentions afresh, still shows it as
    mentioning them."""
    pings, tables = owner()
    _stream, first, later = long_first_turn()
    pings.changed(first)
    await settled(tables)
    pings.changed(later)  # the same turn, one move on: an edit
    await settled(tables)
    [(post, _message, posted), (edit, _same, edited)] = pings.io.requests
    assert (post, edit) == ("post", "edit")
    assert edited.mention == posted.mention == first.user_to_act()
    allowed = edited.edited()["allowed_mentions"].to_dict()
    assert (allowed["parse"], allowed["users"]) == ([], [first.user_to_act()])


# --- a hand-over: another process moved the table on and posted its ping -----------------

def theirs(table, message_id, shows, owed=()):
    """The turn ping record another process wrote: its live ping ``message_id`` showing
    ``shows``, and the deletes it owes."""
    return PingsRecord(table.channel_id, Ping(message_id, shows), tuple(owed)).dump()


async def reload_with(pings, tables, table, record):
    """``table`` as another process left it, its ping record ``record`` written down: the
    owner is told it was loaded again (as the clocks tell the publisher)."""
    pings.written[f"live:turn_ping:{table.id}"] = record
    live = tables.of(table)
    await pings.reloaded(live, table)
    live.saw(table)
    return await settled(tables)


async def pinged_then_moved_on():
    """A table whose first turn this process pinged (``mine``), and the snapshot after the
    turn passed (``later``): ``(pings, tables, stream, first, mine, later)``."""
    pings, tables = owner()
    stream = snapshots()
    first = next(stream)
    pings.changed(first)
    await settled(tables)
    [(_, mine, _spec)] = pings.io.requests
    return pings, tables, stream, first, mine, turn_change(stream, first)


async def test_a_ping_another_process_posted_for_this_turn_is_taken_not_posted_again():
    """Both processes of a hand-over get the click; the one that played it pings the next
    person. The other, reloading the table, takes that ping as the live one: one ping for
    the turn, and its own ping of the turn before, which the other never knew, goes."""
    pings, tables, stream, first, mine, later = await pinged_then_moved_on()
    live = await reload_with(pings, tables, later, theirs(later, 88, wanted_ping(later, None)))
    assert pings.io.kinds() == ["post", "delete"] and pings.io.requests[1][1] == mine
    assert ping_of(live).message_id == 88 and ping_of(live).want == wanted_ping(later, None)
    written = await record_of(pings, later)
    assert written["ping"]["message"] == 88 and written["owed"] == []
    # The next turn replaces the ping taken as any other (while its record names it).
    after = turn_change(stream, later)
    pings.changed(after)
    await settled(tables)
    assert pings.io.kinds()[2:] == ["post", "delete"] and pings.io.requests[3][1] == 88


async def test_a_ping_another_process_owes_a_delete_is_left_to_it():
    pings, tables, stream, first, mine, later = await pinged_then_moved_on()
    live = await reload_with(pings, tables, later,
                             theirs(later, 88, wanted_ping(later, None), owed=[mine]))
    assert pings.io.kinds() == ["post"]  # nothing posted, and its delete is the other's
    assert ping_of(live).message_id == 88 and mine not in Pings.of(live).owed


async def test_a_record_of_an_earlier_turn_is_not_taken():
    """The other process had not pinged for this turn yet when the table was reloaded: the
    loop pings as on any change, and leaves that process's ping to it."""
    pings, tables, stream, first, mine, later = await pinged_then_moved_on()
    live = await reload_with(pings, tables, later, theirs(later, 88, wanted_ping(first, None)))
    assert pings.io.kinds() == ["post", "post", "delete"]
    assert pings.io.requests[2][1] == mine
    assert ping_of(live).message_id == pings.io.requests[1][1]
    assert ping_of(live).want == wanted_ping(later, None)
