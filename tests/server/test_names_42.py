"""Rows, details and lens titles shown as they are without ``for_people``'s search when nothing in them is
invisible or controlling (lsp_server/names.py), and the same text as before for every other: the Outline, the
lenses and the folding ranges of a rollout whose names hold ``·``, accents, a Hangul filler and a
bidirectional override, asked twice and after an edit (the outline's cache missed, hit, and hit for the
records the edit left)."""

from __future__ import annotations

import json
import sys

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from analysis.jsonl.display import for_people, shown
from lsp_server import names
from lsp_server.wire import compact, dumps
from tests.helpers import fixture
from tests.lsp_support import SERVER, change, diagnostics_of, open_text, start, uri_of

HIDDEN = names._PRINTABLE_HIDDEN


def _before(text: str, limit: int = names.SYMBOL_LIMIT) -> str:
    """What ``safe_name`` answered before its fast path for non-ASCII text."""
    if text.isascii() and text.isprintable() and len(text) <= limit:
        return text
    return for_people(shown(text, limit))


def _detail_before(text: str | None) -> str | None:
    if text is None or (text.isascii() and text.isprintable()):
        return text
    return for_people(text.replace("\r", "").replace("\n", "⏎ "))


def test_every_printable_character_but_the_hangul_fillers_is_shown_as_it_is():
    printable = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isprintable()]
    shown_as_is = "".join(c for c in printable if c not in HIDDEN)
    assert for_people(shown_as_is) == shown_as_is  # one search over all of them: none is escaped
    assert names._as_is(shown_as_is)
    for c in HIDDEN:
        assert c.isprintable() and for_people(c) == f"\\u{ord(c):04x}" and not names._as_is(f"a · {c}")
    not_printable = [chr(c) for c in range(sys.maxunicode + 1) if not chr(c).isprintable()]
    assert not any(names._as_is(f"a · {c}") for c in not_printable)


SAMPLES = [
    "exec · git status +3",
    "2 commands · exit 0 · 0.3 s",
    "turn 2 (line 9): répare le test · ok",
    "naïve\u3164name",
    "a \u202egnp.sj\u202c b · c",
    "soft\u00adhyphen · x",
    "line\nbreak · x",
    "carriage\r\nreturn",
    "lone \ud83d surrogate ·",
    "tag \U000e0041 char",
    "para\u2029graph",
    "filler \u115f \u1160 \uffa0",
    "· " * 150,
    "x" * 250,
    "é" * 200,
    "é" * 201,
    "",
]


def test_safe_names_and_details_are_what_they_were():
    for text in SAMPLES:
        assert names.safe_name(text) == _before(text), text
        assert names.safe_name(text, 60) == _before(text, 60), text
        assert names._safe_detail(text) == _detail_before(text), text
    assert names._safe_detail(None) is None
    assert names.safe_name("exec · pytest") == "exec · pytest"
    assert names.safe_name("a\u3164b · c") == "a\\u3164b · c"
    assert names._safe_detail("1 command · 0.4 s\nmore") == "1 command · 0.4 s⏎ more"


def test_compact_json_is_json_dumps_compact():
    for value in [
        {"name": "exec · é \u3164 \ud83d", "kind": 12, "children": [{"a": 1.5, "b": None, "c": True}]},
        [1, 2, {"x": float("nan"), "y": float("inf")}],
        "plain",
        {"data": list(range(50))},
    ]:
        assert compact(value) == json.dumps(value, separators=(",", ":"))
        assert dumps(value) == json.dumps(value, separators=(",", ":")).encode("utf-8")


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    await start(lsp_client)
    yield
    await lsp_client.shutdown_session()


COMMAND = "pytest -q tests/test_grüß\u3164.py"
TURN = "Fix the failing greeting test"


def _text() -> str:
    text = fixture("rollout-demo.jsonl")
    # the command of the first exec record: with an accent, ß and a Hangul filler (escaped where it is shown)
    text = text.replace("pytest -q tests/test_greet.py", COMMAND)
    return text.replace(TURN, "Répare \u202eel test · vite")


def _shape(symbol: types.DocumentSymbol) -> tuple:
    return (symbol.name, symbol.detail, [_shape(c) for c in symbol.children or []])


EXEC_ROW = (
    "exec · pytest -q tests/test_grüß\\u3164.py",
    "1 command · 0.4 s",
    [("[exit 1] exec_command: pytest -q tests/test_grüß\\u3164.py", "exit 1", [])],
)
TURN_NAME = "turn 1 (line 3): Répare \\u202eel test · vite"


async def test_outline_lenses_and_folding_of_non_ascii_names(client: LanguageClient):
    uri = uri_of("rollout-names-42.jsonl")
    text = _text()
    open_text(client, uri, text)
    await diagnostics_of(client, uri)
    ask = types.DocumentSymbolParams(types.TextDocumentIdentifier(uri))
    first = await client.text_document_document_symbol_async(ask)  # the outline built (the cache missed)
    again = await client.text_document_document_symbol_async(ask)  # the same version: its encoding again
    [root] = first
    turn = root.children[0]
    assert turn.name == TURN_NAME
    assert turn.detail == "1 failed (first: line 5, exit 1)"
    assert _shape(turn.children[0]) == EXEC_ROW
    assert [_shape(s) for s in again] == [_shape(s) for s in first]
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri)))
    titles = [lens.command.title for lens in lenses if lens.command is not None]
    assert titles == [
        "1 command · exit 1 · 0.4 s",
        "1 command · 1 patch · exit 0 · 1.2 s",
        "2 commands · no output",
        "1 failed call · first: line 5, exit 1",
    ]
    folding = await client.text_document_folding_range_async(
        types.FoldingRangeParams(types.TextDocumentIdentifier(uri))
    )
    assert [f.collapsed_text for f in folding] == ["Répare \\u202eel test · vite"]
    # an edit of another line: the exec row's encoding is kept (the cache hit), and says the same
    lines = text.split("\n")
    change(client, uri, 2, (len(lines) - 1, 0), (len(lines) - 1, 0), "\n")
    await diagnostics_of(client, uri)
    [edited] = await client.text_document_document_symbol_async(ask)
    assert edited.children[0].name == TURN_NAME
    assert _shape(edited.children[0].children[0]) == EXEC_ROW
