"""Stop 42's index reading: each line decoded from its own bytes (planning._decoded_lines) gives the lines the
whole text decoded and split gave, and the line limit's count of line feeds (reading._feeds_up_to) cuts a file
where counting them all did."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from hypothesis import example, given
from hypothesis import strategies as st

import analysis.reports.index.planning as planning_module
import analysis.reports.index.reading as reading_module
from analysis.jsonl.limits import LINES_ENV
from analysis.jsonl.lines import split_lines
from analysis.jsonl.source import decode
from tests.helpers import FIXTURES, ROOT

PARENT_ENV = "ROLLOUT_LSP_PARENT_PID"

# pieces a rollout's bytes are made of: ASCII, line breaks, a BOM, two- three- and four-byte UTF-8 (U+2028 among
# them: JSON writes it raw, and it ends no line), and bytes that are not UTF-8 (a lone continuation byte, a sequence
# cut short, an encoded surrogate)
PIECES = [
    b"a",
    b"{}",
    b"\n",
    b"\r",
    b"\r\n",
    b"\xef\xbb\xbf",
    "é".encode(),
    "中".encode(),
    "🙂".encode(),
    "\u2028".encode(),
]
BAD = [b"\x80", b"\xe4\xb8", b"\xed\xa0\x80", b"\xff"]


def _whole(path: str, data: bytes, base: int) -> list[str]:
    """What the index read before: the text from ``base`` decoded at once, then split."""
    return split_lines(decode(path, data[base:]).text)


def _lines(path: str, data: bytes, base: int) -> list[str]:
    return planning_module._decoded_lines(path, data, base, planning_module._line_offsets(data, base))


@given(st.lists(st.sampled_from(PIECES + BAD), max_size=30).map(b"".join), st.data())
@example(b"\xef\xbb\xbf{}\n{}", None)  # a BOM first: dropped
@example(b"{}\n\xef\xbb\xbf{}\n", None)  # a BOM on a later line: kept
@example(b"\xef\xbb\xbf", None)  # a BOM alone: no text
@example(b"\xe4\xb8\n\x80\n", None)  # not UTF-8: U+FFFD, whole
@example(b"a\r\nb\rc\n", None)  # carriage returns: whole
@example(b"", None)
def test_each_line_decoded_alone_is_the_whole_text_split(data, draw):
    base = draw.draw(st.integers(0, len(data))) if draw is not None else 0
    if base and data[base - 1 : base + 1] == b"\r\n":  # a stable prefix ends after a line feed, never inside \r\n
        base -= 1
    assert _lines("x.jsonl", data, base) == _whole("x.jsonl", data, base)


def test_the_fixtures_lines_are_those_of_the_whole_text():
    for path in sorted(FIXTURES.glob("*.jsonl")):
        data = path.read_bytes()
        assert _lines(str(path), data, 0) == _whole(str(path), data, 0), path
        cut = data.rfind(b"\n", 0, len(data) // 2) + 1  # an append's base: after a line feed
        assert _lines(str(path), data, cut) == _whole(str(path), data, cut), path


def test_a_line_of_ascii_stays_a_compact_string_beside_wide_text():
    """Decoded alone, a line of ASCII is one byte a character whatever its neighbours hold (the whole text
    decoded at once was four bytes a character after an emoji, and each line narrowed again)."""
    lines = _lines("x.jsonl", '{"a": "🙂"}\n{"b": 1}\n'.encode(), 0)
    assert lines == ['{"a": "🙂"}', '{"b": 1}', ""]
    assert lines[1].isascii()


def _counted(data: bytes, limit: int) -> tuple[bytes, str | None]:
    """reading.within_lines as it was: every line feed counted (``bytes.count``)."""
    breaks = data.count(b"\n") + (data.count(b"\r") if b"\r" in data else 0)
    if breaks < limit:
        return data, None
    for number, found in enumerate(re.finditer(rb"\r\n|\r|\n", data), 1):
        if number == limit:
            end = found.end()
            if end == len(data):
                return data, None
            return data[:end], (f"more than {limit} lines (the limit, {LINES_ENV}): only the first {limit} are indexed")
    return data, None


@given(st.lists(st.sampled_from([b"{}", b"\n", b"\r", b"\r\n", b"ab"]), max_size=20).map(b"".join), st.integers(1, 8))
@example(b"{}\n{}\n{}\n", 3)  # exactly the limit, the last line break last
@example(b"{}\n{}\n{}\n{}", 3)  # one line over
@example(b"{}\n{}", 3)
def test_the_line_limit_cuts_where_counting_every_line_feed_did(data, limit):
    before = os.environ.get(LINES_ENV)
    os.environ[LINES_ENV] = str(limit)
    try:
        assert reading_module.within_lines(data) == _counted(data, limit)
    finally:
        if before is None:
            del os.environ[LINES_ENV]
        else:
            os.environ[LINES_ENV] = before


@given(st.lists(st.sampled_from([b"x", b"\n", b"\n\n", b"yz"]), max_size=25).map(b"".join), st.integers(0, 12))
def test_line_feeds_are_counted_up_to_the_limit(data, limit):
    assert reading_module._feeds_up_to(data, limit) == min(data.count(b"\n"), limit)


def test_an_index_run_imports_no_process_pool_nor_the_stream(tmp_path):
    """``rollout-lsp index --jobs 1`` imports neither ``concurrent.futures`` (the pool's, imported with a pool) nor
    ``analysis.reports.spread`` and the stream package (only to die with the server that started it, which
    sets ``ROLLOUT_LSP_PARENT_PID``); with that variable set, spread is imported and asked."""
    script = (
        "import sys\n"
        "from analysis.cli import main\n"
        f"status = main(['index', {str(FIXTURES / 'rollout-demo.jsonl')!r}, '--db', {str(tmp_path / 'i.sqlite3')!r},"
        " '--jobs', '1'])\n"
        "print(status, *(m in sys.modules for m in ('concurrent.futures', 'analysis.reports.spread',"
        " 'analysis.reports.stream')))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != PARENT_ENV}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=ROOT)
    assert done.stdout.splitlines()[-1] == "0 False False False", done.stderr
    env[PARENT_ENV] = str(os.getpid())  # this test's process: alive, so the run goes on
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=ROOT)
    assert done.stdout.splitlines()[-1] == "0 False True True", done.stderr


def test_the_parent_variable_is_the_one_the_server_sets():
    from analysis.cli import index as index_command
    from analysis.reports import spread

    assert index_command.PARENT_ENV == spread.PARENT_ENV == PARENT_ENV
