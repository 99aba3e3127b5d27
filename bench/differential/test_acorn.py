"""The differential test: generated exec scripts read by this project and by acorn + eslint-scope (V8's reading
of a module), which must agree on (a) whether each script is a valid module and (b) the tools calls of each
valid one.  Needs node and bench/node_modules: `make test-acorn`."""

import json
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from analysis.script.calls import find_calls
from analysis.script.module_syntax import syntax_problem
from analysis.script.script import ExecScript
from bench.differential.generate import CALLS, REFUSED, generate

HERE = Path(__file__).resolve().parent
COUNT = 3000


def acorn(scripts):
    out = subprocess.run(["node", str(HERE / "reader.mjs")], input=json.dumps(scripts), capture_output=True,
                         text=True, check=True, encoding="utf-8")
    return json.loads(out.stdout)


def ours(script):
    parsed = ExecScript(script)
    calls = sorted(c.tool for c in find_calls(parsed).calls if c.tool is not None)
    return {"valid": syntax_problem(parsed) is None, "calls": calls}


@pytest.fixture(scope="module")
def readings():
    scripts = generate(COUNT)
    return scripts, acorn(scripts), [ours(s) for s in scripts]


def test_the_generator_covers_every_form(readings):
    scripts, theirs, _ = readings
    used = Counter()
    for script in scripts:
        for index, form in enumerate(CALLS + REFUSED):
            head = form.split("%(n)s")[0]
            if head in script:
                used[index] += 1
    assert sorted(used) == list(range(len(CALLS) + len(REFUSED)))
    valid = sum(t["valid"] for t in theirs)
    assert 0.5 * COUNT < valid < 0.8 * COUNT  # both valid and refused scripts, in numbers


def test_valid_modules_agree(readings):
    scripts, theirs, mine = readings
    differ = [(s, t["error"], m["valid"]) for s, t, m in zip(scripts, theirs, mine) if t["valid"] != m["valid"]]
    assert differ == []


def test_tool_calls_agree(readings):
    scripts, theirs, mine = readings
    differ = [(s, sorted(t["calls"]), m["calls"]) for s, t, m in zip(scripts, theirs, mine)
              if t["valid"] and sorted(t["calls"]) != m["calls"]]
    assert differ == []


def test_the_issue_cases_read_as_v8_reads_them():
    cases = {
        "await (tools.x)()": ["x"],
        "await (0, tools.y)()": ["y"],
        "class A { static { var tools = {}; } } tools.z()": ["z"],
        "function f(a = tools.d()) { var tools = {}; }": ["d"],
        "const f = function tools() { tools.no(); }; const C = class tools {}; tools.yes()": ["yes"],
        'const {["write_stdin"]: g} = tools; g()': ["write_stdin"],
        "let t = tools; t = {}; t.no(); const [a] = tools; a(); const {b: {c}} = tools; c()": [],
        'tools.\\u0065xec_command({cmd: "claude -p hi"})': ["exec_command"],
    }
    theirs = acorn(list(cases))
    assert [t["calls"] for t in theirs] == list(cases.values())
    assert [ours(s)["calls"] for s in cases] == list(cases.values())
