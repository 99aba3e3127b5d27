"""Statuses follow the last word (issue 33), on every real ``exec_command_end`` of the corpora: each one paired to a
top-level command says that command ended, so the command is never left ``running``, and its exit code is the
event's (no later output in these files says otherwise)."""

from __future__ import annotations

from analysis.jsonl.source import load
from tests.helpers import SHARED

CORPUS = SHARED / "corpus"
FILES = sorted(p for p in CORPUS.rglob("*.jsonl") if b'"exec_command_end"' in p.read_bytes())


def test_the_corpora_hold_exec_command_end_events():
    assert len(FILES) >= 4


def test_every_exec_command_end_of_a_top_level_command_is_its_last_word():
    from analysis.session.rollout import analyze_text

    checked, wrong = 0, []
    for path in FILES:
        analysis = analyze_text(load(str(path)).text)
        for located in analysis.calls:
            if located.record.is_exec or located.event is None or located.output is None:
                continue
            _, event = located.event
            if event.type != "exec_command_end" or event.exit_code is None:
                continue
            output = located.output
            checked += 1
            if output.status == "running" or output.exit_code != event.exit_code:
                wrong.append((path.name, located.line + 1, output.status, output.exit_code, event.exit_code))
    assert wrong == []
    assert checked >= 90  # 92 top-level commands with an exec_command_end when this was written
