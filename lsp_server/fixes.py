"""What a finding's quick fix changes, as plain text edits on the line the analysis read.

:func:`fix_data` is what a diagnostic carries (``Diagnostic.data``) so the fix needs nothing else:
the fix's kind and its parameters (the kept prefix of a secret, the call_id of an unpaired call).
The edits themselves are made by :func:`fix_edits` from the same analysis.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from analysis.jsonl.findings import PATCH_SYNTAX, SECRET, UNPAIRED_CALL, Finding
from analysis.jsonl.jsonspans import locate, string_content
from analysis.jsonl.positions import Span
from analysis.jsonl.secrets import SecretMatch, find_secrets, redacted_text
from analysis.script.calls import PATCH
from analysis.script.patch import BEGIN, END
from analysis.session.rollout import RolloutAnalysis

REDACT = "redact"
ADD_OUTPUT = "add-output"
WRAP_PATCH = "wrap-patch"
_OUTPUT_TYPES = {
    "custom_tool_call": "custom_tool_call_output",
    "function_call": "function_call_output",
    "local_shell_call": "function_call_output",
}
_EXEC_OUTPUT = "Script completed\nWall time 0.0 seconds\nOutput:\n"


@dataclass(frozen=True)
class Edit:
    """Replace columns ``start``..``end`` of ``line`` (code points) by ``text``."""

    line: int
    start: int
    end: int
    text: str

    @property
    def span(self) -> Span:
        return Span(self.line, self.start, self.end)


def fix_data(
    analysis: RolloutAnalysis, finding: Finding, extra_secrets: tuple[re.Pattern[str], ...] = ()
) -> dict | None:
    """What a finding's fix needs, or None when it has none."""
    line = finding.span.line
    if finding.code == SECRET:
        return {"fix": REDACT, "keep": kept_prefix(analysis.lines[line], finding.span, extra_secrets)}
    if finding.code == UNPAIRED_CALL:
        call_id = analysis.records[line].call_id
        return {"fix": ADD_OUTPUT, "callId": call_id} if call_id else None
    if finding.code == PATCH_SYNTAX and "envelope" in finding.message and wrap_patch(analysis, finding):
        return {"fix": WRAP_PATCH}
    return None


def kept_prefix(line: str, span: Span, extra_secrets: tuple[re.Pattern[str], ...] = ()) -> int:
    """How much of the secret stays readable: its identifying prefix, found with the same patterns
    (the configured ones too) as the finding."""
    for match in find_secrets(line, extra_secrets):
        if match.start == span.start and match.end == span.end:
            return match.keep
    return 0


def redaction(analysis: RolloutAnalysis, span: Span, keep: int) -> Edit:
    line = analysis.lines[span.line]
    return Edit(span.line, span.start, span.end, redacted_text(line, SecretMatch("", span.start, span.end, keep)))


def output_record(analysis: RolloutAnalysis, line: int, line_break: str = "\n") -> Edit | None:
    """A new line after the call at ``line``: an output record with the same call_id and timestamp."""
    record = analysis.records[line]
    if not record.is_call or not record.call_id:
        return None
    try:
        timestamp = json.loads(analysis.lines[line]).get("timestamp")
    except (ValueError, AttributeError, RecursionError):
        timestamp = None
    kind = _OUTPUT_TYPES.get(record.kind, "function_call_output")
    output: object = [{"type": "input_text", "text": _EXEC_OUTPUT}] if record.is_exec else ""
    payload = {"type": kind, "call_id": record.call_id, "output": output}
    new = (
        {"timestamp": timestamp, "type": "response_item", "payload": payload}
        if timestamp
        else {"type": "response_item", "payload": payload}
    )
    text = json.dumps(new, ensure_ascii=False, separators=(",", ":"))
    end = len(analysis.lines[line])
    return Edit(line, end, end, line_break + text)


def wrap_patch(analysis: RolloutAnalysis, finding: Finding) -> list[Edit] | None:
    """Two insertions that put a patch without its envelope between ``*** Begin Patch`` and
    ``*** End Patch``, escaped as the string holding it needs; None when the patch text cannot be
    found exactly (it is computed, or spread over several strings)."""
    line = finding.span.line
    record = analysis.records[line]
    patches = [
        c
        for c in analysis.calls_on(line)
        if c.call.kind == PATCH
        and c.call.patch is not None
        and not c.call.computed
        and c.call.start <= finding.span.start <= c.call.end
    ]
    if len(patches) != 1:
        return None
    text = patches[0].call.patch
    if text is None:  # never: only calls with a patch text were kept
        return None
    before = BEGIN + "\n"
    after = END + "\n" if text.endswith("\n") else "\n" + END
    raw = analysis.lines[line]
    if record.is_exec and record.script is not None and record.script_map is not None:
        script = record.script
        for quote in ("`", '"', "'"):
            literal = quote + text + quote
            at = script.find(literal)
            if at < 0 or script.find(literal, at + 1) >= 0:
                continue
            start, end = at + 1, at + 1 + len(text)
            js_before, js_after = (
                (before, after) if quote == "`" else (before.replace("\n", "\\n"), after.replace("\n", "\\n"))
            )
            return [
                Edit(line, record.script_map.start(start), record.script_map.start(start), _json(js_before)),
                Edit(line, record.script_map.start(end), record.script_map.start(end), _json(js_after)),
            ]
        return None
    if record.kind == "custom_tool_call":
        found = locate(raw, [("payload", "input")]).get(("payload", "input"))
        if found is None or raw[found[0]] != '"':
            return None
        start, content = string_content(raw, found)
        return [
            Edit(line, start, start, _json(before)),
            Edit(line, start + len(content), start + len(content), _json(after)),
        ]
    return None


def _json(text: str) -> str:
    """``text`` as it is written inside a JSON string."""
    return json.dumps(text, ensure_ascii=False)[1:-1]
