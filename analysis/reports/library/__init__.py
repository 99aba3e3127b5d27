"""The sessions library over the index: every session with its project, name, request, times, tokens, exact cost
and links (:mod:`.sessions`), the responses that count (:mod:`.responses`), their prices (:mod:`.pricing`; their
sum priced in groups, exactly: :mod:`.grouped`), the ``--tree`` view (:mod:`.tree`) and the cost report by
session, day, project or model (:mod:`.cost`)."""

from .cost import BY, cost_report
from .pricing import PRICES_AS_OF, price, unavailable
from .sessions import LIVE_SECONDS, Filters, Library, cost_of
from .tree import tree_lines

__all__ = [
    "BY",
    "Filters",
    "LIVE_SECONDS",
    "Library",
    "PRICES_AS_OF",
    "cost_of",
    "cost_report",
    "price",
    "tree_lines",
    "unavailable",
]
