"""The index's columns of a call in UTF-8 and UTF-16 (``rows.units``) are the editor's
(:class:`~analysis.jsonl.positions.LineColumns`), on any text: astral characters, lone surrogates, spans past
the end or given backwards."""

from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.jsonl.positions import LineColumns, PositionEncoding
from analysis.reports.index.rows import units

TEXTS = st.text(
    st.one_of(
        st.characters(codec=None),
        st.sampled_from(["a", "\u00e9", "\u4e2d", "\U0001f600", "\ud800", "\udfff", '"', "\\"]),
    ),
    max_size=60,
)


def _reference(text: str, start: int, end: int) -> tuple[int, int, int, int]:
    columns = LineColumns(text)
    return (
        columns.to_units(start, PositionEncoding.UTF8),
        columns.to_units(end, PositionEncoding.UTF8),
        columns.to_units(start, PositionEncoding.UTF16),
        columns.to_units(end, PositionEncoding.UTF16),
    )


@settings(max_examples=1500, deadline=None)
@given(TEXTS, st.integers(-3, 70), st.integers(-3, 70))
def test_units_are_line_columns(text, start, end):
    assert units(text, start, end) == _reference(text, start, end)


def test_examples():
    assert units('{"a":"\u00e9\U0001f600x"}', 6, 9) == (6, 13, 6, 10)
    assert units("plain", 1, 99) == (1, 5, 1, 5)
    assert units("\ud800b", 1, 2) == (3, 4, 1, 2)
