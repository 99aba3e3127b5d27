"""Tree-sitter queries that can be freed, compiled once: the crash of the real-VS Code tests' language servers.

py-tree-sitter 0.26.1 corrupts CPython's heap when it frees a ``Query`` in which a pattern has a text predicate
(``#eq?``, ``#match?``) followed by a property one (``#is-not?``, ``#is?``, ``#set!``).  The grammar's highlight
query has two such patterns, and concurrent semantic-token requests each compiled it and freed the extras: the
servers died later, anywhere, of a fault in ``_PyObject_Malloc`` (docs/reliability.md, "Crashes in native code").
What can crash runs in a child interpreter, so a failure is a failed test, not a dead test runner.
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import tree_sitter_javascript
from tree_sitter import Query

import analysis
import lsp_server
from analysis.authoring import semantic_tokens

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = tuple(sorted(p.name for p in (ROOT / "fixtures").glob("rollout-*.jsonl")))


def _run(tmp_path: Path, program: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", program],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, PYTHONPATH=str(ROOT), PYTHONFAULTHANDLER="1"),
    )


def _queries_of_the_code() -> dict[str, Query]:
    """Every compiled query the analysis and the server hold: module globals, and the semantic-token queries."""
    found: dict[str, Query] = {}
    seen: set[int] = set()
    for package in (analysis, lsp_server):
        for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if module.name.endswith("__main__"):
                continue
            loaded = importlib.import_module(module.name)
            for name, value in vars(loaded).items():
                if isinstance(value, Query) and id(value) not in seen:  # one query, imported by other modules too
                    seen.add(id(value))
                    found[f"{module.name}.{name}"] = value
    highlights, members = semantic_tokens._queries()
    found["semantic_tokens highlights"] = highlights
    found["semantic_tokens members"] = members
    return found


def test_no_query_of_the_code_has_a_property_predicate() -> None:
    queries = _queries_of_the_code()
    assert sorted(queries) == [
        "analysis.script.dynamic._NAMES",
        "analysis.script.expansions._IDENTIFIERS",
        "analysis.script.js_tree.STRUCTURE",
        "analysis.script.reachability._IDENTIFIERS",
        "semantic_tokens highlights",
        "semantic_tokens members",
    ]
    with_properties = [
        (name, index, query.pattern_assertions(index), query.pattern_settings(index))
        for name, query in queries.items()
        for index in range(query.pattern_count)
        if query.pattern_assertions(index) or query.pattern_settings(index)
    ]
    assert with_properties == []


def test_the_highlight_query_is_the_grammars_without_its_two_property_predicates() -> None:
    grammar = tree_sitter_javascript.HIGHLIGHTS_QUERY
    assert grammar.count("(#is-not? local)") == 2
    assert (
        semantic_tokens.highlights_source() == grammar.replace("(#is-not? local)", "") + '\n[":" "?" "..."] @operator\n'
    )


def test_the_highlight_query_matches_as_the_grammars(tmp_path: Path) -> None:
    """py-tree-sitter only reports property predicates (``pattern_assertions``): leaving them out changes no match.
    The grammar's own query is compiled in a child that ends without freeing it (``os._exit``)."""
    program = f"""
import json, os
from pathlib import Path
import tree_sitter_javascript
from tree_sitter import Query, QueryCursor
from analysis.authoring.semantic_tokens import highlights_source
from analysis.script.js_tree import JAVASCRIPT
from analysis.script.script import ExecScript
from analysis.session.rollout import analyze_text

ours = Query(JAVASCRIPT, highlights_source())
grammar = Query(JAVASCRIPT, tree_sitter_javascript.HIGHLIGHTS_QUERY + '\\n[":" "?" "..."] @operator\\n')
scripts = [r.script for f in {FIXTURES!r} for r in analyze_text(Path({str(ROOT / "fixtures")!r}, f).read_text(encoding="utf-8")).records
           if r.is_exec and r.script]

def matches(query, script):
    return [(p, sorted((k, [(n.start_byte, n.end_byte) for n in v]) for k, v in c.items()))
            for p, c in QueryCursor(query).matches(ExecScript(script).root)]

same = [matches(ours, s) == matches(grammar, s) for s in scripts]
print(json.dumps({{"scripts": len(scripts), "same": sum(same), "matches": sum(len(matches(ours, s)) for s in scripts)}}))
os._exit(0)
"""
    done = _run(tmp_path, program)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"scripts": 34, "same": 34, "matches": 1724}


def test_tokens_asked_on_four_threads_at_once_compile_the_queries_once(tmp_path: Path) -> None:
    """The server's first semantic-token requests arrive together, each on a worker thread of its own."""
    program = f"""
import json, threading, time
from pathlib import Path
from analysis.authoring import semantic_tokens
from analysis.session.rollout import analyze_text

scripts = [r.script for f in {FIXTURES!r} for r in analyze_text(Path({str(ROOT / "fixtures")!r}, f).read_text(encoding="utf-8")).records
           if r.is_exec and r.script]
compiled = []
real = semantic_tokens.Query

def counting(language, source):
    compiled.append(source)
    time.sleep(0.2)  # the door held open: every thread that finds no query yet comes in meanwhile
    return real(language, source)

semantic_tokens.Query = counting
start = threading.Barrier(4)
found = {{}}

def tokens():
    return [[(t.start, t.end, t.type, t.modifiers) for t in semantic_tokens.script_tokens(s)] for s in scripts]

def work(k):
    start.wait()
    found[k] = tokens()

threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
alone = tokens()
print(json.dumps({{"compiled": len(compiled), "threads": len(found), "same": all(f == alone for f in found.values()),
                  "tokens": sum(len(t) for t in alone)}}))
"""
    done = _run(tmp_path, program)
    assert done.returncode == 0, done.stderr[-4000:]
    assert json.loads(done.stdout) == {"compiled": 2, "threads": 4, "same": True, "tokens": 1712}


def test_every_query_of_the_code_can_be_freed(tmp_path: Path) -> None:
    """The detector for the next query (or py-tree-sitter release) whose freeing corrupts the heap: a child compiles
    and frees each query of the code twenty times (the modules that compile one are reloaded), then allocates; a
    corrupted free list ends it by a fault."""
    program = """
import gc, importlib, pkgutil
from tree_sitter import Query
import analysis, lsp_server
from analysis.authoring import semantic_tokens

seen, compiling = set(), []
for package in (analysis, lsp_server):
    for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        if module.name.endswith("__main__"):
            continue
        loaded = importlib.import_module(module.name)
        for value in vars(loaded).values():
            if isinstance(value, Query) and id(value) not in seen:  # the first module holding it compiled it
                seen.add(id(value))
                compiling.append(loaded)
for _ in range(20):
    semantic_tokens._queries()
    semantic_tokens._QUERIES.clear()
    for module in compiling:
        importlib.reload(module)
    gc.collect()
junk = [[str(i), (i, i + 1), {i: str(i)}] for i in range(300_000)]
del junk
gc.collect()
print(sorted(module.__name__ for module in compiling))
"""
    done = _run(tmp_path, program)
    assert done.returncode == 0, done.stderr[-4000:]
    assert done.stdout.strip() == str(
        [
            "analysis.script.dynamic",
            "analysis.script.expansions",
            "analysis.script.js_tree",
            "analysis.script.reachability",
        ]
    )
