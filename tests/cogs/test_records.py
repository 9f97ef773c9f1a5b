"""The messages' records (``cogs.live.records.Notes``): written in the background, in
batches, and at once when a record asks for it, without the records after it."""

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
    notes = Notes(store, delay=3600)
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
    notes = Notes(store, delay=3600)
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
    notes = Notes(store, delay=3600)
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
