"""Pure analysis of Codex rollouts: text in; records, tool calls, findings and ranges out.

Imports nothing from pygls or lsprotocol.
"""

from .script.calls import ToolCall
from .jsonl.findings import CODES, Finding, Severity
from .script.patch import Patch, PatchFile, parse_patch
from .jsonl.positions import PositionEncoding, Range, Span
from .session.record_analysis import LineAnalysis, analyze_line
from .session.rollout import LineCache, LocatedCall, RolloutAnalysis, Turn, analyze_text
from .script.script import ExecScript

__all__ = [
    "CODES", "ExecScript", "Finding", "LineAnalysis", "LineCache", "LocatedCall", "Patch", "PatchFile",
    "PositionEncoding", "Range", "RolloutAnalysis", "Severity", "Span", "ToolCall", "Turn", "analyze_line",
    "analyze_text", "parse_patch",
]
