"""check: files spread over worker processes give what one process gives, in the order of the paths."""

from __future__ import annotations

import io
import os
import subprocess
import sys

from analysis.cli import check as check_module
from analysis.jsonl.positions import PositionEncoding
from analysis.jsonl.source import STDIN
from analysis.reports import spread as spread_module
from tests.helpers import FIXTURES, ROOT, inline_pool


def _check(*args: str, input: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "lsp_server", "check", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        input=input,
        encoding="utf-8",
    )


def test_two_jobs_print_what_one_prints_with_files_missing_skipped_and_read_from_standard_input(tmp_path):
    large = tmp_path / "rollout-large.jsonl"
    large.write_text((FIXTURES / "rollout-demo.jsonl").read_text() * 4)
    missing = str(tmp_path / "rollout-missing.jsonl")
    paths = [missing, "fixtures", str(large), "-", str(FIXTURES / "not-a-rollout.jsonl")]
    demo = (FIXTURES / "rollout-dead-branches.jsonl").read_text()
    for extra in ([], ["--json"]):
        one = _check(*extra, "-j", "1", *paths, input=demo)
        two = _check(*extra, "-j", "2", *paths, input=demo)
        assert (two.stdout, two.stderr, two.returncode) == (one.stdout, one.stderr, one.returncode)
        assert (
            one.returncode == 2
            and one.stderr.splitlines()[0] == f"rollout-lsp: cannot read {missing}: No such file or directory"
        )
    lines = _check("-j", "2", *paths, input=demo).stdout.splitlines()
    files = list(dict.fromkeys(line.split(":")[0] for line in lines))
    # the folder's files (sorted), then the large file, then standard input: the order of the paths
    assert files.index(str(large)) == files.index("-") - 1 == len(files) - 2
    assert files[0].startswith("fixtures/") and files[:-2] == sorted(files[:-2])


def test_files_go_to_the_workers_largest_first_and_come_back_in_the_order_of_the_paths(monkeypatch, tmp_path):
    given: list[list[str]] = []
    import concurrent.futures

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", inline_pool(given, workers=2))
    monkeypatch.setattr(spread_module, "TASK_SHARE", 1)  # a task: about half the bytes, or one file
    names = ["rollout-demo.jsonl", "rollout-outputs.jsonl", "rollout-patches.jsonl", "rollout-dead-branches.jsonl"]
    paths = [str(FIXTURES / name) for name in names]
    got = list(check_module._outcomes([*paths, "-"], PositionEncoding.UTF16, 2, None))
    assert [path for path, _ in got] == [*paths, "-"]
    by_size = sorted(paths, key=lambda p: -os.path.getsize(p))
    assert [path for task in given for path in task] == by_size  # every file read by a worker, largest first
    assert len(given) > 1
    alone = [(path, check_module._outcome(path, PositionEncoding.UTF16, None, 1, None)) for path in paths]
    assert got[:-1] == alone
    assert [code for code, _, _ in got[0][1]] == ["unpaired-call", "expanded-command", "dead-branch"]


def test_standard_input_is_read_by_the_main_process(monkeypatch):
    data = (FIXTURES / "rollout-demo.jsonl").read_bytes()
    monkeypatch.setattr(sys, "stdin", type("Stdin", (), {"buffer": io.BytesIO(data)})())
    got = dict(
        check_module._outcomes([str(FIXTURES / "rollout-patches.jsonl"), STDIN], PositionEncoding.UTF16, 2, None)
    )
    assert [code for code, _, _ in got[STDIN]] == ["unpaired-call", "expanded-command", "dead-branch"]


def test_one_small_file_is_read_without_worker_processes(monkeypatch):
    import concurrent.futures

    def refuse(*args, **kwargs):
        raise AssertionError("no pool for one small file")

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", refuse)
    path = str(FIXTURES / "rollout-demo.jsonl")
    assert os.path.getsize(path) < spread_module.CHUNK_BYTES
    [(got_path, outcome)] = check_module._outcomes([path], PositionEncoding.UTF16, 2, None)
    assert got_path == path and [code for code, _, _ in outcome] == ["unpaired-call", "expanded-command", "dead-branch"]


def test_a_dead_worker_leaves_its_files_to_the_main_process(monkeypatch):
    import concurrent.futures

    given: list[list[str]] = []
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", inline_pool(given, broken=True))
    paths = [str(FIXTURES / name) for name in ("rollout-demo.jsonl", "rollout-patches.jsonl")]
    got = list(check_module._outcomes(paths, PositionEncoding.UTF16, 2, None))
    assert given and got == [(p, check_module._outcome(p, PositionEncoding.UTF16, None, 1, None)) for p in paths]


def test_a_pipe_is_read_by_the_main_process(monkeypatch, tmp_path):
    import concurrent.futures
    import threading

    given: list[list[str]] = []
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", inline_pool(given))
    pipe = tmp_path / "rollout-piped.jsonl"
    os.mkfifo(pipe)
    text = (FIXTURES / "rollout-demo.jsonl").read_text(encoding="utf-8")
    writer = threading.Thread(target=lambda: pipe.write_text(text, encoding="utf-8"))
    writer.start()
    paths = [str(pipe), str(FIXTURES / "rollout-patches.jsonl"), str(FIXTURES / "rollout-outputs.jsonl")]
    got = dict(check_module._outcomes(paths, PositionEncoding.UTF16, 2, None))
    writer.join()
    assert [path for task in given for path in task] == sorted(paths[1:], key=lambda p: -os.path.getsize(p))
    assert [code for code, _, _ in got[str(pipe)]] == ["unpaired-call", "expanded-command", "dead-branch"]
