"""``compacted`` records, summarised: what the history after a compaction holds, never the history itself.

Since about 0.140 a ``compacted`` record carries ``replacement_history`` (the authoritative history after
the compaction: messages, tool calls and their outputs, encrypted ``compaction`` items, images as base64
``data:`` URLs), ``window_number``, ``window_id``, ``first_window_id``, ``previous_window_id``,
``compaction_response_id``, ``latest_token_usage_record``, ``resume_metadata`` and more; ``message`` is
often empty.  The history can be most of a file (a public report measured compacted records at 90% of a
725 MiB rollout, mostly images), so a line's analysis keeps only a :class:`CompactedSummary` (items by
type, their sizes, the images) and drops the history: the outline, hovers and the index read the summary.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..jsonl.pickling import pickled_by_fields

LARGE_LINE = 1 << 20  # a compacted line longer than this is not searched for secrets (see docs/sessions.md)


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class CompactedSummary:
    items: int  # in replacement_history
    kinds: tuple[tuple[str, int], ...]  # (item type, how many), most first
    chars: int  # the record's line, in characters
    images: int  # input_image parts with a data: URL
    image_chars: int  # those URLs' characters
    window_number: int | None = None
    message: str | None = None  # the summary text, when Codex still writes one

    def sentence(self) -> str:
        """``replacement history: 4 items (2 message, 1 compaction, …), 48,000 characters, 1 image of 33,000
        characters; window 2``."""
        kinds = ", ".join(f"{count} {kind}" for kind, count in self.kinds)
        text = (
            f"replacement history: {self.items} item{'s' if self.items != 1 else ''}"
            + (f" ({kinds})" if kinds else "")
            + f"; the record is {self.chars:,} characters"
        )
        if self.images:
            text += f", {self.images} image{'s' if self.images != 1 else ''} of {self.image_chars:,} characters"
        if self.window_number is not None:
            text += f"; context window {self.window_number}"
        if self.message:
            text += f"; summary: {self.message[:200]}"
        return text


def summarise(payload: Any, chars: int) -> CompactedSummary | None:
    """The summary of a ``compacted`` payload on a line of ``chars`` characters (walked once; nothing of the
    history is kept)."""
    if not isinstance(payload, dict):
        return None
    history = payload.get("replacement_history")
    history = history if isinstance(history, list) else []
    kinds: dict[str, int] = {}
    images = image_chars = 0
    for item in history:
        kind = item.get("type") if isinstance(item, dict) else None
        kind = kind if isinstance(kind, str) else "other"
        kinds[kind] = kinds.get(kind, 0) + 1
        for part in _parts(item):
            url = part.get("image_url")
            if isinstance(url, str) and url.startswith("data:"):
                images += 1
                image_chars += len(url)
    window = payload.get("window_number")
    message = payload.get("message")
    return CompactedSummary(
        len(history),
        tuple(sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))),
        chars,
        images,
        image_chars,
        window if isinstance(window, int) and not isinstance(window, bool) else None,
        " ".join(message.split()) if isinstance(message, str) and message.strip() else None,
    )


def is_compacted_line(line: str) -> bool:
    """Whether a line's record type, read from its first characters, is ``compacted``."""
    head = line[:256]
    return '"type":"compacted"' in head or '"type": "compacted"' in head


def _parts(item: Any) -> list[dict]:
    if not isinstance(item, dict):
        return []
    content = item.get("content") if isinstance(item.get("content"), list) else item.get("output")
    return [p for p in content if isinstance(p, dict)] if isinstance(content, list) else []


def compacted_summary(analysis: Any, line: int) -> CompactedSummary | None:
    """The summary of the ``compacted`` record on ``line`` of a rollout's analysis, else None."""
    records = analysis.records
    return records[line].compacted if 0 <= line < len(records) else None


__all__ = ["LARGE_LINE", "CompactedSummary", "summarise", "is_compacted_line", "compacted_summary"]
