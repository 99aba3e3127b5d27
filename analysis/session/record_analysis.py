"""The analysis of one rollout line, on its own: record, calls, findings, output.

Nothing here looks at other lines, so a result can be cached by the line's text
and reused when an edit elsewhere leaves the line as it was.  Spans are on line 0;
the document moves them to their line.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from typing import Any

from ..jsonl.decoding import loads as json_loads
from ..jsonl.findings import (
    INVALID_JSON,
    RECORD_SHAPE,
    SECRET,
    Finding,
    finding_sort_key,
)
from ..jsonl.jsonspans import locate
from ..jsonl.lines import bom_as_space
from ..jsonl.pickling import pickled_by_fields
from ..jsonl.positions import EscapeMap, Span
from ..jsonl.secrets import find_secrets, opaque_paths
from ..script.calls import COMMAND, TOOL, ToolCall
from .call_records import (
    COMMAND_ARGUMENT,
    COMMAND_FUNCTIONS,
    _path_span,
    bare_tool_name,
    call_id_span,
    read_exec,
    read_function_call,
    read_other_item,
    read_top_patch,
    tool_name,
)
from .compaction import LARGE_LINE, CompactedSummary, is_compacted_line, summarise
from .events import EVENT_TYPES, ToolEvent, read_event
from .legacy_records import envelope_less_record, item_path
from .message_metadata import message_delivery, not_a_request, world_state_fields
from .outputs import ToolOutput, read_output
from .prompts import user_words
from .record_parts import _Item
from .records import (
    CustomToolCall,
    CustomToolCallOutput,
    FunctionCall,
    FunctionCallOutput,
    LocalShellCall,
    Message,
    OtherItem,
    Reasoning,
    Record,
    RecordShapeError,
    SessionMeta,
    parse_record,
)
from .settings import Settings, read_thread_settings, read_turn_context_settings
from .turn_events import (
    TURN_END_EVENTS,
    TURN_ITEM_EVENT,
    TurnEnd,
    TurnItem,
    read_turn_end,
    read_turn_item,
    user_item_words,
)
from .world_state import WORLD_STATE, WorldStateSummary, is_world_state_line, without_state

EXEC_NAMESPACES = (None, "functions")
TURN_EVENTS = ("task_started", "turn_started")
# the event types that read_turn_end, read_turn_item and read_event read: an event of any other
# type (token counts, agent messages and reasoning: a third of a rollout's lines) is none of the three, and
# its payload is not handed to each in turn to find that out
_READ_EVENTS = TURN_END_EVENTS | EVENT_TYPES | {TURN_ITEM_EVENT}


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class LineAnalysis:
    """What one line is and says.  ``kind`` is the payload type, ``blank`` or ``invalid``."""

    kind: str
    record: Record | None = None
    call_id: str | None = None
    name: str | None = None  # the tool a call record names (exec, exec_command, apply_patch, …)
    calls: tuple[ToolCall, ...] = ()
    findings: tuple[Finding, ...] = ()
    script: str | None = None  # the decoded JavaScript of an exec record
    script_map: EscapeMap | None = None
    output: ToolOutput | None = None
    text: str | None = None  # a message's text, a call's decoded input
    is_exec: bool = False
    is_call: bool = False  # a call record: function_call, custom_tool_call, local_shell_call, any other *_call
    is_output: bool = False  # an output record paired by call_id: function_call_output, custom_tool_call_output, …
    event: ToolEvent | None = None  # the call an event_msg reports
    turn_start: bool = False  # a task_started event or a turn_context: where Codex starts a turn
    turn_id: str | None = None
    prompt: str | None = None  # the user's own words (injected context removed)
    prompt_event: bool = (
        False  # the prompt comes from event_msg/user_message or a UserMessage item (Codex's own record)
    )
    turn_end: TurnEnd | None = None  # an event that ends, fails, interrupts or takes back a turn
    turn_item: TurnItem | None = None  # a turn item of paginated history (item_completed): words, reasoning, plan
    settings: Settings | None = None  # the settings a turn_context or thread_settings_applied record says
    compacted: CompactedSummary | None = None  # a compacted record's summary (its history is not kept)
    delivery: str | None = None  # a message's metadata (0.158 and later): "inherited", "delivered", "incomplete: …"
    world_state: WorldStateSummary | None = None  # a world_state record's summary (its state is not kept)

    @property
    def turn_title(self) -> str | None:
        """The user's own words of a user message or user_message event, or None."""
        return self.prompt

    @property
    def session(self) -> SessionMeta | None:
        item = self.record.item if self.record else None
        return item if isinstance(item, SessionMeta) else None


def analyze_line(line: str, extra_secrets: tuple[re.Pattern[str], ...] = (), secrets: bool = True) -> LineAnalysis:
    """The analysis of one line of a rollout (its spans on line 0); without ``secrets``, its ``secret``
    findings are not looked for (for a reader that reports no findings, such as the index)."""
    read = _analysed(line, extra_secrets, secrets, False)
    return read if isinstance(read, LineAnalysis) else LineAnalysis(**read)


def lean_fields(line: str, encoded: bytes | None = None) -> LineAnalysis | dict[str, Any]:
    """What the stream reads of one line, before it is thinned: a blank or invalid line's
    :class:`LineAnalysis`, or the fields of any other's as a dict (``kind``, ``record``, ``findings`` and those
    set), without what only the whole-file analysis reads (the fields ``thinning.DROPPED`` names: a message's
    text, the user's words, settings, turn items, compacted and world_state summaries, a message's
    delivery).  Every other field is what :func:`analyze_line` gives (``tests/reports/test_lean_lines.py``);
    ``analysis.reports.stream.thinning.thin_fields`` makes the thin analysis of it without building the whole
    one first.  ``encoded``: the line's UTF-8 as read from its file (for the secret prefilter), when known."""
    return _analysed(line, (), True, True, encoded)


def _analysed(
    line: str, extra_secrets: tuple[re.Pattern[str], ...], secrets: bool, lean: bool, encoded: bytes | None = None
) -> LineAnalysis | dict[str, Any]:
    if not line.strip():
        return LineAnalysis("blank")
    text = bom_as_space(line)
    # a large compacted record's history repeats the transcript before it (where its secrets were found) and
    # its images: not searched again
    found = (
        []
        if not secrets or len(line) > LARGE_LINE and is_compacted_line(line)
        else find_secrets(line, extra_secrets, encoded)
    )
    value = None
    problem = None
    try:
        # a large world_state's state is cut out before the line is decoded: it is never decoded whole
        cut = without_state(text)[0] if len(line) > LARGE_LINE and is_world_state_line(text) else text
        value = json_loads(cut)
        if found:  # encrypted blobs and base64 payloads are opaque: a match inside one is chance, not a secret
            found = _outside_opaque(text, value, found)
        # a line with a payload is never envelope-less: the test written out, as nearly every line has one
        record = (
            parse_record(value)
            if type(value) is dict and "payload" in value
            else envelope_less_record(value) or parse_record(value)
        )
    except json.JSONDecodeError as error:
        at = min(error.pos, len(line))
        problem = Finding(INVALID_JSON, json_problem(text, error), Span(0, at, at + 1 if at < len(line) else at))
    except RecordShapeError as error:
        problem = Finding(RECORD_SHAPE, str(error), _path_span(text, error.loc))
    except RecursionError:
        problem = Finding(INVALID_JSON, "JSON nested too deeply to read", Span(0, 0, len(line)))
    except ValueError:  # an integer of over 4,300 digits: Python refuses it (its conversion is quadratic)
        problem = Finding(
            INVALID_JSON, "not JSON this reader accepts: a number too long to read", Span(0, 0, len(line))
        )
    secret_findings = (
        tuple(
            Finding(SECRET, f"{s.kind} in the transcript: redact it before sharing", Span(0, s.start, s.end))
            for s in found
        )
        if found
        else ()
    )
    if problem is not None:
        return LineAnalysis("invalid", findings=tuple(sorted((problem, *secret_findings), key=finding_sort_key)))
    # Record.kind written out (a property: a call on every line): response items by their own type
    kind = record.envelope.type
    if kind == "response_item" and isinstance(record.item, _Item):
        kind = getattr(record.item, "type", kind)
    fields: dict[str, Any] = {"kind": kind, "record": record, "findings": []}
    _read_record(text, record, fields, line, lean)
    found_here = fields["findings"]
    fields["findings"] = (
        tuple(sorted(found_here + list(secret_findings), key=finding_sort_key)) if found_here or secret_findings else ()
    )
    return fields


_NUMBER = re.compile(r"-?(?:\d+(?:\.\d*)?(?:[eE][+-]?\d*)?)?")  # a number, or its beginning
_NUMBER_TAIL = re.compile(r"(?:\.\d*)?(?:[eE][+-]?\d*)?")
CUT_OFF = "this line is cut off"  # the head of a cut line's invalid-json message


def json_problem(text: str, error: json.JSONDecodeError) -> str:
    """The ``invalid-json`` message of a line the decoder refused: ``this line is cut off: it ends inside a
    string that starts at column 127 (…)`` when the line ends before its JSON does (the decoder ran off its end:
    a rollout still being written, or a file truncated), else the decoder's own words, ``not JSON: Expecting
    ',' delimiter column 14``."""
    if _cut_off(text, error):
        if error.msg.startswith("Unterminated string"):
            where = f"it ends inside a string that starts at column {error.pos + 1}"
        else:
            where = f"its JSON stops at column {len(text.rstrip()) + 1}, unfinished"
        return f"{CUT_OFF}: {where} (a rollout still being written, or truncated)"
    message = f"{error.msg} column {min(error.pos, len(text)) + 1}" if error.msg.endswith(" at") else error.msg
    return f"not JSON: {message}"  # "…starting at column 7"


def _cut_off(text: str, error: json.JSONDecodeError) -> bool:
    """Whether the decoder failed only because ``text`` ended: inside a string (JSON strings hold no line
    break), or where a value, a delimiter or the rest of a literal (``tru``, ``1.``) was still to come."""
    if error.msg.startswith("Unterminated string"):
        return True
    rest = text[error.pos :].rstrip()
    if error.msg.startswith("Invalid \\uXXXX escape"):
        return re.fullmatch(r"u[0-9a-fA-F]{0,3}", rest) is not None
    if error.msg.startswith("Extra data") or not error.msg.startswith("Expecting"):
        return False
    if not rest:
        return True
    if error.msg.startswith("Expecting value"):  # a literal or a number begun: ``tru``, ``-``
        return any(word.startswith(rest) for word in ("true", "false", "null")) or _NUMBER.fullmatch(rest) is not None
    # after a number, its fraction or exponent begun: ``1.``, ``1e``, ``2E+``
    return text[error.pos - 1 : error.pos].isdigit() and _NUMBER_TAIL.fullmatch(rest) is not None


# what a line that starts, names, ends or takes back a turn holds somewhere (its type, or a user message's role)
_TURN_MARKS = (
    "turn_context",
    "task_started",
    "turn_started",
    "task_complete",
    "turn_complete",
    "turn_aborted",
    "thread_rolled_back",
    "error",
    "user_message",
    "serMessage",
    "user",
)
_OTHER = LineAnalysis("other")
_BLANK = LineAnalysis("blank")


def turn_facts(line: str) -> LineAnalysis:
    """What :func:`analysis.session.turns.read_turns` reads of a line, without the rest of its analysis (no
    script parsed, no secret searched): for reading the turns of a file too large to keep analysed whole
    (:func:`analysis.session.turns.scan_turns`, the second pass of a streamed ``outline --json``, and the
    inherited turns of a fork's parent).

    What it keeps, and why: a blank line stays ``blank`` and a line that names no turn mark (:data:`_TURN_MARKS`)
    is ``other`` (read_turns counts lines, and only turn marks start, title or end a turn); an ``event_msg`` keeps
    what :func:`_read_event` reads of it (turn start and id, the user's words with ``prompt_event``, a turn's
    end, a turn item, settings) but not the call it reports (turns need no pairing); a ``turn_context`` or a user message keeps its
    record, turn start and id, and the user's words (``prompt``, ``text``), which title the turn.  Anything else
    read_turns does not read, so a new field of :class:`LineAnalysis` that turns come to read must be kept here
    too (``tests/reports/test_stream.py`` compares these turns with the whole-file analysis's)."""
    if not line.strip():
        return _BLANK
    if not any(mark in line for mark in _TURN_MARKS):
        return _OTHER
    try:
        value = json.loads(bom_as_space(line))
    except (ValueError, RecursionError):
        return _OTHER
    if not isinstance(value, dict):
        return _OTHER
    kind, payload = value.get("type"), value.get("payload")
    if kind == "event_msg" and isinstance(payload, dict):
        fields: dict[str, Any] = {"kind": "event_msg"}
        _read_event(payload, fields)
        fields.pop("event", None)
        return LineAnalysis(**fields)
    if (
        kind == "turn_context"
        or kind == "response_item"
        and isinstance(payload, dict)
        and payload.get("type") == "message"
        and payload.get("role") == "user"
        or kind == "message"  # an envelope-less file's bare user message (Codex before 0.58)
        and "payload" not in value
        and value.get("role") == "user"
    ):
        found = analyze_line(line)
        return LineAnalysis(
            found.kind,
            record=found.record,
            turn_start=found.turn_start,
            turn_id=found.turn_id,
            prompt=found.prompt,
            text=found.text,
        )
    return _OTHER


def _outside_opaque(line: str, value: Any, found: list) -> list:
    paths = opaque_paths(value)
    if not paths:
        return found
    spans = locate(line, paths).values()
    return [m for m in found if not any(start <= m.start and m.end <= end for start, end in spans)]


def _read_record(line: str, record: Record, fields: dict[str, Any], source: str, lean: bool = False) -> None:
    """Fills ``fields`` (of a :class:`LineAnalysis`) from one record (``line``, read from ``source``: the same
    string but for a BOM); ``lean``: without what only the whole-file analysis reads (:func:`lean_fields`)."""
    item = record.item
    envelope_type = record.envelope.type
    if envelope_type == "event_msg":
        _read_event(item, fields, lean)
    elif envelope_type == "compacted":
        summary = None if lean else summarise(item, len(line))
        if summary is not None:  # the history is most of a large file: the record keeps the rest
            kept = {k: v for k, v in item.items() if k != "replacement_history"}
            fields.update(compacted=summary, record=Record(record.envelope, kept))
    elif envelope_type == "turn_context":
        fields.update(turn_start=True, turn_id=getattr(item, "turn_id", None))
        if not lean:
            fields["settings"] = read_turn_context_settings(item)
    elif envelope_type == WORLD_STATE:
        if not lean:
            fields.update(world_state_fields(record, line))
    elif type(item) is Reasoning:  # an eighth of a rollout's lines: nothing read of it (its kind is the record's)
        return
    elif isinstance(item, Message):
        if lean:  # its text, delivery and the user's words are all the whole-file analysis's
            return
        fields["text"] = item.text()
        delivery = message_delivery(record.envelope.metadata)
        if delivery is not None:
            fields["delivery"] = delivery
        if item.role == "user" and not not_a_request(delivery):
            fields["prompt"] = user_words(fields["text"])
    elif isinstance(item, (FunctionCallOutput, CustomToolCallOutput)):
        # the output's texts live on in ``output`` (a large one's in ``source``, read again when asked): the
        # record need not hold them a second time
        fields.update(
            call_id=item.call_id, output=read_output(item.output, source), record=record.without_item(), is_output=True
        )
    elif isinstance(item, CustomToolCall):
        fields.update(call_id=item.call_id, name=item.name, text=item.input, is_call=True)
        if item.name == "exec" and item.namespace in EXEC_NAMESPACES:
            read_exec(line, fields, item.input, lean)
        elif item.name == "apply_patch":
            read_top_patch(line, fields, item.input, item_path(record, "input"), lean)
        else:  # any other freeform tool: its input is one string
            fields["name"] = tool_name(item.name, item.namespace)
            fields["calls"] = (
                ToolCall(
                    fields["name"],
                    TOOL,
                    0,
                    len(line),
                    arguments={"input": item.input},
                    executed="yes",
                    source=item.input,
                ),
            )
    elif isinstance(item, FunctionCall):
        fields.update(
            call_id=item.call_id, name=tool_name(item.name, item.namespace), text=item.arguments, is_call=True
        )
        read_function_call(line, fields, item, item_path(record))
    elif isinstance(item, LocalShellCall):
        command = item.action.command
        text = command if isinstance(command, str) else shlex.join(command)
        call = ToolCall(
            "local_shell",
            COMMAND,
            0,
            len(line),
            command=text,
            workdir=item.action.working_directory,
            executed="yes",
            source=text,
        )
        fields.update(call_id=item.call_id, name="local_shell", calls=(call,), text=text, is_call=True)
    elif isinstance(item, OtherItem) and record.envelope.type == "response_item":
        read_other_item(line, item, fields)


def _read_event(payload: Any, fields: dict[str, Any], lean: bool = False) -> None:
    if not isinstance(payload, dict):
        return
    kind = payload.get("type")
    if kind in TURN_EVENTS:
        turn_id = payload.get("turn_id")
        fields.update(turn_start=True, turn_id=turn_id if isinstance(turn_id, str) else None)
    elif kind == "user_message":
        message = payload.get("message")
        if isinstance(message, str):
            if lean:
                fields["prompt_event"] = True
            else:
                fields.update(prompt=user_words(message), prompt_event=True, text=message)
    elif kind == "thread_settings_applied":
        if not lean:
            fields["settings"] = read_thread_settings(payload)
    elif type(kind) is str and kind in _READ_EVENTS:  # a list or an object as a type: none of the three
        end = read_turn_end(payload)
        if end is not None:
            fields["turn_end"] = end
            return
        item = read_turn_item(payload)
        if item is not None:
            if item.type == "UserMessage":
                fields["prompt_event"] = True
            if not lean:
                fields.update(turn_item=item, text=item.text)
                if item.type == "UserMessage":
                    fields["prompt"] = user_item_words(item)
            return
        event = read_event(payload)
        if event is not None:  # most events report no call (token counts, agent messages): the default kept
            fields["event"] = event


__all__ = [
    "LineAnalysis",
    "analyze_line",
    "lean_fields",
    "turn_facts",
    "bare_tool_name",
    "call_id_span",
    "read_output",
    "COMMAND_ARGUMENT",
    "COMMAND_FUNCTIONS",
    "EXEC_NAMESPACES",
]
