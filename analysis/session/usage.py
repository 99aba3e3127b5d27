"""Token usage and context: per ``token_count`` record, per turn and per session.

Codex writes an ``event_msg/token_count`` record after each model response, with the
response's own usage (``info.last_token_usage``), the running total of the thread
(``info.total_token_usage``), the model's window (``info.model_context_window``) and the
account's ``rate_limits``.  It also writes the same ``info`` again (at a turn start, when
only the rate limits changed), and a fork or subagent starts with a copy of its parent's
records, totals included.  So a record's usage counts **once per distinct running total**:
a record whose ``total_token_usage`` was already seen in the file (a repeat, or a replayed
copy) adds nothing, any other adds its ``last_token_usage`` (over the wild corpus a new
total is always the previous total plus that record's ``last_token_usage``; when the total
restarts lower, the new process's count is still that record's own).  Records in a
replayed history (see :mod:`analysis.session.lineage`) are the parent's usage and count only for
it.  The context a turn ended with is its last record's ``last_token_usage.total_tokens``
(what the model had in its window, the figure Codex itself shows) over the model's window.

Codex 0.147 and later also write a ``token_usage_record`` per model response (``response_id``,
``turn_id``, ``usage``: that response's own usage, ``turn_token_usage`` and ``thread_token_usage``: the
running totals), next to the ``token_count`` records or instead of them.  Both report the same responses,
so each response counts once: every ``token_usage_record`` counts (once per ``response_id``), and a
``token_count`` whose ``last_token_usage`` is a response a ``token_usage_record`` already reports (the same
input, cached, output and reasoning tokens, each record matched once) only gives the context and the rate
limits; any other counts as above (a file written partly before 0.147, or by a Codex that left the
``token_usage_record`` of a response out).  ``token_usage_record`` fields are read from its
``payload``, or from the line itself where a writer put them there.  ``cache_write_input_tokens`` (0.147)
is read with the others.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from typing import Any

from ..jsonl.memo import once_per_object
from .lineage import lineage
from .rollout import RolloutAnalysis

_FIELDS = (
    "input_tokens",
    "cached_input_tokens",
    "output_tokens",
    "reasoning_output_tokens",
    "total_tokens",
    "cache_write_input_tokens",
)
TOKEN_COUNT, USAGE_RECORD = "token_count", "token_usage_record"


@dataclass(frozen=True, slots=True)
class TokenUsage:
    input: int = 0
    cached: int = 0
    output: int = 0
    reasoning: int = 0
    total: int = 0
    cache_write: int = 0  # cache_write_input_tokens (0.147 and later)

    @classmethod
    def from_json(cls, value: Any) -> TokenUsage | None:
        if not isinstance(value, dict):
            return None
        numbers = []
        for name in _FIELDS:
            number = value.get(name, 0)
            if number is None:
                number = 0
            if not isinstance(number, int) or isinstance(number, bool):
                return None
            numbers.append(number)
        usage = cls(*numbers)
        if not usage.total:  # some writers leave the sum out
            usage = cls(
                usage.input, usage.cached, usage.output, usage.reasoning, usage.input + usage.output, usage.cache_write
            )
        return usage

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            self.input + other.input,
            self.cached + other.cached,
            self.output + other.output,
            self.reasoning + other.reasoning,
            self.total + other.total,
            self.cache_write + other.cache_write,
        )

    def to_json(self) -> dict[str, int]:
        return {
            "input": self.input,
            "cached": self.cached,
            "output": self.output,
            "reasoning": self.reasoning,
            "total": self.total,
            "cache_write": self.cache_write,
        }


ZERO = TokenUsage()


@dataclass(frozen=True, slots=True)
class UsageRecord:
    """One ``token_count`` record with usage, or one ``token_usage_record``."""

    line: int
    last: TokenUsage
    total: TokenUsage | None  # the thread's running total (a token_usage_record may leave it out)
    window: int | None
    counted: TokenUsage  # what it adds: ``last`` for a new response, nothing for a repeat
    new: bool  # it counts a response (a running total, or a response id, not seen before in the file)
    inherited: bool  # in a replayed history: the parent's usage
    rate_limits: dict | None
    source: str = TOKEN_COUNT  # token_count or token_usage_record
    response_id: str | None = None
    thread_id: str | None = None  # the thread a token_usage_record names (0.158 and later)
    for_other: bool = False  # it names another thread (a parent's record copied into a child): counted there
    attribution: Attribution | None = None

    @property
    def context(self) -> int:
        return self.last.total

    @property
    def context_share(self) -> float | None:
        return self.context / self.window if self.window else None


@dataclass(frozen=True, slots=True)
class Attribution:
    """Who answered a response: a ``token_usage_record``'s ``attribution`` (0.158 and later)."""

    model: str | None = None
    provider: str | None = None  # model_provider
    service_tier: str | None = None
    context_length: int | None = None

    @classmethod
    def from_json(cls, value: Any) -> Attribution | None:
        if not isinstance(value, dict):
            return None
        length = value.get("context_length")
        return cls(
            _text(value.get("model")),
            _text(value.get("model_provider")),
            _text(value.get("service_tier")),
            length if isinstance(length, int) and not isinstance(length, bool) else None,
        )

    def label(self) -> str:
        """``gpt-5.6-sol · openai · priority`` (the parts it names)."""
        return " · ".join(p for p in (self.model, self.provider, self.service_tier) if p) or "?"

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "model_provider": self.provider,
            "service_tier": self.service_tier,
            "context_length": self.context_length,
        }


@dataclass(frozen=True, slots=True)
class ResponseUsage:
    """One model response counted for this thread, with who answered it (:attr:`SessionUsage.responses`)."""

    line: int
    response_id: str | None
    thread_id: str | None
    usage: TokenUsage
    attribution: Attribution | None

    def to_json(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "response_id": self.response_id,
            "thread_id": self.thread_id,
            "usage": self.usage.to_json(),
            "attribution": self.attribution.to_json() if self.attribution else None,
        }


@dataclass(frozen=True, slots=True)
class RateLimitRecord:
    """A ``token_count`` record without usage (``info`` null): only the account's limits."""

    line: int
    rate_limits: dict | None


@dataclass(frozen=True, slots=True)
class TurnUsage:
    line: int  # the turn's first line
    end_line: int
    usage: TokenUsage
    requests: int  # token_count records that counted
    context: int | None  # tokens in the window at the turn's end
    window: int | None

    @property
    def context_share(self) -> float | None:
        return self.context / self.window if self.context is not None and self.window else None


@dataclass
class SessionUsage:
    records: list[UsageRecord] = field(default_factory=list)
    limits: list[RateLimitRecord] = field(default_factory=list)
    turns: list[TurnUsage] = field(default_factory=list)
    own: TokenUsage = ZERO  # counted once, without a replayed history
    inherited: TokenUsage = ZERO  # the replayed history's usage (the parent's)
    requests: int = 0  # model responses counted in ``own``
    reported: TokenUsage | None = None  # the last running total Codex wrote (includes inherited usage)
    elsewhere: dict[str, TokenUsage] = field(default_factory=dict)  # records naming other threads, by thread

    @property
    def responses(self) -> list[ResponseUsage]:
        """Every response counted in ``own``, in file order, with its attribution (model, provider, tier)."""
        return [
            ResponseUsage(r.line, r.response_id, r.thread_id, r.counted, r.attribution)
            for r in self.records
            if r.new and not r.inherited and not r.for_other
        ]

    @property
    def window(self) -> int | None:
        return next((r.window for r in reversed(self.records) if r.window and not r.for_other), None)

    @property
    def context(self) -> int | None:
        own = [r for r in self.records if not r.for_other]
        return own[-1].context if own else None

    @property
    def rate_limits(self) -> dict | None:
        entries: list[UsageRecord | RateLimitRecord] = [*self.records, *self.limits]
        last = max(entries, key=lambda r: r.line, default=None)
        return last.rate_limits if last is not None else None

    def record_at(self, line: int) -> UsageRecord | None:
        index = bisect_left([r.line for r in self.records], line)
        return self.records[index] if index < len(self.records) and self.records[index].line == line else None

    def turn_at(self, line: int) -> TurnUsage | None:
        return _turns_by_line(self).get(line)

    def to_json(self) -> dict[str, Any]:
        return {
            "own": self.own.to_json(),
            "requests": self.requests,
            "inherited": self.inherited.to_json(),
            "reported_total": self.reported.to_json() if self.reported else None,
            "elsewhere": {thread: usage.to_json() for thread, usage in self.elsewhere.items()},
            "context": self.context,
            "window": self.window,
            "turns": [
                {
                    "line": t.line,
                    "usage": t.usage.to_json(),
                    "requests": t.requests,
                    "context": t.context,
                    "window": t.window,
                }
                for t in self.turns
            ],
        }


@once_per_object
def _turns_by_line(usage: SessionUsage) -> dict[int, TurnUsage]:
    return {t.line: t for t in usage.turns}


def token_count_payload(analysis: RolloutAnalysis, line: int) -> dict | None:
    """The payload of an ``event_msg/token_count`` record, else None."""
    record = analysis.records[line].record
    if record is None or record.envelope.type != "event_msg":
        return None
    payload = record.item if isinstance(record.item, dict) else record.envelope.payload
    if not isinstance(payload, dict):
        dump = getattr(record.item, "model_dump", None)
        payload = dump() if dump is not None else None
    if isinstance(payload, dict) and payload.get("type") == "token_count":
        return payload
    return None


def usage_record_payload(analysis: RolloutAnalysis, line: int) -> dict | None:
    """The fields of a ``token_usage_record`` (its payload, or the line's own fields), else None."""
    record = analysis.records[line].record
    if record is None or record.envelope.type != USAGE_RECORD:
        return None
    payload = record.item if isinstance(record.item, dict) else None
    if payload is None or not any(k in payload for k in ("usage", "thread_token_usage", "turn_token_usage")):
        payload = dict(record.envelope.model_extra)
    return payload


@once_per_object
def session_usage(analysis: RolloutAnalysis) -> SessionUsage:
    """The usage of a rollout (computed once per analysis)."""
    return _compute(analysis)


def _compute(analysis: RolloutAnalysis) -> SessionUsage:
    found_lineage = lineage(analysis)
    replay = found_lineage.inherited
    own_id = found_lineage.identity.id if found_lineage.identity else None
    out = SessionUsage()
    seen: set[TokenUsage] = set()
    by_response = _usage_records(analysis)
    # the responses this thread's token_usage_records report, which a token_count of the same response must not
    # count again (a record naming another thread is that thread's: a token_count here is not its copy)
    reported: dict[tuple, int] = {}
    responses: set[tuple[str | None, str]] = set()
    for number, each in by_response.items():
        key = (each.thread_id or own_id, each.response_id or f"{number}")
        if key not in responses and not _for_other(each.thread_id, own_id):
            responses.add(key)
            reported[_key(each.usage)] = reported.get(_key(each.usage), 0) + 1
    responses = set()
    for number, record in enumerate(analysis.records):
        if record.kind == USAGE_RECORD:
            found = by_response.get(number)
            if found is None:
                continue
            key = (found.thread_id or own_id, found.response_id or f"{number}")
            new = key not in responses
            responses.add(key)
            counted = found.usage if new else ZERO
            inherited = replay is not None and replay.start <= number <= replay.end
            other = _for_other(found.thread_id, own_id)
            window = found.attribution.context_length if found.attribution else None
            out.records.append(
                UsageRecord(
                    number,
                    found.usage,
                    found.total,
                    window,
                    counted,
                    new,
                    inherited,
                    None,
                    USAGE_RECORD,
                    found.response_id,
                    found.thread_id,
                    other,
                    found.attribution,
                )
            )
            if other:
                assert found.thread_id is not None
                out.elsewhere[found.thread_id] = out.elsewhere.get(found.thread_id, ZERO) + counted
                continue
            if inherited:
                out.inherited += counted
            else:
                out.own += counted
                out.requests += new
            if found.total is not None:
                out.reported = found.total
            continue
        if record.kind != "event_msg":
            continue
        payload = token_count_payload(analysis, number)
        if payload is None:
            continue
        limits = payload.get("rate_limits") if isinstance(payload.get("rate_limits"), dict) else None
        info = payload.get("info")
        if not isinstance(info, dict):
            out.limits.append(RateLimitRecord(number, limits))
            continue
        usage = TokenUsage.from_json(info.get("last_token_usage"))
        thread_total = TokenUsage.from_json(info.get("total_token_usage"))
        if usage is None or thread_total is None:
            out.limits.append(RateLimitRecord(number, limits))
            continue
        window = info.get("model_context_window")
        window = window if isinstance(window, int) and not isinstance(window, bool) and window > 0 else None
        new = thread_total not in seen
        seen.add(thread_total)
        if new and reported.get(_key(usage)):  # a response its token_usage_record counts
            reported[_key(usage)] -= 1
            new = False
        counted = usage if new else ZERO
        inherited = replay is not None and replay.start <= number <= replay.end
        out.records.append(UsageRecord(number, usage, thread_total, window, counted, new, inherited, limits))
        if inherited:
            out.inherited += counted
        else:
            out.own += counted
            out.requests += new
        out.reported = thread_total
    lines = [r.line for r in out.records]
    out.turns = [_turn_usage(out.records, lines, t.line, t.end_line) for t in analysis.turns]
    return out


def _for_other(thread_id: str | None, own_id: str | None) -> bool:
    """A record naming a thread that is not this file's own (a parent's response copied into a child)."""
    return thread_id is not None and own_id is not None and thread_id != own_id


@dataclass(frozen=True, slots=True)
class _Found:
    usage: TokenUsage
    total: TokenUsage | None
    response_id: str | None
    thread_id: str | None
    attribution: Attribution | None


def _usage_records(analysis: RolloutAnalysis) -> dict[int, _Found]:
    """Every ``token_usage_record`` with a response's usage, by line."""
    out = {}
    for number, record in enumerate(analysis.records):
        if record.kind != USAGE_RECORD:
            continue
        payload = usage_record_payload(analysis, number)
        if payload is None:
            continue
        last = TokenUsage.from_json(payload.get("usage"))
        if last is None:
            continue
        total = TokenUsage.from_json(payload.get("thread_token_usage"))
        out[number] = _Found(
            last,
            total,
            _text(payload.get("response_id")),
            _text(payload.get("thread_id")),
            Attribution.from_json(payload.get("attribution")),
        )
    return out


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _key(usage: TokenUsage) -> tuple[int, int, int, int]:
    """What identifies a response's usage in both records (cache writes are not in every token_count)."""
    return usage.input, usage.cached, usage.output, usage.reasoning


def _turn_usage(records: list[UsageRecord], lines: list[int], start: int, end: int) -> TurnUsage:
    """The usage of the records on lines ``start``..``end`` (``lines``: the records' lines, ascending)."""
    usage, requests, last = ZERO, 0, None
    for record in records[bisect_left(lines, start) : bisect_right(lines, end)]:
        if record.for_other:  # another thread's response: counted there
            continue
        usage += record.counted
        requests += record.new
        last = record
    return TurnUsage(start, end, usage, requests, last.context if last else None, last.window if last else None)


# the words live in usage_words (re-exported here so importers do not change)
from .usage_words import context_sentence, limits_sentence, sentence, share, short, tokens  # noqa: E402

__all__ = [
    "TokenUsage",
    "UsageRecord",
    "Attribution",
    "ResponseUsage",
    "RateLimitRecord",
    "TurnUsage",
    "SessionUsage",
    "session_usage",
    "token_count_payload",
    "usage_record_payload",
    "TOKEN_COUNT",
    "USAGE_RECORD",
    "tokens",
    "share",
    "short",
    "sentence",
    "context_sentence",
    "limits_sentence",
]
