"""Thinning: a line's analysis reduced to what the stream reads of it after the line has gone by.

A streamed rollout (:mod:`analysis.reports.stream`) keeps every line's analysis until the line is settled, and
hands analyses between processes: each is *thinned* first (:func:`thin`), to what pairing, turn ends, failure
findings and session counts read.  What that is, field by field of :class:`LineAnalysis`, is declared once here
(:data:`KEPT`, :data:`THINNED`, :data:`DROPPED`): a field no list names fails ``tests/reports/test_stream_contract.py``,
so a new fact of a line cannot silently vanish from streamed ``check``.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter
from typing import Any

from ...jsonl.jsonspans import locate
from ...script.calls import ToolCall
from ...session.copies import replacer
from ...session.legacy_records import is_rollout_record
from ...session.outputs import WRITE_FAILED, ToolOutput, thrown_error, thrown_exit
from ...session.record_analysis import LineAnalysis, analyze_line, lean_fields
from ...session.script_errors import script_error
from ...session.vocabulary import unknown_type_of_record


class _Envelope:
    __slots__ = ("type", "timestamp", "payload")

    def __init__(self, type: str, timestamp: str | None = None) -> None:
        self.type, self.timestamp, self.payload = type, timestamp, None


class _Role:
    __slots__ = ("role",)

    def __init__(self, role: str | None) -> None:
        self.role = role


class RecordStub:
    """The little of a record that pairing and session counts read: its type and a small payload."""

    __slots__ = ("envelope", "item")

    def __init__(self, envelope: _Envelope, item: Any) -> None:
        self.envelope, self.item = envelope, item


_MESSAGE_STUBS: dict[str | None, RecordStub] = {}
_PLAIN: dict[tuple, LineAnalysis] = {}
_ERROR = "error"  # an output's error text: pairing asks only whether there is one


def _message_stub(role: str | None) -> RecordStub:
    stub = _MESSAGE_STUBS.get(role)
    if stub is None:
        stub = _MESSAGE_STUBS[role] = RecordStub(_Envelope("response_item"), _Role(role))
    return stub


def _small_payload(record: Any, keys: tuple[str, ...]) -> RecordStub | None:
    item = record.item if isinstance(record.item, dict) else record.envelope.payload
    if not isinstance(item, dict):
        dump = getattr(record.item, "model_dump", None)
        item = dump() if dump is not None else None
    if not isinstance(item, dict):
        return None
    return RecordStub(
        _Envelope(record.envelope.type, record.envelope.timestamp), {k: item[k] for k in keys if k in item}
    )


def _token_count(record: Any) -> RecordStub | None:
    stub = _small_payload(record, ("type", "info"))
    if stub is None or stub.item.get("type") != "token_count":
        return None
    info = stub.item.get("info")
    if isinstance(info, dict):
        stub.item["info"] = {
            k: info[k] for k in ("last_token_usage", "total_token_usage", "model_context_window") if k in info
        }
    return stub


_copy_call = replacer(ToolCall)
_copy_output = replacer(ToolOutput)


def _thin_output(output: ToolOutput | None) -> ToolOutput | None:
    if output is None:
        return None
    thrown = thrown_exit(output.error)  # kept: it tells how the script's one command ended
    error = (
        thrown_error(thrown)
        if thrown is not None
        else (script_error(output.error) or _ERROR)  # kept: why the script's one call failed
        if output.error is not None
        else None
    )
    if output.status == WRITE_FAILED:  # a failed write_stdin's one line: the command's outcome shows it
        error = output.error
    if output.kept_texts == () and output.line is None and output.error is error:
        return output  # thin already
    return _copy_output(output, kept_texts=(), line=None, error=error)


def _thin_call(call: ToolCall, keep_arguments: bool) -> ToolCall:
    thin = not call.source and call.patch is None and call.computed_expression is None
    if keep_arguments:
        return call if thin else _copy_call(call, source="", patch=None, computed_expression=None)
    if thin and not call.arguments and not call.computed_arguments:
        return call  # thin already: an exec call read lean (analysis.script.calls.find_calls)
    return _copy_call(call, source="", patch=None, computed_expression=None, arguments={}, computed_arguments={})


# The streaming contract: what the stream reads of a line's analysis once the line has gone by, field by field
# of LineAnalysis.  Every field is in exactly one list (tests/reports/test_stream_contract.py fails otherwise): a field
# added to LineAnalysis must be classified here, or streamed ``check`` could silently lose what it says.
#
# KEPT, as they are: what pairing reads (analysis.session.rollout.link_records: calls by call_id and name,
# outputs, events), turn ends and ``turn-failed`` findings (turn_start, turn_id, turn_end), the turns' user
# prompts (prompt_event), the window's checks for a line that refers back (analysis.reports.stream.window), the
# findings of the line alone, and the sinks (call records as ``check``, ``census`` and ``outline --json`` read
# them).  A line none of whose kept fields is set (its kind aside), nor calls nor output, is a *plain* line:
# one shared analysis per kind (and record stub).
KEPT = (
    "kind",
    "call_id",
    "name",
    "findings",
    "is_exec",
    "is_call",
    "is_output",
    "event",
    "turn_start",
    "turn_id",
    "prompt_event",
    "turn_end",
)
# THINNED, kept smaller: the record as a stub (a message's role; with ``sessions``, what session counts read:
# session metas, turn starts, token counts), calls without their source, patch or computed expression (an exec
# call's arguments too: only wait, write_stdin and web searches are paired by theirs), an output without its
# texts (and its error reduced to how the command ended).
THINNED = ("record", "calls", "output")
# DROPPED, read only of a file analysed whole (the server, ``outline`` text): a script and its escape map, a
# message's or call's decoded text, the user's words (streamed turns are read in a second pass, turn_facts),
# turn items, settings, compacted and world_state summaries and a message's metadata mark (delivery).
DROPPED = ("script", "script_map", "text", "prompt", "turn_item", "settings", "compacted", "delivery", "world_state")

_MARKS = tuple(name for name in KEPT if name != "kind") + ("calls", "output")
_marks_of = attrgetter(*_MARKS)
_UNMARKED = _marks_of(LineAnalysis("plain"))  # the defaults: a line that sets none is plain
# a thin copy is made field by field, as analysis.session.copies.replacer copies (LineAnalysis is frozen with
# slots and no __post_init__): the kept fields from the line, the thinned ones given, the dropped at their defaults
_kept_of = attrgetter(*KEPT)
_PUT_KEPT = tuple(LineAnalysis.__dict__[name].__set__ for name in KEPT)
_PUT_RECORD, _PUT_CALLS, _PUT_OUTPUT = (LineAnalysis.__dict__[name].__set__ for name in THINNED)
_PUT_DROPPED = tuple((LineAnalysis.__dict__[name].__set__, getattr(LineAnalysis("plain"), name)) for name in DROPPED)
_new = object.__new__


def _thin_copy(la: LineAnalysis, record: Any, calls: tuple[ToolCall, ...], output: ToolOutput | None) -> LineAnalysis:
    copy = _new(LineAnalysis)
    for put, value in zip(_PUT_KEPT, _kept_of(la)):
        put(copy, value)
    _PUT_RECORD(copy, record)
    _PUT_CALLS(copy, calls)
    _PUT_OUTPUT(copy, output)
    for put, value in _PUT_DROPPED:
        put(copy, value)
    return copy


def thin(la: LineAnalysis, sessions: bool = False) -> LineAnalysis:
    """``la`` with only what the stream reads of it after the line has gone by: its :data:`KEPT` fields as they
    are, its :data:`THINNED` fields smaller, its :data:`DROPPED` fields at their defaults (``sessions``: the
    record kept as session counts read it).  Small and quick to pickle: worker processes send it back, and the
    window holds thousands.  A plain line (nothing kept set) is one shared object."""
    record = _record_stub(la, sessions)
    if (record is None or la.kind == "message") and _marks_of(la) == _UNMARKED:
        key = (la.kind, record)
        plain = _PLAIN.get(key)
        if plain is None:
            plain = _PLAIN[key] = LineAnalysis(la.kind, record=record)
        return plain
    calls = la.calls
    if calls:
        keep_arguments = not la.is_exec  # wait, write_stdin and web searches are paired by their arguments
        calls = tuple([_thin_call(c, keep_arguments) for c in calls])
    return _thin_copy(la, record, calls, _thin_output(la.output))


def _record_stub(la: LineAnalysis, sessions: bool) -> Any:
    """What is kept of a line's record: a message's role; with ``sessions``, what session counts read."""
    return _stub_of(la.kind, la.record, la.turn_start, la.event, sessions)


def _stub_of(kind: str, rec: Any, turn_start: bool, event: Any, sessions: bool) -> Any:
    if rec is None:
        return None
    if kind == "message":
        return _message_stub(getattr(rec.item, "role", None))
    if not sessions:
        return None
    if kind == "session_meta":
        return rec
    if turn_start:
        return _small_payload(rec, ("type", "turn_id", "started_at"))
    if kind == "event_msg" and event is None:
        return _token_count(rec)
    if kind == "token_usage_record":
        return rec  # a few numbers: session counts read them as token_count records
    return None


# each field that makes a line not plain (_MARKS), with the value that leaves it plain
_MARK_DEFAULTS = dict(zip(_MARKS, _UNMARKED))


class _Unfrozen:
    """:class:`LineAnalysis`'s slots without its frozen ``__setattr__``: :func:`thin_fields` fills a thin analysis
    here by plain attribute stores (one specialised instruction each, where calling each slot's descriptor cost a
    call: 24 a line that keeps something, a twentieth of thinning a call's line) and then makes it the
    LineAnalysis it is by setting its class (the same slots in the same order: Python checks the layouts)."""

    __slots__ = LineAnalysis.__slots__


def thin_fields(fields: dict[str, Any], sessions: bool = False) -> LineAnalysis:
    """:func:`thin` of ``LineAnalysis(**fields)``, made straight from the fields
    (:func:`analysis.session.record_analysis.lean_fields`): no whole analysis is built only to be thinned."""
    kind = fields["kind"]
    get = fields.get
    rec = fields["record"]
    if sessions:
        record = _stub_of(kind, rec, get("turn_start", False), get("event"), sessions)
    else:  # _stub_of without sessions, written out: only a message keeps a stub (its role), on every line
        record = _message_stub(getattr(rec.item, "role", None)) if kind == "message" and rec is not None else None
    if record is None or kind == "message":
        defaults = _MARK_DEFAULTS
        for name, value in fields.items() if len(fields) > 3 or fields["findings"] else ():
            if name in defaults and value != defaults[name]:
                break
        else:  # nothing kept is set (kind, record and no findings: most lines)
            key = (kind, record)
            plain = _PLAIN.get(key)
            if plain is None:
                plain = _PLAIN[key] = LineAnalysis(kind, record=record)
            return plain
    calls = get("calls", ())
    is_exec = get("is_exec", False)
    if calls:
        keep_arguments = not is_exec  # wait, write_stdin and web searches are paired by their arguments
        calls = tuple([_thin_call(c, keep_arguments) for c in calls])
    # every field, in LineAnalysis's order: KEPT as read (absent: its default), THINNED given, DROPPED at their
    # defaults (None, each); a field left out would be unset, which reading it tells (tests/reports/test_lean_lines.py)
    copy: Any = _new(_Unfrozen)
    copy.kind = kind
    copy.record = record
    copy.call_id = get("call_id")
    copy.name = get("name")
    copy.calls = calls
    copy.findings = fields["findings"]
    copy.script = None
    copy.script_map = None
    copy.output = _thin_output(get("output"))
    copy.text = None
    copy.is_exec = is_exec
    copy.is_call = get("is_call", False)
    copy.is_output = get("is_output", False)
    copy.event = get("event")
    copy.turn_start = get("turn_start", False)
    copy.turn_id = get("turn_id")
    copy.prompt = None
    copy.prompt_event = get("prompt_event", False)
    copy.turn_end = get("turn_end")
    copy.turn_item = None
    copy.settings = None
    copy.compacted = None
    copy.delivery = None
    copy.world_state = None
    copy.__class__ = LineAnalysis  # the slots filled: the class set
    return copy  # a LineAnalysis now


@dataclass(slots=True)
class ChunkFacts:
    """What a worker sends back for a chunk of lines: small, quick to pickle."""

    records: list[LineAnalysis]
    unknown: dict[int, tuple[str, int, int]]  # line in the chunk → (unknown type, where its type is)
    first_known: int | None  # the first line of a known record type (is it a rollout?)


def analyze_chunk(
    lines: list[str],
    sessions: bool = False,
    full: list[LineAnalysis] | None = None,
    encoded: list[bytes | None] | None = None,
) -> ChunkFacts:
    """The thin analyses of a chunk of lines (run in worker processes); ``full``, when given, receives the
    whole analyses too.  Without ``full`` each line is read lean (:func:`analysis.session.record_analysis.lean_fields`)
    and thinned from its fields (:func:`thin_fields`): what the stream drops is neither read nor built.
    ``encoded``: each line's UTF-8 as read from the file, or None (``analysis.jsonl.line_stream.read_raw_lines``)."""
    records: list[LineAnalysis] = []
    unknown: dict[int, tuple[str, int, int]] = {}
    first_known = None
    for i, line in enumerate(lines):
        if full is not None:
            la = analyze_line(line)
            full.append(la)
            rec = la.record
            thinned = thin(la, sessions)
        else:
            read = lean_fields(line, encoded[i] if encoded is not None else None)
            if isinstance(read, LineAnalysis):  # blank or invalid: no record
                rec = None
                thinned = thin(read, sessions)
            else:
                rec = read["record"]
                thinned = thin_fields(read, sessions)
        if rec is not None:
            if first_known is None and is_rollout_record(rec):
                first_known = i
            # a line with a record is neither blank nor invalid
            name = unknown_type_of_record(rec)
            if name is not None:
                path = ("type",) if "/" not in name else ("payload", "type")
                found = locate(line, [path]).get(path)
                unknown[i] = (name, *(found or (0, len(line))))
        records.append(thinned)
    return ChunkFacts(records, unknown, first_known)


__all__ = ["DROPPED", "KEPT", "THINNED", "ChunkFacts", "RecordStub", "analyze_chunk", "thin", "thin_fields"]
