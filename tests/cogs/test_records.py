"""The messages' records (``cogs.live.records.Notes``): written in the background, in
batches, and at once when a record asks for it (after a moment: ``soon``), without the
records after it."""

import asyncio

from cogs.live.records import Notes


class SlowStore:
    """Writes each batch once ``go`` is set (the first one waits), and keeps them."""

    def __init__(self) -> None:
        self.batches: list[dict[str, str | None]] = []
        self.go = asyncio.Event()
        self.writing = asyncio.Event()

    async def state_values(self, prefix):
        return {}

    async def set_state_values(self, values):
        self.writing.set()
        await self.go.wait()
        self.batches.append(dict(values))


async def turns(n: int = 20) -> None:
    for _ in range(n):
        await asyncio.sleep(0)


async def test_a_record_after_a_batch_written_at_once_waits_for_the_next_batch():
    store = SlowStore()
    notes = Notes(store, delay=3600, soon=0)
    notes.note("ping:1:10", "a", now=True)
    notes.note("ping:1:11", "b", now=True)  # the same moment: the same batch
    await store.writing.wait()
    notes.note("ping:2:20", "c", now=True)  # while that batch is written: the next, at once
    store.go.set()
    await turns()
    assert store.batches == [{"ping:1:10": "a", "ping:1:11": "b"}, {"ping:2:20": "c"}]
    # An ordinary record now waits to be batched with others, as if no record had asked
    # for a batch at once: that ask was used up by the batch it went in.
    notes.note("live:table_message:1", "d")
    await turns()
    assert len(store.batches) == 2 and notes.pending("live:table_message:1")
    await notes.close()  # shutting down writes what is left
    assert store.batches[2] == {"live:table_message:1": "d"}


async def test_an_ordinary_record_waiting_for_its_batch_goes_with_the_next_one_at_once():
    store = SlowStore()
    store.go.set()
    notes = Notes(store, delay=3600, soon=0)
    notes.note("hand:1:5", "x")
    await turns()
    assert store.batches == []
    notes.note("ping:1:10", "a", now=True)
    await turns()
    assert store.batches == [{"hand:1:5": "x", "ping:1:10": "a"}]
    await notes.close()
    assert len(store.batches) == 1


async def test_records_noted_while_a_batch_is_written_at_once_wait_for_their_own_batch():
    # Owners note what their messages show after each step: those that land while a turn
    # ping's record is being written wait for the next batch (with the next ping's, or when
    # it is due), instead of a transaction of their own at once.
    store = SlowStore()
    notes = Notes(store, delay=3600, soon=0)
    notes.note("ping:1:10", "a", now=True)
    await store.writing.wait()
    notes.note("live:table_message:1", "d")  # during the write, not asking for now
    store.go.set()
    await turns()
    assert store.batches == [{"ping:1:10": "a"}] and notes.pending("live:table_message:1")
    notes.note("ping:1:10", None, now=True)  # the next ping's record takes it along
    await turns()
    assert store.batches[1] == {"live:table_message:1": "d", "ping:1:10": None}
    await notes.close()
    assert len(store.batches) == 2


async def test_records_asked_for_at_once_within_a_moment_share_one_batch():
    """At a human pace, the taps of different tables each asked for a batch at once, one
    transaction each: those within ``soon`` of the first go together, and only they."""
    store = SlowStore()
    store.go.set()
    notes = Notes(store, delay=3600, soon=1.0)
    notes.note("live:turn_ping:1", "a", now=True)
    await turns()
    notes.note("live:open_hands:2", "b", now=True)
    await turns()
    assert store.batches == []  # (the moment is not over)
    await written(store, 1)
    assert store.batches == [{"live:turn_ping:1": "a", "live:open_hands:2": "b"}]
    notes.note("live:turn_ping:3", "c", now=True)
    await written(store, 2)
    assert store.batches[1:] == [{"live:turn_ping:3": "c"}]
    await notes.close()
    assert len(store.batches) == 2


async def test_a_record_asked_for_at_once_does_not_wait_for_the_moment_at_shutdown():
    store = SlowStore()
    store.go.set()
    notes = Notes(store, delay=3600, soon=3600)
    notes.note("live:turn_ping:1", "a", now=True)
    await turns()
    await asyncio.wait_for(notes.close(), 10)
    assert store.batches == [{"live:turn_ping:1": "a"}]


async def written(store: SlowStore, batches: int) -> None:
    """Until ``store`` holds that many batches (however slow the machine)."""
    for _ in range(1000):
        if len(store.batches) >= batches:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{len(store.batches)} batches written, not {batches}")
