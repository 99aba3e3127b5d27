"""Each line of a rollout is JSON-decoded once, for its record, its secret findings and its spans together
(``analyze_line`` hands the decoded value down; spans are read off the raw line, not decoded again): counted
over ``check --json --jobs 1`` and ``index --jobs 1`` run in process on fixtures.  The one second decoding is
``check``'s look at a file's first line to tell an invocation log (``analysis/reports/invocations.py``)."""

import json
from collections import Counter
from pathlib import Path

import pytest

from analysis.cli import main
from analysis.jsonl import decoding
from analysis.jsonl.lines import bom_as_space

ROOT = Path(__file__).resolve().parents[2]
FILES = ["rollout-demo.jsonl", "rollout-events.jsonl", "rollout-outputs.jsonl", "rollout-secrets.jsonl"]


def _decodes(monkeypatch, argv: list[str]) -> Counter:
    seen: Counter = Counter()
    loads = json.loads

    def counting(text, *args, **kwargs):
        seen[text] += 1
        return loads(text, *args, **kwargs)

    scan = decoding._scan_once

    def counting_scan(text, index):  # decoding.loads' own decoding: a line it reads whole without json.loads
        value, end = scan(text, index)
        if end == len(text):
            seen[text] += 1
        return value, end

    monkeypatch.setattr(json, "loads", counting)
    monkeypatch.setattr(decoding, "_scan_once", counting_scan)
    main(argv)
    monkeypatch.undo()
    return seen


def _lines(path: Path) -> list[str]:
    return [bom_as_space(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("name", FILES)
def test_check_decodes_each_line_once(name, monkeypatch, capsys):
    path = ROOT / "fixtures" / name
    seen = _decodes(monkeypatch, ["check", "--json", "--jobs", "1", str(path)])
    capsys.readouterr()
    lines = _lines(path)
    counts = [seen[line] for line in lines]
    assert counts == [2] + [1] * (len(lines) - 1)  # the first: the invocation-log look, then the analysis


@pytest.mark.parametrize("name", FILES)
def test_index_decodes_each_line_once(name, monkeypatch, capsys, tmp_path):
    path = ROOT / "fixtures" / name
    seen = _decodes(monkeypatch, ["index", str(path), "--db", str(tmp_path / "index.sqlite3"), "--jobs", "1"])
    capsys.readouterr()
    lines = _lines(path)
    assert [seen[line] for line in lines] == [1] * len(lines)
