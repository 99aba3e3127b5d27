"""The incremental memo on its own (analysis.session.memo): what a hit is, what an edit redoes, what is pruned.

The demo rollout: 11 lines, three call records (lines 4, 6 and 8), the first two with their outputs on
lines 5 and 7, one turn.
"""

from __future__ import annotations

import analysis.session.memo as memo
from analysis.jsonl.lines import split_lines
from analysis.session.memo import (
    CorrectedOutput,
    Derived,
    LineCache,
    MadeOutput,
    PairedCalls,
    PerObject,
    TurnsMade,
    same,
)
from analysis.session.outputs import LastRead
from analysis.session.rollout import analyze_lines, analyze_text
from tests.helpers import fixture


def counted(monkeypatch) -> list[str]:
    """The lines :func:`memo.analyze_line` is asked to analyse, in order."""
    seen: list[str] = []
    real = memo.analyze_line

    def analyze(line, *args):
        seen.append(line)
        return real(line, *args)

    monkeypatch.setattr(memo, "analyze_line", analyze)
    return seen


def demo() -> list[str]:
    return split_lines(fixture("rollout-demo.jsonl"))


def edited_output(lines: list[str]) -> list[str]:
    """The demo with the output of the second call (line 7) changed: its wall time."""
    out = list(lines)
    assert "Wall time 1.2 seconds" in out[7]
    out[7] = out[7].replace("Wall time 1.2 seconds", "Wall time 1.3 seconds")
    return out


def test_same_is_a_hit_only_for_the_very_same_leading_objects():
    a, b, c = object(), [1], [1]
    assert same((a, b, "made"), a, b) is True
    assert same((a, b, "made"), a, c) is False  # equal, but another object: a miss
    assert same((a, b, "made"), a) is True  # only the sources given are compared
    assert same(None, a) is False


def test_a_per_object_memo_derives_once_per_object_and_misses_a_recycled_id():
    derived: list[object] = []

    def derive(obj):
        derived.append(obj)
        return len(obj)

    per = PerObject(derive)
    first, equal = [1, 2], [1, 2]
    assert per(first) == 2 and per(first) == 2
    assert derived == [first]
    assert per(equal) == 2 and len(derived) == 2 and derived[1] is equal  # equal is not the same
    per.by_id[id(first)] = Derived([9], 99)  # an entry left by a dead object whose id ``first`` now has
    assert per(first) == 2 and derived[-1] is first and per.by_id[id(first)].source is first
    per.keep_only({id(equal)})
    assert list(per.by_id) == [id(equal)]


def test_a_line_is_analysed_once_and_found_again_as_the_same_object(monkeypatch):
    seen = counted(monkeypatch)
    cache = LineCache()
    line = demo()[4]
    found = cache.get(line)
    assert cache.get(line) is found
    assert cache.get("".join(list(line))) is found  # an equal string, another object: found by its text
    assert seen == [line]


def test_an_edit_of_one_line_reanalyses_that_line_only_and_relinks_only_what_it_touched(monkeypatch):
    lines = demo()
    cache = LineCache()
    before = analyze_lines(list(lines), cache)
    made, paired, corrected, turns = (
        dict(cache.outputs_made),
        dict(cache.calls_paired),
        dict(cache.outputs_corrected),
        cache.turns_made,
    )
    assert sorted(made) == [(4, 5), (6, 7)] and sorted(paired) == [4, 6, 8] and corrected == {}
    assert all(isinstance(v, MadeOutput) for v in made.values())
    assert all(isinstance(v, PairedCalls) for v in paired.values()) and isinstance(turns, TurnsMade)
    seen = counted(monkeypatch)
    edited = edited_output(lines)
    after = analyze_lines(list(edited), cache)
    assert seen == [edited[7]]
    assert [n for n in range(11) if after.records[n] is not before.records[n]] == [7]
    assert cache.outputs_made[(4, 5)] is made[(4, 5)] and cache.outputs_made[(6, 7)] is not made[(6, 7)]
    assert cache.outputs_made[(6, 7)].output is after.records[7].output
    assert cache.outputs_made[(6, 7)].made.wall_time == 1.3 and made[(6, 7)].made.wall_time == 1.2
    assert [n for n in (4, 6, 8) if cache.calls_paired[n] is not paired[n]] == [6]
    assert [c.line for c in after.calls if any(c is d for d in before.calls)] == [4, 8, 8]
    assert cache.turns_made is turns  # no record the turns read changed
    assert after.turns == before.turns


def test_an_unchanged_document_is_relinked_from_the_memo_alone(monkeypatch):
    lines = demo()
    cache = LineCache()
    before = analyze_lines(list(lines), cache)
    paired, made, turns = dict(cache.calls_paired), dict(cache.outputs_made), cache.turns_made
    seen = counted(monkeypatch)
    after = analyze_lines(list(lines), cache)
    assert seen == []
    assert all(a is b for a, b in zip(after.records, before.records))
    assert all(a is b for a, b in zip(after.calls, before.calls)) and len(after.calls) == 5
    assert all(cache.calls_paired[n] is paired[n] for n in paired)
    assert all(cache.outputs_made[k] is made[k] for k in made) and cache.turns_made is turns


def test_a_call_ran_is_the_same_copy_for_the_same_call():
    cache = LineCache()
    record = cache.get(demo()[4])
    call = record.calls[0]
    ran = cache.ran(call)
    assert ran.executed == "yes" and ran is not call
    assert cache.ran(call) is ran
    assert cache.unknown_type(record) is None and cache.sole_producer(record) is call
    assert list(cache.unknown_type.by_id) == [id(record)] and list(cache.sole_producer.by_id) == [id(record)]


def test_keep_only_a_set_prunes_stale_lines_and_what_was_derived_from_them():
    lines = demo()
    cache = LineCache()
    analyze_lines(list(lines), cache)
    old = cache.get(lines[7])
    assert len(cache._by_text) == 11
    edited = edited_output(lines)
    analyze_lines(list(edited), cache)
    assert len(cache._by_text) == 12 and lines[7] in cache._by_text
    cache.keep_only(set(edited))
    assert set(cache._by_text) == set(edited) and cache._chars == sum(map(len, edited))
    kept = {id(r) for r in cache._by_text.values()}
    assert id(old) not in kept
    records = [cache.get(line) for line in edited]
    assert set(cache.unknown_type.by_id) == {id(r) for r in records[:10]}  # every record but the blank line's
    assert set(cache.ran.by_id) <= {id(c) for r in cache._by_text.values() for c in r.calls}
    assert len(cache.ran.by_id) == 3 and len(cache.sole_producer.by_id) == 2


def test_keep_only_a_list_leaves_a_few_stale_lines_until_they_are_many():
    lines = demo()
    cache = LineCache()
    analyze_lines(list(lines), cache)
    edited = edited_output(lines)
    analysis = analyze_lines(list(edited), cache)
    cache.keep_only(analysis.lines)
    assert len(cache._by_text) == 12  # one stale line: not worth a pass over the document
    cache.keep_only(set(analysis.lines))
    assert len(cache._by_text) == 11


def test_a_corrected_output_is_kept_with_its_output_and_event():
    text = fixture("rollout-events.jsonl")
    cache = LineCache()
    analysis = analyze_text(text, cache)
    corrected = dict(cache.outputs_corrected)
    assert corrected and all(isinstance(v, CorrectedOutput) for v in corrected.values())
    for number, entry in corrected.items():
        assert analysis.record_outputs[number] is entry.corrected
    analyze_text(text, cache)
    assert all(cache.outputs_corrected[n] is corrected[n] for n in corrected)


def test_the_last_read_output_is_read_once_and_let_go_with_its_line(monkeypatch):
    import analysis.session.outputs as outputs

    reads: list[str] = []
    monkeypatch.setattr(outputs, "_texts_of_line", lambda line: reads.append(line) or ("text",))
    last = LastRead()
    line = "x" * 10
    assert last.texts_of(line) == ("text",) and last.texts_of(line) is last.texts_of(line)
    assert reads == [line] and last.line is line
    last.forget({line})
    assert last.line is line
    last.forget({"another"})
    assert last.last == (None, ()) and last.line is None


def test_a_memo_lets_go_of_the_output_it_read_last_when_it_prunes_its_line():
    last = LastRead()
    lines = demo()
    cache = LineCache(read_again=last)
    assert cache.read_again is last
    last.last = (lines[7], ("remembered",))
    cache.keep_only(set(lines))
    assert last.last == (lines[7], ("remembered",))
    cache.keep_only(set(edited_output(lines)))
    assert last.last == (None, ())
