"""The AI players' worker processes: answers, errors, a crashed worker, and shutdown."""

from __future__ import annotations

import asyncio
import operator
import os
import time
from concurrent.futures.process import BrokenProcessPool

import pytest

from bot.ops.workers import WorkerPool, drawing_processes


@pytest.fixture
def pool():
    workers = WorkerPool(2)
    yield workers
    workers.shutdown(wait=True)


def test_jobs_are_answered_in_other_processes(pool):
    assert [pool.submit(operator.add, n, 1).result(30) for n in range(5)] == [1, 2, 3, 4, 5]
    pids = {pool.submit(os.getpid).result(30) for _ in range(10)}
    assert os.getpid() not in pids and pids <= {p.pid for p in pool.processes}


def test_an_error_in_a_job_is_raised_by_its_future(pool):
    with pytest.raises(ZeroDivisionError):
        pool.submit(operator.truediv, 1, 0).result(30)
    assert pool.submit(operator.mul, 6, 7).result(30) == 42  # the worker carries on


def test_a_crashed_worker_fails_its_job_and_is_replaced():
    pool = WorkerPool(1)
    try:
        first = pool.submit(os.getpid).result(30)
        with pytest.raises(BrokenProcessPool):
            pool.submit(os._exit, 3).result(30)
        assert pool.submit(os.getpid).result(30) != first
    finally:
        pool.shutdown()


async def test_asyncio_runs_jobs_through_it_as_through_any_executor(pool):
    loop = asyncio.get_running_loop()
    assert await loop.run_in_executor(pool, operator.neg, 5) == -5


def test_shutdown_stops_every_worker_and_refuses_new_jobs():
    pool = WorkerPool(2)
    pool.submit(operator.add, 1, 2).result(30)
    pool.submit(operator.add, 1, 2).result(30)
    workers = list(pool.processes)
    pool.shutdown(wait=True)
    assert workers and all(process.poll() is not None for process in workers)
    with pytest.raises(RuntimeError, match="after shutdown"):
        pool.submit(operator.add, 1, 2)


WARMED: list[int] = []


def _warm() -> None:
    WARMED.append(os.getpid())


def _warmed() -> list[int]:
    return WARMED


def test_an_eager_pool_starts_and_warms_its_processes_before_any_job():
    pool = WorkerPool(2, warm=_warm, eager=True)
    try:
        deadline = time.monotonic() + 30
        while len(pool.processes) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        started = {process.pid for process in pool.processes}
        assert len(started) == 2  # before any job
        # Each process warmed itself once, before its first job.
        answers = [pool.submit(_warmed).result(30) for _ in range(8)]
        assert {tuple(a) for a in answers} <= {(pid,) for pid in started}
        assert WARMED == []  # not here
    finally:
        pool.shutdown(wait=True)


def _niceness() -> int:
    return os.getpriority(os.PRIO_PROCESS, 0)


def test_a_pool_asked_to_be_nice_runs_its_work_at_a_lower_priority():
    """The drawing processes yield a core to the bot's answers: their niceness is the
    bot's plus what the pool was given; a pool given none runs at the bot's."""
    ours = _niceness()
    nice, plain = WorkerPool(1, nice=5), WorkerPool(1)
    try:
        assert nice.submit(_niceness).result(30) == min(ours + 5, 19)
        assert plain.submit(_niceness).result(30) == ours
    finally:
        nice.shutdown(wait=True)
        plain.shutdown(wait=True)


def _policy() -> int:
    return os.sched_getscheduler(0)


@pytest.mark.skipif(not hasattr(os, "sched_getscheduler"), reason="Linux only")
def test_a_nice_pool_never_takes_the_core_of_the_loop_that_wakes_it():
    """A pool asked to be nice runs as a batch process, which a write to its pipe never
    lets preempt the writer (the bot's event loop); a pool given no niceness runs as the
    bot does."""
    ours = os.sched_getscheduler(0)
    nice, plain = WorkerPool(1, nice=5), WorkerPool(1)
    try:
        assert nice.submit(_policy).result(30) == os.SCHED_BATCH
        assert plain.submit(_policy).result(30) == ours
    finally:
        nice.shutdown(wait=True)
        plain.shutdown(wait=True)


@pytest.mark.parametrize(("cores", "share", "drawers"), [
    (1, 1.0, 1), (2, 1.0, 2), (8, 1.0, 4), (4, 0.5, 2), (2, 0.5, 1), (1, 0.25, 1)])
def test_pictures_are_drawn_by_a_process_per_core_shared_in_a_cluster(
        monkeypatch, cores, share, drawers):
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: set(range(cores)),
                        raising=False)
    assert drawing_processes(share) == drawers


@pytest.mark.parametrize(("shards", "process", "thinkers", "drawers"), [
    (None, None, 2, 4),  # one process: the whole machine
    ("0/2", 1, 1, 2),  # one of a cluster's two processes: half of it
    ("0/2", None, 2, 4),  # a shard run on a machine of its own (no launcher)
])
def test_a_clusters_processes_share_the_machines_workers(monkeypatch, shards, process,
                                                         thinkers, drawers):
    from bot.client import NLKBot
    from bot.cluster.shards import Shards
    from bot.settings import Settings

    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: set(range(4)), raising=False)
    settings = Settings(token="x", database=":memory:", process=process,
                        shards=Shards.parse(shards) if shards else None)
    bot = NLKBot(settings, ai_processes=2)
    assert (bot._thinkers(), bot._drawers()) == (thinkers, drawers)
    assert NLKBot(settings, ai_processes=0, picture_processes=1)._drawers() == 1
    assert NLKBot(settings, ai_processes=0)._thinkers() == 0
