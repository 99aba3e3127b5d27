"""The exec script as an editable document: read it, and write an edited script back as one versioned edit.

``rollout-lsp.scriptSource`` gives the real script of an exec record (an editor
opens it as a JavaScript document); ``rollout-lsp.writeScript`` takes the new text
and asks the client to apply one ``TextDocumentEdit`` for the document version the
edit was computed on, changing only the record's ``input`` string
(:func:`analysis.script_edit.script_edit` keeps the line's escaping).  A record is
found by its ``call_id`` when lines moved since the script was opened.
"""

from __future__ import annotations

import json

from lsprotocol import types

from analysis.positions import LineColumns, PositionEncoding
from analysis.script_edit import StringEdit, script_edit

SCRIPT_SOURCE = "rollout-lsp.scriptSource"
WRITE_SCRIPT = "rollout-lsp.writeScript"


def exec_record(line: str) -> dict | None:
    """The payload of an exec ``custom_tool_call`` line, else None."""
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return None
    payload = value.get("payload") if isinstance(value, dict) else None
    if isinstance(payload, dict) and payload.get("type") == "custom_tool_call" and payload.get("name") == "exec" \
            and isinstance(payload.get("input"), str):
        return payload
    return None


class ScriptEditFeature:
    def find(self, lines: list[str], line: int, call_id: str | None) -> int | None:
        """The exec record at ``line``, or the one with ``call_id`` wherever it moved."""
        if 0 <= line < len(lines):
            payload = exec_record(lines[line])
            if payload is not None and (call_id is None or payload.get("call_id") == call_id):
                return line
        if call_id is None:
            return None
        for number, text in enumerate(lines):
            if call_id in text:
                payload = exec_record(text)
                if payload is not None and payload.get("call_id") == call_id:
                    return number
        return None

    def source(self, lines: list[str], line: int, call_id: str | None, version: int | None) -> dict | None:
        number = self.find(lines, line, call_id)
        if number is None:
            return None
        payload = exec_record(lines[number])
        return {"script": payload["input"], "language": "javascript", "call_id": payload.get("call_id"),
                "line": number, "version": version}

    def edit(self, uri: str, version: int | None, lines: list[str], line: int, call_id: str | None, script: str,
             encoding: PositionEncoding) -> tuple[int, StringEdit, types.ApplyWorkspaceEditParams] | None:
        """The versioned workspace edit that writes ``script`` into the record; None when there is no record."""
        number = self.find(lines, line, call_id)
        if number is None:
            return None
        text = lines[number]
        found = script_edit(text, script)
        if found is None:
            return None
        columns = LineColumns(text)
        rng = types.Range(types.Position(number, columns.to_units(found.start, encoding)),
                          types.Position(number, columns.to_units(found.end, encoding)))
        change = types.TextDocumentEdit(types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
                                        [types.TextEdit(rng, found.text)])
        return number, found, types.ApplyWorkspaceEditParams(types.WorkspaceEdit(document_changes=[change]),
                                                             label="Write the exec script back")
