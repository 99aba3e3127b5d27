"""The architecture as the tree shows it: analysis/ in levels that import only downwards, no import cycle
anywhere in the project (type-checking imports included), and the analysis free of the server."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# analysis/'s folders, lowest first; a module may import its own folder and any lower one, and authoring and
# reports, siblings on one level, know nothing of each other; the command line sits on top of them all
LEVELS = {"jsonl": 0, "script": 1, "session": 2, "authoring": 3, "reports": 3, "cli": 4}
PACKAGES = ("analysis", "lsp_server")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_modules() -> dict[str, Path]:
    return {module_name(p): p for package in PACKAGES for p in (ROOT / package).rglob("*.py")}


def imports_of(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The project modules ``path`` imports, wherever the import stands (under ``TYPE_CHECKING`` or in a
    function too): ``from .x import y`` names ``x.y`` when that is a module, else ``x``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            targets = [
                f"{module}.{alias.name}" if f"{module}.{alias.name}" in known else module for alias in node.names
            ]
        else:
            continue
        found.update(t for t in targets if t in known and t != name)
    return found


def graph() -> dict[str, set[str]]:
    known = project_modules()
    return {name: imports_of(name, path, known) for name, path in known.items()}


def level_of(module: str) -> int | None:
    parts = module.split(".")
    return LEVELS.get(parts[1]) if parts[0] == "analysis" and len(parts) > 1 else None


def test_every_analysis_module_sits_in_a_level_folder():
    loose = [m for m in project_modules() if m.startswith("analysis.") and level_of(m) is None]
    assert loose == []


def test_every_level_says_what_it_knows():
    for level in LEVELS:
        init = ROOT / "analysis" / level / "__init__.py"
        assert ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))), init


def test_imports_go_only_down_the_levels():
    wrong = []
    for module, imported in graph().items():
        if not module.startswith("analysis"):
            continue
        for target in imported:
            if target.startswith("lsp_server"):
                wrong.append((module, target))
            mine, theirs = level_of(module), level_of(target)
            if mine is None or theirs is None:  # analysis/__init__ (the public names) imports what it re-exports
                continue
            same_folder = module.split(".")[1] == target.split(".")[1]
            if theirs > mine or (theirs == mine and not same_folder):
                wrong.append((module, target))
    assert sorted(wrong) == []


def test_no_import_cycles():
    edges = graph()
    cycles = []
    state: dict[str, int] = {}  # 1 on the stack, 2 done

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt.rpartition(".")[0] == node or node.rpartition(".")[0] == nxt:
                continue  # a package and its own modules (``__init__`` re-exports) are one unit
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt) :] + [nxt])
            elif nxt not in state:
                visit(nxt, stack)
        stack.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [])
    assert cycles == []


def test_the_checker_sees_an_upward_import(tmp_path):
    """The graph reads relative imports from a level folder the way Python resolves them."""
    known = {"analysis.script.calls": Path(), "analysis.session.rollout": Path(), "analysis.jsonl.lines": Path()}
    path = tmp_path / "calls.py"
    path.write_text("from ..session.rollout import X\nfrom ..jsonl import lines\nif False:\n    import analysis.x\n")
    assert imports_of("analysis.script.calls", path, known) == {"analysis.session.rollout", "analysis.jsonl.lines"}
