"""Scopes, the lifetimes of background work: work waits for its scope's life to begin, never
runs once the scope is over, one failure does not stop the rest, and ending the outer scope
ends everything under it."""

import asyncio
import functools
import logging
import warnings

from bot.tasks import Scope


async def until_cancelled(stopped: list[str], name: str) -> None:
    """Work that runs until it is cancelled, and then says so in ``stopped``."""
    try:
        await asyncio.Event().wait()
    finally:
        stopped.append(name)


async def test_work_started_before_the_life_begins_runs_once_it_has():
    ran = []
    scope = Scope("test")

    async def work(n):
        ran.append(n)

    assert scope.start(work(1)) is None and len(scope) == 1 and not scope.running
    life = asyncio.create_task(scope.life())
    await asyncio.sleep(0.01)
    assert ran == [1] and scope.running and len(scope) == 0
    scope.end()
    await asyncio.wait_for(life, 5)  # ends by itself: its work has ended
    assert scope.over and not scope.running


async def test_work_started_once_the_scope_is_over_never_runs_and_leaves_no_warning():
    scope = Scope("test")
    life = asyncio.create_task(scope.life())
    await asyncio.sleep(0)
    scope.end()
    await asyncio.wait_for(life, 5)
    ran = []

    async def work():
        ran.append(1)

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "coroutine ... was never awaited" would be one
        assert scope.start(work()) is None
        ended = Scope("ended before its life began")
        ended.start(work())
        ended.end()
    await asyncio.sleep(0.01)
    assert ran == [] and len(ended) == 0


async def test_one_piece_of_work_failing_is_logged_and_the_rest_go_on(caplog):
    done = []
    scope = Scope("table 7", done=lambda: done.append(1))
    life = asyncio.create_task(scope.life())
    await asyncio.sleep(0)  # its life has begun: work starts at once
    going = asyncio.Event()

    async def fails():
        raise RuntimeError("Discord said no")

    async def goes_on():
        await going.wait()
        return "finished"

    with caplog.at_level(logging.ERROR):
        scope.start(fails())
        other = scope.start(goes_on())
        await asyncio.sleep(0.01)
    assert "table 7: background work failed" in caplog.text
    assert other is not None and not other.done()  # a TaskGroup alone would cancel it
    going.set()
    await asyncio.sleep(0.01)
    assert other.done() and not other.cancelled() and len(done) == 2
    life.cancel()
    await asyncio.gather(life, return_exceptions=True)


async def test_cancelling_the_outer_life_cancels_the_work_of_every_scope_inside_it():
    outer, inner = Scope("outer"), Scope("inner")
    stopped: list[str] = []
    forever = functools.partial(until_cancelled, stopped)

    life = asyncio.create_task(outer.life())
    outer.start(inner.life())
    outer.start(forever("outer's"))
    inner.start(forever("inner's"))
    await asyncio.sleep(0.01)
    assert stopped == [] and inner.running
    life.cancel()
    await asyncio.gather(life, return_exceptions=True)
    assert sorted(stopped) == ["inner's", "outer's"]
    assert outer.over and inner.over
    ran = []

    async def later():
        ran.append(1)

    inner.start(later())  # nothing runs in a scope that is over
    await asyncio.sleep(0.01)
    assert ran == []


async def test_work_started_while_the_scope_is_being_cancelled_never_runs():
    """Shutting down, a piece of work on its way out may ask for more (a delete, say): it
    must not run past the scope's end, where nothing would cancel it."""
    scope = Scope("test")
    ran = []

    async def later():
        ran.append("later")

    async def stopping():
        try:
            await asyncio.Event().wait()
        finally:
            scope.start(later())

    life = asyncio.create_task(scope.life())
    await asyncio.sleep(0)
    scope.start(stopping())
    await asyncio.sleep(0.01)
    life.cancel()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        await asyncio.wait_for(asyncio.gather(life, return_exceptions=True), 5)
        await asyncio.sleep(0.01)
    assert ran == [] and scope.over and len(scope) == 0


async def test_a_scope_within_another_ends_with_it_even_before_its_life_began():
    """An inner scope's life is work in the outer one: ending the outer ends the inner, and
    work asked of an inner scope whose life never got to begin (the outer was cancelled in
    the same moment) is dropped, not left for the garbage collector to warn of."""
    import gc

    outer, inner, late = Scope("outer"), Scope("inner"), Scope("late")
    stopped: list[str] = []
    forever = functools.partial(until_cancelled, stopped)

    async def never():
        stopped.append("never")

    life = asyncio.create_task(outer.life())
    inner.within(outer)
    inner.start(forever("inner's"))
    await asyncio.sleep(0.01)
    assert inner.running
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        life.cancel()  # shutting down: before the outer life sees it, one more scope comes
        late.within(outer)
        late.start(never())
        await asyncio.gather(life, return_exceptions=True)
        gc.collect()
    assert not [w for w in caught if "never awaited" in str(w.message)]
    assert stopped == ["inner's"] and inner.over and late.over and len(late) == 0
    after = Scope("after")
    after.within(outer)  # an outer scope that is over: over at once
    assert after.over
    unbegun, waiting = Scope("unbegun"), Scope("waiting")
    waiting.within(unbegun)
    waiting.start(never())
    unbegun.end()  # its life never began: nor will the one inside it
    assert waiting.over and len(waiting) == 0 and stopped == ["inner's"]


async def test_a_cancelled_life_gives_its_work_the_grace_then_cancels_the_rest():
    """Cancelled, a scope awaits its grace while its work goes on (a delete in flight may
    land), then cancels what is left; nothing new starts meanwhile."""
    outer, inner = Scope("outer"), Scope("owners")
    landed, ran = asyncio.Event(), []

    async def delete():
        await asyncio.sleep(0.05)
        landed.set()

    async def forever():
        try:
            await asyncio.Event().wait()
        finally:
            ran.append("cancelled")

    async def later():
        ran.append("later")

    async def grace():
        inner.start(later())  # the scope is ending: this never runs
        await landed.wait()
        ran.append("landed")

    outer.begin()
    inner.within(outer, grace=grace)
    inner.start(delete())
    inner.start(forever())
    await asyncio.sleep(0.01)
    await asyncio.wait_for(outer.close(), 5)
    assert ran == ["landed", "cancelled"] and inner.over


async def test_work_cancelled_before_it_began_is_not_warned_of_and_has_ended():
    """Work started in the moment a scope's life is cancelled (its task made, not yet run)
    is cancelled before it begins: it never ran, counts as ended, and nothing warns that
    it was never awaited."""
    import gc

    done = []
    scope = Scope("test", done=lambda: done.append(1))
    life = asyncio.create_task(scope.life())
    await asyncio.sleep(0)  # its life has begun

    async def work():
        done.append("ran")

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        life.cancel()
        assert scope.start(work()) is not None  # before the life has seen its cancel
        await asyncio.gather(life, return_exceptions=True)
        gc.collect()
    assert not [w for w in caught if "never awaited" in str(w.message)]
    assert done == [1] and len(scope) == 0
