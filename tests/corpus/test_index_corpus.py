"""The session index over the public rollouts of ../shared/corpus/wild/: every call indexed exactly as the
analysis reads it, searches that agree with the analysis, an unchanged re-run that reads nothing, and a real
rollout grown by appending that has only its new lines read."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.jsonl.lines import split_lines
from analysis.jsonl.positions import PositionEncoding
from analysis.jsonl.secrets import redact_all
from analysis.jsonl.source import load, rollout_files
from analysis.reports.index import RolloutIndex, call_text
from analysis.session.rollout import analyze_text
from tests.helpers import SHARED

WILD = SHARED / "corpus" / "wild"


@pytest.fixture(scope="module")
def wild_index(tmp_path_factory) -> tuple[Path, list]:
    db = tmp_path_factory.mktemp("index") / "index.sqlite3"
    with RolloutIndex.open(db) as index:
        stats = index.update([str(WILD)])
    return db, stats


@pytest.fixture(scope="module")
def expected() -> list[tuple]:
    """Every call of the corpus as the analysis reads it, with the text the index must hold (redacted)."""
    out = []
    for path in rollout_files([str(WILD)]):
        loaded = load(path)
        analysis = analyze_text(loaded.text)
        for located in analysis.calls:
            r16 = analysis.range_of(located.span, PositionEncoding.UTF16)
            out.append(
                (
                    path,
                    located.line,
                    (r16.start.character, r16.end.character),
                    located.call.tool,
                    redact_all(call_text(located.call)),
                    located.call.executed,
                    located.output.exit_code if located.output else None,
                    located.record.call_id,
                    analysis.session_id,
                )
            )
    return out


def test_every_call_of_the_corpus_is_indexed(wild_index, expected):
    db, stats = wild_index
    files = rollout_files([str(WILD)])
    assert (stats.files, stats.full, stats.errors) == (len(files), len(files), [])
    with RolloutIndex.open_existing(db) as index:
        hits = index.search("")
    assert [
        (h.path, h.line, h.columns["utf-16"], h.tool, h.text, h.executed, h.exit_code, h.call_id, h.session_id)
        for h in hits
    ] == expected
    assert stats.calls_added == len(expected)


@pytest.mark.parametrize("query", ["git push", "apply_patch", "python", "README.md", "rg -n"])
def test_searches_agree_with_the_analysis(wild_index, expected, query):
    db, _ = wild_index
    with RolloutIndex.open_existing(db) as index:
        found = [(h.path, h.line, h.columns["utf-16"]) for h in index.search(query)]
    wanted = [(e[0], e[1], e[2]) for e in expected if query.lower() in e[4].lower() or query == e[3]]
    assert found == wanted and found


def test_git_push_across_sessions(wild_index):
    db, _ = wild_index
    with RolloutIndex.open_existing(db) as index:
        hits = index.search("git push")
        failed = index.search("git push", failed=True)
    assert len(hits) == 14 and len({h.session_id for h in hits}) == len({h.path for h in hits})
    assert all("git push" in h.text.lower() for h in hits)
    assert [h.exit_code for h in failed] == [h.exit_code for h in hits if h.exit_code not in (None, 0)]


def test_an_unchanged_corpus_is_not_read_again(wild_index):
    db, first = wild_index
    with RolloutIndex.open(db) as index:
        stats = index.update([str(WILD)])
    assert (stats.unchanged, stats.full, stats.appended, stats.lines_analysed) == (first.files, 0, 0, 0)


def test_a_real_rollout_grown_by_appending(tmp_path: Path):
    largest = max(WILD.glob("*.jsonl"), key=lambda p: p.stat().st_size)
    data = largest.read_bytes()
    lines = data.split(b"\n")
    assert lines[-1] == b""
    cut = len(lines) // 2
    grown = tmp_path / "sessions"
    grown.mkdir()
    target = grown / largest.name
    target.write_bytes(b"\n".join(lines[:cut]) + b"\n")
    db = tmp_path / "index.sqlite3"
    with RolloutIndex.open(db) as index:
        index.update([str(grown)])
    target.write_bytes(data)
    with RolloutIndex.open(db) as index:
        stats = index.update([str(grown)])
        after = [
            (h.line, h.columns, h.text, h.status, h.exit_code, h.output_line, h.turn_line, h.turn_title, h.turn_number)
            for h in index.search("")
        ]
    new_lines = len(split_lines(data.decode("utf-8"))) - 1 - cut
    assert (stats.appended, stats.full, stats.lines_analysed) == (1, 0, new_lines)
    with RolloutIndex.open(tmp_path / "scratch.sqlite3") as index:
        index.update([str(grown)])
        whole = [
            (h.line, h.columns, h.text, h.status, h.exit_code, h.output_line, h.turn_line, h.turn_title, h.turn_number)
            for h in index.search("")
        ]
    assert after == whole


def test_the_index_reads_real_rollouts_as_the_analysis_does_less_the_unknown_record_findings():
    """planning._analyse, the index's reading, gives every real rollout's calls, outputs, events and turns as
    analyze_text without the secret scan does, and its findings but the unknown-record ones."""
    from analysis.jsonl.findings import UNKNOWN_RECORD
    from analysis.reports.index.planning import _analyse
    from analysis.session.rollout import LineCache

    files = rollout_files([str(WILD)])
    assert len(files) > 50
    for path in files:
        text = load(path).text
        full, read = analyze_text(text, LineCache(secrets=False)), _analyse(text)
        assert [(c.line, c.index, c.call, c.output, c.event) for c in read.calls] == [
            (c.line, c.index, c.call, c.output, c.event) for c in full.calls
        ], path
        assert (read.turns, read.record_outputs, read.matched_events) == (
            full.turns,
            full.record_outputs,
            full.matched_events,
        ), path
        assert read.findings == [f for f in full.findings if f.code != UNKNOWN_RECORD], path
