"""The stream reads a line lean (``lean_fields``: no message text, user's words, settings or summaries) and
thins it from its fields (``thin_fields``): what it keeps is exactly the whole analysis thinned, on every line of
every fixture; a streamed file is read lean unless its first chunk names a web search (kept whole, for the
fallback to the whole-file analysis)."""

import pytest

from analysis.jsonl.lines import split_lines
from analysis.jsonl.source import load, rollout_files
from analysis.reports.stream import analyze_chunk
from tests.helpers import FIXTURES
from tests.reports.lean_support import comparable, differences
from tests.stream_support import streamed, whole

FILES = rollout_files([str(FIXTURES)])


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.rsplit("/", 1)[-1])
def test_a_lean_line_thins_as_its_whole_analysis(path):
    lines = split_lines(load(path).text)
    found = {number: differences(line) for number, line in enumerate(lines)}
    assert {number: diff for number, diff in found.items() if diff} == {}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.rsplit("/", 1)[-1])
def test_a_lean_chunk_is_the_whole_chunk_thinned(path):
    lines = split_lines(load(path).text)
    for sessions in (False, True):
        lean, whole = analyze_chunk(lines, sessions), analyze_chunk(lines, sessions, [])
        assert (lean.unknown, lean.first_known) == (whole.unknown, whole.first_known)
        assert [comparable(r) for r in lean.records] == [comparable(r) for r in whole.records]


def test_the_lean_reading_skips_what_only_the_whole_analysis_reads():
    from analysis.session.record_analysis import lean_fields

    message = (
        '{"type":"response_item","payload":{"type":"message","role":"user",'
        '"content":[{"type":"input_text","text":"fix the bug"}]}}'
    )
    turn = '{"type":"turn_context","payload":{"cwd":"/w","model":"m","turn_id":"t1"}}'
    prompt = '{"type":"event_msg","payload":{"type":"user_message","message":"fix the bug"}}'
    assert set(lean_fields(message)) == {"kind", "record", "findings"}
    assert set(lean_fields(turn)) == {"kind", "record", "findings", "turn_start", "turn_id"}
    assert {k: v for k, v in lean_fields(prompt).items() if k != "record"} == {
        "kind": "event_msg",
        "findings": (),
        "prompt_event": True,
    }


def _counted(monkeypatch) -> dict[str, int]:
    import analysis.reports.stream.thinning as thinning

    calls = {"analyze_line": 0, "lean_fields": 0}

    def counting(name, real):
        def read(line, *args):
            calls[name] += 1
            return real(line, *args)

        return read

    for name in calls:
        monkeypatch.setattr(thinning, name, counting(name, getattr(thinning, name)))
    return calls


def test_a_streamed_file_without_a_web_search_is_read_lean_and_equals_the_whole(monkeypatch):
    path = str(FIXTURES / "rollout-demo.jsonl")
    expected = whole(path)
    calls = _counted(monkeypatch)
    got, result = streamed(path)
    assert result.whole is None and got == expected
    assert calls == {"analyze_line": 0, "lean_fields": len(split_lines(load(path).text))}


def test_a_first_chunk_naming_a_web_search_is_analysed_whole_for_the_fallback(monkeypatch):
    path = str(FIXTURES / "rollout-events.jsonl")  # its web searches are paired by distance: read whole
    expected = whole(path)
    calls = _counted(monkeypatch)
    got, result = streamed(path)
    assert result.whole == "web searches paired by distance" and got == expected
    assert calls == {"analyze_line": len(split_lines(load(path).text)), "lean_fields": 0}
