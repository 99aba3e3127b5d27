"""The analysis is pure (no editor libraries) and nothing can run a script."""

import re
import subprocess
import sys
from pathlib import Path

from analysis.cli.common import version

ROOT = Path(__file__).resolve().parents[2]


def test_analysis_imports_no_lsp_library():
    code = (
        "import sys, analysis, analysis.cli; "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('pygls', 'lsprotocol', 'lsp_server')]; "
        "print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"


def test_no_javascript_engine_is_a_dependency_or_import():
    engines = ("py_mini_racer", "mini_racer", "quickjs", "dukpy", "js2py", "pythonmonkey", "execjs", "STPyV8")
    sources = [p.read_text() for d in ("analysis", "lsp_server") for p in (ROOT / d).rglob("*.py")]
    pyproject = (ROOT / "pyproject.toml").read_text().lower()
    for engine in engines:
        assert engine.lower() not in pyproject
        assert not any(f"import {engine}" in s or f"from {engine}" in s for s in sources)
    runs = re.compile(r"\bsubprocess\b|(?<![\w.])(?:eval|exec)\(")
    assert [p.name for p in (ROOT / "analysis").rglob("*.py") if runs.search(p.read_text())] == []


def test_the_console_script_starts_without_loading_the_analysis():
    """`rollout-lsp --version` and `--help` load no parser, no model library and no level of the analysis
    beyond text: the public names of ``analysis`` are imported on first use."""
    code = (
        "import sys, lsp_server.__main__; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'tree_sitter', 'esprima', 'pydantic', 'pygls'}), "
        "sorted(m for m in sys.modules if m.startswith(('analysis.script', 'analysis.session'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[] []"


def test_version_imports_no_command():
    """`rollout-lsp --version` is answered by the top parser: no command's module (census's process pool,
    the index's database, the reports) is imported for it."""
    code = (
        "import sys\nfrom lsp_server.__main__ import main\ntry:\n    main(['--version'])\nexcept SystemExit:\n"
        "    pass\nprint(sorted(m for m in sys.modules if m.startswith(('analysis.cli.', 'analysis.reports', "
        "'multiprocessing', 'sqlite3'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.splitlines() == [f"rollout-lsp {version()}", "['analysis.cli.common']"]
