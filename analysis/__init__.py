"""Pure analysis of Codex rollouts: text in; records, tool calls, findings and ranges out.

Imports nothing from pygls, lsprotocol or ``lsp_server``.  Its folders are levels, each importing only the ones
below it: ``jsonl`` (text, positions, findings), ``script`` (one exec script), ``session`` (one rollout),
``authoring`` and ``reports``; ``cli`` holds the commands.

The names below are importable from here; each is imported on first use, so that a command that needs none of
them (``rollout-lsp --version``, ``index`` on unchanged files) does not load tree-sitter and every level.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_HOMES = {
    "ToolCall": "script.calls",
    "ExecScript": "script.script",
    "Patch": "script.patch",
    "PatchFile": "script.patch",
    "parse_patch": "script.patch",
    "CODES": "jsonl.findings",
    "Finding": "jsonl.findings",
    "Severity": "jsonl.findings",
    "PositionEncoding": "jsonl.positions",
    "Range": "jsonl.positions",
    "Span": "jsonl.positions",
    "LineAnalysis": "session.record_analysis",
    "analyze_line": "session.record_analysis",
    "LineCache": "session.rollout",
    "LocatedCall": "session.rollout",
    "RolloutAnalysis": "session.rollout",
    "Turn": "session.rollout",
    "analyze_text": "session.rollout",
}
__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # found directly from now on
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))
