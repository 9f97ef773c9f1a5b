"""The owner as a reconciler, on its own with a recording kind of message: a burst of
changes is drawn once, as its newest state, by one loop per kind, a kind that can't
reach its message waits for the next snapshot, a failing step is logged and tried again,
a closed table is let go once nothing is held, and closing cancels."""

import asyncio
import logging
from dataclasses import dataclass

from cogs.live.owner import LiveTable, LiveTables
from cogs.live.ways import Wait


@dataclass
class Snap:
    id: int
    revision: int
    is_open: bool = True
    channel_id: int = 5
    guild_id: int = 6
    private: bool = False


class Recorded:
    """What a recording kind shows at one table: the revision it last sent."""

    def __init__(self, kind: "Recording") -> None:
        self.kind = kind
        self.revision = -1
        self.holding = False

    def behind(self, table) -> bool:
        return self.revision < table.revision

    async def step(self, live: LiveTable) -> None:
        kind = self.kind
        kind.running += 1
        kind.most = max(kind.most, kind.running)
        try:
            await kind.gate.wait()
            table = live.newest
            if kind.refuse:
                raise Wait()
            if kind.fail:
                kind.fail -= 1
                raise RuntimeError("Discord said no")
            kind.sent.append((live.id, table.revision))
            self.revision = table.revision
        finally:
            kind.running -= 1

    def holds(self) -> bool:
        return self.holding

    def give_up(self) -> None:
        self.kind.given_up.append(True)


class Recording:
    """A kind of message that records what it sends; each send waits for ``gate``."""

    name = "recording"

    def __init__(self) -> None:
        self.sent: list[tuple[int, int]] = []
        self.gate = asyncio.Event()
        self.running = 0
        self.most = 0
        self.refuse = False
        self.fail = 0
        self.given_up: list[bool] = []

    def shown_for(self, live):
        return Recorded(self)


async def settle(rounds: int = 10) -> None:
    for _ in range(rounds):
        await asyncio.sleep(0)


def registry():
    kind = Recording()
    released: list[int] = []
    tables = LiveTables(released=lambda live: released.append(live.id))
    tables.register(kind)
    tables.scope.begin()  # outermost here: in the bot, it lives within the bot's lifetime
    return kind, tables, released


async def test_a_burst_is_drawn_once_as_its_newest_state_by_one_loop_per_table():
    kind, tables, _ = registry()
    for revision in (1, 2, 3):
        for table_id in (7, 8):
            tables.of(Snap(table_id, revision)).saw(Snap(table_id, revision))
        await settle()
    live = tables.get(7)
    assert live.saw(Snap(7, 2)).revision == 3  # a late, older snapshot never wins
    kind.gate.set()
    await settle()
    # The step waiting for its turn when revisions 2 and 3 came sends the newest: once.
    assert [r for t, r in kind.sent if t == 7] == [3]
    assert [r for t, r in kind.sent if t == 8] == [3]
    assert kind.most == 2  # one loop per table: never two at once for one table
    assert not live.converging(Recording.name)
    await tables.scope.close()


async def test_a_kind_that_cannot_reach_its_message_waits_for_the_next_snapshot():
    kind, tables, _ = registry()
    kind.gate.set()
    kind.refuse = True
    live = tables.of(Snap(7, 1))
    live.saw(Snap(7, 1))
    await settle()
    assert kind.sent == [] and not live.converging(Recording.name)  # no retrying
    kind.refuse = False
    live.saw(Snap(7, 2))  # a new snapshot (or token) starts it again
    await settle()
    assert kind.sent == [(7, 2)]
    await tables.scope.close()


async def test_a_failing_step_is_logged_once_and_tried_again(caplog, monkeypatch):
    monkeypatch.setattr("cogs.live.owner.backoff", lambda failures: 0)
    kind, tables, _ = registry()
    kind.gate.set()
    kind.fail = 2
    with caplog.at_level(logging.INFO, logger="cogs.live.owner"):
        tables.of(Snap(7, 1)).saw(Snap(7, 1))
        await settle(30)
    assert kind.sent == [(7, 1)]
    said = [r.getMessage() for r in caplog.records]
    assert said.count("table 7: could not update its recording; retrying") == 1
    assert "table 7: its recording is up to date again after 2 failed tries" in said
    await tables.scope.close()


async def test_a_closed_table_gives_up_after_a_few_tries_and_is_let_go(monkeypatch):
    monkeypatch.setattr("cogs.live.owner.backoff", lambda failures: 0)
    kind, tables, released = registry()
    kind.gate.set()
    kind.fail = 100
    tables.of(Snap(7, 1, is_open=False)).saw(Snap(7, 1, is_open=False))
    await settle(30)
    assert kind.given_up == [True] and kind.sent == []
    assert released == [7] and tables.get(7) is None


async def test_a_closed_table_is_kept_while_a_kind_holds_something():
    kind, tables, released = registry()
    kind.gate.set()
    live = tables.of(Snap(7, 1))
    live.saw(Snap(7, 1))
    await settle()
    live.kinds[Recording.name].holding = True  # say, a ping still to delete
    live.saw(Snap(7, 2, is_open=False))
    await settle()
    assert kind.sent == [(7, 1), (7, 2)] and released == []
    live.kinds[Recording.name].holding = False
    live.settle()
    assert released == [7] and len(tables) == 0


async def test_closing_cancels_running_loops_and_ignores_later_changes():
    kind, tables, _ = registry()
    live = tables.of(Snap(7, 1))
    live.saw(Snap(7, 1))
    await settle()
    assert kind.running == 1
    await tables.scope.close()
    assert kind.running == 0 and live.scope.over
    later = tables.of(Snap(8, 2))  # shutting down: an owner that sends nothing
    later.saw(Snap(8, 2))
    kind.gate.set()
    await settle()
    assert kind.sent == [] and later.scope.over and tables.get(8) is None


async def test_a_kind_that_never_catches_up_stops_instead_of_spinning(caplog):
    class Stuck(Recorded):
        async def step(self, live):
            await asyncio.sleep(0)  # sends, yet still shows what it showed

    kind, tables, _ = registry()
    kind.shown_for = lambda live: Stuck(kind)
    live = tables.of(Snap(7, 1))
    with caplog.at_level(logging.WARNING, logger="cogs.live.owner"):
        live.saw(Snap(7, 1))
        await settle(200)
    assert not live.converging(Recording.name)
    assert "table 7: its recording is still behind after 50 steps" in caplog.text
    await tables.scope.close()


def test_requests_that_cross_leave_what_the_message_shows_unknown():
    """Discord applies two requests in flight at once in either order: an answer drawn from
    revision 9 that lands after an edit of revision 10 leaves the message showing either,
    so neither may be recorded as what it shows."""
    from cogs.live.owner import Flights

    flights = Flights()
    with flights.fly(10) as edit:
        with flights.fly(9) as answer:
            pass
    assert Flights.outcome(answer) is None and Flights.outcome(edit) is None
    with flights.fly(11) as alone:
        pass
    assert Flights.outcome(alone) == 11
    # Two requests drawing the same state may land in either order: it shows that state.
    with flights.fly(12) as first, flights.fly(12) as second:
        pass
    assert Flights.outcome(first) == Flights.outcome(second) == 12
    assert len(flights) == 0


def test_the_table_message_behind_after_an_older_answer_lands_over_a_newer_edit():
    """The race of two writers, in isolation: what the table message shows is written
    only from requests that landed alone; crossed ones leave it behind, to be drawn
    again."""
    from types import SimpleNamespace

    from cogs.live.table_message import MessageShown

    driver = SimpleNamespace(quiet=lambda live: False)
    live = SimpleNamespace(newest=SimpleNamespace(message_id=111, revision=10, private=False))
    shown = MessageShown(driver, live)
    with shown.flights.fly((10, 0, False)) as edit, shown.flights.fly((9, 0, False)) as answer:
        pass
    shown.landed(edit, 111, "ten", None)
    shown.landed(answer, 111, "nine", None)
    assert shown.behind(live.newest)  # either may show: drawn again
    with shown.flights.fly((10, 0, False)) as again:
        pass
    shown.landed(again, 111, "ten", None)
    assert not shown.behind(live.newest)


async def test_a_table_reached_only_through_tokens_is_unreachable_with_none():
    """A group DM's owner with no token held (after a restart, or once every token was
    refused) can show nothing: its clock must not play stand-ins meanwhile."""
    tables = LiveTables()  # (tokens only)
    tables.scope.begin()
    live = tables.of(Snap(7, 1, private=True))
    assert not live.reachable() and not live.reachable(60.0)
    await tables.scope.close()


async def test_an_owner_let_go_ends_its_life_and_closing_stops_what_owners_run():
    """Lifetimes are scopes: a closed table's owner, let go of, has ended its own; closing
    the registry ends every owner's, with the work each runs (a delete, a check)."""
    kind, tables, released = registry()
    kind.gate.set()
    closed = tables.of(Snap(7, 1, is_open=False))
    closed.saw(Snap(7, 1, is_open=False))
    await settle()
    assert released == [7] and closed.scope.over
    ran = []

    async def chore(name):
        ran.append(name)
        try:
            await asyncio.Event().wait()
        finally:
            ran.append(f"{name} stopped")

    assert closed.background(chore("late")) is None  # nothing runs for an owner let go of
    playing = tables.of(Snap(8, 1))
    playing.background(chore("delete"))
    await settle()
    assert ran == ["delete"] and not playing.idle()
    await tables.scope.close()
    assert ran == ["delete", "delete stopped"] and playing.scope.over


async def test_closing_before_an_owners_life_began_leaves_nothing_unawaited():
    """Work asked of an owner whose life has not begun yet (a delete, right as the bot
    stops) is dropped cleanly at shutdown, not left for the garbage collector to warn of."""
    import gc
    import warnings

    kind, tables, _ = registry()
    live = tables.of(Snap(7, 1))

    async def chore():
        pass

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert live.background(chore()) is None  # waits for the owner's life
        await tables.scope.close()  # before that life began
        gc.collect()
    assert not [w for w in caught if "never awaited" in str(w.message)]
    assert live.scope.over


async def test_a_step_waits_while_a_tap_is_being_answered_and_not_for_long():
    """Answers first: a loop's next step waits for the taps being answered (a burst's
    answers go out before what follows them), and for the registry's ``most`` seconds at
    most, so a steady stream of taps never stops the loops."""
    kind, tables, _ = registry()
    kind.gate.set()
    with tables.answers.answering():
        tables.of(Snap(7, 1)).saw(Snap(7, 1))
        await settle()
        assert kind.sent == []  # held while the tap is answered
    await settle()
    assert kind.sent == [(7, 1)]  # and sent once it is
    tables.answers.most = 0.01
    with tables.answers.answering():
        tables.of(Snap(7, 2)).saw(Snap(7, 2))
        await asyncio.sleep(0.2)  # a tap that takes long: the loop goes on meanwhile
        assert kind.sent == [(7, 1), (7, 2)]
    await tables.scope.close()
