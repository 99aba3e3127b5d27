"""The command line streams (analysis.reports.stream, analysis.jsonl.line_stream): exactly the whole-file results, on every
fixture and on generated rollouts, in a window that does not grow with the file."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor

import pytest
import zstandard

from analysis.jsonl.findings import UNPAIRED_CALL
from analysis.jsonl.line_stream import Unreadable, read_lines
from analysis.jsonl.lines import split_lines
from analysis.jsonl.positions import PositionEncoding
from analysis.jsonl.source import load
from analysis.reports.stream import MARGIN, parallel_worth_it, stream_rollout
from bench.corpus import generate
from tests.helpers import FIXTURES, ROOT
from tests.stream_support import TIGHT, streamed, whole

FIXTURE_FILES = sorted(str(p) for p in FIXTURES.rglob("*.jsonl"))


def _lines(path) -> tuple[list[str], list]:
    out = list(read_lines(str(path)))
    return [t for t, _ in out], [(f.code, f.message, f.span) for _, f in out if f is not None]


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\n",
        b"a",
        b"a\n",
        b"a\r\nb\rc\nd",
        b"a\r\n",
        b"\r\r\n\n",
        b"\xef\xbb\xbf{}\n{}",
        b"\xef\xbb\xbf",
        "x\u2028y\u0085z\x1c\n".encode(),
        b"ok\n\xff\xfebad\nmore \xc3\n",
        b"a" * 8191 + b"\r\n" + b"b" * 8190 + b"\r" + b"\n" * 3,  # a \r\n across the reader's chunks
    ],
)
def test_lines_are_those_of_the_whole_file(tmp_path, data):
    path = tmp_path / "r.jsonl"
    path.write_bytes(data)
    loaded = load(str(path))
    texts, bad = _lines(path)
    assert texts == split_lines(loaded.text)
    assert bad == [(f.code, f.message, f.span) for f in loaded.findings]


def test_a_zstd_file_reads_line_by_line(tmp_path):
    data = (FIXTURES / "rollout-crlf.jsonl").read_bytes() + b"\xff tail"
    path = tmp_path / "rollout-x.jsonl.zst"
    path.write_bytes(zstandard.ZstdCompressor().compress(data))
    assert _lines(path)[0] == split_lines(load(str(path)).text)
    assert _lines(path)[1] == [(f.code, f.message, f.span) for f in load(str(path)).findings]


def test_an_unreadable_file_says_so_as_load_does(tmp_path):
    with pytest.raises(Unreadable) as missing:
        list(read_lines(str(tmp_path / "missing.jsonl")))
    assert str(missing.value) == load(str(tmp_path / "missing.jsonl")).error
    broken = tmp_path / "rollout-broken.jsonl.zst"
    broken.write_bytes(zstandard.ZstdCompressor().compress(b"{}\n" * 1000)[:4] + b"\x00\xff" * 50)
    with pytest.raises(Unreadable) as corrupt:
        list(read_lines(str(broken)))
    assert str(corrupt.value) == load(str(broken)).error
    assert str(corrupt.value).startswith(f"cannot read {broken}: zstd decompress")


@pytest.mark.parametrize("tuning", TIGHT, ids=lambda t: ",".join(f"{k}={v}" for k, v in t.items()) or "default")
@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.rsplit("/", 1)[-1])
def test_every_fixture_streams_to_the_whole_file_results(path, tuning):
    got, _ = streamed(path, **tuning)
    assert got == whole(path)


@pytest.mark.parametrize("encoding", [PositionEncoding.UTF8, PositionEncoding.UTF32])
def test_ranges_in_every_encoding(encoding):
    path = str(FIXTURES / "rollout-unicode.jsonl")
    assert streamed(path, encoding, margin=0, chunk_chars=1)[0] == whole(path, encoding)


def test_only_web_searches_paired_by_distance_make_a_fixture_read_whole():
    read_whole = {path.rsplit("/", 1)[-1]: streamed(path)[1].whole for path in FIXTURE_FILES}
    assert {name: why for name, why in read_whole.items() if why} == {
        "rollout-events.jsonl": "web searches paired by distance"
    }


def _counting_analyses(monkeypatch) -> list[str]:
    """The lines analysed, by the stream and by the whole-file analysis."""
    import analysis.reports.stream.thinning as stream_module
    import analysis.session.memo as memo_module

    seen: list[str] = []

    def counted(real):
        def analyze(line, *args):
            seen.append(line)
            return real(line, *args)

        return analyze

    monkeypatch.setattr(stream_module, "analyze_line", counted(stream_module.analyze_line))
    monkeypatch.setattr(stream_module, "lean_fields", counted(stream_module.lean_fields))  # a chunk read lean
    monkeypatch.setattr(memo_module, "analyze_line", counted(memo_module.analyze_line))
    return seen


def test_a_small_file_read_whole_after_all_analyses_each_line_once(monkeypatch):
    path = str(FIXTURES / "rollout-events.jsonl")
    expected = whole(path)
    seen = _counting_analyses(monkeypatch)
    got, result = streamed(path)
    assert result.whole == "web searches paired by distance" and got == expected
    lines = split_lines(load(path).text)
    assert sorted(seen) == sorted(lines)  # every line once: the whole-file analysis took the stream's


def test_a_file_read_whole_after_its_first_chunk_analyses_its_later_lines_again(monkeypatch):
    path = str(FIXTURES / "rollout-events.jsonl")
    expected = whole(path)
    seen = _counting_analyses(monkeypatch)
    got, result = streamed(path, chunk_chars=1)  # a chunk a line: the first is let go when the second comes
    assert result.whole == "web searches paired by distance" and got == expected
    lines = split_lines(load(path).text)
    # read whole after the first chunk was let go: its line (a session meta, once in the file) analysed again
    assert lines.count(lines[0]) == 1 and seen.count(lines[0]) == 2
    assert len(seen) > len(lines) and set(seen) == set(lines)


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    path = tmp_path_factory.mktemp("generated") / "rollout-generated.jsonl"
    path.write_text(generate(3 << 20, seed=7), encoding="utf-8")
    return str(path)


def test_a_generated_rollout_streams_in_a_small_window(generated):
    got, result = streamed(generated)
    assert got == whole(generated)
    assert result.whole is None
    small = streamed(generated, chunk_chars=100_000)[1]  # chunks of about 70 lines
    assert small.lines > 1500
    # the window holds a chunk and the lines that wait (MARGIN of them), never the file
    assert MARGIN < small.held < MARGIN + 150


def test_worker_processes_give_the_same_results(generated):
    with ProcessPoolExecutor(max_workers=2) as pool:
        got, result = streamed(generated, pool=pool, jobs=2, chunk_chars=50_000)
    assert result.whole is None
    assert got == whole(generated)


def test_a_line_referring_back_to_a_settled_one_makes_the_file_read_whole(tmp_path):
    """An output long after its call: the call was settled as unpaired, so the file is read whole."""
    call = {
        "type": "response_item",
        "payload": {
            "type": "function_call",
            "name": "exec_command",
            "call_id": "call_late",
            "arguments": '{"cmd": "ls"}',
        },
    }
    output = {
        "type": "response_item",
        "payload": {"type": "function_call_output", "call_id": "call_late", "output": "Exit code: 0\nOutput:\nx"},
    }
    filler = {"type": "event_msg", "payload": {"type": "agent_message", "message": "…"}}
    path = tmp_path / "rollout-late.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in [call] + [filler] * 30 + [output]) + "\n")
    got, result = streamed(str(path), margin=2, chunk_chars=1, force_lines=5)
    assert result.whole == "output of call_late"
    assert got == whole(str(path))
    assert UNPAIRED_CALL not in [f["code"] for f in got["findings"]]
    assert streamed(str(path))[1].whole is None  # with the usual window, the output is met before it settles


def test_standard_input_streams_too(monkeypatch):
    data = zstandard.ZstdCompressor().compress((FIXTURES / "rollout-demo.jsonl").read_bytes())
    monkeypatch.setattr(sys, "stdin", type("Stdin", (), {"buffer": io.BytesIO(data)})())
    result = stream_rollout("-")
    assert [out for _, out in result.findings] == whole(str(FIXTURES / "rollout-demo.jsonl"))["findings"]


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lsp_server", *args], capture_output=True, text=True, cwd=ROOT)


def test_outline_json_prints_what_json_dump_printed(generated):
    assert _cli("outline", "--json", generated).stdout == whole(generated)["outline"] + "\n"
    empty = _cli("outline", "--json", str(FIXTURES / "not-a-rollout.jsonl")).stdout
    assert empty == whole(str(FIXTURES / "not-a-rollout.jsonl"))["outline"] + "\n"


def test_check_with_two_jobs_prints_the_findings_in_line_order(generated):
    expected = whole(generated)["findings"]
    one, two = _cli("check", "--json", "-j", "1", generated), _cli("check", "--json", "-j", "2", generated)
    assert one.stdout == two.stdout
    assert [{k: v for k, v in row.items() if k != "file"} for row in json.loads(two.stdout)] == expected
    assert parallel_worth_it(generated)
    assert len(expected) > 20 and {f["severity"] for f in expected} == {"information"} and two.returncode == 0


def test_the_window_waits_for_a_margin_of_lines():
    assert MARGIN >= 16  # an event written just after its call's output is still met before the call settles


def test_messages_name_the_files_lines_not_the_windows(tmp_path):
    """An event that contradicts dead code names its line in the message: the file's line, however far the
    window has moved (rollout-events.jsonl's first 16 lines, without its web searches, after 40 more lines)."""
    lines = (FIXTURES / "rollout-events.jsonl").read_text().split("\n")[:16]
    padding = [
        json.dumps(
            {
                "timestamp": "2026-07-20T10:00:00.000Z",
                "type": "event_msg",
                "payload": {"type": "agent_message", "message": f"note {i}"},
            }
        )
        for i in range(40)
    ]
    path = tmp_path / "rollout-padded.jsonl"
    path.write_text("\n".join(lines[:1] + padding + lines[1:]) + "\n")
    got, _ = streamed(str(path), margin=0, chunk_chars=1)
    assert got == whole(str(path))
    assert [f["message"] for f in got["findings"] if f["code"] == "event-contradicts"] == [
        "patch_apply_end on line 55 reports that apply_patch ran, but the analysis found it in dead code"
    ]


def test_nested_events_after_a_forced_settle_still_find_their_script(tmp_path):
    """Lines settled by force (unsettled too long) may include a script whose nested events are still to come:
    those events make the file be read whole (rollout-events.jsonl's first 20 lines, without web searches)."""
    lines = (FIXTURES / "rollout-events.jsonl").read_text().split("\n")[:20]
    path = tmp_path / "rollout-forced.jsonl"
    path.write_text("\n".join(line for line in lines if "web_search" not in line) + "\n")
    got, _ = streamed(str(path), margin=2, chunk_chars=200, force_lines=5)
    assert got == whole(str(path))
