"""How many exec scripts the strict-module check sends to esprima, and what that costs.

    python bench/esprima_triggers.py [PATH…]     # default: ../shared/corpus (recorded, wild, peer) and fixtures/

tree-sitter reads every script; esprima-fork (pure Python, about three times tree-sitter's whole analysis of a
script) is asked only about scripts holding a construct that may be an early error of module code
(analysis.script.module_syntax.might_be_refused).  This prints, over every exec script of the rollouts given
(folders are searched as ``check`` does; ``peer/cases.jsonl`` is a rollout too): the scripts, those sent to esprima, those it refused, and the time the look and
the esprima parses take (best of 5 runs).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from analysis import analyze_text  # noqa: E402
from analysis.jsonl.source import load, rollout_files  # noqa: E402
from analysis.script.module_syntax import might_be_refused  # noqa: E402
from analysis.script.script import ExecScript  # noqa: E402
from analysis.script.syntax_problem import first_module_error  # noqa: E402

SHARED = Path(os.environ.get("ROLLOUT_LSP_SHARED", ROOT.parent / "shared"))


def scripts_of(paths: list[Path]) -> list[str]:
    out = []
    for path in rollout_files([str(p) for p in paths]):
        analysis = analyze_text(load(path).text)
        for number, record in enumerate(analysis.records):
            if record.is_exec:
                item = json.loads(analysis.lines[number]).get("payload", {})
                source = item.get("input") if isinstance(item, dict) else None
                if isinstance(source, str):
                    out.append(source)
    return out


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or [SHARED / "corpus", ROOT / "fixtures"]
    sources = scripts_of(paths)
    look = parse = float("inf")
    for _ in range(5):  # best of 5: the machine may be shared
        scripts = [ExecScript(s) for s in sources]
        for script in scripts:  # parsed, queried and scoped before timing the look, as the analysis has them
            script.structure  # noqa: B018
            script.bindings  # noqa: B018
        might_be_refused(ExecScript("x = /a/"))  # imports the regular-expression validator
        started = time.perf_counter()
        sent = [s for s in scripts if not s.too_deep and not s.root.has_error and might_be_refused(s)]
        look = min(look, time.perf_counter() - started)
        started = time.perf_counter()
        refused = sum(1 for s in sent if first_module_error.__wrapped__(s.source) is not None)
        parse = min(parse, time.perf_counter() - started)
    print(f"exec scripts                       {len(scripts)}")
    print(f"sent to esprima                    {len(sent)} ({100 * len(sent) / max(len(scripts), 1):.1f}%)")
    print(f"refused by esprima                 {refused}")
    print(
        f"the look, all scripts              {look * 1000:.1f} ms ({look / max(len(scripts), 1) * 1e6:.0f} µs a script)"
    )
    print(
        f"esprima, the scripts sent          {parse * 1000:.1f} ms ({parse / max(len(sent), 1) * 1e3:.2f} ms a script)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
