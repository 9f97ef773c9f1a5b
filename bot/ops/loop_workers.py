"""Worker processes the event loop hands its jobs to itself: the card pictures'.

``WorkerPool`` gives each process a thread of the bot's that writes the job, waits for the
answer and hands it back to the loop. For a picture (a few hundred bytes out, 12 KB back,
hundreds a second) that thread cost more than the job's own pickling: waking it, its turns
at the interpreter lock against the event loop, and waking the loop again, about 0.15 ms of
the bot's CPU each. Here the loop writes the pickled job to a free process and reads the
answer as it arrives (``add_reader``), with no thread in between. Starting a process and
waiting for it to be ready (``warm``, seconds of imports) still happens in a thread, off the
loop; the processes are the same (``python -m bot.ops.worker``), and die with the bot.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import pickle
import subprocess
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from bot.ops.worker import HEAD
from bot.ops.workers import spawn_worker, stop_worker, warm_worker

log = logging.getLogger(__name__)
T = TypeVar("T")


class _Worker:
    """One process, and the answer it owes (read by the loop)."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.owed: asyncio.Future[tuple[str, Any]] | None = None
        self.read = bytearray()
        self.reading = False  # the loop watches its answers
        self.gone = False

    def readable(self) -> None:
        """Some of an answer arrived (or the process is gone): take what is whole."""
        assert self.process.stdout is not None
        try:
            chunk = os.read(self.process.stdout.fileno(), 1 << 17)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self.lost(EOFError("a worker process closed its answers"))
            return
        self.read += chunk
        while len(self.read) >= HEAD.size:
            size = HEAD.unpack_from(self.read)[0]
            if len(self.read) < HEAD.size + size:
                return
            data = bytes(self.read[HEAD.size:HEAD.size + size])
            del self.read[:HEAD.size + size]
            owed, self.owed = self.owed, None
            if owed is not None and not owed.done():
                try:
                    owed.set_result(pickle.loads(data))
                except Exception as error:
                    owed.set_exception(error)

    def lost(self, error: BaseException) -> None:
        """The process is gone: the answer it owes never comes."""
        self.gone = True
        if self.reading and self.process.stdout is not None:
            asyncio.get_running_loop().remove_reader(self.process.stdout.fileno())
            self.reading = False
        owed, self.owed = self.owed, None
        if owed is not None and not owed.done():
            owed.set_exception(error)


class LoopWorkers:
    """``processes`` worker processes whose jobs the event loop sends and reads itself,
    one at a time each; ``warm`` is run in each as it starts (as ``WorkerPool``'s), ``nice``
    lowers their CPU priority. ``start`` (blocking: in a thread) starts them all and waits
    until they are warm; a job asked for before that starts them meanwhile, and one that
    finds its process dead starts another (in a thread) and runs there."""

    def __init__(self, processes: int, *, warm: Callable[[], Any] | None = None,
                 nice: int = 0) -> None:
        self.size = max(1, processes)
        self._warm = warm
        self._nice = nice
        self._lock = threading.Lock()
        self._workers: list[_Worker] = []
        self._idle: deque[_Worker] = deque()
        self._waiting: deque[asyncio.Future[_Worker]] = deque()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._starting = False
        self._started: asyncio.Future[None] | None = None
        self._closed = False

    @property
    def processes(self) -> list[subprocess.Popen[bytes]]:
        """The processes that are running."""
        return [w.process for w in self._workers if not w.gone and w.process.poll() is None]

    def start(self) -> None:
        """Start every process not started yet, all at once, each warm before it takes a job
        (blocking: run it in a thread)."""
        with self._lock:
            if self._starting:
                return
            self._starting = True
        failed: list[Exception] = []
        starting = [threading.Thread(target=self._start_one, args=(failed,),
                                     name="worker-start", daemon=True)
                    for _ in range(self.size - len(self._workers))]
        for thread in starting:
            thread.start()
        for thread in starting:
            thread.join()
        if failed:
            raise failed[0]

    def _start_one(self, failed: list[Exception]) -> None:
        """Start one process and hand it to the loop once it is warm (in a thread of its
        own: the processes warm at the same time); what fails is raised by ``start``."""
        try:
            worker = self._spawn()
        except Exception as error:
            with self._lock:
                self._starting = False  # the next job tries again
                loop = self._loop
            if loop is not None:
                loop.call_soon_threadsafe(self._fail_waiting, error)
            failed.append(error)
            return
        with self._lock:
            if self._closed:
                stop_worker(worker.process)
                return
            self._workers.append(worker)
            loop = self._loop
            if loop is None:  # no job asked for yet: it finds this one idle
                self._idle.append(worker)
        if loop is not None:
            loop.call_soon_threadsafe(self._give_back, worker)

    async def run(self, fn: Callable[[], T]) -> T:
        """``fn()`` in one of the processes (raises what it raised; ``BrokenProcessPool`` if
        its process died meanwhile)."""
        if self._closed:
            raise RuntimeError("cannot schedule new futures after shutdown")
        loop = asyncio.get_running_loop()
        job = pickle.dumps(fn, protocol=pickle.HIGHEST_PROTOCOL)
        with self._lock:
            self._loop = loop
            worker = self._idle.popleft() if self._idle else None
            starting = self._starting
        if not starting:  # the bot warms them first; a test may not
            self._started = loop.run_in_executor(None, self.start)
            self._started.add_done_callback(_failed_start)
        if worker is None:
            worker = await self._free(loop)
        if worker.gone or worker.process.poll() is not None:
            try:
                worker = await self._replace(worker)
            except BaseException:
                self._give_back(worker)  # dead: the next job tries again
                raise
        result: T = await answer(self._sent(loop, worker, job))
        return result

    def send_now(self, fn: Callable[[], T]) -> asyncio.Future[tuple[str, Any]] | None:
        """Send ``fn`` to a process now, without a turn of the event loop, if one is idle
        and alive: its answer to come, for ``answer``; None if none is (``run`` it)."""
        if self._closed:
            return None
        loop = asyncio.get_running_loop()
        with self._lock:
            if not self._idle or self._waiting:
                return None
            worker = self._idle[0]
            if worker.gone or worker.process.poll() is not None:
                return None  # ``run`` starts another in its place
            self._idle.popleft()
            self._loop = loop
        return self._sent(loop, worker, pickle.dumps(fn, protocol=pickle.HIGHEST_PROTOCOL))

    def _sent(self, loop: asyncio.AbstractEventLoop, worker: _Worker, job: bytes
              ) -> asyncio.Future[tuple[str, Any]]:
        """``job`` sent to ``worker``, which is free again once it has answered, even if
        nobody waits for the answer any more."""
        owed = self._send(loop, worker, job)
        owed.add_done_callback(lambda _owed: self._give_back(worker))
        return owed

    def shutdown(self, wait: bool = True) -> None:
        """Take no more jobs; each process stops once the jobs asked for before are done
        (``wait``: stop them now, and wait for that)."""
        with self._lock:
            self._closed = True
            workers = list(self._workers)
        if wait:
            for worker in workers:
                stop_worker(worker.process)
            return
        while self._idle:  # the busy ones stop once no job waits for them
            _close(self._idle.popleft())

    def _spawn(self) -> _Worker:
        """A new process, warm (blocking)."""
        process = spawn_worker(self._nice)
        assert process.stdout is not None
        try:
            warm_worker(process, self._warm)
        except (OSError, EOFError):  # its jobs find it dead, and start another
            log.warning("a worker process died as it started")
        os.set_blocking(process.stdout.fileno(), False)
        return _Worker(process)

    async def _free(self, loop: asyncio.AbstractEventLoop) -> _Worker:
        """The next process to be free (in the order asked)."""
        waiter: asyncio.Future[_Worker] = loop.create_future()
        self._waiting.append(waiter)
        try:
            return await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled() and waiter.exception() is None:
                self._give_back(waiter.result())  # handed over as this gave up
            raise

    def _fail_waiting(self, error: BaseException) -> None:
        """No process could start: the jobs waiting for one fail, if none runs."""
        if self._workers:
            return
        while self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done():
                waiter.set_exception(BrokenProcessPool(f"no worker process started: {error!r}"))

    def _give_back(self, worker: _Worker) -> None:
        while self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done():
                waiter.set_result(worker)
                return
        if self._closed:
            _close(worker)
        else:
            self._idle.append(worker)

    async def _replace(self, dead: _Worker) -> _Worker:
        """A new process in place of ``dead`` (started in a thread: it takes a while)."""
        dead.lost(BrokenProcessPool("a worker process died"))
        worker = await asyncio.to_thread(self._respawn, dead)
        with self._lock:
            self._workers = [w for w in self._workers if w is not dead] + [worker]
            closed = self._closed
        if closed:
            stop_worker(worker.process)
            raise RuntimeError("the worker processes were shut down")
        return worker

    def _respawn(self, dead: _Worker) -> _Worker:
        stop_worker(dead.process)
        return self._spawn()

    def _send(self, loop: asyncio.AbstractEventLoop, worker: _Worker, job: bytes
              ) -> asyncio.Future[tuple[str, Any]]:
        """Send ``job`` to ``worker``: its answer, to come."""
        assert worker.process.stdin is not None and worker.process.stdout is not None
        if not worker.reading:
            loop.add_reader(worker.process.stdout.fileno(), worker.readable)
            worker.reading = True
        owed = worker.owed = loop.create_future()
        try:
            # A job is a few hundred bytes, and the pipe empty: the write never waits.
            worker.process.stdin.write(job)
            worker.process.stdin.flush()
        except (OSError, ValueError) as error:
            worker.lost(error)
            worker.process.kill()
        return owed


async def answer(owed: asyncio.Future[tuple[str, Any]]) -> Any:
    """What a job sent (``LoopWorkers.send_now``) gave back: its value, or what it raised
    raised here (``BrokenProcessPool`` if its process died meanwhile)."""
    try:
        outcome, value = await asyncio.shield(owed)
    except (OSError, EOFError, ValueError) as error:
        raise BrokenProcessPool(f"a worker process died: {error!r}") from error
    if outcome != "ok":
        raise value
    return value


def _close(worker: _Worker) -> None:
    """Close a process's jobs: it stops (its answers' end is read by the loop)."""
    if worker.process.stdin is not None:
        with contextlib.suppress(OSError):
            worker.process.stdin.close()


def _failed_start(started: asyncio.Future[None]) -> None:
    if not started.cancelled() and started.exception() is not None:
        log.warning("a worker process did not start; trying again at its next job",
                    exc_info=started.exception())
