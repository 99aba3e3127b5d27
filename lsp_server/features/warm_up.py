"""What the first open of a rollout would do once per process, done while the server waits for it (issue 35).

A server started before any rollout is open (the VS Code extension's `rolloutLsp.server.startEarly`) would
otherwise pay, on the first rollout opened, for what a process does once: importing and loading the price table
of the cost lens (``genai_prices``, which imports ``httpx``: about 0.1 s of CPU, more than a third of
``rollout-lsp outline``'s whole run of a 3 MB rollout) and compiling the semantic-token queries.  The user waits
for that on the first Outline and lenses, and not at all while the server is idle.  So one second after
``initialized``, when no document has been opened yet (a document that came first pays for itself, as before),
a background thread does it.  It only fills caches the first answers would fill: no answer changes.
"""

from __future__ import annotations

import threading

from analysis.authoring.semantic_tokens import script_tokens
from analysis.reports.library.pricing import price

DELAY = 1.0  # seconds after `initialized` without a document: the client's own start has settled

# a response as a rollout records one: the cost lens prices each like it (any model the table knows)
_SAMPLE_PRICE = ("gpt-5", "openai", None, "2026-01-01T00:00:00Z", (1000, 500, 100, 0))
_SAMPLE_SCRIPT = 'const r = await tools.exec_command({cmd: "git status"}); text(r.output);'


def warm_up() -> None:
    """Load the price table and compile the semantic-token queries (what the first lenses and tokens use)."""
    price(*_SAMPLE_PRICE)
    script_tokens(_SAMPLE_SCRIPT)


def start_warm_up() -> threading.Thread:
    """:func:`warm_up` in a daemon thread (the event loop stays free for a document opened meanwhile)."""
    thread = threading.Thread(target=warm_up, name="rollout-lsp-warm-up", daemon=True)
    thread.start()
    return thread
