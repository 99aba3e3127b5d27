"""Threads making their first copies of one class at once (the server's analyses run on worker threads) each get a
whole twin and a right copy, and every later copy works: the review of stop 43 found the twin kept in a list two
threads could both fill (then every copy of that class raised ValueError for the rest of the process)."""

import threading
import time
from dataclasses import dataclass

from analysis.session import copies


@dataclass(frozen=True, slots=True)
class _Pair:
    a: int
    b: int


def test_two_threads_first_copies_at_once_both_succeed_and_later_copies_too(monkeypatch):
    made = copies._twin.__wrapped__

    def slow_twin(cls, names):  # a thread switch in the middle of making the twin (~3 M instructions)
        time.sleep(0.05)
        return made(cls, names)

    monkeypatch.setattr(copies, "_twin", slow_twin)
    replace = copies.replacer(_Pair)
    start = threading.Barrier(2)
    results: list[object] = [None, None]

    def first_copy(i: int) -> None:
        start.wait()
        try:
            results[i] = replace(_Pair(i, 2), a=10 + i)
        except Exception as error:  # the failure is what the test looks for
            results[i] = repr(error)

    threads = [threading.Thread(target=first_copy, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [_Pair(10, 2), _Pair(11, 2)]
    later = replace(_Pair(5, 6), b=7)
    assert later == _Pair(5, 7) and type(later) is _Pair
