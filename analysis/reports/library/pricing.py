"""A response's price, from pydantic's ``genai-prices`` (pinned in pyproject.toml; its bundled data, offline:
``UpdatePrices`` is never started).  Each response is priced at its own timestamp (historical prices) and
service tier; cached input at the cache-read price, reasoning as the part of output it is.  A response is left
unpriced, with the reason, when its model is unknown to the table, its provider is not OpenAI's API, or the
table is not installed (genai-prices needs Python 3.11).  Many responses' sum is priced in groups
(:mod:`.grouped`), to the same Decimal as pricing each alone."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from datetime import datetime, timezone
from decimal import Decimal
from functools import lru_cache
from typing import Any

PRICES_PACKAGE = "genai-prices"
PRICES_VERSION = "0.2.3"  # the pin in pyproject.toml; bump both (and PRICES_RELEASED) to update the prices
PRICES_RELEASED = "2026-11-10"
PRICES_AS_OF = f"{PRICES_PACKAGE} {PRICES_VERSION} ({PRICES_RELEASED})"
TIERS = frozenset({"priority", "fast", "flex"})  # service tiers with their own prices (default is the standard)
PRICED_PROVIDERS = frozenset({"openai"})  # a proxy's or a local model's tokens are not OpenAI's list price


@dataclass(frozen=True, slots=True)
class Price:
    """One response's price: ``usd`` (None: unpriced, ``reason`` says why) and the table's model."""

    usd: Decimal | None
    priced_as: str | None = None
    reason: str | None = None


@lru_cache(maxsize=1)
def _table() -> Any:
    """The ``genai_prices`` module, imported once when first needed (0.8 s), or the reason it is missing."""
    try:
        import genai_prices
    except Exception:  # not installed, or an interpreter it does not run on (3.10: its syntax, its typing)
        return None
    return genai_prices


def unavailable() -> str | None:
    """Why no response can be priced here, else None."""
    if _table() is None:
        return f"{PRICES_PACKAGE} is not installed (it needs Python 3.11 or later)"
    return None


def _moment(timestamp: str | None) -> datetime | None:
    if not timestamp:
        return None
    try:
        moment = datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)


def clamped(tokens: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """(input, cached, output, cache write) as genai-prices takes them: none negative, cache reads and writes
    within the input."""
    input_tokens, cached, output, cache_write = tokens  # without a generator: it is run for every response
    input_tokens = max(input_tokens, 0)
    cached = min(max(cached, 0), input_tokens)  # genai-prices refuses more cache reads than input
    return input_tokens, cached, max(output, 0), min(max(cache_write, 0), input_tokens - cached)


def usage_of(table: Any, tokens: tuple[int, int, int, int]) -> Any:
    """genai-prices' ``Usage`` of clamped ``tokens``."""
    input_tokens, cached, output, cache_write = tokens
    return table.Usage(
        input_tokens=input_tokens,
        cache_read_tokens=cached,
        output_tokens=output,
        cache_write_tokens=cache_write or None,
    )


def context_of(tier: str | None) -> dict[str, str] | None:
    """The ``price_context`` of a service tier (None: the standard price)."""
    return {"service_tier": tier} if tier in TIERS else None


@lru_cache(maxsize=65536)
def price(
    model: str | None,
    provider: str | None,
    tier: str | None,
    timestamp: str | None,
    tokens: tuple[int, int, int, int],
) -> Price:
    """The price of one response: ``tokens`` = (input, cached input, output, cache write); ``input`` holds the
    cached and cache-write parts, ``output`` the reasoning."""
    if not model:
        return Price(None, None, "no model recorded")
    if provider and provider.lower() not in PRICED_PROVIDERS:
        return Price(None, None, f"provider {provider}")
    table = _table()
    if table is None:
        return Price(None, None, unavailable())
    usage = usage_of(table, clamped(tokens))
    context = context_of(tier)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            found = table.calc_price(
                usage,
                model,
                provider_id="openai",
                genai_request_timestamp=_moment(timestamp),
                price_context=context,
            )
    except LookupError:
        return Price(None, None, f"{model} is not in {PRICES_AS_OF}")
    except (ValueError, AttributeError, TypeError, OverflowError) as error:  # Overflow: a time at the calendar's edge
        return Price(None, None, f"{type(error).__name__}: {error}")
    return Price(Decimal(found.total_price), found.model.id)
