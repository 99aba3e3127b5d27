"""A line's bytes as read from its file, handed to the secret prefilter (stop 41): ``read_raw_lines`` gives the
lines and findings ``read_lines`` gives, each with its UTF-8 or None, and the prefilter's answer on those bytes is
its answer on the text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.jsonl.line_stream import read_lines, read_raw_lines
from analysis.jsonl.lines import BOM
from analysis.jsonl.secrets import _PREFILTER, find_secrets
from analysis.reports.stream.thinning import analyze_chunk

_PIECES = st.sampled_from(
    [b"{}", b'{"a":"\xc3\xa9"}', b"\xff", b"\r", b"\n", b"\r\n", BOM.encode(), "中文".encode(), b"ghp_" + b"a" * 36]
)


def _same(path: str) -> None:
    plain = list(read_lines(path))
    raw = list(read_raw_lines(path))
    assert [(text, finding) for text, finding, _ in raw] == plain
    for text, _, encoded in raw:
        assert encoded is None or encoded == text.encode("utf-8")


@settings(max_examples=60, deadline=None)
@given(st.lists(_PIECES, max_size=30))
def test_raw_lines_are_the_lines_with_their_bytes(tmp_path_factory, pieces: list[bytes]) -> None:
    path = tmp_path_factory.mktemp("raw") / "r.jsonl"
    path.write_bytes(b"".join(pieces))
    _same(str(path))


def test_which_lines_have_their_bytes(tmp_path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(BOM.encode() + b'{"a":1}\n{"b":"\xc3\xa9"}\n')
    # the region with the BOM is decoded line by line: no bytes; the empty line after the last terminator is a
    # region of its own
    assert list(read_raw_lines(str(path))) == [('{"a":1}', None, None), ('{"b":"é"}', None, None), ("", None, b"")]
    path.write_bytes(b'{"a":1}\n{"b":"\xc3\xa9"}\n')
    assert list(read_raw_lines(str(path))) == [
        ('{"a":1}', None, b'{"a":1}'),
        ('{"b":"é"}', None, '{"b":"é"}'.encode()),
        ("", None, b""),
    ]
    path.write_bytes(b'{"a":1}\n{"b":"\xff"}\n')
    texts = list(read_raw_lines(str(path)))
    # a bad byte: the region is decoded line by line, without bytes
    assert [encoded for _, _, encoded in texts] == [None, None, b""]
    assert texts[1][1] is not None and texts[1][1].message == "not UTF-8: byte 0xff"


@given(st.text(max_size=200))
def test_the_prefilter_reads_the_bytes_as_the_text(text: str) -> None:
    try:
        encoded = text.encode("utf-8")
    except UnicodeEncodeError:
        return
    assert _PREFILTER.matches(text, encoded) == _PREFILTER.matches(text)
    assert find_secrets(text, encoded=encoded) == find_secrets(text)


def test_a_chunk_read_with_its_bytes_is_read_as_without() -> None:
    token = "ghp_" + "a" * 36
    lines = [
        '{"timestamp":"t","type":"event_msg","payload":{"type":"agent_message","message":"' + token + ' 中文"}}',
        '{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":"x"}}',
        "",
        "not json",
    ]
    with_bytes = analyze_chunk(lines, encoded=[line.encode() for line in lines])
    without = analyze_chunk(lines)
    assert with_bytes.records == without.records
    assert [f.code for f in with_bytes.records[0].findings] == ["secret"]
