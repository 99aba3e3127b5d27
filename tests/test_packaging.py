"""The .vsix ships what the tests ran against: vscode-client/scripts/bundle-{pure,native}.txt pin exactly the
server's dependencies (with theirs), at the versions installed here from pyproject.toml's pins."""

from __future__ import annotations

import importlib.metadata
import re

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.helpers import ROOT

SCRIPTS = ROOT / "vscode-client" / "scripts"


def pins(path) -> dict[str, str]:
    out = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            out[canonicalize_name(name)] = version
    return out


def runtime_closure(distribution: str) -> set[str]:
    """The distributions ``distribution`` needs at run time on some CPython from 3.10 on (extras aside)."""
    seen: set[str] = set()
    todo = [distribution]
    while todo:
        name = todo.pop()
        try:
            requires = importlib.metadata.requires(name) or []
        except importlib.metadata.PackageNotFoundError:  # needed on an older Python than this one only
            continue
        for text in requires:
            requirement = Requirement(text)
            marker = requirement.marker
            if marker is not None and not any(
                marker.evaluate({"python_version": v, "extra": ""}) for v in ("3.10", "3.11", "3.12", "3.13")
            ):
                continue
            key = canonicalize_name(requirement.name)
            if key not in seen:
                seen.add(key)
                todo.append(requirement.name)
    return seen


def test_bundle_lists_are_the_installed_closure_of_the_server():
    pure, native = pins(SCRIPTS / "bundle-pure.txt"), pins(SCRIPTS / "bundle-native.txt")
    assert set(pure) & set(native) == set()
    bundled = {**pure, **native}
    assert set(bundled) == runtime_closure("codex-rollout-lsp")
    installed = {name: installed_version(name) for name in bundled}
    assert {name: v for name, v in installed.items() if v is not None} == {
        name: v for name, v in bundled.items() if installed[name] is not None
    }
    assert [name for name, v in installed.items() if v is None] in ([], ["exceptiongroup"])  # for CPython 3.10


def installed_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def test_pyproject_pins_are_the_bundled_versions():
    text = (ROOT / "pyproject.toml").read_text()
    dependencies = re.search(r"^dependencies = \[(.*?)^\]", text, re.S | re.M).group(1)
    pinned = {  # a pin's environment marker ("; python_version >= '3.11'") aside
        canonicalize_name(n): v.split(";")[0].strip()
        for n, v in re.findall(r'"([A-Za-z0-9_.-]+)==([^"]+)"', dependencies)
    }
    bundled = {**pins(SCRIPTS / "bundle-pure.txt"), **pins(SCRIPTS / "bundle-native.txt")}
    assert {name: bundled.get(name) for name in pinned} == pinned
