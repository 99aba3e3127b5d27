"""A response time at the calendar's edge (9999-12-31T23:00-05:00 is past year 9999 in UTC) neither stops a cost
report nor the editor's lenses: priced in groups it is priced alone, as ``price`` prices it, and a model whose
prices change by date is left unpriced with the reason (genai-prices' own comparison overflows) instead of raising.
Found by stop 42's review: ``cost``, ``sessions`` and ``codeLens`` raised OverflowError on such a file."""

from __future__ import annotations

from decimal import Decimal

import pytest

from analysis.reports.library.grouped import ModelSum, model_sums
from analysis.reports.library.pricing import Price, price

EDGES = ("9999-12-31T23:00:00-05:00", "0001-01-01T00:30:00+01:00")
OVERFLOW = "OverflowError: date value out of range"


@pytest.mark.parametrize("stamp", EDGES)
@pytest.mark.parametrize(("model", "one"), [("gpt-4o", Decimal("0.0035")), ("gpt-5", Decimal("0.00225"))])
def test_a_model_priced_without_dates_is_priced_at_the_edge(model: str, one: Decimal, stamp: str) -> None:
    query = (model, "openai", None, stamp, (1000, 0, 100, 0))
    assert price(*query) == Price(one, model, None)
    assert model_sums([query, query]) == ({model: ModelSum(one * 2, model, None)}, one * 2)


@pytest.mark.parametrize("stamp", EDGES)
def test_a_dated_model_at_the_edge_is_unpriced_with_its_reason(stamp: str) -> None:
    query = ("o3", "openai", None, stamp, (1000, 0, 100, 0))
    assert price(*query) == Price(None, None, OVERFLOW)
    priced = ("gpt-4o", "openai", None, "2025-06-01T00:00:00Z", (1000, 0, 100, 0))
    assert model_sums([priced, query]) == (
        {"gpt-4o": ModelSum(Decimal("0.0035"), "gpt-4o", None), "o3": ModelSum(None, None, OVERFLOW)},
        None,
    )
