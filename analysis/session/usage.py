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

    @property
    def context(self) -> int:
        return self.last.total

    @property
    def context_share(self) -> float | None:
        return self.context / self.window if self.window else None


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

    @property
    def window(self) -> int | None:
        return next((r.window for r in reversed(self.records) if r.window), None)

    @property
    def context(self) -> int | None:
        return self.records[-1].context if self.records else None

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
    replay = lineage(analysis).inherited
    out = SessionUsage()
    seen: set[TokenUsage] = set()
    by_response = _usage_records(analysis)
    # the responses token_usage_records report, which a token_count of the same response must not count again
    reported: dict[tuple, int] = {}
    responses: set[str] = set()
    for number, last, _, response_id in by_response.values():
        key = response_id or f"{number}"
        if key not in responses:
            responses.add(key)
            reported[_key(last)] = reported.get(_key(last), 0) + 1
    responses = set()
    for number, record in enumerate(analysis.records):
        if record.kind == USAGE_RECORD:
            found = by_response.get(number)
            if found is None:
                continue
            _, last, total, response_id = found
            key = response_id or f"{number}"
            new = key not in responses
            responses.add(key)
            counted = last if new else ZERO
            inherited = replay is not None and replay.start <= number <= replay.end
            out.records.append(
                UsageRecord(number, last, total, None, counted, new, inherited, None, USAGE_RECORD, response_id)
            )
            if inherited:
                out.inherited += counted
            else:
                out.own += counted
                out.requests += new
            if total is not None:
                out.reported = total
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


def _usage_records(analysis: RolloutAnalysis) -> dict[int, tuple[int, TokenUsage, TokenUsage | None, str | None]]:
    """Every ``token_usage_record`` with a response's usage: line → (line, usage, thread total, response id)."""
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
        response = payload.get("response_id")
        out[number] = (number, last, total, response if isinstance(response, str) and response else None)
    return out


def _key(usage: TokenUsage) -> tuple[int, int, int, int]:
    """What identifies a response's usage in both records (cache writes are not in every token_count)."""
    return usage.input, usage.cached, usage.output, usage.reasoning


def _turn_usage(records: list[UsageRecord], lines: list[int], start: int, end: int) -> TurnUsage:
    """The usage of the records on lines ``start``..``end`` (``lines``: the records' lines, ascending)."""
    usage, requests, last = ZERO, 0, None
    for record in records[bisect_left(lines, start) : bisect_right(lines, end)]:
        usage += record.counted
        requests += record.new
        last = record
    return TurnUsage(start, end, usage, requests, last.context if last else None, last.window if last else None)


# -- words ---------------------------------------------------------------------------------------


def tokens(n: int) -> str:
    """``950``, ``12.3k``, ``1.25M``: a token count at a glance."""
    if n < 1000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1000:.1f}k".replace(".0k", "k")
    return f"{n / 1_000_000:.2f}M".replace(".00M", "M")


def share(value: float | None) -> str:
    return f"{value * 100:.0f}%" if value is not None else "?"


def short(usage: TokenUsage, context: int | None = None, window: int | None = None) -> str:
    """``in 12.3k (cached 10k) · out 450 (reasoning 200) · context 9% of 258k``."""
    parts = [
        f"in {tokens(usage.input)} (cached {tokens(usage.cached)})",
        f"out {tokens(usage.output)} (reasoning {tokens(usage.reasoning)})",
    ]
    if context is not None and window:
        parts.append(f"context {share(context / window)} of {tokens(window)}")
    return " · ".join(parts)


def sentence(usage: TokenUsage, requests: int | None = None) -> str:
    """The same in words, for hovers and documents."""
    head = (
        f"{usage.input:,} input tokens ({usage.cached:,} of them cached), {usage.output:,} output tokens "
        f"({usage.reasoning:,} of them reasoning)"
    )
    if requests is not None:
        head += f" over {requests} model response{'s' if requests != 1 else ''}"
    return head


def context_sentence(context: int | None, window: int | None) -> str:
    if context is None:
        return "no token count recorded"
    if not window:
        return f"{context:,} tokens in the context window"
    return f"{context:,} of {window:,} tokens in the context window ({share(context / window)})"


def limits_sentence(limits: dict | None) -> str | None:
    """``rate limits: 5-hour window 12% used, weekly window 40% used``."""
    if not isinstance(limits, dict):
        return None
    parts = []
    for key in ("primary", "secondary"):
        window = limits.get(key)
        if not isinstance(window, dict) or not isinstance(window.get("used_percent"), (int, float)):
            continue
        minutes = window.get("window_minutes")
        name = _window_name(minutes) if isinstance(minutes, int) else key
        parts.append(f"{name} {window['used_percent']:g}% used")
    return "rate limits: " + ", ".join(parts) if parts else None


def _window_name(minutes: int) -> str:
    if minutes % 10080 == 0:
        return "weekly window" if minutes == 10080 else f"{minutes // 10080}-week window"
    if minutes % 60 == 0:
        return f"{minutes // 60}-hour window"
    return f"{minutes}-minute window"


__all__ = [
    "TokenUsage",
    "UsageRecord",
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
