"""A session's cost priced in groups (analysis/reports/library/grouped.py) is exactly the sum of each response
priced alone (pricing.price, genai-prices' calc_price): every OpenAI model of the table, every service tier,
timestamps on both sides of every price change, any tokens (cached above input, zeros, huge); the same
per-model and total Decimal, the same priced_as and the same first reason when a response is unpriced."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from decimal import Decimal

import genai_prices
from genai_prices import Usage, calc_price, data_snapshot
from genai_prices.types import ModelPrice, StartDateConstraint, TieredPrices
from hypothesis import example, given, settings
from hypothesis import strategies as st

from analysis.reports.library import grouped
from analysis.reports.library.grouped import ModelSum, model_sums
from analysis.reports.library.pricing import PRICES_VERSION, price

OPENAI = next(p for p in data_snapshot.get_snapshot().providers if p.id == "openai")
MODELS = sorted(m.id for m in OPENAI.models)
TIERS = (None, "priority", "flex", "fast", "default")


def _changes() -> list[date]:
    """Every date a price of an OpenAI model starts (its prices' and its tier variants' constraints)."""
    found = set()
    for model in OPENAI.models:
        conditions = model.prices if isinstance(model.prices, list) else []
        for c in [*(c.constraint for c in conditions), *(v.constraint for v in model.price_variants or ())]:
            if isinstance(c, StartDateConstraint):
                found.add(c.start_date)
    return sorted(found)


CHANGES = _changes()


def _stamps() -> list[str]:
    """The last second before each change, its first second, and one moment in another time zone whose UTC day
    is the day before (genai-prices reads the UTC date); and a date before all and one after."""
    out = ["2023-01-01T00:00:00.000Z", "2030-06-01T12:00:00Z"]
    for day in CHANGES:
        out.append((datetime.combine(day, datetime.min.time()) - timedelta(seconds=1)).strftime("%Y-%m-%dT%H:%M:%SZ"))
        out.append(f"{day.isoformat()}T00:00:00.000Z")
        out.append(f"{day.isoformat()}T05:30:00+09:00")
    return out


STAMPS = _stamps()


def _alone(queries: list) -> tuple[dict, Decimal | None]:
    """The reference: each response priced alone and added in order, as cost_of did before grouping."""
    sums: dict = {}
    total: Decimal | None = Decimal(0)
    for q in queries:
        found = price(*q)
        entry = sums.setdefault(q[0], ModelSum())
        if found.usd is None:
            entry.usd, entry.reason, total = None, entry.reason or found.reason, None
            continue
        entry.priced_as = entry.priced_as or found.priced_as
        if entry.usd is not None:
            entry.usd += found.usd
        if total is not None:
            total += found.usd
    return sums, total


def _same(queries: list) -> None:
    sums, total = model_sums(queries)
    want_sums, want_total = _alone(queries)
    assert list(sums) == list(want_sums)
    assert {m: (s.usd, s.priced_as, s.reason) for m, s in sums.items()} == {
        m: (s.usd, s.priced_as, s.reason) for m, s in want_sums.items()
    }
    assert total == want_total


TOKENS = st.one_of(
    st.integers(-3, 400_000),
    st.sampled_from([0, 1, 271_999, 272_000, 272_001, 1_000_000]),  # the long-context tier starts past 272,000
    st.integers(0, 10**12),
)
QUERY_PARTS = st.tuples(
    st.sampled_from(["openai", "openai", None, "OpenAI", "ollama", "amd-openai"]),
    st.sampled_from(TIERS),
    st.sampled_from(STAMPS),
    st.tuples(TOKENS, TOKENS, TOKENS, TOKENS),
)


@st.composite
def sessions(draw) -> list:
    """A few models (and sometimes an unknown one or none), many responses each: groups of several."""
    models = draw(st.lists(st.sampled_from([*MODELS, "gpt-9-imaginary", None]), min_size=1, max_size=3))
    parts = draw(st.lists(st.tuples(st.sampled_from(models), QUERY_PARTS), min_size=1, max_size=40))
    return [(model, *rest) for model, rest in parts]


@settings(max_examples=400, deadline=None)
@given(sessions())
@example([("gpt-5.4", "openai", None, "2026-11-20T10:00:00Z", (272_000, 0, 10, 0)),
          ("gpt-5.4", "openai", None, "2026-11-20T10:00:01Z", (272_001, 5, 10, 0))])  # fmt: skip
@example([("gpt-5.2-codex", "openai", "priority", "2026-11-20T10:00:00Z", (10, 50, 3, 7)),
          ("gpt-5.2-codex", "ollama", None, "2026-11-20T10:00:01Z", (100, 0, 1, 0)),
          ("gpt-5.2-codex", "openai", None, "2026-11-20T10:00:02Z", (-5, 0, 0, 0))])  # fmt: skip
def test_grouped_sums_are_the_sums_of_each_response_priced_alone(queries):
    _same(queries)
    priced = [q for q in queries if q[0] and (q[1] is None or q[1].lower() == "openai")]
    if sum(max(0, n) for q in priced for n in q[4]) < 10**15:
        assert grouped._grouped(queries) is not None  # the groups were priced, not each response alone


def test_every_model_tier_and_price_change_groups_to_the_same_sum():
    """Each model and tier at every boundary: a small group of responses on each side of the date."""
    tokens = [(1_234_567, 1_000_000, 8_765, 0), (0, 0, 0, 0), (272_001, 300_000, 1, 5), (17, 3, 999, 2)]
    for model in MODELS:
        for tier in TIERS:
            _same([(model, "openai", tier, stamp, counts) for stamp in STAMPS for counts in tokens])


def test_the_selected_prices_are_calc_prices_own():
    """_selected reads the ModelPrice genai-prices' calc_price uses, for every model, tier and boundary."""
    for model in MODELS:
        for tier in TIERS:
            for stamp in STAMPS:
                at = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
                context = {"service_tier": tier} if tier in ("priority", "flex", "fast") else None
                selected = grouped._selected(model, tier, stamp)
                try:
                    found = calc_price(Usage(input_tokens=1, output_tokens=1), model, provider_id="openai",
                                       genai_request_timestamp=at, price_context=context)  # fmt: skip
                except LookupError:  # an id its own matching does not find (ft:gpt-4o): unpriced, alone
                    assert selected is None
                    continue
                assert selected is not None and selected.model_id == found.model.id
                assert selected.prices == found.model_price, (model, tier, stamp)


def test_a_tiered_price_is_the_tier_of_each_responses_own_input():
    """Two responses of gpt-5.4 on each side of 272,000 input tokens: each pays its own tier; their grouped
    sum is theirs, though the summed input is past the threshold."""
    stamp = "2026-11-20T10:00:00Z"
    at = datetime(2026, 11, 20, 10, tzinfo=timezone.utc)
    selected = grouped._selected("gpt-5.4", None, stamp)
    assert selected is not None and selected.tiered
    assert any(isinstance(v, TieredPrices) for _, v in selected.values or ())
    for n in (272_000, 272_001):
        at_tier = ModelPrice(**dict(grouped._at_tier(selected.values or (), n)))
        usage = Usage(input_tokens=n, cache_read_tokens=n // 2, output_tokens=1_000)
        alone = calc_price(usage, "gpt-5.4", provider_id="openai", genai_request_timestamp=at)
        assert at_tier.calc_price(usage)["total_price"] == alone.total_price
    queries = [("gpt-5.4", "openai", None, stamp, (n, n // 2, 1_000, 0)) for n in (272_000, 272_001, 200_000)]
    _same(queries)
    sums, _ = model_sums(queries)
    assert (
        sums["gpt-5.4"].usd
        == sum((price(*q).usd for q in queries), Decimal(0))
        == Decimal("0.389") + Decimal("0.770505") + Decimal("0.290")
    )  # the second at the long-context price


def test_unpriced_responses_keep_their_first_reason_and_priced_as():
    stamp = "2026-11-20T10:00:00Z"
    queries = [
        ("gpt-5.2-codex", "openai", None, stamp, (100, 0, 10, 0)),
        ("gpt-5.2-codex", "ollama", None, stamp, (100, 0, 10, 0)),
        ("gpt-5.2-codex", "amd-openai", None, stamp, (100, 0, 10, 0)),
        ("gpt-9-imaginary", "openai", None, stamp, (1, 0, 1, 0)),
        (None, "openai", None, stamp, (1, 0, 1, 0)),
    ]
    sums, total = model_sums(queries)
    assert total is None
    assert {m: (s.usd, s.priced_as, s.reason) for m, s in sums.items()} == {
        "gpt-5.2-codex": (None, "gpt-5.2", "provider ollama"),  # the table prices it as gpt-5.2
        "gpt-9-imaginary": (None, None, "gpt-9-imaginary is not in genai-prices 0.2.3 (2026-11-10)"),
        None: (None, None, "no model recorded"),
    }
    _same(queries)


def test_past_the_exact_bound_or_without_a_time_each_response_is_priced_alone():
    stamp = "2026-11-20T10:00:00Z"
    huge = [("gpt-5.2-codex", "openai", None, stamp, (10**24, 10**23, 10**24, 0))] * 3
    assert grouped._grouped(huge) is None
    _same(huge)
    timeless = [("gpt-5.2-codex", "openai", None, None, (100, 0, 10, 0)),
                ("gpt-5.2-codex", "openai", None, stamp, (100, 0, 10, 0))]  # fmt: skip
    assert grouped._grouped(timeless) is None
    _same(timeless)


def test_grouping_needs_the_pinned_genai_prices():
    assert genai_prices.__version__ == PRICES_VERSION and grouped._groupable()
