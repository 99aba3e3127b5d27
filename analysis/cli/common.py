"""What the subcommands share: the position-encoding option, reading a file into an analysis, messages on
standard error and standard output that a closed pipe does not break."""

from __future__ import annotations

import argparse
import io
import os
import sys
from typing import TYPE_CHECKING, TextIO

from ..jsonl.display import for_people, json_exact
from ..jsonl.findings import Finding
from ..jsonl.positions import PositionEncoding
from ..jsonl.source import LoadedFile

if TYPE_CHECKING:
    from ..session.rollout import RolloutAnalysis


def encoding_option() -> argparse.ArgumentParser:
    encoding = argparse.ArgumentParser(add_help=False)
    encoding.add_argument(
        "--position-encoding",
        choices=[e.value for e in PositionEncoding],
        default="utf-16",
        help="units of JSON ranges' characters (default utf-16, as LSP)",
    )
    return encoding


def jobs_option(parser: argparse.ArgumentParser, help: str) -> None:
    parser.add_argument("--jobs", "-j", type=positive, default=os.cpu_count() or 1, metavar="N", help=help)


def positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return value


def non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return value


def analyze(loaded: LoadedFile) -> tuple[RolloutAnalysis, list[Finding]]:
    from ..session.finish import sorted_findings
    from ..session.rollout import analyze_text  # here: --help, --version and index's unchanged files need none

    analysis = analyze_text(loaded.text)
    findings = sorted_findings(loaded.findings, analysis.findings)
    return analysis, findings


def error(message: str) -> None:
    """One line on standard error, named after the program, as Unix tools do."""
    print(f"rollout-lsp: {message}", file=sys.stderr, flush=True)


def version() -> str:
    import importlib.metadata  # here: it costs a tenth of every command's start-up, and only --version asks

    try:
        return importlib.metadata.version("codex-rollout-lsp")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


class ClosedPipeGuard(io.TextIOBase):
    """Standard output that a reader may close early (``rollout-lsp check … | head -1``): once the pipe is
    closed, further output is dropped, so the command still finishes its work and exits with the status its
    findings call for, without a traceback.

    Whatever a rollout holds is written safely (:mod:`analysis.jsonl.display`): output for people with its
    control characters escaped and lone surrogates as U+FFFD, JSON (``human=False``) exact, a lone surrogate
    as its ``\\uXXXX`` escape."""

    def __init__(self, stream: TextIO, human: bool = True) -> None:
        self.stream = stream
        self.pipe_closed = False
        self.shown = for_people if human else json_exact

    def write(self, text: str) -> int:
        if not self.pipe_closed:
            try:
                self.stream.write(self.shown(text))
            except BrokenPipeError:
                self._drop_output()
        return len(text)

    def flush(self) -> None:
        if not self.pipe_closed:
            try:
                self.stream.flush()
            except BrokenPipeError:
                self._drop_output()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]  # TextIOBase declares an attribute; ours reads through
        return self.stream.encoding

    def _drop_output(self) -> None:
        self.pipe_closed = True
        try:  # what is still buffered goes nowhere, so that the flush at exit cannot fail again
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self.stream.fileno())
            os.close(devnull)
        except (OSError, ValueError, io.UnsupportedOperation):
            pass


def current_folder() -> str | None:
    """The current folder, or None when it cannot be read (deleted since the process started there)."""
    try:
        return os.getcwd()
    except OSError:
        return None
