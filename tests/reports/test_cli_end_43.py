"""``check`` ends with ``os._exit`` (no finalisation) only when it is the process's own program: the console script,
``python -m lsp_server`` or ``python -c``; run inside another program (``runpy.run_module`` from a script,
``python -m cProfile``), that program's work after ``main`` returns still runs (the review of stop 43: a cProfile of
``check`` wrote no profile).  A ``sitecustomize`` on the path says each call of ``os._exit``."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import FIXTURES

ROOT = Path(__file__).resolve().parents[2]
DEMO = str(FIXTURES / "rollout-demo.jsonl")
CHECK = ["check", "--jobs", "1", DEMO]

SITECUSTOMIZE = """
import os, sys
_exit = os._exit
def _said(status):
    sys.stderr.write(f"os._exit({status})\\n")
    sys.stderr.flush()
    _exit(status)
os._exit = _said
"""
EMBEDDED = f"""
import runpy, sys
sys.argv = ["rollout-lsp", *{CHECK!r}]
try:
    runpy.run_module("lsp_server", run_name="__main__")
except SystemExit as end:
    print("main returned", end.code)
print("after run_module")
"""
TOP_LEVEL = f"""
import sys
sys.argv = ["rollout-lsp", *{CHECK!r}]
from lsp_server.__main__ import main
sys.exit(main())
"""


def _run(tmp_path: Path, *arguments: str) -> subprocess.CompletedProcess:
    (tmp_path / "sitecustomize.py").write_text(SITECUSTOMIZE)
    env = dict(os.environ, PYTHONPATH=f"{tmp_path}{os.pathsep}{ROOT}")
    return subprocess.run([sys.executable, *arguments], cwd=ROOT, env=env, capture_output=True, text=True)


@pytest.mark.parametrize("arguments", [["-m", "lsp_server", *CHECK], ["-c", TOP_LEVEL]], ids=["python -m", "python -c"])
def test_check_as_the_program_ends_at_once_with_its_status(tmp_path, arguments):
    done = _run(tmp_path, *arguments)
    assert done.returncode == 1  # the demo's findings include errors
    assert done.stderr.splitlines()[-1] == "os._exit(1)"
    assert DEMO in done.stdout


def test_check_run_by_runpy_inside_a_script_returns_to_it(tmp_path):
    done = _run(tmp_path, "-c", EMBEDDED)
    assert "os._exit" not in done.stderr
    assert done.stdout.splitlines()[-2:] == ["main returned 1", "after run_module"]
    assert done.returncode == 0


def test_check_under_cprofile_ends_normally_and_the_profile_is_written(tmp_path):
    profile = tmp_path / "check.prof"
    done = _run(tmp_path, "-m", "cProfile", "-o", str(profile), "-m", "lsp_server", *CHECK)
    assert "os._exit" not in done.stderr
    assert DEMO in done.stdout
    assert profile.stat().st_size > 0


def test_other_commands_end_normally(tmp_path):
    done = _run(tmp_path, "-m", "lsp_server", "outline", DEMO)
    assert done.returncode == 0
    assert "os._exit" not in done.stderr


def test_a_bare_rollout_lsp_installs_and_writes_no_code_cache(tmp_path):
    """No command, only its usage: the command line's cache is neither read nor written (the review of stop 43:
    it saved a shared ``dataclass-code.*.bin``)."""
    probe = (
        "import sys; sys.argv = ['rollout-lsp']\n"
        "import lsp_server.__main__ as entry, lsp_server.code_cache as cache\n"
        "print(cache._commands)\n"
    )
    done = _run(tmp_path, "-c", probe)
    assert done.stdout == "None\n", done.stderr
