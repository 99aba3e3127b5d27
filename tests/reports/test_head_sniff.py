"""``check`` tells an invocation log from its head's lines as they were read (``head_looks_like_invocation_log``),
without joining them to split them again: the answer is :func:`looks_like_invocation_log`'s of the joined text."""

from __future__ import annotations

import json

import pytest

from analysis.reports.invocations import head_looks_like_invocation_log, looks_like_invocation_log

LOG = json.dumps({"ts": "2026-01-01T00:00:00Z", "tool": "rg", "argv": ["rg", "x"], "cwd": "/"})
ROLLOUT = json.dumps({"type": "session_meta", "payload": {"id": "s"}})
HEADS = {
    "a log": [LOG, LOG],
    "a rollout": [ROLLOUT, ROLLOUT],
    "blank lines, then a log": ["", "   ", LOG],
    "blank lines, then a rollout": ["", ROLLOUT],
    "a log whose record has a payload": [json.dumps({"tool": "rg", "argv": [], "payload": {}})],
    "invalid JSON first": ["{not json", LOG],
    "a JSON list first": ["[1, 2]", LOG],
    "nothing": [],
    "only blank lines": ["", "", ""],
    "twenty blank lines, then a log": [""] * 20 + [LOG],
    "nineteen blank lines, then a log": [""] * 19 + [LOG],
    "a number too long to read": ["1" * 5000, LOG],
}


@pytest.mark.parametrize("name", list(HEADS))
@pytest.mark.parametrize("path", ["/tmp/rollout.jsonl", "/tmp/calls.jsonl", "C:\\logs\\calls.jsonl"])
def test_head_reading_is_the_joined_texts(name, path):
    head = HEADS[name]
    assert head_looks_like_invocation_log(path, head) == looks_like_invocation_log(path, "\n".join(head))


def test_what_it_tells():
    told = {name: head_looks_like_invocation_log("/tmp/x.jsonl", head) for name, head in HEADS.items()}
    assert [name for name, is_log in told.items() if is_log] == [
        "a log",
        "blank lines, then a log",
        "nineteen blank lines, then a log",
    ]
    assert head_looks_like_invocation_log("/tmp/calls.jsonl", [ROLLOUT])  # the name alone tells
