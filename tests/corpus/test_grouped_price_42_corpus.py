"""The cost of the wild corpus's sessions priced in groups (analysis/reports/library/grouped.py) is exactly the
cost of each response priced alone: ``sessions --json`` and ``cost --json`` by session, day, project and model
the same, byte for byte; the editor's lens on the largest rollouts the same; ``cost`` with 61 genai-prices
calculations where pricing each response took 2,611."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from genai_prices.types import ModelPrice

from analysis.jsonl.source import load
from analysis.reports.index import RolloutIndex
from analysis.reports.library import BY, Library, cost_report, grouped, pricing
from analysis.reports.library.document import document_cost
from analysis.session.rollout import analyze_text
from tests.helpers import SHARED

WILD = SHARED / "corpus" / "wild"
NOW = 2_000_000_000.0  # nothing live
DAYS = {
    "2025-11-17T15-30-28": 0.441382,
    "2025-11-26T07-31-50": 8.221089,
    "2025-12-25T06-56-06": 17.464412,
    "2026-02-23T20-34-25": 0.161689,
    "2026-03-31T20-44-07": 6.713559,
    "2026-07-26T06-37-23": 21.299248,
}


@pytest.fixture(scope="module")
def library(tmp_path_factory) -> Library:
    db = tmp_path_factory.mktemp("index") / "index.sqlite3"
    with RolloutIndex.open(db) as index:
        index.update([str(WILD)])
    return Library(sqlite3.connect(db))


@pytest.fixture
def calculations(monkeypatch) -> list[int]:
    """How many prices genai-prices calculates (every ``calc_price`` ends in ``ModelPrice.calc_price``), from a
    cold start of our caches."""
    pricing.price.cache_clear()
    grouped._group_price.cache_clear()
    count = [0]
    original = ModelPrice.calc_price

    def counted(self, usage):
        count[0] += 1
        return original(self, usage)

    monkeypatch.setattr(ModelPrice, "calc_price", counted)
    return count


def _everything(library: Library) -> str:
    reports = [cost_report(library, by) for by in BY]
    return json.dumps([library.sessions(now=NOW), reports], indent=2)


def test_the_library_priced_in_groups_is_the_library_priced_response_by_response(library, calculations, monkeypatch):
    grouped_out = _everything(library)
    assert calculations[0] == 92  # sessions and the four reports: one calculation per distinct group
    monkeypatch.setattr(grouped, "_groupable", lambda: False)
    pricing.price.cache_clear()
    assert _everything(library) == grouped_out
    sessions = json.loads(grouped_out)[0]
    # the figures docs/cost.md compares with ccusage (rounded there to four places)
    usd = {day: [s["cost"]["usd"] for s in sessions if f"rollout-{day}" in Path(s["rollout"]).name] for day in DAYS}
    assert usd == {day: [figure] for day, figure in DAYS.items()}


def test_the_whole_library_takes_a_calculation_per_group(library, calculations, monkeypatch):
    assert cost_report(library, "session")["total"]["responses"] == 2625
    assert calculations[0] == 61  # a session alone on its model and prices is the total's group too: cached
    monkeypatch.setattr(grouped, "_groupable", lambda: False)
    pricing.price.cache_clear()
    calculations[0] = 0
    cost_report(library, "session")
    assert calculations[0] == 2611  # the unpriced responses are never calculated


@pytest.mark.parametrize(
    ("name", "lens"),
    [
        ("tvvshow__gokao__rollout-2026-01-15T08-34-06-019bbf12-e872-78f2-8ebd-bb51f49dd66a", "$7.7390 · 259 responses"),
        (
            "LAF-US__IDAHO-VAULT__rollout-2026-03-31T20-44-07-019d46ed-4410-7883-8e83-afd2f6be9fe2",
            "$6.7136 · 96 responses",
        ),
        (
            "tvvshow__gokao__rollout-2025-12-25T06-56-06-019b5293-a6da-70d1-95f9-95bdb1810b75",
            "$17.4644 · 458 responses",
        ),
    ],
)
def test_the_lens_of_the_largest_rollouts_is_the_same(name, lens, monkeypatch):
    analysis = analyze_text(load(str(WILD / f"{name}.jsonl")).text)
    found = document_cost(analysis)
    assert found is not None and found.text() == lens
    monkeypatch.setattr(grouped, "_groupable", lambda: False)
    pricing.price.cache_clear()
    alone = document_cost(analysis)
    assert alone is not None and (alone.cost, alone.tokens, alone.text()) == (found.cost, found.tokens, lens)
