"""What ``census`` counts about whole sessions: token totals (each response counted once, inherited
histories apart) and unknown record types by the Codex version that wrote them."""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..jsonl.display import NAME_LIMIT, shown
from ..session.lineage import lineage
from ..session.rollout import RolloutAnalysis
from ..session.usage import ZERO, TokenUsage, session_usage
from ..session.vocabulary import unknown_records


class SessionCensus:
    def __init__(self) -> None:
        self.own: TokenUsage = ZERO
        self.inherited = 0
        self.reported = 0  # the sum of each file's last running total: what a naive reader adds up
        self.sessions_with_usage = 0
        self.unknown: dict[str, Counter] = {}

    def add(self, analysis: RolloutAnalysis) -> None:
        usage = session_usage(analysis)
        if usage.records:
            self.sessions_with_usage += 1
        self.own += usage.own
        self.inherited += usage.inherited.total
        self.reported += usage.reported.total if usage.reported else 0
        found = unknown_records(analysis)
        if found:
            ident = lineage(analysis).identity
            version = (ident.cli_version if ident else None) or "(no version)"
            counts = self.unknown.setdefault(version, Counter())
            for name, lines in found.items():
                counts[name] += len(lines)

    def merge(self, other: SessionCensus) -> None:
        self.own += other.own
        self.inherited += other.inherited
        self.reported += other.reported
        self.sessions_with_usage += other.sessions_with_usage
        for version, counts in other.unknown.items():
            self.unknown.setdefault(version, Counter()).update(counts)

    def to_json(self) -> dict[str, Any]:
        return {
            "tokens": {
                **self.own.to_json(),
                "inherited_total": self.inherited,
                "reported_total": self.reported,
                "sessions_with_usage": self.sessions_with_usage,
            },
            "unknown_types_by_cli_version": {
                v: dict(sorted(c.items(), key=lambda i: (-i[1], i[0]))) for v, c in sorted(self.unknown.items())
            },
        }

    def text(self) -> list[str]:
        own = self.own
        out = [
            "tokens (each model response once):",
            f"  {'input':42} {own.input}",
            f"  {'cached input':42} {own.cached}",
            f"  {'output':42} {own.output}",
            f"  {'reasoning output':42} {own.reasoning}",
            f"  {'total':42} {own.total}",
            f"  {'inherited by forks (not in total)':42} {self.inherited}",
            f"  {'sum of last running totals':42} {self.reported}",
        ]
        if self.unknown:
            out.append("unknown record types by cli_version:")
            for version, counts in sorted(self.unknown.items()):
                for name, n in sorted(counts.items(), key=lambda i: (-i[1], i[0])):
                    out.append(f"  {shown(version + ' ' + name, NAME_LIMIT):42} {n}")
        return out
