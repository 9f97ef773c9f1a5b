"""The coalescer behind table-message edits and open-hand redraws: the newest snapshot wins,
one drain runs per table, a failing drain does not stop later ones, and closing cancels."""

import asyncio
import logging
from dataclasses import dataclass

from cogs.live.coalesce import Coalescer


@dataclass
class Snap:
    id: int
    revision: int


class Drawer:
    """A drain like the real ones: draw the newest snapshot until it is drawn; each draw
    waits for the test to let it finish."""

    def __init__(self) -> None:
        self.drawn: list[tuple[int, int]] = []
        self.running: dict[int, int] = {}  # table id → drains running now
        self.most = 0
        self.gate = asyncio.Event()
        self.fail: set[int] = set()
        self.coalescer: Coalescer[Snap] = Coalescer(self.drain, logging.getLogger("drawer"),
                                                   failed=self.failed)
        self.failures: list[int] = []

    async def drain(self, table_id: int) -> None:
        self.running[table_id] = self.running.get(table_id, 0) + 1
        self.most = max(self.most, self.running[table_id])
        try:
            done = max((r for t, r in self.drawn if t == table_id), default=-1)
            while (snap := self.coalescer.latest(table_id)) is not None and \
                    snap.revision > done:
                await self.gate.wait()
                if table_id in self.fail:
                    raise RuntimeError("Discord said no")
                self.drawn.append((table_id, snap.revision))
                done = snap.revision
        finally:
            self.running[table_id] -= 1

    def failed(self, table_id: int) -> None:
        self.failures.append(table_id)
        self.coalescer.discard(table_id)


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_a_burst_is_drawn_as_its_first_and_newest_state_by_one_task_per_table():
    drawer = Drawer()
    c = drawer.coalescer
    for revision in (1, 2, 3):
        c.put(Snap(7, revision))
        c.put(Snap(8, revision))
        await settle()
    c.put(Snap(7, 2))  # a late, older snapshot never replaces the newer one
    assert c.latest(7) == Snap(7, 3)
    drawer.gate.set()
    await settle()
    # The first drain was already waiting on revision 1; what came meanwhile is one draw.
    assert [r for t, r in drawer.drawn if t == 7] == [1, 3]
    assert [r for t, r in drawer.drawn if t == 8] == [1, 3]
    assert drawer.most == 1  # never two drains at once for one table
    await c.close()
    assert c.tracked() == 0


async def test_a_failing_drain_is_logged_and_the_next_change_is_drawn(caplog):
    drawer = Drawer()
    c = drawer.coalescer
    drawer.gate.set()
    drawer.fail.add(7)
    with caplog.at_level(logging.ERROR):
        c.put(Snap(7, 1))
        c.put(Snap(8, 1))
        await settle()
    assert drawer.failures == [7]
    assert any(r.getMessage() == "table 7: Drawer.drain failed" and r.exc_info
               for r in caplog.records)
    assert drawer.drawn == [(8, 1)]  # another table is not held up
    drawer.fail.clear()
    c.put(Snap(7, 2))
    await settle()
    assert drawer.drawn == [(8, 1), (7, 2)]
    assert c.tracked() == 2  # snapshots are kept (the owner decides when to drop them)
    await c.close()


async def test_closing_cancels_running_drains_and_ignores_later_changes():
    drawer = Drawer()
    c = drawer.coalescer
    c.put(Snap(7, 1))
    await settle()
    assert drawer.running[7] == 1
    await c.close()
    assert drawer.running[7] == 0 and c.tracked() == 0
    c.put(Snap(7, 2))
    drawer.gate.set()
    await settle()
    assert drawer.drawn == [] and c.tracked() == 0
