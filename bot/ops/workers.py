"""Worker processes that die with the bot: the AI players' (``Clocks``, practice hands and
hints) and the card pictures' (``cogs.pictures``), so that their work never holds the event
loop's interpreter lock.

Why not ``ProcessPoolExecutor``: when its parent is SIGKILLed, its workers and its resource
tracker stay behind, and the tracker warns about leaked semaphores when they finally stop.
Here each worker is a plain ``python -m bot.ops.worker`` child talking pickles over its
stdin and stdout: no semaphores, no tracker, and a dead parent closes the pipes, so the
worker reads end-of-file (or fails to write) and exits. It also checks its parent every
half second, so that one in the middle of a long think does not outlive the bot either.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib
import logging
import os
import pickle
import queue
import subprocess
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future
from concurrent.futures.process import BrokenProcessPool
from typing import Any, ParamSpec, TypeVar

from bot.ops.worker import HEAD

log = logging.getLogger(__name__)
P = ParamSpec("P")
T = TypeVar("T")
_Job = tuple[Future[Any], Callable[[], Any]]


class WorkerPool(Executor):
    """``processes`` worker processes, each started on its first job (``eager``: at once,
    so that no job waits for a process to start) and again after a crash; jobs are pickled
    callables, as with ``ProcessPoolExecutor``. ``warm``, if given, is run in each process as
    it starts, before its first job (as ``ProcessPoolExecutor``'s ``initializer``): loading
    what every job needs, once per process. ``nice`` lowers the processes' CPU priority by
    that much, and makes them batch processes, which a job written to them never lets take
    the writer's core (``bot.ops.worker``): work that may wait, so that the bot's answers
    never queue behind it for a core."""

    def __init__(self, processes: int, *, warm: Callable[[], Any] | None = None,
                 name: str = "ai", eager: bool = False, nice: int = 0) -> None:
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._closed = False
        self._lock = threading.Lock()
        self._warm = warm
        self._eager = eager
        self._nice = nice
        self._threads = [threading.Thread(target=self._serve, name=f"nlk-{name}-{n}",
                                          daemon=True)
                         for n in range(1, processes + 1)]
        self.processes: list[subprocess.Popen[bytes]] = []
        for thread in self._threads:
            thread.start()

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        with self._lock:
            if self._closed:
                raise RuntimeError("cannot schedule new futures after shutdown")
            future: Future[T] = Future()
            self._jobs.put((future, functools.partial(fn, *args, **kwargs)))
            return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if cancel_futures:
                while True:
                    try:
                        job = self._jobs.get_nowait()
                    except queue.Empty:
                        break
                    if job is not None:
                        job[0].cancel()
            for _ in self._threads:
                self._jobs.put(None)
        if wait:
            for thread in self._threads:
                thread.join()

    def _serve(self) -> None:
        """One worker thread: hands its process one job at a time."""
        process: subprocess.Popen[bytes] | None = None
        if self._eager:
            try:
                process = self._spawn()
            except (OSError, EOFError, pickle.PickleError):
                log.warning("a worker process did not start; trying again at its first job",
                            exc_info=True)
                process = None
        try:
            while (job := self._jobs.get()) is not None:
                future, fn = job
                if not future.set_running_or_notify_cancel():
                    continue
                try:
                    if process is None or process.poll() is not None:
                        process = self._spawn()
                    outcome, value = _ask(process, fn)
                except (OSError, EOFError, pickle.PickleError) as error:
                    future.set_exception(BrokenProcessPool(f"a worker process died: {error!r}"))
                    if process is not None:
                        process.kill()
                        process.wait()
                    process = None
                    continue
                if outcome == "ok":
                    future.set_result(value)
                else:
                    future.set_exception(value)
        finally:
            if process is not None:
                stop_worker(process)

    def _spawn(self) -> subprocess.Popen[bytes]:
        process = spawn_worker(self._nice)
        with self._lock:
            self.processes = [p for p in self.processes if p.poll() is None] + [process]
        warm_worker(process, self._warm)
        return process


def spawn_worker(nice: int) -> subprocess.Popen[bytes]:
    """A new worker process (``python -m bot.ops.worker``), ``nice`` lower than the bot."""
    return subprocess.Popen([sys.executable, "-m", "bot.ops.worker", str(nice)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def warm_worker(process: subprocess.Popen[bytes], warm: Callable[[], Any] | None) -> None:
    """Run ``warm`` in a new process before its first job (blocking). A warm that fails is
    logged: the jobs will tell what is wrong, and the process serves on. Raises
    ``OSError`` or ``EOFError`` if the process dies meanwhile."""
    if warm is not None:
        outcome, value = _ask(process, warm)
        if outcome != "ok":
            log.warning("warming a worker process failed: %r", value)


# The most drawing processes a bot process starts, whatever the machine: past a few, pictures
# are drawn faster than Discord takes them, and each process costs about 115 MB of resident
# memory once warm (55 MB of imports, discord.py's among them, and 60 MB of card parts) and
# 2–3 s of CPU as it starts.
MOST_DRAWERS = 4


def drawing_processes(share: float = 1.0, most: int = MOST_DRAWERS) -> int:
    """How many processes draw a bot process's pictures: one per core this process may run
    on, at most ``most``, times its ``share`` of the bot (a cluster's processes share the
    machine), and at least one."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on every platform
        cores = os.cpu_count() or 1
    return max(1, round(min(cores, most) * share))


def load(*modules: str) -> None:
    """Import ``modules``: a ``warm`` for a pool whose jobs need them (its answer, None,
    pickles; a module would not)."""
    for module in modules:
        importlib.import_module(module)


async def off_loop(pool: Executor | None, fn: Callable[[], T]) -> T:
    """``fn()``, in ``pool``'s processes, or without one in a thread."""
    if pool is None:
        return await asyncio.to_thread(fn)
    return await asyncio.get_running_loop().run_in_executor(pool, fn)


def _ask(process: subprocess.Popen[bytes], fn: Callable[[], Any]) -> tuple[str, Any]:
    assert process.stdin is not None and process.stdout is not None
    pickle.dump(fn, process.stdin, protocol=pickle.HIGHEST_PROTOCOL)
    process.stdin.flush()
    return read_answer(process.stdout)


def read_answer(answers: Any) -> tuple[str, Any]:
    """One answer of a worker process from its stdout (blocking): its length, then it.
    Raises ``EOFError`` if the process is gone."""
    head = answers.read(HEAD.size)
    size = HEAD.unpack(head)[0] if len(head) == HEAD.size else -1
    data = answers.read(size) if size >= 0 else b""
    if size < 0 or len(data) < size:
        raise EOFError("a worker process closed its answers")
    answer: tuple[str, Any] = pickle.loads(data)
    return answer


def stop_worker(process: subprocess.Popen[bytes]) -> None:
    """Closing its stdin asks the worker to exit; it is killed if it is still thinking."""
    if process.stdin is not None:
        with contextlib.suppress(OSError):
            process.stdin.close()
    try:
        process.wait(timeout=2)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
