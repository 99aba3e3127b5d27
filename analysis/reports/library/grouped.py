"""The sum of many responses' prices, priced in groups: the same Decimal as pricing each response alone
(:func:`.pricing.price`), with one genai-prices calculation per group instead of one per response.

Why the sum is the same (genai-prices 0.2.3, ``genai_prices/types.py`` and ``decompose.py``): a response is
priced with the ``ModelPrice`` its model selects at the response's time and service tier
(``ModelInfo.get_prices``); ``ModelPrice.calc_price`` adds, for each priced unit, its price × the unit's leaf
count ÷ the unit's ``per`` (``calc_unit_price``), and a leaf count is a token count less its priced parts
(``compute_leaf_values``: input less cache reads and writes, which :func:`.pricing.clamped` keeps within the
input). With plain Decimal prices that is linear in the tokens, so the responses of one model that select equal
prices are priced once, with their summed tokens.  A ``TieredPrices`` (gpt-5.4 and later: every token at a
higher price above 272,000 input tokens) charges all of a response's tokens the price of the tier its own input
reaches: the responses are grouped by that price too, and the group priced with a ``ModelPrice`` holding it
(:func:`_at_tier`).  A ``requests_kcount`` price (once per calculation, none of OpenAI's) is not linear: such a
response, and an unpriced one, is priced alone; so is a priced response without a time (the present's prices,
which :func:`_selected` does not read), and then every response is.

Decimal arithmetic is exact as long as no value needs more digits than the context's precision (28): every
amount here (a price × a count, ÷ ``per``, and any sum of those) is a multiple of 10^-(the prices' most
decimals) ÷ ``per`` and at most the largest price × all the tokens ÷ ``per``, so :func:`_grouped` checks that
largest price × all tokens × 10^decimals < 10^precision for the whole set, which makes every amount of both
ways exact (so equal): past it (1.6 × 10^21 tokens at the dearest OpenAI price, $600 a million, with 4 decimals)
every response is priced alone, as before.

genai-prices' own objects are used (its snapshot's lookup, ``ModelInfo.get_prices``, ``ModelPrice`` and its
``calc_price``), never a table of ours.  Not public there: ``data_snapshot.get_snapshot().find_provider_model``
(what ``calc_price`` itself calls), and two rules read from its code and repeated here -- a model found in
another provider's list is priced without the tier (``ModelInfo.calc_price``), and a tier applies when the
input exceeds its start (``calc_unit_price``).  So grouping runs only with the pinned version
(:func:`_groupable`), and tests/reports/test_grouped_price_42.py checks both rules against ``calc_price``."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from decimal import ROUND_CEILING, Decimal, getcontext
from functools import lru_cache
from typing import Any

from .pricing import PRICED_PROVIDERS, PRICES_VERSION, Price, _moment, _table, clamped, context_of, price, usage_of

Query = tuple[str | None, str | None, str | None, str | None, tuple[int, int, int, int]]  # price()'s arguments


@dataclass
class ModelSum:
    """One model's responses: ``usd`` their summed price (None when any is unpriced: ``reason`` the first's)."""

    usd: Decimal | None = Decimal(0)
    priced_as: str | None = None
    reason: str | None = None

    def add(self, found: Price) -> None:
        if found.usd is None:
            self.usd = None
            self.reason = self.reason or found.reason
            return
        self.priced_as = self.priced_as or found.priced_as
        if self.usd is not None:
            self.usd += found.usd


@dataclass(frozen=True, slots=True)
class _Selected:
    """The ``ModelPrice`` genai-prices selects for a response, and what grouping needs of it."""

    model_id: str
    prices: Any  # genai_prices.types.ModelPrice
    values: tuple[tuple[str, Any], ...] | None  # its prices (None: priced alone); equal values share a group
    tiered: bool  # some values are TieredPrices: the group is of the responses at the same tier
    largest: int  # an integer at least every price (tiers included)
    decimals: int  # the most decimal places of a price


def model_sums(queries: Sequence[Query]) -> tuple[dict[str | None, ModelSum], Decimal | None]:
    """Per model (as first met) its responses' summed price, and the total (None when any is unpriced)."""
    if _groupable():
        found = _grouped(queries)
        if found is not None:
            return found
    return _alone(queries)


def _alone(queries: Sequence[Query]) -> tuple[dict[str | None, ModelSum], Decimal | None]:
    sums: dict[str | None, ModelSum] = {}
    total: Decimal | None = Decimal(0)
    for query in queries:
        found = price(*query)
        sums.setdefault(query[0], ModelSum()).add(found)
        total = None if total is None or found.usd is None else total + found.usd
    return sums, total


@lru_cache(maxsize=1)
def _groupable() -> bool:
    """Only with the genai-prices whose code the docstring reads (the pin): another may not be linear."""
    table = _table()
    return table is not None and getattr(table, "__version__", None) == PRICES_VERSION


def _grouped(queries: Sequence[Query]) -> tuple[dict[str | None, ModelSum], Decimal | None] | None:
    """The grouped sums, or None when they might not be exact (then each response is priced alone)."""
    sums: dict[str | None, ModelSum] = {}
    groups: dict[tuple, list[Any]] = {}  # (model, prices) → [selected, input, cached, output, cache write]
    total: Decimal | None = Decimal(0)
    tokens = largest = decimals = 0
    for query in queries:
        model, provider, tier, timestamp, counts = query
        entry = sums.setdefault(model, ModelSum())
        selected = _selected(model, tier, timestamp) if model and _priced_provider(provider) else None
        if selected is not None:
            clamp = clamped(counts)
            tokens += sum(clamp)
            largest, decimals = max(largest, selected.largest), max(decimals, selected.decimals)
        if selected is None or selected.values is None:
            found = price(*query)
            if selected is None and found.usd is not None:  # priced at prices the bound below does not know
                return None
            entry.add(found)
            total = None if total is None or found.usd is None else total + found.usd
            continue
        values = _at_tier(selected.values, clamp[0]) if selected.tiered else selected.values
        group = groups.get((model, values))
        if group is None:
            group = groups[(model, values)] = [selected, 0, 0, 0, 0]
        for i in range(4):
            group[i + 1] += clamp[i]
    if largest * tokens * 10**decimals >= 10 ** getcontext().prec:
        return None
    for (model, values), (selected, *summed) in groups.items():
        usd = _group_price(values, tuple(summed))
        if usd is None:  # what price() would say of each response: say it so
            return None
        sums[model].add(Price(usd, selected.model_id))
        total = None if total is None else total + usd
    return sums, total


@lru_cache(maxsize=4096)  # the lens asks again of an unchanged session at each edit elsewhere
def _group_price(values: tuple[tuple[str, Decimal], ...], summed: tuple[int, int, int, int]) -> Decimal | None:
    """genai-prices' price of ``summed`` tokens at ``values`` (plain Decimals), None when it refuses them."""
    table = _table()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            found = table.types.ModelPrice(**dict(values)).calc_price(usage_of(table, summed))
    except (ValueError, AttributeError, TypeError):
        return None
    return Decimal(found["total_price"])


def _priced_provider(provider: str | None) -> bool:
    """A provider :func:`.pricing.price` prices at all (the others it leaves unpriced, with their reason)."""
    return not provider or provider.lower() in PRICED_PROVIDERS


@lru_cache(maxsize=65536)  # as price()'s: the lens asks again of the same responses at each edit
def _selected(model: str, tier: str | None, timestamp: str | None) -> _Selected | None:
    """The prices ``calc_price(…, model, provider_id="openai", …)`` uses at ``timestamp`` and ``tier``; None when
    it finds no model or the response has no time (priced alone: its reason, or the present's prices)."""
    at = _moment(timestamp)
    if at is None:
        return None
    found = _model(model)
    if found is None:
        return None
    provider, info, dated = found
    try:
        if not dated:
            return _select(provider, info, tier, at)
        day = (model, tier, at.astimezone(timezone.utc).date())  # all the constraints read (StartDateConstraint)
        if day not in _BY_DAY:
            _BY_DAY[day] = _select(provider, info, tier, at)
        return _BY_DAY[day]
    except OverflowError:  # a time at the calendar's edge (9999-12-31T23:00-05:00): priced alone, as price() does
        return None


_BY_DAY: dict[
    tuple, _Selected | None
] = {}  # (model, tier, UTC day) → _Selected (or None) of a model priced by dates alone


@lru_cache(maxsize=1024)
def _model(model: str) -> tuple[Any, Any, bool] | None:
    """The provider and ``ModelInfo`` calc_price finds for ``model``, and whether its prices change by date alone."""
    from genai_prices import data_snapshot  # the snapshot calc_price itself reads
    from genai_prices.types import StartDateConstraint

    try:
        provider, info = data_snapshot.get_snapshot().find_provider_model(model, None, "openai", None)
    except LookupError:
        return None
    conditions = info.prices if isinstance(info.prices, list) else []
    constraints = [c.constraint for c in conditions] + [v.constraint for v in info.price_variants or ()]
    dated = all(c is None or isinstance(c, StartDateConstraint) for c in constraints)
    return provider, info, dated


def _select(provider: Any, info: Any, tier: str | None, at: datetime) -> _Selected | None:
    context = context_of(tier)
    # ModelInfo.calc_price's own choice: a model found in another provider's list is priced without the context
    if context and not any(info is m for m in provider.models):
        chosen = info.get_prices(at)
    else:
        chosen = info.get_prices(at, context)
    values = tuple(sorted((k, v) for k, v in vars(chosen).items() if v is not None and not k.startswith("_")))
    if not all(isinstance(v, Decimal) or _is_tiered(v) for _, v in values):
        return None
    plain = [v for _, v in values if isinstance(v, Decimal)]
    tiered = [p for _, v in values if not isinstance(v, Decimal) for p in _tier_prices(v)]
    every = plain + tiered
    per_request = any(k == "requests_kcount" for k, _ in values)
    largest = int(max(every, default=Decimal(0)).to_integral_value(rounding=ROUND_CEILING))
    decimals = max((max(0, -int(p.as_tuple().exponent)) for p in every), default=0)
    return _Selected(info.id, chosen, None if per_request else values, bool(tiered), largest, decimals)


def _at_tier(values: tuple[tuple[str, Any], ...], input_tokens: int) -> tuple[tuple[str, Decimal], ...]:
    """``values`` with each ``TieredPrices`` replaced by the price a response of ``input_tokens`` pays for all its
    tokens (``calc_unit_price``'s rule: the last tier whose start its input exceeds, else the base)."""
    return tuple((k, v if isinstance(v, Decimal) else _tier_price(v, input_tokens)) for k, v in values)


def _tier_price(value: Any, input_tokens: int) -> Decimal:
    for tier in reversed(value.tiers):
        if input_tokens > tier.start:
            return tier.price
    return value.base


def _is_tiered(value: Any) -> bool:
    return isinstance(getattr(value, "base", None), Decimal) and all(
        isinstance(getattr(t, "price", None), Decimal) for t in getattr(value, "tiers", None) or ()
    )


def _tier_prices(value: Any) -> list[Decimal]:
    """A ``TieredPrices``' base and tier prices (only for the bound on magnitudes)."""
    return [value.base, *(t.price for t in value.tiers)]
