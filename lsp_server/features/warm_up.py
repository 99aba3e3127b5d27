"""What the first open of a rollout would do once per process, done while the server waits for it (issue 35).

A server started before any rollout is open (the VS Code extension's `rolloutLsp.server.startEarly`) would
otherwise pay, on the first rollout opened, for what a process does once: importing and loading the price table
of the cost lens (``genai_prices``, which imports ``httpx``: about 0.1 s of CPU, a third of ``rollout-lsp
outline``'s whole run of a 3 MB rollout), compiling the semantic-token queries, and cattrs generating the
structure and unstructure functions of each message type VS Code sends on open and of their answers (a few ms
each).  The user waits for that on the first Outline and lenses, and not at all while the server is idle.  So one
second after ``initialized`` a background thread does it.  It only fills caches the first answers would fill (no answer
changes); what a document opened within that second already filled costs nothing again.

Only while no document is open (:func:`warm_up_if_idle`): a server started by a rollout's own opening (cold) is
not waiting but reading that rollout, and a warm-up then would cost 0.15-0.2 CPU-s the first Outline does not need
(the price table is the cost lens's), in the middle of a large rollout's first analysis and against it for the
GIL.  That open's own requests then fill what they use, as they would without a warm-up.
"""

from __future__ import annotations

import threading
from typing import Any

from lsprotocol import types

from .. import code_cache

DELAY = 1.0  # seconds after `initialized` without a document: the client's own start has settled

# a response as a rollout records one: the cost lens prices each like it (any model the table knows)
_SAMPLE_PRICE = ("gpt-5", "openai", None, "2026-01-01T00:00:00Z", (1000, 500, 100, 0))
_SAMPLE_SCRIPT = 'const r = await tools.exec_command({cmd: "git status"}); text(r.output);'
_URI = "file:///rollout-warm-up.jsonl"
_WIRE_RANGE = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}


def _on_open() -> list[tuple[str, dict[str, Any], Any]]:
    """What VS Code sends when a rollout opens (bench/editor_vscode.py --trace), and a sample answer of each."""
    at = types.Range(types.Position(0, 0), types.Position(0, 1))
    return [
        (
            types.TEXT_DOCUMENT_DID_OPEN,
            {"textDocument": {"uri": _URI, "languageId": "rollout", "version": 1, "text": "{}\n"}},
            None,
        ),
        (
            types.TEXT_DOCUMENT_CODE_ACTION,
            {"textDocument": {"uri": _URI}, "range": _WIRE_RANGE, "context": {"diagnostics": [], "triggerKind": 2}},
            [
                types.CodeAction(
                    "warm-up",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[_diagnostic()],
                    edit=types.WorkspaceEdit(changes={_URI: [types.TextEdit(at, "")]}),
                )
            ],
        ),
        (types.TEXT_DOCUMENT_DOCUMENT_SYMBOL, {"textDocument": {"uri": _URI}}, None),
        (types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, {"textDocument": {"uri": _URI}}, types.SemanticTokens(data=[0])),
        (
            types.TEXT_DOCUMENT_SEMANTIC_TOKENS_RANGE,
            {"textDocument": {"uri": _URI}, "range": _WIRE_RANGE},
            types.SemanticTokens(data=[0]),
        ),
        (
            types.TEXT_DOCUMENT_CODE_LENS,
            {"textDocument": {"uri": _URI}},
            [types.CodeLens(at, types.Command("warm-up", "rollout-lsp.showDecodedScript", arguments=[_URI, 0]))],
        ),
        (types.TEXT_DOCUMENT_FOLDING_RANGE, {"textDocument": {"uri": _URI}}, [types.FoldingRange(0, 1)]),
        (types.CANCEL_REQUEST, {"id": 1}, None),
    ]


def _diagnostic() -> types.Diagnostic:
    at = types.Range(types.Position(0, 0), types.Position(0, 1))
    return types.Diagnostic(at, "warm-up", types.DiagnosticSeverity.Warning, "code", source="rollout-lsp")


def warm_up(protocol: Any) -> None:
    """Load the price table, compile the semantic-token queries, and have ``protocol``'s converter make the
    functions that read VS Code's messages on open and write their answers."""
    # imported here, in the warm-up's thread: the server's start does not load the price table (test_server_start)
    from analysis.authoring.semantic_tokens import script_tokens
    from analysis.reports.library.pricing import price

    price(*_SAMPLE_PRICE)
    script_tokens(_SAMPLE_SCRIPT)
    converter = protocol._converter
    for method, params, result in _on_open():
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
        if result is not None or method == types.TEXT_DOCUMENT_DOCUMENT_SYMBOL:
            message["id"] = 0
        protocol.structure_message(message)
        answer = protocol.get_result_type(method)
        if answer is not None and result is not None:
            converter.unstructure(answer(id=0, result=result, jsonrpc="2.0"))
    converter.unstructure(types.PublishDiagnosticsParams(_URI, [_diagnostic()], 1))
    # the converter's functions just made, kept for the next start (a no-op when they came from the cache)
    code_cache.save()


def warm_up_if_idle(protocol: Any) -> threading.Thread | None:
    """:func:`start_warm_up` unless a document is open already; then only what the first answers compiled is
    written to the code cache (the warm-up's save), so that the next start finds it even if this one is killed."""
    if protocol.workspace.text_documents:
        code_cache.save()
        return None
    return start_warm_up(protocol)


def start_warm_up(protocol: Any) -> threading.Thread:
    """:func:`warm_up` in a daemon thread (the event loop stays free for a document opened meanwhile)."""
    thread = threading.Thread(target=warm_up, args=(protocol,), name="rollout-lsp-warm-up", daemon=True)
    thread.start()
    return thread
