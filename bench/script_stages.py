"""Where the per-script reading spends its CPU time, stage by stage, in microseconds a script.

    python bench/script_stages.py [ROLLOUT ...]     # default: bench's dense and large-script rollouts
    PYTHONPATH=/path/to/other/worktree python bench/script_stages.py   # another commit's code, to compare

Every exec script of each rollout is read as ``check`` reads it, in one process, each stage timed by the
process's CPU clock (``time.process_time``) in the order the analysis asks for it: tree-sitter's parse, the
structure query, the depth check, the straight-line verdict, the bindings, the strict-module verdict (the
pre-check, and esprima when it says "maybe"), the call sites, the exits, the tool calls and the dynamic-code notes.
Stages are cached on the script, so each row is what that stage adds.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:
    sys.path.append(str(HERE.parent))  # after PYTHONPATH, so another worktree's code is the one measured

from analysis.script.calls import _CallReader  # noqa: E402
from analysis.script.dynamic import dynamic_notes  # noqa: E402
from analysis.script.module_syntax import syntax_problem  # noqa: E402
from analysis.script.reachability import _first_exit  # noqa: E402
from analysis.script.script import ExecScript  # noqa: E402
from bench.run import exec_scripts  # noqa: E402

STAGES = ("parse", "structure", "depth", "straight line", "bindings", "strict check", "call sites", "exits", "calls")


_ASKS = (
    lambda s: s.structure,
    lambda s: s.too_deep,
    lambda s: s.straight_line,
    lambda s: s.bindings,
    syntax_problem,
    lambda s: s.call_sites(),
    _first_exit,
    lambda s: _CallReader(s, None, s.straight_line).read(),
    dynamic_notes,
)


def stages(scripts: list[str]) -> dict[str, float]:
    """Microseconds a script for each stage (and ``dynamic`` notes), summed over ``scripts``."""
    clock = time.process_time
    spent = dict.fromkeys((*STAGES, "dynamic notes"), 0.0)
    for source in scripts:
        started = clock()
        script = ExecScript(source)
        marks = [clock()]
        for ask in _ASKS:
            ask(script)
            marks.append(clock())
        spent["parse"] += marks[0] - started
        for name, before, after in zip((*STAGES[1:], "dynamic notes"), marks, marks[1:]):
            spent[name] += after - before
    return {name: seconds / max(len(scripts), 1) * 1e6 for name, seconds in spent.items()}


def main() -> None:
    from bench.run import MB, corpus_file
    from bench.versus import large_file

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rollouts", nargs="*", type=Path, help="default: bench's dense and large-script rollouts")
    paths = parser.parse_args().rollouts or [corpus_file(20 * MB), large_file()]
    import analysis

    print(f"code: {Path(analysis.__file__).resolve().parents[1]}\n")
    print("| rollout | scripts | " + " | ".join(STAGES) + " | dynamic notes | all, µs a script |")
    print("|---|---|" + "---|" * (len(STAGES) + 2))
    for path in paths:
        scripts = exec_scripts(path)
        row = stages(scripts)
        cells = " | ".join(f"{row[name]:,.0f}" for name in (*STAGES, "dynamic notes"))
        print(f"| {path.name} | {len(scripts):,} | {cells} | {sum(row.values()):,.0f} |")


if __name__ == "__main__":
    main()
