"""Reading a rollout one line at a time (plain, zstd-compressed, or standard input), in constant memory.

The lines, and the ``invalid-json`` findings for bytes that are not UTF-8, are exactly those
:func:`analysis.jsonl.source.load` and :func:`analysis.jsonl.lines.split_lines` give for the whole file: a BOM
at the start is dropped, only ``\\r\\n``, ``\\r`` and ``\\n`` end a line, a final terminator yields a
last empty line, and a byte that is not UTF-8 becomes U+FFFD.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import sys
import tempfile
from contextlib import contextmanager
from typing import BinaryIO, Iterator

from .findings import INVALID_JSON, Finding
from .lines import BOM
from .positions import Span
from .source import STDIN, ZSTD_MAGIC, ZstdReader, long_line, max_line, open_regular, raw_lines

_BAD_BYTE = re.compile("[\udc80-\udcff]")
READ_BUFFER = 1 << 20


class Unreadable(Exception):
    """The file could not be read (``message`` is what :func:`analysis.jsonl.source.load` would say)."""


def reason(error: BaseException) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error) or type(error).__name__


@contextmanager
def opened(path: str) -> Iterator[str]:
    """A path that can be read more than once: standard input is copied to a temporary file first
    (on disk, not in memory); any other path is itself."""
    if path != STDIN:
        yield path
        return
    with tempfile.NamedTemporaryFile(prefix="rollout-lsp-stdin-", suffix=".jsonl", delete=False) as spool:
        try:
            shutil.copyfileobj(sys.stdin.buffer, spool, READ_BUFFER)
        except Exception as error:
            os.unlink(spool.name)
            raise Unreadable(f"cannot read standard input: {reason(error)}") from error
    try:
        yield spool.name
    finally:
        os.unlink(spool.name)


def _binary(path: str, sniff: bool) -> BinaryIO:
    """The file's bytes, decompressed when it is zstd (by its name, or by its first bytes when ``sniff``)."""
    handle = open_regular(path)
    compressed = path.endswith(".zst") or sniff and handle.peek(4)[:4] == ZSTD_MAGIC
    if not compressed:
        return handle
    return io.BufferedReader(ZstdReader(handle), READ_BUFFER)  # a truncated file is an error


def read_lines(path: str, name: str | None = None, sniff: bool = False) -> Iterator[tuple[str, Finding | None]]:
    """Each line of ``path`` (its text, and the finding for a byte that is not UTF-8, on its line).

    ``name`` is how errors name the file (``standard input``); ``sniff`` reads a zstd file whatever its
    name (as standard input is read).  Raises :class:`Unreadable`."""
    name = name or path
    try:
        binary = _binary(path, sniff)
    except Exception as error:
        raise Unreadable(f"cannot read {name}: {reason(error)}") from error
    text = io.TextIOWrapper(binary, encoding="utf-8", errors="surrogateescape", newline="")
    limit = max_line()
    number = 0
    ended = True  # the text so far ends with a line terminator (or is empty): a last empty line follows
    try:
        with text:
            for raw, skipped in raw_lines(text, limit):
                if number == 0 and raw.startswith(BOM):
                    raw = raw[1:]
                if raw.endswith("\n"):
                    line = raw[:-2] if raw.endswith("\r\n") else raw[:-1]
                    ended = True
                elif raw.endswith("\r"):
                    line, ended = raw[:-1], True
                else:
                    line, ended = raw, False
                if skipped:
                    yield "", long_line(number, skipped, limit)
                else:
                    yield _clean(line, number)
                number += 1
    except Unreadable:
        raise
    except Exception as error:  # any I/O or decompression failure is reported, never raised
        raise Unreadable(f"cannot read {name}: {reason(error)}") from error
    if ended:
        yield "", None


def _clean(line: str, number: int) -> tuple[str, Finding | None]:
    if line.isascii():
        return line, None
    m = _BAD_BYTE.search(line)
    if m is None:
        return line, None
    byte = ord(m.group()) - 0xDC00
    finding = Finding(INVALID_JSON, f"not UTF-8: byte 0x{byte:02x}", Span(number, m.start(), m.start() + 1))
    return _BAD_BYTE.sub("\ufffd", line), finding


__all__ = ["Unreadable", "opened", "read_lines", "reason"]
