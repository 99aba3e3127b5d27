"""Stop 44's index work on the public rollouts of ../shared/corpus/wild/: the working directory read at the
lines the index asks is ``cwd_at``'s there, and a file's calls cleaned in one pass are each call's cleaned alone."""

from __future__ import annotations

from pathlib import Path

from analysis.jsonl.source import rollout_files
from analysis.reports.index.planning import _analyse_lines, _cwds_at, _decoded_lines, _line_offsets, _plan
from analysis.reports.index.rows import _call_texts, _clean_many
from analysis.session.changes import cwd_at
from tests.helpers import SHARED

WILD = SHARED / "corpus" / "wild"


def test_cwds_at_is_cwd_at_on_every_wild_line():
    lines = 0
    for path in rollout_files([str(WILD)]):
        data = Path(path).read_bytes()
        analysis = _analyse_lines(_decoded_lines(path, data, 0, _line_offsets(data, 0)))
        every = cwd_at(analysis)
        assert _cwds_at(analysis, None, list(range(len(every)))) == dict(enumerate(every))
        assert _cwds_at(analysis, None, [len(every) - 1]) == {len(every) - 1: every[-1]}
        lines += len(every)
    assert lines > 15_000


def test_wild_calls_cleaned_a_file_at_a_time_are_those_cleaned_a_call_at_a_time():
    calls = 0
    for path in rollout_files([str(WILD)]):
        data = Path(path).read_bytes()
        work = _plan(path, None, [], len(data), 0, data)
        analysis = _analyse_lines(_decoded_lines(path, data, 0, _line_offsets(data, 0)))
        titles = {t.line: t.title for t in analysis.turns}
        for row, located in zip(work.calls, analysis.calls, strict=True):
            turn = (row[22], titles.get(row[22]), row[24])
            name, call_id, tool, shown, workdir, files, status, session, title, time = _clean_many(
                _call_texts(analysis, located, work.session_id, work.session_time, turn)
            )
            assert row[9:12] == (name, call_id, tool)
            assert (row[13], row[14], row[15], row[17], row[21]) == (shown, workdir, files or None, status, session)
            assert (row[23], row[25]) == (title[:500] if title is not None else None, time)
            calls += 1
    assert calls > 2_000
