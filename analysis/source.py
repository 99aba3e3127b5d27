"""Reading rollout files from disk: plain or zstd-compressed, with bad bytes reported, never fatal."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from .findings import INVALID_JSON, Finding
from .lines import split_lines, strip_bom
from .positions import Span

MAX_BYTES = 2 * 1024 ** 3  # a decompressed rollout larger than this is refused, not read
_BAD_BYTE = re.compile("[\udc80-\udcff]")


@dataclass
class LoadedFile:
    path: str
    text: str = ""
    findings: list[Finding] = field(default_factory=list)
    error: str | None = None  # the file could not be read at all


def rollout_files(paths: list[str]) -> list[str]:
    """Files named, and ``*.jsonl`` / ``*.jsonl.zst`` files below folders named, sorted."""
    out: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            found = [str(p) for p in Path(path).rglob("*") if (p.is_file() or p.is_symlink()) and
                     (p.name.endswith(".jsonl") or p.name.endswith(".jsonl.zst"))]
            out.extend(sorted(found))
        else:
            out.append(path)
    return out


def load(path: str) -> LoadedFile:
    try:
        data = _read_bytes(path)
    except Exception as error:  # any I/O or decompression failure is reported, never raised
        return LoadedFile(path, error=f"cannot read {path}: {_reason(error)}")
    return decode(path, data)


def decode(path: str, data: bytes) -> LoadedFile:
    """Text of ``data``; bytes that are not UTF-8 become U+FFFD and an ``invalid-json`` finding."""
    text = data.decode("utf-8", "surrogateescape")
    loaded = LoadedFile(path)
    text = strip_bom(text)
    if _BAD_BYTE.search(text):
        for number, line in enumerate(split_lines(text)):
            m = _BAD_BYTE.search(line)
            if m:
                byte = ord(m.group()) - 0xDC00
                loaded.findings.append(Finding(INVALID_JSON, f"not UTF-8: byte 0x{byte:02x}",
                                               Span(number, m.start(), m.start() + 1)))
        text = _BAD_BYTE.sub("\ufffd", text)
    loaded.text = text
    return loaded


def _read_bytes(path: str) -> bytes:
    if path.endswith(".zst"):
        import zstandard

        with open(path, "rb") as handle:
            reader = zstandard.ZstdDecompressor().stream_reader(handle)
            data = reader.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            raise ValueError("decompressed size over 2 GiB")
        return data
    with open(path, "rb") as handle:
        return handle.read()


def _reason(error: Exception) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error) or type(error).__name__
