"""The exec script as an editable document: read it, and write an edited script back as one versioned edit.

- ``rollout-lsp.scriptSource [uri, line, call_id?]``: the exec record's real script (not masked: it is
  the document's own text, to be edited and written back), its call_id, line and the document version.
- ``rollout-lsp.writeScript [uri, line, script, call_id?, options?]``: asks the client
  (``workspace/applyEdit``) to apply one edit, for the document version it was computed on, that changes only
  the record's ``input`` string (:func:`analysis.authoring.script_edit.script_edit` keeps the line's escaping).
  Answers ``{applied, changed, line, reason}``.  With ``options.requireValid`` a script that does not parse
  (as the exec tool reads it: a strict ES module) is refused, its reason naming where: an editor saving
  half-typed code (auto-save) must not turn the rollout's calls dead.

A record is found by its ``call_id`` when lines moved since the script was opened.
"""

from __future__ import annotations

import json
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from analysis.authoring.script_edit import StringEdit, script_edit
from analysis.jsonl.positions import LineColumns, PositionEncoding
from analysis.script.module_syntax import syntax_problem
from analysis.script.script import ExecScript

from ..documents import document_lines, line_text
from .base import Feature, lsp_command

SCRIPT_SOURCE = "rollout-lsp.scriptSource"
WRITE_SCRIPT = "rollout-lsp.writeScript"


def exec_record(line: str) -> dict | None:
    """The payload of an exec ``custom_tool_call`` line, else None."""
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return None
    payload = value.get("payload") if isinstance(value, dict) else None
    if (
        isinstance(payload, dict)
        and payload.get("type") == "custom_tool_call"
        and payload.get("name") == "exec"
        and isinstance(payload.get("input"), str)
    ):
        return payload
    return None


class ScriptEditFeature(Feature):
    @lsp_command(SCRIPT_SOURCE)
    async def script_source(self, *arguments: Any) -> dict | None:
        """The real script of the exec record at a line (or with a call_id), to edit as JavaScript."""
        uri, line, call_id = _arguments(arguments, 2)
        if uri not in self.server.workspace.text_documents:
            return None
        document = self.server.workspace.get_text_document(uri)
        return self.source(document_lines(document), line, call_id, document.version)

    @lsp_command(WRITE_SCRIPT)
    async def write_script(self, *arguments: Any) -> dict:
        """Write a new script back into the exec record as one versioned edit, applied by the client."""
        uri, line, call_id = _arguments(arguments[:2] + arguments[3:4], 2)
        script = arguments[2] if len(arguments) > 2 else None
        options = arguments[4] if len(arguments) > 4 and arguments[4] is not None else {}
        if not isinstance(script, str) or not isinstance(options, dict):
            raise JsonRpcInvalidParams(f"{WRITE_SCRIPT}: expected [document URI, line, script, call_id?, options?]")
        if uri not in self.server.workspace.text_documents:
            return {"applied": False, "changed": False, "line": None, "reason": f"{uri} is not open"}
        problem = script_problem(script) if options.get("requireValid") else None
        if problem is not None:
            return {"applied": False, "changed": False, "line": None, "reason": problem}
        document = self.server.workspace.get_text_document(uri)
        found = self.edit(document_lines(document), line, call_id, script, self.server.encoding)
        if found is None:
            where = f"line {line + 1}" + (f" or with call_id {call_id}" if call_id else "")
            return {"applied": False, "changed": False, "line": None, "reason": f"no exec record at {where}"}
        number, edit = found
        if edit.is_empty:
            return {"applied": True, "changed": False, "line": number, "reason": None}
        answer = await self.server.workspace_apply_edit_async(
            types.ApplyWorkspaceEditParams(
                self.server.edits.edit(
                    uri, document.version, [edit_of(number, line_text(document, number), edit, self.server.encoding)]
                ),
                label="Write the exec script back",
            )
        )
        return {
            "applied": bool(answer.applied),
            "changed": bool(answer.applied),
            "line": number,
            "reason": answer.failure_reason,
        }

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
        payload = None if number is None else exec_record(lines[number])  # found: an exec record's payload
        if payload is None:
            return None
        return {
            "script": payload["input"],
            "language": "javascript",
            "call_id": payload.get("call_id"),
            "line": number,
            "version": version,
        }

    def edit(
        self, lines: list[str], line: int, call_id: str | None, script: str, encoding: PositionEncoding
    ) -> tuple[int, StringEdit] | None:
        number = self.find(lines, line, call_id)
        if number is None:
            return None
        found = script_edit(lines[number], script)
        return (number, found) if found is not None else None


def script_problem(script: str) -> str | None:
    """Why ``script`` would not run (``line 2, column 5: syntax error …``), or None when it parses."""
    problem = syntax_problem(ExecScript(script))
    if problem is None:
        return None
    before = script[: problem.start]
    line = before.count("\n") + 1
    column = problem.start - (before.rfind("\n") + 1) + 1
    return f"the script does not parse (line {line}, column {column}): {problem.message}"


def edit_of(number: int, text: str, edit: StringEdit, encoding: PositionEncoding) -> types.TextEdit:
    columns = LineColumns(text)
    return types.TextEdit(
        types.Range(
            types.Position(number, columns.to_units(edit.start, encoding)),
            types.Position(number, columns.to_units(edit.end, encoding)),
        ),
        edit.text,
    )


def _arguments(arguments: tuple, required: int) -> tuple[str, int, str | None]:
    if (
        len(arguments) < required
        or not isinstance(arguments[0], str)
        or not isinstance(arguments[1], int)
        or isinstance(arguments[1], bool)
        or (len(arguments) > 2 and arguments[2] is not None and not isinstance(arguments[2], str))
    ):
        raise JsonRpcInvalidParams("expected the arguments [document URI, line number, …, call_id?]")
    return arguments[0], arguments[1], arguments[2] if len(arguments) > 2 else None
