"""Inputs for the hardening tests: pools of real lines and scripts, mutations, and invariant checks."""

from __future__ import annotations

import json
from dataclasses import replace
from functools import lru_cache

from hypothesis import strategies as st

from analysis import analyze_line, analyze_text
from analysis.jsonl.lines import split_lines
from analysis.jsonl.positions import PositionEncoding
from analysis.session.rollout import RolloutAnalysis
from analysis.jsonl.secrets import find_secrets, redact
from tests.helpers import FIXTURES

RECORD_TYPES = ["session_meta", "turn_context", "response_item", "event_msg", "compacted", "world_state", "x"]
ITEM_TYPES = ["message", "reasoning", "function_call", "function_call_output", "custom_tool_call",
              "custom_tool_call_output", "local_shell_call", "web_search_call", "other"]
JS_PIECES = ["tools.", "exec_command", "apply_patch", "(", ")", "{", "}", "[", "]", "`", "${", "'", '"', "\\",
             "/", "//", "/*", "*/", "\n", "if (false) ", "return;", "const ", "let ", " => ", "await ", "?.", "??",
             "cmd:", "*** Begin Patch\n", "*** Update File: ", "*** End Patch", "\u2028", "😀", "\x00", ";", ","]


@lru_cache(maxsize=1)
def real_lines() -> list[str]:
    """Every line of the project's fixtures (the corpus suite runs the same invariants over ../shared/corpus)."""
    lines = []
    for path in sorted(FIXTURES.glob("*.jsonl")):
        lines += [line for line in split_lines(path.read_bytes().decode("utf-8")) if line.strip()]
    return lines


@lru_cache(maxsize=1)
def real_scripts() -> list[str]:
    scripts = []
    for line in real_lines():
        try:
            payload = json.loads(line).get("payload")
        except (ValueError, AttributeError):
            continue
        if isinstance(payload, dict) and payload.get("name") == "exec" and isinstance(payload.get("input"), str):
            scripts.append(payload["input"])
    return scripts


def exec_line(script: str, call_id: str = "call_fuzz") -> str:
    return json.dumps({"timestamp": "t", "type": "response_item", "payload": {
        "type": "custom_tool_call", "call_id": call_id, "name": "exec", "input": script}}, ensure_ascii=False)


@st.composite
def mutated(draw, base: str) -> str:
    """``base`` with a few random cuts, insertions, deletions and duplications."""
    text = base
    for _ in range(draw(st.integers(1, 4))):
        if not text:
            text = draw(st.text(max_size=20))
            continue
        at = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(["cut", "insert", "delete", "duplicate", "piece"]))
        if op == "cut":
            text = text[:at]
        elif op == "insert":
            text = text[:at] + draw(st.text(max_size=8)) + text[at:]
        elif op == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 40)):]
        elif op == "duplicate":
            end = min(len(text), at + draw(st.integers(1, 60)))
            text = text[:end] + text[at:end] + text[end:]
        else:
            text = text[:at] + draw(st.sampled_from(JS_PIECES)) + text[at:]
    return text


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=20)


@st.composite
def record_lines(draw) -> str:
    """JSON lines shaped like records, with payloads of right and wrong types."""
    payload = draw(st.one_of(
        json_values,
        st.fixed_dictionaries({"type": st.sampled_from(ITEM_TYPES)},
                              optional={"name": st.sampled_from(["exec", "apply_patch", "exec_command", "shell", "wait"]),
                                        "input": st.one_of(st.text(max_size=80), json_values),
                                        "arguments": st.one_of(st.text(max_size=40), json_values),
                                        "call_id": st.one_of(st.text(max_size=8), st.integers()),
                                        "output": json_values, "role": json_values, "content": json_values,
                                        "action": json_values, "namespace": json_values})))
    record = {"timestamp": "t", "type": draw(st.sampled_from(RECORD_TYPES)), "payload": payload}
    return json.dumps(record, ensure_ascii=draw(st.booleans()))


@st.composite
def documents(draw) -> str:
    """Whole documents of real, mutated, random and record-shaped lines, with any line endings."""
    pool = real_lines()
    scripts = real_scripts()
    parts = []
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["real", "mutated", "script", "record", "text"]))
        if kind == "real":
            parts.append(draw(st.sampled_from(pool)))
        elif kind == "mutated":
            parts.append(draw(mutated(draw(st.sampled_from(pool)))))
        elif kind == "script":
            parts.append(exec_line(draw(mutated(draw(st.sampled_from(scripts))))))
        elif kind == "record":
            parts.append(draw(record_lines()))
        else:
            parts.append(draw(st.text(max_size=60)))
    endings = [draw(st.sampled_from(["\n", "\r\n", "\r"])) for _ in parts]
    text = "".join(p + e for p, e in zip(parts, endings))
    if draw(st.booleans()):
        text = text[:draw(st.integers(0, len(text)))]
    return ("\ufeff" if draw(st.booleans()) else "") + text


def check_invariants(text: str) -> RolloutAnalysis:
    """Analyses ``text`` and checks what must hold for any input."""
    analysis = analyze_text(text)
    lines = split_lines(text)
    assert len(analysis.lines) == len(lines)
    spans = [f.span for f in analysis.findings] + [r.span for f in analysis.findings for r in f.related] + \
        [c.span for c in analysis.calls]
    for span in spans:
        assert 0 <= span.line < len(lines), span
        assert 0 <= span.start <= span.end <= len(lines[span.line]), (span, len(lines[span.line]))
        rng = analysis.range_of(span, PositionEncoding.UTF16)
        assert rng.end.character <= len(lines[span.line].encode("utf-16-le", "surrogatepass")) // 2
    for number, line in enumerate(lines):
        alone = analyze_line(line)
        # findings of the whole document, or of pairing lines: a call and its output, an event and its call
        in_document = [f for f in analysis.findings if f.span.line == number and
                       f.code not in ("unpaired-call", "unknown-record", "unmatched-event", "event-contradicts")]
        assert in_document == [f.moved_to(number) for f in alone.findings]
        # whether a call ran can come from other lines (an event reports it, its script completed): not the call
        assert [replace(c.call, executed=a.executed) for c, a in
                zip([c for c in analysis.calls if c.line == number], alone.calls)] == list(alone.calls)
        assert len([c for c in analysis.calls if c.line == number]) == len(alone.calls)
    return analysis


def check_redaction(line: str) -> None:
    for match in find_secrets(line):
        out = redact(line, match)
        assert len(out) == len(line)
        try:
            json.loads(line)
        except ValueError:
            continue
        json.loads(out)  # still valid JSON
        assert not any(m.start == match.start for m in find_secrets(out))


# -- hostile files, written at test time ---------------------------------------------------------------------

TERMINAL_ATTACKS = "\x1b]0;TITLE\x07 \x1b]52;c;aGVsbG8=\x07 \x1b[2J \r\x08"  # title, clipboard, clear, CR, BS


def hostile_rollout(text: str) -> str:
    """A small rollout whose command, output, user message and session id all hold ``text`` (written with
    ``ensure_ascii``, so a lone surrogate or a control character is a JSON escape in the file)."""
    records = [
        {"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta",
         "payload": {"id": "s-" + text, "cwd": "/tmp", "cli_version": "0.1"}},
        {"timestamp": "2026-01-01T00:00:01Z", "type": "response_item",
         "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "ask " + text}]}},
        {"timestamp": "2026-01-01T00:00:02Z", "type": "response_item",
         "payload": {"type": "function_call", "name": "exec_command", "call_id": "c1",
                     "arguments": json.dumps({"cmd": "echo " + text})}},
        {"timestamp": "2026-01-01T00:00:03Z", "type": "response_item",
         "payload": {"type": "function_call_output", "call_id": "c1", "output": "said " + text}},
        {"timestamp": "2026-01-01T00:00:04Z", "type": "response_item",
         "payload": {"type": "function_call", "name": "exec_command", "call_id": "c2",
                     "arguments": json.dumps({"cmd": "true"})}},
    ]
    return "".join(json.dumps(r) + "\n" for r in records)
