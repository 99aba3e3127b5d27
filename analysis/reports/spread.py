"""Files spread over worker processes: which files go whole to one worker and which are spread by lines, how
whole files are packed into tasks, and how many tasks are in flight at a time (``census``, ``check``); and
workers that die with their parent (:func:`pool_options`, every pool: ``check``, ``census``, ``index``)."""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import TYPE_CHECKING, Any

from .stream import PARALLEL_BYTES

if TYPE_CHECKING:  # concurrent.futures is imported where a pool is made: `check --jobs 1` makes none (start-up)
    from concurrent.futures import Executor

CHUNK_BYTES = PARALLEL_BYTES  # a file this large or larger is worth spreading over processes by lines
TASK_SHARE = 64  # a task of files is about 1/64 of a worker's share of the bytes ...
TASK_FILES = 256  # ... and at most this many files
TASKS_IN_FLIGHT = 4  # tasks submitted at a time, per worker


def spread_by_lines(sizes: dict[str, int], jobs: int) -> list[str]:
    """The files whose lines are spread over the workers: large ones (``CHUNK_BYTES``) that are more than an
    even share of all the work.  A smaller file is read whole by one worker while the others read other
    files, which keeps every core busy without the main process pairing its lines."""
    total = sum(sizes.values())
    return [path for path, size in sizes.items() if size >= CHUNK_BYTES and size * jobs > total]


def file_tasks(order: list[str], sizes: dict[str, int], jobs: int) -> Iterator[list[str]]:
    """``order`` cut into tasks of about a :data:`TASK_SHARE` of each worker's work (a file larger than that
    goes alone) and at most :data:`TASK_FILES` files: a task per file costs a round trip between processes."""
    budget = max(1, sum(sizes[path] for path in order) // (jobs * TASK_SHARE))
    task: list[str] = []
    size = 0
    for path in order:
        task.append(path)
        size += sizes[path]
        if size >= budget or len(task) >= TASK_FILES:
            yield task
            task, size = [], 0
    if task:
        yield task


def in_window(pool: Executor, function: Callable, tasks: Iterable, width: int) -> Iterator:
    """``function`` of each task on ``pool``, at most ``width`` tasks submitted at a time, results as they
    come (submitting millions of tasks at once would hold a future for each)."""
    from concurrent.futures import FIRST_COMPLETED, wait

    tasks = iter(tasks)
    pending = {pool.submit(function, task) for task in islice(tasks, width)}
    while pending:
        done, pending = wait(pending, return_when=FIRST_COMPLETED)
        for future in done:
            yield future.result()
            following = next(tasks, None)
            if following is not None:
                pending.add(pool.submit(function, following))


# -- workers die with their parent ---------------------------------------------------------------------------
PR_SET_PDEATHSIG = 1  # linux/prctl.h
PARENT_ENV = "ROLLOUT_LSP_PARENT_PID"  # set by the server for its background `index`: it dies with the server
WATCH_SECONDS = 1.0  # how often a process without its parent's pipe looks whether its parent is still there


def pool_options() -> dict[str, Any]:
    """The arguments that make a ``ProcessPoolExecutor``'s workers die with this process, however it ends
    (SIGKILL from the out-of-memory killer included): ``ProcessPoolExecutor(max_workers=jobs, **pool_options())``."""
    return {"initializer": die_with_parent, "initargs": (os.getpid(),)}


def die_with_parent(parent: int, kernel: bool = True) -> None:
    """Makes this process exit when its parent (pid ``parent``) is gone: on Linux the kernel kills it
    (``prctl(PR_SET_PDEATHSIG, SIGKILL)``); on every platform a thread waits for the parent's end of the pipe
    multiprocessing gives a child (its sentinel) to close, or, for a process not started by multiprocessing,
    looks every second whether it was given another parent.

    PR_SET_PDEATHSIG fires when the *thread* that forked the worker ends: a ``ProcessPoolExecutor`` forks its
    workers from the thread that calls ``submit``, the main thread in ``check``, ``census`` and ``index``.  A
    process started from any other thread (the server's background ``index``) passes ``kernel=False``: the
    thread alone watches."""
    if kernel and sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # no prctl: the thread below does it
    if os.getppid() != parent:  # the parent died before the above was in place
        os._exit(1)
    import multiprocessing

    process = multiprocessing.parent_process()
    sentinel = process.sentinel if process is not None and process.pid == parent else None
    threading.Thread(target=_watch, args=(parent, sentinel), name="die-with-parent", daemon=True).start()


def _watch(parent: int, sentinel: int | None) -> None:
    if sentinel is not None:
        from multiprocessing.connection import wait as wait_for

        wait_for([sentinel])  # readable (at its end) once the parent, which holds the other end, is gone
        os._exit(1)
    while True:
        threading.Event().wait(WATCH_SECONDS)
        if os.getppid() != parent:
            os._exit(1)


def die_with_parent_from_environment() -> None:
    """:func:`die_with_parent` of the pid in ``$ROLLOUT_LSP_PARENT_PID``, when set (the server's background
    ``index``, started in a session of its own so that a signal to the editor's group spares it)."""
    value = os.environ.get(PARENT_ENV, "")
    if value.isdigit():
        die_with_parent(int(value), kernel=False)  # the server starts it from one of its worker threads
