"""Completions while authoring a rollout: the analysis proposes, this turns proposals into LSP items."""

from __future__ import annotations

from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from analysis.authoring.completion import ARGUMENT_KEYS, Completion, complete, script_completions
from analysis.jsonl.positions import LineColumns, PositionEncoding
from analysis.session.rollout import RolloutAnalysis

from ..documents import line_text
from ..markdown import client_markup, escape, inline_code
from ..plaintext import plain_text
from .base import Feature, lsp_command, lsp_method

SCRIPT_COMPLETION = "rollout-lsp.scriptCompletion"

TRIGGER_CHARACTERS = [".", '"', "{", ","]
_KINDS = {
    "value": types.CompletionItemKind.EnumMember,
    "tool": types.CompletionItemKind.Function,
    "key": types.CompletionItemKind.Property,
    "call_id": types.CompletionItemKind.Reference,
    "snippet": types.CompletionItemKind.Snippet,
}


class CompletionFeature(Feature):
    """Record and payload types, tools after ``tools.``, argument keys, call ids waiting for an output, and
    a snippet for an exec call with its output (as plain text where the client has no snippets)."""

    snippets = False
    markup = types.MarkupKind.Markdown

    def configure(self, capabilities: types.ClientCapabilities) -> None:
        text = capabilities.text_document
        item = text.completion.completion_item if text and text.completion else None
        self.snippets = bool(item and item.snippet_support)
        # Markdown unless the client says it shows only plain text: then the Markdown made plain, as hovers
        self.markup = client_markup(item.documentation_format if item else None)

    @lsp_method(
        types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=TRIGGER_CHARACTERS), empty=None
    )
    async def completion(self, params: types.CompletionParams) -> types.CompletionList | None:
        """Proposals at the cursor, read from the document's current text of that line."""
        uri = params.text_document.uri
        result = await self.rollout(uri)
        if result is None:
            return None
        line = line_text(self.server.workspace.get_text_document(uri), params.position.line)
        return self.completions(
            result.analysis, params.position.line, line, params.position.character, self.server.encoding
        )

    @lsp_command(SCRIPT_COMPLETION)
    async def script_completion(self, *arguments: Any) -> dict | None:
        """Completions in an exec script edited on its own (an editor's JavaScript view of a record):
        ``[rollout URI, script, offset]``, the offset in the client's units from the script's start.  Answers
        ``{items: [{label, kind, detail, sort, text, start, end}]}``, ``start``/``end`` in the same units; None
        when the rollout is not open."""
        if (
            len(arguments) < 3
            or not isinstance(arguments[0], str)
            or not isinstance(arguments[1], str)
            or not isinstance(arguments[2], int)
            or isinstance(arguments[2], bool)
        ):
            raise JsonRpcInvalidParams(f"{SCRIPT_COMPLETION}: expected [rollout URI, script, offset]")
        result = await self.rollout(arguments[0])
        if result is None:
            return None
        script, encoding = arguments[1], self.server.encoding
        columns = LineColumns(script)
        found = script_completions(result.analysis, script, columns.from_units(arguments[2], encoding))
        return {
            "items": [
                {
                    "label": c.label,
                    "kind": c.kind,
                    "detail": c.detail,
                    "sort": c.sort,
                    "text": c.text,
                    "start": columns.to_units(c.start, encoding),
                    "end": columns.to_units(c.end, encoding),
                }
                for c in found
            ]
        }

    def completions(
        self, analysis: RolloutAnalysis, line_number: int, line: str, character: int, encoding: PositionEncoding
    ) -> types.CompletionList:
        columns = LineColumns(line)
        column = columns.from_units(character, encoding)
        items = [self.item(c, line_number, columns, encoding) for c in complete(analysis, line_number, line, column)]
        tools = sorted(
            (i for i in items if i.kind == types.CompletionItemKind.Function), key=lambda i: i.sort_text or ""
        )
        if tools:  # after `tools.`: the first tool is selected, ahead of any word an editor would add
            tools[0].preselect = True
        return types.CompletionList(is_incomplete=False, items=items)

    def item(
        self, completion: Completion, line_number: int, columns: LineColumns, encoding: PositionEncoding
    ) -> types.CompletionItem:
        rng = types.Range(
            types.Position(line_number, columns.to_units(completion.start, encoding)),
            types.Position(line_number, columns.to_units(completion.end, encoding)),
        )
        snippet = completion.snippet if self.snippets else None
        documentation = tool_documentation(completion.label, completion.detail) if completion.kind == "tool" else None
        return types.CompletionItem(
            label=completion.label,
            kind=_KINDS[completion.kind],
            detail=completion.detail,
            documentation=None
            if documentation is None
            else types.MarkupContent(
                kind=self.markup,
                value=plain_text(documentation) if self.markup == types.MarkupKind.PlainText else documentation,
            ),
            sort_text=completion.sort,
            filter_text=completion.label if completion.kind != "snippet" else None,
            text_edit=types.TextEdit(rng, snippet if snippet is not None else completion.text),
            insert_text_format=types.InsertTextFormat.Snippet
            if snippet is not None
            else types.InsertTextFormat.PlainText,
        )


def tool_documentation(name: str, detail: str | None) -> str:
    """A tool's documentation, in Markdown: what it does and the keys of its argument object."""
    lines = [f"**tools.{escape(name)}**" + (f": {escape(detail)}" if detail else "")]
    keys = ARGUMENT_KEYS.get(name)
    if keys:
        lines += ["", "Arguments:"] + [f"- {inline_code(key)}: {escape(what)}" for key, what in keys.items()]
    return "\n".join(lines)
