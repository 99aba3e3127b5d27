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


IF_IDLE = """
import json
from lsprotocol import types
from lsp_server.server import create_server
from lsp_server.features import warm_up
from lsp_server.wire import install_workspace
from pygls.workspace import Workspace
from analysis.reports.library import pricing
from analysis.authoring import semantic_tokens
started = []
warm_up.start_warm_up = lambda protocol: started.append(protocol) or "thread"
server = create_server()
server.protocol._workspace = Workspace(None)
install_workspace(server.protocol)
idle = warm_up.warm_up_if_idle(server.protocol)
server.protocol.workspace.put_text_document(types.TextDocumentItem("file:///r.jsonl", "rollout", 1, "{}\\n"))
busy = warm_up.warm_up_if_idle(server.protocol)
print(json.dumps({"idle": idle, "busy": busy, "started": len(started),
                  "table": pricing._table.cache_info().currsize, "queries": len(semantic_tokens._QUERIES)}))
"""


def test_the_warm_up_waits_for_an_idle_server_and_not_for_a_document_already_open():
    """A server started by a rollout's opening (cold) reads that rollout instead of warming up: nothing of the
    warm-up runs (no price table, no queries), and an idle one starts the warm-up's thread once."""
    done = subprocess.run([sys.executable, "-c", IF_IDLE], cwd=ROOT, capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == {"idle": "thread", "busy": None, "started": 1, "table": 0, "queries": 0}
