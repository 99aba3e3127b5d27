"""The server's start does no work its first answers do not need (issue 35): what is imported and made before
the ``initialize`` answer is pinned here, in a fresh interpreter, exactly as ``rollout-lsp serve`` makes it.
(Speed itself is measured by bench/editor_first.py, never by a test.)"""

import json
import subprocess
import sys
from pathlib import Path

from lsp_server.invocation_links import InvocationLinks
from lsp_server.server import create_server
from lsp_server.wire import CONVERTER

ROOT = Path(__file__).resolve().parents[2]

# modules the first Outline and diagnostics of a rollout never use: the price table, the reports of export,
# check/outline's JSON (rollout/analyzeFile), the index's process pool; and, imported at their first use rather
# than at start: the settings' pydantic model (lsp_server/settings_model.py: a value that is not plain), the
# session index and its process pool (blame, workspace symbols), the cost lens's prices, the installed metadata
# (findings.md's published address, at the first diagnostic)
NOT_AT_START = (
    "genai_prices",
    "analysis.reports.export",
    "analysis.reports.report",
    "zstandard",
    "websockets",
    "pydantic",
    "analysis.reports.index",
    "analysis.reports.library",
    "concurrent.futures.process",
    "multiprocessing",
    "importlib.metadata",
)

PROBE = """
import json, sys
from analysis.cli import build_parser
from lsp_server.__main__ import ALL_COMMANDS
from lsp_server.server import create_server
build_parser(["serve"], ALL_COMMANDS).parse_args(["serve"])
create_server()
from analysis.authoring import semantic_tokens
print(json.dumps({
    "imported": sorted(m for m in %r if m in sys.modules),
    "queries_compiled": len(semantic_tokens._QUERIES),
}))
""" % (NOT_AT_START,)


def _start() -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_the_server_starts_without_what_its_first_answers_do_not_need():
    assert _start() == {"imported": [], "queries_compiled": 0}


def test_the_protocol_and_the_features_share_one_converter():
    server = create_server()
    assert server.protocol._converter is CONVERTER
    links = next(f for f in server.features.values() if isinstance(getattr(f, "links", None), InvocationLinks)).links
    assert links.converter is CONVERTER


ENTRY = """
import json, sys
sys.argv = ["rollout-lsp", sys.argv[1], "--help"]
before_cli = []

class Watch:  # notes, as analysis.cli is first looked for, whether the code cache is installed by then
    def find_spec(self, name, path=None, target=None):
        if name == "analysis.cli":
            cache = sys.modules.get("lsp_server.code_cache")
            before_cli.append(cache is not None and cache._installed is not None)
        return None

sys.meta_path.insert(0, Watch())
import lsp_server.__main__
from lsp_server import code_cache
print(json.dumps({"installed": code_cache._installed is not None, "attrs": "attr" in sys.modules,
                  "cli": "analysis.cli" in sys.modules, "before_cli": before_cli}))
"""


def test_the_code_cache_is_installed_before_the_command_lines_imports_for_serve_only():
    """``serve`` installs its code cache before ``analysis.cli`` makes the analysis's first dataclasses, so that
    their methods come from it too; ``check`` and ``outline`` (no cache) import no attrs for it."""

    def entry(command: str) -> dict:
        done = subprocess.run([sys.executable, "-c", ENTRY, command], cwd=ROOT, capture_output=True, text=True)
        return json.loads(done.stdout)

    assert entry("serve") == {"installed": True, "attrs": True, "cli": True, "before_cli": [True]}
    assert entry("check") == {"installed": False, "attrs": False, "cli": True, "before_cli": [False]}
    assert entry("outline") == {"installed": False, "attrs": False, "cli": True, "before_cli": [False]}
