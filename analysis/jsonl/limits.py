"""The limits on the work any one file can cause, whoever wrote it: a rollout is untrusted input (a 1 KB ``.zst``
can hold three million lines, a reference can name a parent of 600 MiB).  Each limit is a named constant with an
environment variable to change it; reaching one is a ``file-limit`` finding (or, where there are no findings, one
line on standard error), and the work goes on with the part of the file before the limit and with the other files.

================================  ===============================  ===========================================
limit                             default (variable)               what it bounds
================================  ===============================  ===========================================
:data:`DEFAULT_MAX_DECOMPRESSED`  256 MiB (ROLLOUT_LSP_MAX_          the bytes a ``.zst`` (or zstd on standard input)
                                  DECOMPRESSED)                    is decompressed to; the index skips such a file
:data:`DEFAULT_MAX_LINES`         200,000 (ROLLOUT_LSP_MAX_LINES)  the lines read of one file (the largest real
                                                                   rollout seen has 3,089)
:data:`DEFAULT_MAX_FINDINGS`      10,000 (ROLLOUT_LSP_MAX_FINDINGS)  the findings kept of one file (the rest are
                                                                   counted in one more finding)
:data:`DEFAULT_MAX_PARENT_BYTES`  16 MiB (ROLLOUT_LSP_MAX_PARENT_  the bytes of a parent rollout read to count its
                                  BYTES)                           inherited lines and turns
:data:`DEFAULT_MAX_PARENT_LINES`  50,000 (ROLLOUT_LSP_MAX_PARENT_  the lines of a parent rollout read
                                  LINES)
================================  ===============================  ===========================================

The longest line (``ROLLOUT_LSP_MAX_LINE``, analysis.jsonl.source) is the fifth limit; it predates this module.
"""

from __future__ import annotations

import os

from .findings import FILE_LIMIT, Finding
from .positions import Span

DECOMPRESSED_ENV = "ROLLOUT_LSP_MAX_DECOMPRESSED"
LINES_ENV = "ROLLOUT_LSP_MAX_LINES"
FINDINGS_ENV = "ROLLOUT_LSP_MAX_FINDINGS"
PARENT_BYTES_ENV = "ROLLOUT_LSP_MAX_PARENT_BYTES"
PARENT_LINES_ENV = "ROLLOUT_LSP_MAX_PARENT_LINES"

# bytes: 64 times the largest real rollout seen (4 MB), twice the longest line allowed
DEFAULT_MAX_DECOMPRESSED = 256 * 1024 * 1024
# lines: 65 times the longest real rollout seen (3,089 lines); the whole-file analyses (the index, the server)
# hold about 400 bytes per line, so this many lines of a bomb stay near 100 MB
DEFAULT_MAX_LINES = 200_000
# findings of one file: far more than anyone reads; each one kept costs about 1 KB with its ranges
DEFAULT_MAX_FINDINGS = 10_000
# a parent rollout is read whole, and each of its lines analysed, to count its lines and turns; it is found
# through the child, which anyone may have written: bytes, 4 times the largest real rollout seen (4 MB) ...
DEFAULT_MAX_PARENT_BYTES = 16 * 1024 * 1024
# ... and lines, 16 times the longest real rollout seen (3,089 lines); a parent cut there is counted up to it
DEFAULT_MAX_PARENT_LINES = 50_000

_HARD_MAX = 2 * 1024**3  # no limit is raised above 2 GiB, whatever the environment says


def _setting(name: str, default: int) -> int:
    value = os.environ.get(name, "")
    return min(int(value), _HARD_MAX) if value.isdigit() and int(value) > 0 else default


def max_decompressed() -> int:
    """The most bytes a ``.zst`` is decompressed to: ``$ROLLOUT_LSP_MAX_DECOMPRESSED``, else 256 MiB."""
    return _setting(DECOMPRESSED_ENV, DEFAULT_MAX_DECOMPRESSED)


def max_lines() -> int:
    """The most lines read of one file: ``$ROLLOUT_LSP_MAX_LINES``, else 200,000."""
    return _setting(LINES_ENV, DEFAULT_MAX_LINES)


def max_findings() -> int:
    """The most findings kept of one file: ``$ROLLOUT_LSP_MAX_FINDINGS``, else 10,000."""
    return _setting(FINDINGS_ENV, DEFAULT_MAX_FINDINGS)


def max_parent_bytes() -> int:
    """The most bytes of a parent rollout read: ``$ROLLOUT_LSP_MAX_PARENT_BYTES``, else 16 MiB."""
    return _setting(PARENT_BYTES_ENV, DEFAULT_MAX_PARENT_BYTES)


def max_parent_lines() -> int:
    """The most lines of a parent rollout read: ``$ROLLOUT_LSP_MAX_PARENT_LINES``, else 50,000."""
    return _setting(PARENT_LINES_ENV, DEFAULT_MAX_PARENT_LINES)


def over_lines(line: int, limit: int, variable: str = LINES_ENV) -> Finding:
    """The finding on line ``line`` (the first not read, shown empty) of a file of more than ``limit`` lines."""
    return Finding(
        FILE_LIMIT,
        f"more than {limit} lines (the limit, {variable}): what follows is not read",
        Span(line, 0, 0),
    )


def over_bytes(line: int, limit: int, variable: str = DECOMPRESSED_ENV) -> Finding:
    """The finding on line ``line`` (the one the limit cut, shown empty) of a file that decompresses to more
    than ``limit`` bytes."""
    return Finding(
        FILE_LIMIT,
        f"more than {limit} bytes of lines (the limit, {variable}): what follows is not read",
        Span(line, 0, 0),
    )


def over_findings(line: int, dropped: int, limit: int) -> Finding:
    """The finding, on line ``line`` (the first finding's not kept), that ``dropped`` findings were not kept."""
    return Finding(
        FILE_LIMIT,
        f"{dropped} more findings not kept (the limit is {limit} per file, {FINDINGS_ENV})",
        Span(line, 0, 0),
    )


def capped(findings: list[Finding], limit: int | None = None) -> list[Finding]:
    """``findings`` (in order) up to ``limit`` (:func:`max_findings`) of them, ``file-limit`` findings always
    kept, and one ``file-limit`` finding more, on the line of the first not kept, counting those not kept."""
    limit = max_findings() if limit is None else limit
    if len(findings) <= limit:
        return findings
    kept: list[Finding] = []
    count = dropped = 0
    first = 0  # the line of the first finding not kept
    place = 0  # where in ``kept`` it was: the finding that counts them goes there
    for finding in findings:
        if finding.code == FILE_LIMIT or count < limit:
            kept.append(finding)
            count += finding.code != FILE_LIMIT
        else:
            if not dropped:
                first, place = finding.span.line, len(kept)
            dropped += 1
    if dropped:
        kept.insert(place, over_findings(first, dropped, limit))
    return kept
