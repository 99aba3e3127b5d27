"""A command's start does no work the command does not need (issue 35): `check --json --jobs 1` and `outline` of
one rollout, run in a fresh interpreter exactly as ``rollout-lsp`` runs them, import no process pool, no session
index, no settings model and no price table, and compile no regular expression their file does not call for
(:mod:`analysis.jsonl.lazy_pattern`); what the imports made is left out of the cyclic collector's reach
(``gc.freeze``, analysis.cli.imports_uncollected), and the collector runs again after them.  (Speed itself is measured by bench/start_cpu.py, never by a test.)"""

import json
import subprocess
import sys
from pathlib import Path

from tests.helpers import FIXTURES

ROOT = Path(__file__).resolve().parents[2]
DEMO = str(FIXTURES / "rollout-demo.jsonl")

# what neither check (one file, --jobs 1) nor outline uses: the process pool and what it brings, the session
# index and its database, the server's settings model, the cost report's prices, the export's reports
NOT_AT_START = (
    "concurrent.futures",
    "multiprocessing",
    "pydantic",
    "sqlite3",
    "analysis.reports.index",
    "analysis.reports.library",
    "analysis.reports.export",
    "genai_prices",
)
# module-level patterns made lazy that a rollout without rejected scripts, syntax errors or odd bytes never uses
LAZY = (
    "analysis.jsonl.placeholders._CAMEL",
    "analysis.script.syntax_problem._TOKEN",
    "analysis.script.module_text._OCTAL_ESCAPE",
    "analysis.session.script_errors._REJECTED",
    "analysis.jsonl.source._BAD_BYTE",
    "analysis.authoring.completion._TOOLS_DOT",
)

PROBE = """
import contextlib, gc, importlib, io, json, sys
from lsp_server.__main__ import main
with contextlib.redirect_stdout(io.StringIO()):
    status = main(sys.argv[1:])
compiled = []
for name in %r:
    module, _, attribute = name.rpartition(".")
    if module in sys.modules and "compiled" in vars(getattr(sys.modules[module], attribute)):
        compiled.append(name)
print(json.dumps({
    "status": status,
    "imported": sorted(m for m in %r if m in sys.modules),
    "compiled": compiled,
    "collector": [gc.isenabled(), gc.get_freeze_count() > 0],
}))
""" % (LAZY, NOT_AT_START)


def _start(*arguments: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *arguments], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def test_check_of_one_file_with_one_job_starts_without_a_process_pool():
    assert _start("check", "--json", "--jobs", "1", DEMO) == {
        "status": 1,
        "imported": [],
        "compiled": [],
        "collector": [True, True],
    }


def test_outline_starts_without_what_it_does_not_read():
    assert _start("outline", DEMO) == {
        "status": 0,
        "imported": [],
        "compiled": [],
        "collector": [True, True],
    }


def test_check_of_several_files_still_spreads_them_over_a_pool():
    """The pool is imported where it is made: with two files and two jobs it is."""
    probe = PROBE.replace(
        "%r if m in sys.modules" % (NOT_AT_START,), "('concurrent.futures.process',) if m in sys.modules"
    )
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            probe,
            "check",
            "--json",
            "--jobs",
            "2",
            DEMO,
            str(FIXTURES / "rollout-events.jsonl"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout)["imported"] == ["concurrent.futures.process"]
