"""Completions while authoring a rollout: the analysis proposes, this turns proposals into LSP items."""

from __future__ import annotations

from lsprotocol import types

from analysis.completion import Completion, complete
from analysis.positions import LineColumns, PositionEncoding
from analysis.rollout import RolloutAnalysis

TRIGGER_CHARACTERS = [".", '"', "{", ","]
_KINDS = {
    "value": types.CompletionItemKind.EnumMember,
    "tool": types.CompletionItemKind.Function,
    "key": types.CompletionItemKind.Property,
    "call_id": types.CompletionItemKind.Reference,
    "snippet": types.CompletionItemKind.Snippet,
}


class CompletionFeature:
    def completions(self, analysis: RolloutAnalysis, line_number: int, line: str, character: int,
                    encoding: PositionEncoding, snippets: bool) -> types.CompletionList:
        """Items for the cursor at ``character`` (client units) of ``line``, the document's current text."""
        columns = LineColumns(line)
        column = columns.from_units(character, encoding)
        items = [self.item(c, line_number, columns, encoding, snippets)
                 for c in complete(analysis, line_number, line, column)]
        return types.CompletionList(is_incomplete=False, items=items)

    def item(self, completion: Completion, line_number: int, columns: LineColumns, encoding: PositionEncoding,
             snippets: bool) -> types.CompletionItem:
        rng = types.Range(types.Position(line_number, columns.to_units(completion.start, encoding)),
                          types.Position(line_number, columns.to_units(completion.end, encoding)))
        use_snippet = snippets and completion.snippet is not None
        return types.CompletionItem(
            label=completion.label, kind=_KINDS[completion.kind], detail=completion.detail,
            sort_text=completion.sort,
            filter_text=completion.label if completion.kind != "snippet" else None,
            text_edit=types.TextEdit(rng, completion.snippet if use_snippet else completion.text),
            insert_text_format=types.InsertTextFormat.Snippet if use_snippet else types.InsertTextFormat.PlainText)
