"""Helpers for the end-to-end tests that drive `rollout-lsp serve` with pytest-lsp."""

from __future__ import annotations

import asyncio
import os
import sys

from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from analysis.jsonl.lines import split_lines
from tests.helpers import ROOT

# no session index (a path that cannot exist): workspace symbols come from the open documents only
SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "lsp_server", "serve"],
    server_env={"PYTHONPATH": str(ROOT), "ROLLOUT_LSP_INDEX": os.path.join(os.devnull, "no-index.sqlite3")},
)


def uri_of(name: str) -> str:
    return (ROOT / "fixtures" / name).as_uri()


def push_capabilities() -> types.ClientCapabilities:
    return types.ClientCapabilities(
        text_document=types.TextDocumentClientCapabilities(
            hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.Markdown]),
            document_symbol=types.DocumentSymbolClientCapabilities(hierarchical_document_symbol_support=True),
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(related_information=True),
        ),
        workspace=types.WorkspaceClientCapabilities(
            configuration=True, workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True)
        ),
        window=types.WindowClientCapabilities(show_document=types.ShowDocumentClientCapabilities(support=True)),
        general=types.GeneralClientCapabilities(position_encodings=[types.PositionEncodingKind.Utf16]),
    )


def pull_capabilities() -> types.ClientCapabilities:
    caps = push_capabilities()
    caps.text_document.diagnostic = types.DiagnosticClientCapabilities(related_document_support=False)
    caps.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    return caps


async def start(
    client: LanguageClient,
    capabilities: types.ClientCapabilities | None = None,
    options: dict | None = None,
    root: str | None = None,
) -> types.InitializeResult:
    return await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities or push_capabilities(),
            initialization_options=options,
            root_uri=root or ROOT.as_uri(),
        )
    )


def apply_edit(text: str, edit: types.WorkspaceEdit, uri: str, version: int | None) -> str:
    """``text`` with a versioned workspace edit applied, as a client does: it must name ``version``."""
    [change] = edit.document_changes
    assert change.text_document.uri == uri and change.text_document.version == version
    lines = split_lines(text)
    for e in sorted(change.edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        assert e.range.start.line == e.range.end.line
        line = lines[e.range.start.line].encode("utf-16-le", "surrogatepass")
        lines[e.range.start.line] = (
            line[: 2 * e.range.start.character] + e.new_text.encode("utf-16-le") + line[2 * e.range.end.character :]
        ).decode("utf-16-le", "surrogatepass")
    return "\n".join(lines)


def open_text(client: LanguageClient, uri: str, text: str, version: int = 1) -> None:
    client.diagnostics.pop(uri, None)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id="jsonl", version=version, text=text)
        )
    )


async def diagnostics_of(client: LanguageClient, uri: str, timeout: float = 15) -> list[types.Diagnostic]:
    """The next diagnostics published for ``uri`` (clear ``client.diagnostics[uri]`` before acting)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while uri not in client.diagnostics:
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError(f"no diagnostics for {uri}")
        await asyncio.sleep(0.01)
    return list(client.diagnostics[uri])


def change(
    client: LanguageClient, uri: str, version: int, start: tuple[int, int], end: tuple[int, int], text: str
) -> None:
    client.diagnostics.pop(uri, None)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(types.Position(*start), types.Position(*end)), text=text
                )
            ],
        )
    )


def position_of(line_text: str, needle: str, offset: int = 0) -> int:
    """The UTF-16 column of ``needle`` in a line."""
    index = line_text.index(needle) + offset
    return len(line_text[:index].encode("utf-16-le")) // 2
