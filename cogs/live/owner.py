"""Each live table's owner, a reconciler, and the one registry of owners.

A ``LiveTable`` holds the newest snapshot of its table, once (``newest``), and one ``Shown``
per kind of message the table has on Discord: the table message, the turn ping, the open
hands, the end-of-hand notice. A ``Shown`` knows what its message shows now, compares it with
what the newest snapshot wants (``behind``), and sends one step towards it (``step``). The
owner runs one loop per kind, which steps until nothing is behind: a change is reported once
(``saw``) and every kind catches up from the same snapshot. A tap's own answer is one more way
a kind sends: it reports what it drew to its ``Shown``, and the loop then finds nothing left to
do. Stale is found by comparing what is shown with what is wanted, never by a flag.

A kind that cannot reach its message now (Discord refused it, or no token is left to send
through) raises ``Wait``: its loop stops until the next snapshot or the next token. Any other
error is logged once and retried with a back-off; a closed table's kinds give up after a few
tries, so a table nobody can reach is not kept for ever.

``LiveTables`` makes an owner on a table's first use (a change, or a restore at start-up),
with one ``Shown`` from each registered ``Kind``, and lets go of it once the table is closed
and no kind holds anything. Lifetimes are scopes (``bot.tasks.Scope``): each owner's loops and
short work run in its own TaskGroup, whose life runs in the registry's, whose life runs in the
bot's; letting go of an owner is ending its scope, and the end of the bot's at shutdown stops
every owner and everything they run. So "nothing leaks" reads: no owner for a closed table.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

import discord

from bot.tables.service import Table
from bot.tasks import Scope, backoff
from cogs.client import Interaction
from cogs.live.answers_first import AnswersFirst
from cogs.live.records import Notes
from cogs.live.tokens import KEEP, Held, Tokens
from cogs.live.ways import TokenWay, Wait, Way

log = logging.getLogger(__name__)

CLOSED_TRIES = 3  # a closed table's kind is tried this often after an error, then given up
MAX_STEPS = 50  # steps towards one snapshot, at most, before a loop waits for the next
# A request to a message waits this long at most for the others on their way to it to land
# (``Flights.clear``): well within the 3 s a tap's answer has.
HOLD_SECONDS = 1.0


class Shown(Protocol):
    """What one kind of message shows for one table, and how to bring it to what the newest
    snapshot wants."""

    def behind(self, table: Table) -> bool:
        """Whether what it shows differs from what ``table`` wants."""
        ...

    async def step(self, live: LiveTable) -> None:
        """Send one step towards what ``live.newest`` wants (read it again after any wait:
        it may have moved on). Raise ``Wait`` when the message can't be reached now."""
        ...

    def holds(self) -> bool:
        """Whether it holds something on Discord the owner must not let go of yet."""
        ...

    def give_up(self) -> None:
        """A closed table's message could not be brought up to date: stop trying."""
        ...

    def dump(self) -> str | None:
        """What it shows, as one record the next start restores (None: nothing to keep;
        a kind that keeps records of its own)."""
        ...

    def restore(self, record: str) -> None:
        """What the last run's ``dump`` wrote down (at start-up, before the loop runs)."""
        ...


class Kind(Protocol):
    """A kind of message: makes the ``Shown`` of each live table."""

    name: str

    def shown_for(self, live: LiveTable) -> Shown:
        ...


K = TypeVar("K", bound=Kind)
S = TypeVar("S")
T = TypeVar("T")


class Flight(Generic[T]):
    """One request on its way to a message, carrying what it draws (``shows``)."""

    def __init__(self, shows: T, flights: Flights[T]) -> None:
        self.shows = shows
        self.crossed: set[Any] = set()  # what other requests to the message drew meanwhile
        self.landing: asyncio.Future[None] | None = None  # made for whoever waits for it
        self.order: int | None = None  # the how-manieth to land on the message (once landed)
        self._flights = flights

    def answered(self) -> None:
        """Discord answered the request: it has landed, though discord.py may still be
        waiting out a rate limit before it returns (``cogs.transport.answered``)."""
        self._flights.land(self)


class Flights(Generic[T]):
    """The requests on their way to one message. Discord applies two requests in flight at
    once in either order, so a request that crossed another drawing something else leaves
    the message showing one of the two: not known (``outcome`` answers None), and the kind
    draws it again. One that flew alone, or beside requests drawing the same, is exact. A
    request that waits until those on their way have landed (``clear``) applies after
    them."""

    def __init__(self) -> None:
        self._flying: list[Flight[T]] = []
        self._landed = 0  # how many requests have landed

    def __len__(self) -> int:
        return len(self._flying)

    @contextmanager
    def fly(self, shows: T) -> Iterator[Flight[T]]:
        """Hold while a request that draws ``shows`` is on its way; once it landed,
        ``outcome`` says what the message shows."""
        flight = Flight(shows, self)
        for other in self._flying:
            other.crossed.add(shows)
            flight.crossed.add(other.shows)
        self._flying.append(flight)
        try:
            yield flight
        finally:
            self.land(flight)

    def land(self, flight: Flight[T]) -> None:
        """``flight`` has landed (once: it may be told so before its request returns)."""
        if flight.order is None:
            self._landed += 1
            flight.order = self._landed
        if flight in self._flying:
            self._flying.remove(flight)
        if flight.landing is not None and not flight.landing.done():
            flight.landing.set_result(None)

    async def clear(self, until: float, now: Callable[[], object], drawn: object) -> bool:
        """Wait until no request is on its way (until the event loop's time ``until`` at
        most): one sent next then applies after them all. False as soon as, after a wait,
        what it would draw ``now()`` is no longer what it ``drawn``: draw it again first."""
        loop = asyncio.get_running_loop()
        while self._flying and (left := until - loop.time()) > 0:
            for flight in self._flying:
                if flight.landing is None:
                    flight.landing = loop.create_future()
            await asyncio.wait([f.landing for f in self._flying if f.landing is not None],
                               timeout=left)
            if now() != drawn:
                return False
        return True

    @staticmethod
    def outcome(flight: Flight[T]) -> T | None:
        """What the message shows after ``flight`` landed (None: not known)."""
        return flight.shows if not flight.crossed - {flight.shows} else None


class Tries:
    """A loop's tries to bring ``what`` (a kind's message, a hand) at table ``live`` up to
    its newest snapshot: the steps towards one snapshot (one that never gets there must not
    spin: ``MAX_STEPS``), and the failures in a row (the first is logged, each is retried
    after a back-off, a closed table's given up after ``CLOSED_TRIES``)."""

    def __init__(self, live: LiveTable, what: str) -> None:
        self.live = live
        self.what = what
        self.failures = 0
        self._steps = 0
        self._revision = live.newest.revision

    def another(self) -> bool:
        """Count one more step; False (and logged) once there were too many towards the
        newest snapshot: wait for the next change."""
        revision = self.live.newest.revision
        self._steps = self._steps + 1 if revision == self._revision else 1
        self._revision = revision
        if self._steps > MAX_STEPS:
            log.warning("table %s: its %s is still behind after %d steps; waiting for the "
                        "next change", self.live.id, self.what, MAX_STEPS)
            return False
        return True

    async def failed(self) -> bool:
        """A step raised (call it where that is caught): True (logged) if the table is
        closed and it has failed often enough to give up; else False, after a back-off."""
        self.failures += 1
        if self.failures == 1:
            log.warning("table %s: could not update its %s; retrying", self.live.id,
                        self.what, exc_info=True)
        if not self.live.newest.is_open and self.failures >= CLOSED_TRIES:
            log.warning("table %s closed: its %s was left as it was", self.live.id, self.what)
            return True
        await asyncio.sleep(backoff(self.failures))
        return False

    def succeeded(self) -> None:
        """A step went through: the failures in a row are over (logged if there were)."""
        if self.failures:
            log.info("table %s: its %s is up to date again after %d failed tries",
                     self.live.id, self.what, self.failures)
            self.failures = 0


Released = Callable[["LiveTable"], None]
RECORDS = "live:"  # record key prefix: live:<kind>:<table> → what that kind shows there


def record_key(name: str, table_id: int) -> str:
    """The key of kind ``name``'s record at table ``table_id``."""
    return f"{RECORDS}{name}:{table_id}"
WayMaker = Callable[["LiveTable"], Way]


def token_way(live: LiveTable) -> Way:
    """The tokens of the interactions answered at ``live``: the way with no channel."""
    return TokenWay(live.id, live.tokens, live.clock)


@dataclass(frozen=True)
class Drawing:
    """A table message as it was sent: the fingerprint of what was shown is taken from
    this, never from drawing it again."""

    embed: discord.Embed
    view: discord.ui.View


class LiveTable:
    """The owner of one running table's state on the Discord side."""

    def __init__(self, table: Table, kinds: Sequence[Kind], *,
                 released: Released | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 ways: WayMaker | None = None, notes: Notes | None = None,
                 answers: AnswersFirst | None = None) -> None:
        self.id = table.id
        self.channel_id = table.channel_id
        self.guild_id = table.guild_id
        self.newest = table  # the newest snapshot seen: what every kind should show
        self.clock = clock  # the time the tokens' ages are counted in
        self._released = released
        # The interactions answered at the table: a change made without one (an AI's move)
        # posts its ping and notice through the newest one's token. A table in a group DM
        # or a DM has no other way to send, and keeps more of them.
        self.tokens = Tokens(KEEP) if table.private else Tokens(1, makers=False)
        # How its messages reach Discord, chosen once: its channel, or the tokens above; and
        # the messages posted beside the table message (a turn ping, a notice), which may
        # borrow a tap's token in a server too.
        self.way: Way = (ways or token_way)(self)
        self.aside: Way = self.way.borrowing(self.tokens, self.clock)
        # Its lifetime: its kinds' loops and its short work (deletes, checks) run in it.
        self.scope = Scope(f"table {table.id}", done=self.settle)
        self._woken_early = False  # woken before its life began: it wakes as it begins
        self._alarm: asyncio.TimerHandle | None = None
        self._loops: dict[str, asyncio.Task[None]] = {}
        self.kinds: dict[str, Shown] = {}
        for kind in kinds:
            self.kinds[kind.name] = kind.shown_for(self)
        self.notes = notes  # where each kind's record is written down
        self._records: dict[str, str | None] = {}  # each kind's record, as written
        # The taps being answered, which each step of its loops lets go first.
        self.answers = answers or AnswersFirst()

    def shown(self, name: str, as_: type[S]) -> S:
        """The ``Shown`` of kind ``name``, which is an ``as_`` (the kind's own class)."""
        shown = self.kinds[name]
        if not isinstance(shown, as_):
            raise TypeError(name, type(shown), as_)
        return shown

    # --- snapshots -----------------------------------------------------------------------

    def keep(self, table: Table) -> Table:
        """Keep ``table`` if it is the newest snapshot seen; returns the newest. (Changes are
        reported out of order: a tap's answer may land after a later change was shown. An
        equal revision replaces it: it may carry a detail the older object lacked, such as
        the message id.)"""
        if table.revision >= self.newest.revision:
            self.newest = table
        return self.newest

    def saw(self, table: Table) -> Table:
        """Keep ``table`` if it is the newest, and bring every kind up to it."""
        newest = self.keep(table)
        self.wake()
        return newest

    async def _begin(self) -> None:
        """Its kinds catch up with the snapshots seen before its life began."""
        self.wake()

    def wake(self) -> None:
        """Start the loop of each kind that is behind the newest snapshot (and has none).
        (Before the owner's life began, its first step is to wake.)"""
        if not self.scope.running:
            if not self._woken_early:
                self._woken_early = True
                self.scope.start(self._begin())
            return
        for name, shown in self.kinds.items():
            loop = self._loops.get(name)
            if (loop is None or loop.done()) and shown.behind(self.newest):
                started = self.scope.start(self._converge(name, shown))
                if started is not None:
                    self._loops[name] = started

    async def _converge(self, name: str, shown: Shown) -> None:
        tries = Tries(self, name.replace("_", " "))  # in the log: "its table message"
        try:
            while shown.behind(self.newest) and tries.another():
                try:
                    await self.answers.turn()
                    await shown.step(self)
                except Wait:
                    break
                except asyncio.CancelledError:
                    raise
                except Exception:
                    if await tries.failed():
                        shown.give_up()
                        break
                    continue
                self.record(name)
                tries.succeeded()
        finally:
            if self._loops.get(name) is asyncio.current_task():
                del self._loops[name]

    def alarm(self, delay: float) -> None:
        """Wake every kind in ``delay`` seconds (a message that must change with time: a
        group DM's table message before its last token lapses)."""
        if self._alarm is not None:
            self._alarm.cancel()
        self._alarm = asyncio.get_running_loop().call_later(max(0.0, delay), self.wake)

    # --- each kind's record, for the next start ---------------------------------------

    def record(self, name: str, *, now: bool = False) -> None:
        """Write down what kind ``name`` shows now, if that changed (``live:<kind>:<table>``,
        in the records' next batch; with ``now``, in a batch that does not wait: a record
        a restart can't do without); a closed table's records go once their kind holds
        nothing (a ping still to delete is kept for the next start)."""
        if self.notes is None:
            return
        shown = self.kinds[name]
        text = shown.dump() if self.newest.is_open or shown.holds() else None
        if text != self._records.get(name):
            self._records[name] = text
            self.notes.note(record_key(name, self.id), text, now=now)

    def restore(self, records: dict[str, str]) -> None:
        """What the last run wrote down that each kind shows (by kind name)."""
        for name, text in records.items():
            shown = self.kinds.get(name)
            if shown is not None:
                self._records[name] = text
                shown.restore(text)

    def converging(self, name: str) -> bool:
        """Whether kind ``name``'s loop is running."""
        loop = self._loops.get(name)
        return loop is not None and not loop.done()

    # --- interactions at the table -------------------------------------------------------

    def heard(self, interaction: Interaction, original: int | None = None) -> None:
        """``interaction`` was answered at the table (``original``: the id of the message
        its answer is): messages may go through its token."""
        if interaction.response.is_done() and interaction.channel_id == self.channel_id:
            self.tokens.heard(interaction, self.clock(), original)

    def sender(self, max_age: float) -> Held | None:
        """The newest token at most ``max_age`` seconds old with a follow-up to spare."""
        return self.tokens.sender(self.clock(), max_age)

    def reachable(self, within: float = 0.0) -> bool:
        """Whether a change can be shown now (and still ``within`` seconds from now): in a
        server always; in a group DM or a DM only while a token is alive."""
        lapses = self.way.lapses()
        return lapses is None or lapses > self.clock() + within

    # --- short background work, and letting go -------------------------------------------

    def background(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None] | None:
        """Run ``work`` in this table's scope (None: not now: once the owner's life has
        begun, or never once it has ended)."""
        return self.scope.start(work)

    def idle(self) -> bool:
        """Nothing on its way and nothing held: no loop, background work, or kind holding
        a message (a live ping, an open hand)."""
        return not len(self.scope) and not any(shown.holds() for shown in self.kinds.values())

    def settle(self) -> None:
        """Let go of a closed table with nothing left to do: its records go, its scope
        ends, and the registry forgets it."""
        if self.scope.over or self.newest.is_open or not self.idle():
            return
        for name in self.kinds:
            self.record(name)
        if self._alarm is not None:
            self._alarm.cancel()
        self.scope.end()
        if self._released is not None:
            self._released(self)


class LiveTables:
    """The registry: one ``LiveTable`` per running table, each with every registered kind."""

    def __init__(self, kinds: Sequence[Kind] = (), *,
                 released: Released | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 ways: WayMaker | None = None, notes: Notes | None = None) -> None:
        self._tables: dict[int, LiveTable] = {}
        # The taps being answered: every owner's loops let them go first.
        self.answers = AnswersFirst()
        self.notes = notes
        self.ways = ways  # each owner's way of sending (None: tokens only)
        self.clock = clock  # the owners' clock for tokens (tests move it)
        self.kinds: list[Kind] = list(kinds)
        self._released = released
        # The lifetime every owner lives in, itself within the bot's (``Publisher.live_in``):
        # it ends when the bot stops.
        self.scope = Scope("owners")

    def register(self, kind: K) -> K:
        """Add a kind of message: every owner has one. Returns it."""
        self.kinds.append(kind)
        for live in self._tables.values():
            live.kinds[kind.name] = kind.shown_for(live)
        return kind

    async def read_records(self) -> dict[int, dict[str, str]]:
        """What the last run wrote down that each kind shows: by table, then kind."""
        if self.notes is None:
            return {}
        records: dict[int, dict[str, str]] = {}
        for key, text in (await self.notes.read(RECORDS)).items():
            name, _, table_id = key[len(RECORDS):].rpartition(":")
            if table_id.isdigit() and name:
                records.setdefault(int(table_id), {})[name] = text
        return records

    def __len__(self) -> int:
        return len(self._tables)

    def __iter__(self) -> Iterator[LiveTable]:
        return iter(list(self._tables.values()))

    def get(self, table_id: int) -> LiveTable | None:
        return self._tables.get(table_id)

    def of(self, table: Table) -> LiveTable:
        """The table's owner, made on first use (a closed table's too: its last edit and
        ping deletion are still to come), keeping ``table`` if it is the newest."""
        live = self._tables.get(table.id)
        if live is None:
            live = LiveTable(table, self.kinds, released=self._settle,
                             clock=lambda: self.clock(), ways=self.ways, notes=self.notes,
                             answers=self.answers)
            if self.stopped:  # shutting down: an owner whose life never begins
                live.scope.end()
                return live
            self._tables[table.id] = live
            live.scope.within(self.scope)  # it lasts until let go of, or until the bot stops
        live.keep(table)
        return live

    @property
    def stopped(self) -> bool:
        """Shut down: owners made now never send."""
        return self.scope.over

    def _settle(self, live: LiveTable) -> None:
        if self._tables.get(live.id) is live:
            del self._tables[live.id]
            if self._released is not None:
                self._released(live)
