"""The warm-up of a server started before any rollout is open (lsp_server/features/warm_up.py, issue 35): it
does the once-per-process work of the first open (the price table, the semantic-token queries, the protocol's
functions for VS Code's messages on open).  What it saves is measured by
bench/editor_vscode.py, never by a test."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, sys
from lsp_server.server import create_server
from lsp_server.features.warm_up import warm_up
from analysis.authoring import semantic_tokens
from analysis.reports.library import pricing
server = create_server()
before = {"table": pricing._table.cache_info().currsize, "queries": len(semantic_tokens._QUERIES)}
warm_up(server.protocol)
after = {"table": pricing._table.cache_info().currsize, "queries": len(semantic_tokens._QUERIES)}
print(json.dumps({"before": before, "after": after}))
"""


def test_the_warm_up_loads_the_price_table_and_compiles_the_queries():
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == {"before": {"table": 0, "queries": 0}, "after": {"table": 1, "queries": 1}}
