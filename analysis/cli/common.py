"""What the subcommands share: the position-encoding option and reading a file into an analysis."""

from __future__ import annotations

import argparse

from ..findings import Finding
from ..positions import PositionEncoding
from ..rollout import RolloutAnalysis, analyze_text
from ..source import LoadedFile


def encoding_option() -> argparse.ArgumentParser:
    encoding = argparse.ArgumentParser(add_help=False)
    encoding.add_argument("--position-encoding", choices=[e.value for e in PositionEncoding], default="utf-16",
                          help="units of JSON ranges' characters (default utf-16, as LSP)")
    return encoding


def analyze(loaded: LoadedFile) -> tuple[RolloutAnalysis, list[Finding]]:
    analysis = analyze_text(loaded.text)
    findings = sorted(loaded.findings + analysis.findings,
                      key=lambda f: (f.span.line, f.span.start, f.span.end, f.code))
    return analysis, findings
