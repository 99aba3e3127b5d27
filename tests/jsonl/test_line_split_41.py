"""The line reader's split of a region of bytes (analysis.jsonl.line_stream._split_lf, stop 41): lines found one
at a time by ``bytes.find`` while they are long, the rest by ``bytes.split``, always exactly ``bytes.split``'s
parts."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from analysis.jsonl.line_stream import _split_lf

_LINES = st.lists(st.binary(max_size=300).map(lambda b: b.replace(b"\n", b"x")), max_size=40)


@given(_LINES)
def test_split_is_bytes_split(lines: list[bytes]) -> None:
    region = b"\n".join(lines)
    assert _split_lf(region) == region.split(b"\n")


@given(st.binary(max_size=2000))
def test_any_bytes(region: bytes) -> None:
    assert _split_lf(region) == region.split(b"\n")


def test_long_lines_then_short_ones() -> None:
    # a few long lines leave the loop enough turns for the short ones after them; many short ones do not, and
    # the rest of the region is split whole: the parts are the same either way
    long_then_short = b"\n".join([b"x" * 1000] * 3 + [b"{}"] * 500) + b"\n"
    assert _split_lf(long_then_short) == long_then_short.split(b"\n")
    short = b"{}\n" * 5000
    assert _split_lf(short) == short.split(b"\n")
    assert _split_lf(b"") == [b""]
    assert _split_lf(b"\n") == [b"", b""]
    assert _split_lf(b"\n\n") == [b"", b"", b""]
    assert _split_lf(b"abc") == [b"abc"]
