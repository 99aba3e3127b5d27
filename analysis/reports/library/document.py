"""One open rollout's tokens and cost (the editor's lens and hover), read from its analysis as the index reads
it (:func:`~analysis.reports.index.session_rows.plan_session`), counted and priced as ``sessions`` counts them
(within this file: a response copied from another thread is that thread's)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...session.lineage import lineage
from ...session.rollout import RolloutAnalysis
from ..index.rows import _Work
from ..index.session_rows import plan_session
from .responses import count_rows
from .sessions import cost_of, tokens_of


@dataclass(frozen=True)
class DocumentCost:
    responses: int
    tokens: dict[str, int]
    cost: dict[str, Any]
    subagents: tuple[str, ...]  # the threads this session spawned

    def text(self) -> str:
        """``$0.1234 (genai-prices 0.2.3 (2026-11-10)) · 12 responses · 2 subagents``."""
        usd = self.cost["usd"]
        money = (
            f"${usd:.4f}"
            if usd is not None
            else "cost unknown: "
            + "; ".join(f"{m['model'] or '?'} unpriced ({m['reason']})" for m in self.cost["models"] if not m["priced"])
        )
        parts = [money, f"{self.responses} response{'s' * (self.responses != 1)}"]
        if self.subagents:
            parts.append(f"{len(self.subagents)} subagent{'s' * (len(self.subagents) != 1)}")
        return " · ".join(parts)


def document_cost(analysis: RolloutAnalysis) -> DocumentCost | None:
    """The cost of the session an analysis reads, or None when it has no session line."""
    found = lineage(analysis)
    if found.identity is None:
        return None
    work = _Work("", None, False, 0, 0, 0, 0, len(analysis.lines), "", analysis.session_id, None, None, None)
    plan_session(analysis, work, 0, len(analysis.lines), None)
    rows = [(0, *r, analysis.session_id) for r in work.responses]
    counted = [r for r in count_rows(rows) if r.thread_id == analysis.session_id]
    spawned = tuple(dict.fromkeys(s.child for s in found.spawns if s.child))
    return DocumentCost(len(counted), tokens_of(counted), cost_of(counted), spawned)
