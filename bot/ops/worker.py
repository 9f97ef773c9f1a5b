"""One worker process (started by ``bot.ops.workers.WorkerPool`` or
``bot.ops.loop_workers.LoopWorkers``): reads pickled callables on stdin, writes
``("ok", result)`` or ``("error", exception)`` on stdout, pickled after its length (``HEAD``:
a reader that is not blocked on the pipe, the event loop, knows when an answer is whole),
and exits when the bot is gone."""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import struct
import sys

from bot.ops.orphans import watch_parent

HEAD = struct.Struct("<I")  # an answer's length in bytes, before it


def main() -> None:
    # The first argument, if any: how much lower than the bot's this process's CPU
    # priority is (pictures wait a little so that answers never wait for a core).
    if len(sys.argv) > 1 and sys.argv[1].isdigit() and int(sys.argv[1]) > 0:
        with contextlib.suppress(OSError, AttributeError):  # not on every platform
            os.nice(int(sys.argv[1]))
        # Work that may wait never takes the core of the process that woke it: the bot's
        # event loop writes each job to the pipe this process waits on, and as a normal
        # process this one, woken, often ran at once on the loop's core, the loop stopped
        # in its write until the job was drawn (1.6-1.8 ms at p99, measured on a busy
        # machine, against 37 us as a batch process: ``docs/figures.md``). A batch process
        # has its share of the CPU as before, at its niceness; it only waits for the next
        # tick or a free core instead of taking the waker's.
        with contextlib.suppress(OSError, AttributeError):  # Linux only
            os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
    # Ctrl-C reaches the whole process group: the bot decides when its workers stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Exit as soon as the bot is gone, even in the middle of a job (its answer is lost).
    watch_parent(lambda: os._exit(0))
    jobs, answers = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print must not corrupt the answers
    while True:
        try:
            job = pickle.load(jobs)
        except EOFError:  # the bot closed the pipe, or died
            return
        try:
            answer: tuple[str, object] = ("ok", job())
        except Exception as error:
            answer = ("error", error)
        try:
            data = pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as error:
            data = pickle.dumps(("error", RuntimeError(f"unpicklable answer: {error!r}")))
        try:
            answers.write(HEAD.pack(len(data)) + data)
            answers.flush()
        except BrokenPipeError:
            return


if __name__ == "__main__":
    main()
