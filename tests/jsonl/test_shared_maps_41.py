"""A map shared by threads answers right while another thread is making its tables.

Semantic tokens ask a record's escape map and a script's code points from worker threads while the main thread
asks them too.  Stop 41 made both lazy (counted answers first, tables once the counting has cost enough), so
the switch to tables must leave the object whole at every step: these tests put a second question exactly
inside the switch (a wrapped ``_tables``), deterministically, where threads would reach it only sometimes.  The
escape map's test failed on the first version (it let the flat text go before the tables were made: 18,826 wrong
columns and 28 assertion errors in the review's three-thread run).
"""

from __future__ import annotations

import json

import pytest

from analysis.jsonl.positions import EscapeMap
from analysis.script.code_points import CodePoints

TEXT = 'ab\n"c\\d\té' * 40  # short escapes only: the map counts before it tables
RAW = json.dumps(TEXT, ensure_ascii=False)[1:-1]


def _columns() -> list[int]:
    """Each decoded character's raw column, walked by hand from the JSON text."""
    columns, at = [], 0
    while at < len(RAW):
        columns.append(at)
        at += 2 if RAW[at] == "\\" else 1
    columns.append(at)
    return columns


def test_escape_map_answers_inside_the_switch_to_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    expected = _columns()
    made = EscapeMap._tables
    inside: list[list[int]] = []

    def interrupted(self: EscapeMap, raw: str) -> None:
        if not inside:  # another thread's questions, asked as this one starts making the tables
            inside.append([])
            inside[0].extend(self.start(i) for i in range(len(TEXT) + 1))
        made(self, raw)

    shared = EscapeMap(RAW, 0)
    monkeypatch.setattr(EscapeMap, "_tables", interrupted)
    asked = [shared.start(i) for i in reversed(range(len(TEXT) + 1))]  # backwards: the budget runs out
    assert inside, "the questions never reached the tables"
    assert inside[0] == expected
    assert asked == list(reversed(expected))
    assert [shared.start(i) for i in range(len(TEXT) + 1)] == expected


def test_code_points_answer_inside_the_switch_to_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "aé😀b" * 50
    data = text.encode("utf-8")
    # each character's first byte (and the end) with its code-point offset
    expected = [
        len(data[:b].decode("utf-8", "ignore")) if b == len(data) or data[b] & 0xC0 != 0x80 else None
        for b in range(len(data) + 1)
    ]
    starts = [b for b, column in enumerate(expected) if column is not None]
    made = CodePoints._tables
    inside: list[list[int]] = []

    def interrupted(self: CodePoints) -> list[int]:
        if not inside:  # another thread's questions, asked as this one starts making the tables
            inside.append([])
            inside[0].extend(self.at(b) for b in starts)
        return made(self)

    shared = CodePoints(text)
    monkeypatch.setattr(CodePoints, "_tables", interrupted)
    asked = [shared.at(b) for b in reversed(starts)]  # backwards: the budget runs out
    assert inside, "the questions never reached the tables"
    columns = [expected[b] for b in starts]
    assert inside[0] == columns
    assert asked == list(reversed(columns))
    assert [shared.at(b) for b in starts] == columns
