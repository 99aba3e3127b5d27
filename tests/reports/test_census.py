"""census: the same counts on one process, on many (files and the lines of a large file), and on Dask."""

from __future__ import annotations

import json
from concurrent.futures import Future

import pytest

from analysis.jsonl.source import rollout_files
from analysis.reports import census as census_module
from analysis.reports import spread as spread_module
from analysis.reports.census import Census, census_of_file, run_census
from analysis.reports.spread import spread_by_lines
from tests.helpers import FIXTURES, inline_pool, run_cli

FILES = rollout_files([str(FIXTURES)])


def test_counts_of_the_fixtures():
    census = run_census(FILES, jobs=1)
    assert census.to_json()["counts"]["rollouts"] == len(FILES) - 2
    # the server stays quiet on them too (session_index.jsonl is Codex's list of thread names)
    assert census.skipped == [str(FIXTURES / "not-a-rollout.jsonl"), str(FIXTURES / "session_index.jsonl")]
    demo = census_of_file(str(FIXTURES / "rollout-demo.jsonl")).to_json()
    assert demo == {
        "counts": {
            "rollouts": 1,
            "lines": 10,
            "exec scripts": 3,
            "literal commands": 3,
            "computed commands": 1,
            "computed commands with a known expansion": 1,
            "JS-literal arguments": 4,
        },
        "calls_by_tool": {"exec_command": 4, "apply_patch": 1},
        "findings_by_code": {"dead-branch": 1, "expanded-command": 1, "unpaired-call": 1},
        "tokens": {
            "input": 0,
            "cached": 0,
            "output": 0,
            "reasoning": 0,
            "total": 0,
            "inherited_total": 0,
            "reported_total": 0,
            "sessions_with_usage": 0,
            "cache_write": 0,
        },
        "unknown_types_by_cli_version": {},
        "unreadable_files": 0,
        "skipped_files": 0,
    }


def test_two_processes_give_the_same_counts_as_one():
    assert run_census(FILES, jobs=2).to_json() == run_census(FILES, jobs=1).to_json()


def test_a_large_file_spread_by_lines_gives_the_same_counts(monkeypatch, tmp_path):
    big = tmp_path / "rollout-big.jsonl"
    big.write_text(
        "".join(
            (FIXTURES / name).read_text()
            for name in ("rollout-demo.jsonl", "rollout-outputs.jsonl", "rollout-patches.jsonl")
        )
        * 5
    )
    monkeypatch.setattr(census_module, "CHUNK_BYTES", 1000)  # everything counts as large: lines are spread
    monkeypatch.setattr(spread_module, "CHUNK_BYTES", 1000)
    spread = run_census([str(big)], jobs=2).to_json()
    assert spread == run_census([str(big)], jobs=1).to_json()
    assert spread["counts"]["rollouts"] == 1


def test_files_are_given_out_largest_first_and_their_problems_listed_in_the_order_of_the_paths(monkeypatch, tmp_path):
    paths = [str(tmp_path / "a-missing.jsonl"), *FILES, str(tmp_path / "z-missing.jsonl")]
    (tmp_path / "rollout-large.jsonl").write_text((FIXTURES / "rollout-demo.jsonl").read_text() * 20)
    paths.insert(1, str(tmp_path / "rollout-large.jsonl"))
    given: list[list[str]] = []
    monkeypatch.setattr(census_module, "ProcessPoolExecutor", inline_pool(given))
    two = run_census(paths, jobs=2)
    files = [path for task in given for path in task]
    assert files[0] == str(tmp_path / "rollout-large.jsonl") and files[-2:] == paths[:1] + paths[-1:]  # size 0
    assert sorted(files) == sorted(paths)
    one = run_census(paths, jobs=1)
    assert two.to_json() == one.to_json()
    assert (
        two.problems
        == one.problems
        == [
            f"cannot read {tmp_path / 'a-missing.jsonl'}: No such file or directory",
            f"{FIXTURES / 'not-a-rollout.jsonl'}: {census_module.NOT_A_ROLLOUT}",
            f"{FIXTURES / 'session_index.jsonl'}: {census_module.NOT_A_ROLLOUT}",
            f"cannot read {tmp_path / 'z-missing.jsonl'}: No such file or directory",
        ]
    )
    assert two.unreadable == one.unreadable and two.skipped == one.skipped


def test_files_are_packed_into_tasks_by_size_and_count(monkeypatch):
    sizes = {"big": 1000, "mid": 300, "a": 100, "b": 100, "c": 100, "d": 50, "e": 50, "f": 0, "g": 0}
    order = list(sizes)  # largest first, as run_census orders them
    monkeypatch.setattr(spread_module, "TASK_SHARE", 2)  # a task: about 1700 / (2 jobs × 2) = 425 bytes
    assert list(spread_module.file_tasks(order, sizes, 2)) == [["big"], ["mid", "a", "b"], ["c", "d", "e", "f", "g"]]
    monkeypatch.setattr(spread_module, "TASK_FILES", 2)
    assert list(spread_module.file_tasks(order, sizes, 2)) == [
        ["big"],
        ["mid", "a"],
        ["b", "c"],
        ["d", "e"],
        ["f", "g"],
    ]


def test_no_more_tasks_than_the_window_are_submitted_ahead():
    submitted = []

    class ImmediatePool:
        def submit(self, function, task):
            submitted.append(task)
            future = Future()
            future.set_result(function(task))
            return future

    results = spread_module.in_window(ImmediatePool(), lambda n: n * n, range(10), 3)
    first = next(results)
    assert first in (0, 1, 4) and submitted == [0, 1, 2]  # a window of 3 before any result is taken
    assert sorted([first, *results]) == [n * n for n in range(10)] and submitted == list(range(10))


def test_an_unreadable_file_is_counted_not_fatal(tmp_path):
    census = run_census([str(tmp_path / "missing.jsonl")], jobs=2)
    assert census.unreadable == [str(tmp_path / "missing.jsonl")]
    assert census.problems == [f"cannot read {tmp_path / 'missing.jsonl'}: No such file or directory"]


# distributed leaves a socket of its dashboard-port probe to the garbage collector when 8787 is taken (by another
# cluster on the machine): its leak, not ours, so this test alone lets that one ResourceWarning pass
@pytest.mark.filterwarnings(
    "ignore:Exception ignored in. <socket.socket:pytest.PytestUnraisableExceptionWarning",
    "ignore:unclosed <socket.socket:ResourceWarning",
)
def test_on_a_dask_cluster_the_counts_are_the_local_ones():
    import distributed

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        on_dask = run_census(FILES, scheduler=cluster.scheduler_address)
    assert on_dask.to_json() == run_census(FILES, jobs=1).to_json()


def test_census_command_line_jobs():
    one = json.loads(run_cli("census", "--json", "--jobs", "1", "fixtures").stdout)
    two = json.loads(run_cli("census", "--json", "--jobs", "2", "fixtures").stdout)
    one.pop("seconds"), two.pop("seconds")
    assert one == two == Census().add(run_census(FILES, jobs=1)).to_json()
    bad = run_cli("census", "--jobs", "0", "fixtures")
    assert bad.returncode == 2 and "must be 1 or more" in bad.stderr


def test_only_a_file_larger_than_an_even_share_is_spread_by_lines():
    mb = 1 << 20
    many = {f"r{i}.jsonl": 3 * mb for i in range(10)} | {"big.jsonl": 5 * mb}
    assert spread_by_lines(many, 2) == []  # every worker reads whole files
    assert spread_by_lines(many | {"huge.jsonl": 100 * mb}, 2) == ["huge.jsonl"]
    assert spread_by_lines({"one.jsonl": 3 * mb}, 2) == ["one.jsonl"]
    assert spread_by_lines({"small.jsonl": 1000}, 2) == []  # under CHUNK_BYTES: not worth the processes
