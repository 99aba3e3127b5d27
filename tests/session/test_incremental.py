"""An edited document's analysis, diagnostics and outline equal those of the same text read from scratch.

The editor keeps a document as its lines (``LineList``), re-analyses only the lines an edit changed (the line
cache finds the others as the same strings), re-links the whole rollout with memos of what it derived
before, converts only new findings to diagnostics and encodes only new call records of the outline.  Every
test here compares that path with a fresh analysis of the final text, after edits that change pairing: a
call_id edited, an output line deleted, a line split in two and joined again, a line duplicated.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import fields

import pytest
import pytest_lsp
from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types
from pytest_lsp import LanguageClient

from analysis.jsonl.lines import LineList, split_lines
from analysis.session import memo
from analysis.session.rollout import LineCache, RolloutAnalysis, analyze_lines, analyze_text, partial_analysis
from analysis.session.vocabulary import unknown_records
from lsp_server.store import AnalysisStore
from tests.helpers import fixture
from tests.lsp_support import SERVER, diagnostics_of, open_text, start, uri_of

FIXTURES = [
    "rollout-demo.jsonl",
    "rollout-events.jsonl",
    "rollout-outputs.jsonl",
    "rollout-records.jsonl",
    "rollout-crlf.jsonl",
    "rollout-secrets.jsonl",
    "rollout-toplevel.jsonl",
    "rollout-unicode.jsonl",
]


# -- the lines of a document ----------------------------------------------------------------------------------


def _offset(text: str, line: int, column: int) -> int:
    """The offset of a position as LSP clamps it: past the last line is the end of the text."""
    lines = split_lines(text)
    if line >= len(lines):
        return len(text)
    starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]
    return starts[line] + min(column, len(lines[line]))


_CHARS = st.sampled_from(["a", "{", "\n", "\r", "\r\n", "\u2028", "\u0085", "é"])


@settings(max_examples=400, deadline=None)
@given(
    st.lists(_CHARS, max_size=12).map("".join),
    st.lists(
        st.tuples(
            st.integers(0, 5),
            st.integers(0, 4),
            st.integers(0, 5),
            st.integers(0, 4),
            st.lists(_CHARS, max_size=4).map("".join),
        ),
        max_size=5,
    ),
)
def test_line_list_edits_equal_a_fresh_split(text, edits):
    document = LineList(text)
    assert document.lines == split_lines(text) and document.text() == text
    for start_line, start_column, end_line, end_column, new in edits:
        before = document.text()
        start = _offset(before, start_line, start_column)
        end = max(start, _offset(before, end_line, end_column))
        if (end_line, end_column) < (start_line, start_column):
            end = start
        expected = before[:start] + new + before[end:]
        document.replace(start_line, start_column, end_line, end_column, new)
        assert document.text() == expected
        assert document.lines == split_lines(expected)
        assert len(document.ends) == len(document.lines) and document.ends[-1] == ""


def test_an_edit_replaces_only_the_lines_it_touches():
    document = LineList(fixture("rollout-demo.jsonl"))
    before = list(document.lines)
    column = before[4].index("call_demo1")
    document.replace(4, column, 4, column + 1, "X")
    assert [a is b for a, b in zip(before, document.lines)] == [n != 4 for n in range(len(before))]
    document.replace(2, 5, 2, 5, "\n")  # a line split in two: the lines after it are the same objects
    assert document.lines[4] is before[3] and document.lines[-1] is before[-1]


# -- the analysis -----------------------------------------------------------------------------------------------


def _record(record) -> tuple:
    """A line analysis as values (its escape map has no equality of its own)."""
    out = []
    for field in fields(record):
        value = getattr(record, field.name)
        if field.name == "script_map" and value is not None:
            value = (value.raw_start, value._dec, value._raw, value._raw_end)
        out.append(value)
    return tuple(out)


def canonical(analysis: RolloutAnalysis) -> dict:
    return {
        "lines": analysis.lines,
        "records": [_record(r) for r in analysis.records],
        "calls": [(c.line, c.index, c.call, _record(c.record), c.output, c.event) for c in analysis.calls],
        "findings": analysis.findings,
        "outputs_by_call_id": analysis.outputs_by_call_id,
        "calls_by_call_id": analysis.calls_by_call_id,
        "turns": analysis.turns,
        "call_records": analysis.call_records,
        "record_outputs": analysis.record_outputs,
        "events": analysis.events,
        "matched_events": analysis.matched_events,
        "unknown": unknown_records(analysis),
        "is_rollout": analysis.is_rollout,
    }


def edits_for(text: str) -> list[tuple[int, int, int, int, str]]:
    """Edits that change pairing, each as (start line, start column, end line, end column, new text)."""
    lines = split_lines(text)
    out = []
    ids = [(n, line.index('"call_id":"') + len('"call_id":"')) for n, line in enumerate(lines) if '"call_id":"' in line]
    for number, column in ids[:6]:  # a call_id edited: its call and its output no longer pair
        out.append((number, column, number, column + 1, "Z"))
    outputs = [n for n, line in enumerate(lines) if '_output"' in line]
    if outputs:  # an output line deleted, line break included
        out.append((outputs[0], 0, outputs[0] + 1, 0, ""))
    middle = len(lines) // 2
    out.append((middle, 10, middle, 10, "\n"))  # a line split in two …
    out.append((middle, 10, middle + 1, 0, ""))  # … and joined again
    out.append((1, 0, 1, 0, lines[-2] + "\n"))  # a line duplicated (a second output or call with its call_id)
    for number, column in ids[:2]:  # call_ids edited back: pairing restored
        out.append((number + 1, column, number + 1, column + 1, lines[number][column]))
    return out


@pytest.mark.parametrize("name", FIXTURES)
def test_incremental_analysis_equals_a_fresh_one(name):
    document = LineList(fixture(name))
    cache = LineCache()
    analysis = analyze_lines(list(document.lines), cache)
    first = canonical(analysis)
    changed = False
    for start_line, start_column, end_line, end_column, new in edits_for(document.text()):
        document.replace(start_line, start_column, end_line, end_column, new)
        analysis = analyze_lines(list(document.lines), cache)
        cache.keep_only(analysis.lines)
        fresh = analyze_text(document.text())
        assert canonical(analysis) == canonical(fresh)
        changed = changed or canonical(fresh)["record_outputs"] != first["record_outputs"]
    assert changed  # the edits did change what pairs with what


def test_a_pruned_cache_still_gives_the_fresh_analysis():
    """``keep_only`` with a set of lines prunes at once; the next analysis equals a fresh one."""
    text = fixture("rollout-events.jsonl")
    cache = LineCache()
    analyze_text(text, cache)
    edited = text.replace("call_top", "call_tqp")
    cache.keep_only(set(split_lines(edited)))
    assert canonical(analyze_text(edited, cache)) == canonical(analyze_text(edited))


def test_editing_a_long_line_again_and_again_keeps_few_of_its_versions(monkeypatch):
    """A stale line is pruned by size too: each version of a 600 kB output line kept, 40 edits held 24 MB."""
    monkeypatch.setattr(memo, "STALE_CHARS", 100_000)
    lines = split_lines(fixture("rollout-demo.jsonl"))
    output = next(n for n, line in enumerate(lines) if '"custom_tool_call_output"' in line)
    long = lines[output].replace('Output:\\n"', "Output:\\n" + "x" * 600_000 + '"', 1)
    assert long != lines[output]
    cache = LineCache()
    most = 0
    for edit in range(40):
        lines[output] = long.replace("x" * 10, f"{edit:010d}", 1)
        analysis = analyze_lines(list(lines), cache)
        cache.keep_only(analysis.lines)
        assert cache._chars == sum(map(len, cache._by_text))
        most = max(most, len(cache._by_text))
    chars = sum(map(len, lines))
    assert cache._chars <= chars + chars // 10 + 100_000
    assert most == len(set(lines))  # a stale 600 kB version is over the slack: pruned at once (it was 50 lines)
    assert canonical(analyze_lines(list(lines), cache)) == canonical(analyze_text("\n".join(lines)))


def test_a_partial_analysis_holds_the_findings_of_the_lines_read_so_far():
    text = fixture("rollout-patches.jsonl") + fixture("rollout-demo.jsonl")
    lines = split_lines(text)
    whole = analyze_text(text)
    for count in range(len(lines) + 1):
        known = partial_analysis(lines, whole.records[:count])
        assert known.findings == [f.moved_to(n) for n, r in enumerate(whole.records[:count]) for f in r.findings]
        assert all(f in whole.findings for f in known.findings) and known.calls == []


async def test_the_store_hands_on_what_it_knows_before_the_end():
    """A long analysis hands ``on_partial`` the findings of the lines read so far, then the whole analysis
    comes; nothing partial comes after it."""
    base = fixture("rollout-patches.jsonl")
    text = base + "".join(base for _ in range(60))  # several hundred lines: partials every 64 lines
    partials, ready = [], []

    async def on_ready(result):
        ready.append(result)

    store = AnalysisStore(on_ready, on_partial=lambda result: partials.append((len(ready), result)))
    store.partial_after = store.partial_every = 0
    uri = "file:///tmp/rollout-partial.jsonl"
    store.update(uri, text, 1, 0)
    result = await store.get(uri)
    await asyncio.sleep(0.05)
    store.shutdown()
    whole = analyze_text(text)
    assert result.complete and canonical(result.analysis) == canonical(whole)
    assert partials and all(before == 0 for before, _ in partials)
    for _, known in partials:
        count = len(known.analysis.records)
        assert not known.complete and known.version == 1 and 0 < count < len(whole.records)
        assert known.analysis.findings == [
            f.moved_to(n) for n, r in enumerate(whole.records[:count]) for f in r.findings
        ]


# -- through the server -------------------------------------------------------------------------------------------


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    await start(lsp_client)
    yield
    await lsp_client.shutdown_session()


async def _diagnostics(client: LanguageClient, uri: str) -> list[dict]:
    found = await diagnostics_of(client, uri)
    plain = json.loads(json.dumps([client.protocol._converter.unstructure(d) for d in found]))
    for diagnostic in plain:
        for related in diagnostic.get("relatedInformation") or []:
            related["location"]["uri"] = "URI"
        if diagnostic.get("data"):
            diagnostic["data"]["version"] = "VERSION"
    return plain


async def _outline(client: LanguageClient, uri: str) -> list[dict]:
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(uri))
    )
    plain = client.protocol._converter.unstructure(symbols)
    plain[0]["name"] = "ROOT" if not plain[0]["name"].startswith("session") else plain[0]["name"]
    return plain


@pytest.mark.parametrize("name", ["rollout-events.jsonl", "rollout-secrets.jsonl", "rollout-patches.jsonl"])
async def test_edited_diagnostics_and_outline_equal_a_fresh_open(client: LanguageClient, name: str):
    uri = uri_of(name)
    text = fixture(name)
    open_text(client, uri, text)
    await diagnostics_of(client, uri)
    await _outline(client, uri)  # the outline of the first version is encoded and cached
    document = LineList(text)
    for version, (start_line, start_column, end_line, end_column, new) in enumerate(edits_for(text), start=2):
        # positions in UTF-16 units, as the client sends them
        def units(line: int, column: int) -> int:
            line_text = document.lines[line] if line < len(document.lines) else ""
            return len(line_text[:column].encode("utf-16-le")) // 2

        client.diagnostics.pop(uri, None)
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(
                            types.Position(start_line, units(start_line, start_column)),
                            types.Position(end_line, units(end_line, end_column)),
                        ),
                        text=new,
                    )
                ],
            )
        )
        document.replace(start_line, start_column, end_line, end_column, new)
        edited = await _diagnostics(client, uri)
        edited_outline = await _outline(client, uri)
        fresh_uri = uri_of(f"rollout-fresh-{version}.jsonl")
        open_text(client, fresh_uri, document.text())
        assert edited == await _diagnostics(client, fresh_uri)
        fresh_outline = await _outline(client, fresh_uri)
        edited_outline[0]["name"] = fresh_outline[0]["name"]
        assert edited_outline == fresh_outline
        client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(fresh_uri)))
