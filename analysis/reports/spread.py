"""Files spread over worker processes: which files go whole to one worker and which are spread by lines, how
whole files are packed into tasks, and how many tasks are in flight at a time (``census``, ``check``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Executor, wait
from itertools import islice

from .stream import PARALLEL_BYTES

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
    tasks = iter(tasks)
    pending = {pool.submit(function, task) for task in islice(tasks, width)}
    while pending:
        done, pending = wait(pending, return_when=FIRST_COMPLETED)
        for future in done:
            yield future.result()
            following = next(tasks, None)
            if following is not None:
                pending.add(pool.submit(function, following))
