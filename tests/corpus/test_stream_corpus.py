"""Streamed check, census and outline --json equal the whole-file results on every recorded and wild rollout,
with the usual window and with windows small enough that every file is cut, settled early and checked."""

import pytest

from analysis.jsonl.source import rollout_files
from tests.helpers import SHARED
from tests.stream_support import TIGHT, streamed, whole

FILES = rollout_files([str(SHARED / "corpus" / "recorded"), str(SHARED / "corpus" / "wild")])
# files the stream reads whole, and why: web searches are paired with their events by distance over the file
READ_WHOLE = {"web searches paired by distance"}


@pytest.mark.parametrize(
    "tuning", [TIGHT[0], TIGHT[2], TIGHT[4]], ids=lambda t: ",".join(f"{k}={v}" for k, v in t.items()) or "default"
)
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.rsplit("/", 1)[-1][-48:])
def test_streamed_equals_whole(path, tuning):
    got, result = streamed(path, **tuning)
    assert got == whole(path)
    if not tuning:
        assert result.whole in READ_WHOLE | {None}


def test_most_of_the_corpus_streams():
    read_whole = [path for path in FILES if streamed(path)[1].whole]
    assert len(FILES) > 50 and len(read_whole) <= 5
