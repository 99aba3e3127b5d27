"""The chunked line reader (analysis.jsonl.line_stream.read_lines, issue 25): bytes read in chunks and decoded a run
of whole lines at a time give exactly the lines and findings of the reader it replaced, which decoded through a
text wrapper one line at a time (kept below as the reference), however the chunks cut the bytes."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import islice

import pytest
import zstandard
from hypothesis import given
from hypothesis import strategies as st

from analysis.cli import check
from analysis.jsonl import line_stream
from analysis.jsonl.lines import BOM
from analysis.jsonl.positions import PositionEncoding
from analysis.jsonl.source import LIMIT_ENV, decode, decode_text, long_line, max_line, raw_lines
from analysis.session.references import may_refer
from tests.helpers import FIXTURES


def reference_lines(path: str) -> list[tuple[str, object]]:
    """The reader before issue 25, verbatim but for raising: a text wrapper's lines, each cleaned."""
    binary = line_stream._binary(path, False)
    text = io.TextIOWrapper(binary, encoding="utf-8", errors="surrogateescape", newline="")
    limit = max_line()
    number = 0
    ended = True
    out: list[tuple[str, object]] = []
    with text:
        for raw, skipped in raw_lines(text, limit):
            if number == 0 and raw.startswith(BOM):
                raw = raw[1:]
            if raw.endswith("\n"):
                line = raw[:-2] if raw.endswith("\r\n") else raw[:-1]
                ended = True
            elif raw.endswith("\r"):
                line, ended = raw[:-1], True
            else:
                line, ended = raw, False
            if skipped:
                out.append(("", long_line(number, skipped, limit)))
            else:
                out.append(line_stream._clean(line, number))
            number += 1
    if ended:
        out.append(("", None))
    return out


@contextmanager
def line_limit(limit: int | None) -> Iterator[None]:
    old = os.environ.get(LIMIT_ENV)
    if limit is None:
        os.environ.pop(LIMIT_ENV, None)
    else:
        os.environ[LIMIT_ENV] = str(limit)
    try:
        yield
    finally:
        os.environ.pop(LIMIT_ENV, None) if old is None else os.environ.__setitem__(LIMIT_ENV, old)


def _plain(lines) -> list[tuple]:
    return [
        (text, None if f is None else (f.code, f.message, f.span.line, f.span.start, f.span.end)) for text, f in lines
    ]


def chunked(path: str, chunk_size: int) -> list[tuple]:
    return _plain(line_stream.read_lines(path, chunk_size=chunk_size))


BAD = "not UTF-8: byte 0x"

# each: the bytes, and exactly the lines and findings (code, message, line, start, end) read from them
CASES = {
    "empty file": (b"", [("", None)]),
    "no final newline": (b'{"a":1}\n{"b":2}', [('{"a":1}', None), ('{"b":2}', None)]),
    "final newline": (b"a\n", [("a", None), ("", None)]),
    "BOM": (b"\xef\xbb\xbf{}\r\n\xef\xbb\xbf{}", [("{}", None), ("\ufeff{}", None)]),
    "BOM alone": (b"\xef\xbb\xbf", [("", None)]),
    "NUL": (b'{"a":"\x00"}\n\x00', [('{"a":"\x00"}', None), ("\x00", None)]),
    "CR, LF, CRLF, LFCR": (b"a\rb\r\nc\n\rd", [("a", None), ("b", None), ("c", None), ("", None), ("d", None)]),
    "separators that do not end a line": (
        "x\u2028y\u0085z\x1c\x0b\x0c\n".encode(),
        [("x\u2028y\u0085z\x1c\x0b\x0c", None), ("", None)],
    ),
    "invalid UTF-8": (
        b"ok\n\xff\xfebad\nmore \xc3\n",
        [
            ("ok", None),
            ("\ufffd\ufffdbad", ("invalid-json", BAD + "ff", 1, 0, 1)),
            ("more \ufffd", ("invalid-json", BAD + "c3", 2, 5, 6)),
            ("", None),
        ],
    ),
    "a lone surrogate encoded": (
        b'"\xed\xa0\x80" \xe2\x82\xac',
        [('"\ufffd\ufffd\ufffd" \u20ac', ("invalid-json", BAD + "ed", 0, 1, 2))],
    ),
    "a sequence cut by a line end": (
        b"\xe2\x82\n\xac",
        [("\ufffd\ufffd", ("invalid-json", BAD + "e2", 0, 0, 1)), ("\ufffd", ("invalid-json", BAD + "ac", 1, 0, 1))],
    ),
    "a sequence cut by the end": (b"a\xf0\x9f\x98", [("a\ufffd\ufffd\ufffd", ("invalid-json", BAD + "f0", 0, 1, 2))]),
    "four-byte characters": ("\U0001f600\n\U0001f600".encode(), [("\U0001f600", None), ("\U0001f600", None)]),
}


@pytest.mark.parametrize("chunk_size", [1, 2, 3, 5, 8, 1 << 20])
@pytest.mark.parametrize("case", CASES, ids=str)
def test_hostile_bytes_in_any_chunks(tmp_path, case, chunk_size):
    data, expected = CASES[case]
    path = tmp_path / "r.jsonl"
    path.write_bytes(data)
    assert chunked(str(path), chunk_size) == expected
    assert _plain(reference_lines(str(path))) == expected


def test_invalid_utf8_split_across_a_chunk_boundary(tmp_path):
    # the chunk of 4 bytes ends inside "\xe2\x82" + "\xff": a sequence that is cut, and then is not one
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"ab\xe2\x82\xffcd\n")
    assert chunked(str(path), 4) == [("ab\ufffd\ufffd\ufffdcd", ("invalid-json", BAD + "e2", 0, 2, 3)), ("", None)]


def test_a_multibyte_character_split_across_chunks(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_bytes("é€\U0001f600\n".encode())
    for size in range(1, 12):
        assert chunked(str(path), size) == [("é€\U0001f600", None), ("", None)]


def test_crlf_split_across_chunks_is_one_line_end(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"abc\r\ndef\r\n\r\n")
    for size in (4, 5, 9, 10, 11):  # the \r last in a chunk, its \n first in the next
        assert chunked(str(path), size) == [("abc", None), ("def", None), ("", None), ("", None)]


def test_a_line_longer_than_a_chunk(tmp_path):
    line = '{"text":"' + "é" * 5000 + '"}'
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"{}\n" + line.encode() + b"\r\n" + b"\xff" * 3)
    assert chunked(str(path), 64) == [("{}", None), (line, None), ("\ufffd" * 3, ("invalid-json", BAD + "ff", 2, 0, 1))]


def test_lines_over_the_limit_across_chunks(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"ab\n" + ("é" * 9).encode() + b"\r\n" + b"\xff" * 7 + b"\rcd\n" + ("€" * 6).encode())
    with line_limit(5):
        got = chunked(str(path), 3)
        assert got == _plain(reference_lines(str(path)))
    over = "characters, over the limit of 5 (ROLLOUT_LSP_MAX_LINE): skipped, not read"
    assert got == [
        ("ab", None),
        ("", ("invalid-json", f"a line of 9 {over}", 1, 0, 0)),
        ("", ("invalid-json", f"a line of 7 {over}", 2, 0, 0)),
        ("cd", None),
        ("", ("invalid-json", f"a line of 6 {over}", 4, 0, 0)),
    ]


def test_a_zstd_file_in_chunks(tmp_path):
    data = b"\xef\xbb\xbf{}\r\n" + "é".encode() * 3000 + b"\r" + b"\n\xff\x00\n" * 500 + b"end"
    path = tmp_path / "rollout-x.jsonl.zst"
    path.write_bytes(zstandard.ZstdCompressor().compress(data))
    expected = _plain(reference_lines(str(path)))
    assert expected[:2] == [("{}", None), ("é" * 3000, None)] and expected[-1] == ("end", None)
    assert len(expected) == 1002  # "\xff\x00" and an empty line, 500 times, but the first empty one
    for size in (1, 7, 4096, 1 << 20):
        assert chunked(str(path), size) == expected


PIECES = [
    b"a",
    b"{",
    b'"',
    b"\r",
    b"\n",
    b"\r\n",
    b"\x00",
    BOM.encode(),
    "é".encode(),
    "€".encode(),
    "\U0001f600".encode(),
    "\u2028".encode(),
    b"\xed\xa0\x80",
    b"\xff",
    b"\x80",
    b"\xc3",
    b"\xe2\x82",
    b"\xf0\x9f\x98",
    b"\xc0\xaf",
]


@given(
    st.lists(st.sampled_from(PIECES) | st.binary(max_size=3), max_size=30).map(b"".join),
    st.integers(1, 9),
    st.none() | st.integers(1, 6),
)
def test_any_bytes_in_any_chunks_read_as_before(tmp_path_factory, data, chunk_size, limit):
    path = tmp_path_factory.mktemp("bytes") / "r.jsonl"
    path.write_bytes(data)
    with line_limit(limit):
        assert chunked(str(path), chunk_size) == _plain(reference_lines(str(path)))


@given(st.lists(st.sampled_from(PIECES) | st.binary(max_size=3), max_size=30).map(b"".join))
def test_a_whole_file_decodes_as_before(data):
    # decode() tries strict UTF-8 first (which holds no escaped byte); the result is that of the escaping decode
    loaded, reference = decode("r.jsonl", data), decode_text("r.jsonl", data.decode("utf-8", "surrogateescape"))
    assert (loaded.text, loaded.findings, loaded.error) == (reference.text, reference.findings, reference.error)


# -- check reads a file's head once (issue 25) ---------------------------------------------------------------

ORPHAN = FIXTURES / "sessions/2026/09/01/rollout-2026-09-01T11-01-40-01a05ca1-c220-7000-8000-0000000000f2.jsonl"


def _opened_while(monkeypatch, run) -> tuple[list[str], object]:
    opened: list[str] = []
    real = line_stream._binary
    monkeypatch.setattr(
        line_stream, "_binary", lambda path, sniff, *limit: opened.append(path) or real(path, sniff, *limit)
    )
    return opened, run()


@pytest.mark.parametrize("path", [FIXTURES / "rollout-demo.jsonl", ORPHAN], ids=lambda p: p.name)
def test_check_opens_a_rollout_once(monkeypatch, path):
    opened, found = _opened_while(monkeypatch, lambda: check._findings(str(path), PositionEncoding.UTF16, None, 1))
    assert opened == [str(path)]
    codes = [f.code for f, _ in found]
    assert ("parent-missing" in codes) == (path == ORPHAN)


def test_a_reference_spelled_with_escapes_is_still_found(tmp_path):
    text = ORPHAN.read_text(encoding="utf-8")
    assert text.count('"history_base"') == 1
    path = tmp_path / ORPHAN.name
    path.write_text(text.replace('"history_base"', '"history\\u005Fbase"'), encoding="utf-8")
    head = [line for line, _ in islice(line_stream.read_lines(str(path)), check.HEAD)]
    read_again = check.with_parent_findings(str(path), [], PositionEncoding.UTF16)  # no head: always analysed
    assert [f.code for f, _ in read_again] == ["parent-missing"]
    assert check.with_parent_findings(str(path), [], PositionEncoding.UTF16, head) == read_again
    assert not any(may_refer(line) for line in (FIXTURES / "rollout-demo.jsonl").read_text().splitlines())
