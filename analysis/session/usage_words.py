"""Token usage in words: counts at a glance and sentences for hovers and documents (see :mod:`.usage`)."""

from __future__ import annotations

from typing import Any

TokenUsage = Any  # analysis.session.usage.TokenUsage (not imported: usage imports this module)


def tokens(n: int) -> str:
    """``950``, ``12.3k``, ``1.25M``: a token count at a glance."""
    if n < 1000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1000:.1f}k".replace(".0k", "k")
    return f"{n / 1_000_000:.2f}M".replace(".00M", "M")


def share(value: float | None) -> str:
    return f"{value * 100:.0f}%" if value is not None else "?"


def short(usage: TokenUsage, context: int | None = None, window: int | None = None) -> str:
    """``in 12.3k (cached 10k) · out 450 (reasoning 200) · context 9% of 258k``."""
    parts = [
        f"in {tokens(usage.input)} (cached {tokens(usage.cached)})",
        f"out {tokens(usage.output)} (reasoning {tokens(usage.reasoning)})",
    ]
    if context is not None and window:
        parts.append(f"context {share(context / window)} of {tokens(window)}")
    return " · ".join(parts)


def sentence(usage: TokenUsage, requests: int | None = None) -> str:
    """The same in words, for hovers and documents."""
    head = (
        f"{usage.input:,} input tokens ({usage.cached:,} of them cached), {usage.output:,} output tokens "
        f"({usage.reasoning:,} of them reasoning)"
    )
    if requests is not None:
        head += f" over {requests} model response{'s' if requests != 1 else ''}"
    return head


def context_sentence(context: int | None, window: int | None) -> str:
    if context is None:
        return "no token count recorded"
    if not window:
        return f"{context:,} tokens in the context window"
    return f"{context:,} of {window:,} tokens in the context window ({share(context / window)})"


def limits_sentence(limits: dict | None) -> str | None:
    """``rate limits: 5-hour window 12% used, weekly window 40% used``."""
    if not isinstance(limits, dict):
        return None
    parts = []
    for key in ("primary", "secondary"):
        window = limits.get(key)
        if not isinstance(window, dict) or not isinstance(window.get("used_percent"), (int, float)):
            continue
        minutes = window.get("window_minutes")
        name = _window_name(minutes) if isinstance(minutes, int) else key
        parts.append(f"{name} {window['used_percent']:g}% used")
    return "rate limits: " + ", ".join(parts) if parts else None


def _window_name(minutes: int) -> str:
    if minutes % 10080 == 0:
        return "weekly window" if minutes == 10080 else f"{minutes // 10080}-week window"
    if minutes % 60 == 0:
        return f"{minutes // 60}-hour window"
    return f"{minutes}-minute window"
