"""The drawing processes the event loop talks to itself: answers, errors, a crashed or
cancelled job, shutdown, and no thread of the bot's per process."""

from __future__ import annotations

import asyncio
import operator
import os
import threading
import time
from concurrent.futures.process import BrokenProcessPool
from functools import partial

import pytest

from bot.ops.loop_workers import LoopWorkers, answer


@pytest.fixture
async def pool():
    workers = LoopWorkers(2)
    await asyncio.to_thread(workers.start)
    yield workers
    workers.shutdown(wait=True)


async def test_jobs_are_answered_in_other_processes_with_no_thread_in_between(pool):
    threads = threading.active_count()
    assert await pool.run(partial(operator.add, 1, 2)) == 3
    answers = await asyncio.gather(*(pool.run(partial(bytes, 20000)) for _ in range(20)))
    assert answers == [bytes(20000)] * 20
    pids = set(await asyncio.gather(*(pool.run(os.getpid) for _ in range(10))))
    assert os.getpid() not in pids and pids <= {p.pid for p in pool.processes}
    assert len(pool.processes) == 2 and threading.active_count() == threads


async def test_an_error_in_a_job_is_raised_and_the_process_carries_on(pool):
    with pytest.raises(ZeroDivisionError):
        await pool.run(partial(operator.truediv, 1, 0))
    assert await pool.run(partial(operator.mul, 6, 7)) == 42


async def test_a_crashed_process_fails_its_job_and_is_replaced():
    pool = LoopWorkers(1)
    try:
        first = await pool.run(os.getpid)  # started by its first job
        with pytest.raises(BrokenProcessPool):
            await pool.run(partial(os._exit, 3))
        assert await pool.run(os.getpid) != first
        [process] = pool.processes
        assert process.pid != first
    finally:
        pool.shutdown()


async def test_a_job_given_up_on_never_hands_its_answer_to_the_next():
    pool = LoopWorkers(1)
    try:
        await pool.run(int)
        slow = asyncio.ensure_future(pool.run(partial(time.sleep, 0.3)))
        await asyncio.sleep(0.1)
        slow.cancel()
        assert await pool.run(partial(operator.add, 2, 2)) == 4
    finally:
        pool.shutdown()


async def test_a_job_sent_now_reaches_an_idle_process_before_the_loop_turns(pool):
    await asyncio.gather(pool.run(int), pool.run(int))  # both started and idle
    # The job runs in its process while this coroutine, which never awaits, goes on: it
    # was written to the process at once, not by a task waiting for the loop to turn.
    sent = pool.send_now(partial(time.monotonic))
    assert sent is not None
    time.sleep(0.3)  # blocks the loop: a task could not have started meanwhile
    sent_by = time.monotonic()
    assert await answer(sent) < sent_by - 0.2
    second, third = pool.send_now(partial(operator.add, 1, 1)), pool.send_now(int)
    assert second is not None and third is not None
    assert pool.send_now(int) is None  # both processes busy: it waits its turn (``run``)
    assert await answer(second) == 2 and await answer(third) == 0
    with pytest.raises(ZeroDivisionError):  # an error in a job sent now is raised too
        await answer(pool.send_now(partial(operator.truediv, 1, 0)))
    pool.shutdown(wait=True)
    assert pool.send_now(int) is None


async def test_shutdown_stops_every_process_and_refuses_new_jobs(pool):
    await asyncio.gather(*(pool.run(int) for _ in range(4)))
    processes = list(pool.processes)
    pool.shutdown(wait=True)
    assert processes and all(process.poll() is not None for process in processes)
    with pytest.raises(RuntimeError, match="after shutdown"):
        await pool.run(int)


async def test_jobs_asked_for_before_shutdown_are_answered_then_the_processes_stop():
    pool = LoopWorkers(1)
    await pool.run(int)
    [process] = pool.processes
    jobs = [asyncio.ensure_future(pool.run(partial(operator.add, n, 1))) for n in range(3)]
    await asyncio.sleep(0)
    pool.shutdown(wait=False)
    assert await asyncio.gather(*jobs) == [1, 2, 3]
    await asyncio.wait_for(asyncio.to_thread(process.wait), 10)


def _note_warm(folder: str, seconds: float) -> None:
    """A warm-up that notes when it began (in its file) and takes ``seconds``."""
    with open(os.path.join(folder, str(os.getpid())), "w") as file:
        file.write(repr(time.time()))
    time.sleep(seconds)


async def test_the_processes_warm_at_the_same_time_not_one_after_another(tmp_path):
    # A drawing process's warm-up draws its card parts (a second or so): started one after
    # another, the last would be ready only after all the others' warm-ups.
    workers = LoopWorkers(2, warm=partial(_note_warm, str(tmp_path), 3.0))
    try:
        await asyncio.to_thread(workers.start)
        began = sorted(float(path.read_text()) for path in tmp_path.iterdir())
        assert len(began) == 2 and len(workers.processes) == 2
        assert began[1] - began[0] < 3.0  # the second began before the first was done
    finally:
        workers.shutdown(wait=True)
