"""What the streamed commands must equal: the whole-file analysis, as check, census and outline --json read
every file before they streamed (tests/reports/test_stream.py, tests/corpus/test_stream_corpus.py)."""

from __future__ import annotations

import json
from functools import lru_cache

from analysis.jsonl.positions import PositionEncoding
from analysis.jsonl.source import NOT_A_ROLLOUT, is_rollout_path, load
from analysis.reports.census import Census, census_of_analysis, count_call, count_record
from analysis.reports.report import finding_json, outline_json
from analysis.reports.stream import Streamed, stream_rollout
from analysis.session.rollout import analyze_text


def ORDER(f):
    return (f.span.line, f.span.start, f.span.end, f.code)


# windows small enough that every rollout is cut, settled early, forced and checked
TIGHT = (
    {},
    {"margin": 0, "chunk_chars": 1},
    {"margin": 2, "chunk_chars": 200, "force_lines": 5},
    {"margin": 0, "chunk_chars": 1, "force_lines": 0},
    {"margin": 1, "chunk_chars": 3000, "force_lines": 40},
)


@lru_cache(maxsize=8)
def whole(path: str, encoding: PositionEncoding = PositionEncoding.UTF16) -> dict:
    """Findings (JSON), census and outline --json of ``path`` analysed whole."""
    loaded = load(path)
    analysis = analyze_text(loaded.text)
    findings = sorted(loaded.findings + analysis.findings, key=ORDER)
    outline = outline_json(path, analysis, encoding)
    outline["diagnostics"] = [finding_json(analysis, f, encoding) for f in findings]
    if is_rollout_path(path) or analysis.is_rollout:
        census = census_of_analysis(analysis, findings)
    else:
        census = Census(skipped=[path], problems=[f"{path}: {NOT_A_ROLLOUT}"])
    return {
        "findings": [finding_json(analysis, f, encoding) for f in findings],
        "is_rollout": analysis.is_rollout,
        "census": census.to_json(),
        "outline": json.dumps(outline, indent=2, ensure_ascii=False),
    }


class Collected:
    """A sink that keeps what it is given: census counts and the outline's records and calls."""

    def __init__(self, encoding: PositionEncoding) -> None:
        from analysis.reports.report import call_json, record_json

        self.encoding, self.census, self.records, self.calls, self.files = encoding, Census(), [], [], []
        self._call_json, self._record_json = call_json, record_json

    def record(self, line, record, output) -> None:
        count_record(self.census, record)
        view = type("View", (), {"records": {line: record}, "record_output": lambda self, n: output})()
        self.records.append(self._record_json(view, line))

    def call(self, located, ranges) -> None:
        count_call(self.census, located)
        self.calls.append(self._call_json(ranges, located, self.encoding))
        from analysis.session.files_changed import touches_of

        self.files.extend(t.to_json() for t in touches_of(located))


def streamed(path: str, encoding: PositionEncoding = PositionEncoding.UTF16, **tuning) -> tuple[dict, Streamed]:
    """The same, streamed (``tuning``: margin, chunk_chars, force_lines, pool, jobs)."""
    result = stream_rollout(path, encoding, make_sink=lambda: Collected(encoding), sessions=True, turns=True, **tuning)
    sink: Collected = result.sink
    if is_rollout_path(path) or result.is_rollout:
        census = sink.census
        census.counts["rollouts"] += 1
        census.counts["lines"] += result.lines - (1 if result.last_line_empty else 0)
        census.findings_by_code.update(f.code for f, _ in result.findings)
        census.sessions.add(result.sessions)
    else:
        census = Census(skipped=[path], problems=[f"{path}: {NOT_A_ROLLOUT}"])
    outline = {
        "file": path,
        "turns": [t.to_json() for t in result.turns],
        "records": sink.records,
        "calls": sink.calls,
        "files": sink.files,
        "diagnostics": [out for _, out in result.findings],
    }
    return {
        "findings": [out for _, out in result.findings],
        "is_rollout": result.is_rollout,
        "census": census.to_json(),
        "outline": json.dumps(outline, indent=2, ensure_ascii=False),
    }, result
