"""The changed-file lenses of a rollout opened in a workspace (stop 42, the open in a workspace): a session
touches the same files again and again, and each (file, cwd) is now looked for once per ``codeLens`` request,
each candidate path checked once.  The lenses are exactly those of looking each touch up on its own (the
former code, written out here), for a session of this machine and of another one (its files found below the
workspace folder); a file deleted between two requests loses its lens at the next one (nothing is kept across
requests)."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pygls.workspace import Workspace

from analysis.jsonl.access import Access
from analysis.session.change_places import changed_lines, line_changes, local_target, shown_path
from analysis.session.changes import NO, cwd_at, session_place
from analysis.session.rollout import RolloutAnalysis, analyze_text
from lsp_server.features.changed_files import OPEN_CHANGED_FILE, ChangedFileFeature, _same_repository
from lsp_server.names import safe_lenses
from lsp_server.server import create_server
from lsp_server.wire import install_workspace
from tests.blame_support import Session, add, build_world, patch_text, update

ELSEWHERE = "/home/alice/checkouts/repo"


def _server(repo: Path):
    server = create_server()
    server.protocol._workspace = Workspace(
        repo.as_uri(), workspace_folders=[types.WorkspaceFolder(repo.as_uri(), "repo")]
    )
    install_workspace(server.protocol)
    return server


def _former(server, analysis: RolloutAnalysis, uri: str) -> list[types.CodeLens]:
    """The lenses as ChangedFileFeature.code_lenses made them before this stop: every touch looked up."""
    lenses = []
    lines = changed_lines(analysis)
    if not lines:
        return []
    cwds = cwd_at(analysis)
    access = server.paths.access(server)
    same = _same_repository(session_place(analysis))
    for number in lines:
        seen = set()
        for change in line_changes(analysis, number, cwds):
            target = local_target(change, cwds[number], access.workspace, same, access.workspace_file)
            if target is None or target in seen:
                continue
            seen.add(target)
            start = types.Position(number, 0)
            lenses.append(
                types.CodeLens(
                    types.Range(start, start),
                    types.Command(
                        title=f"open {server.masker(shown_path(analysis, change))}"
                        + (" (not applied)" if change.applied == NO else ""),
                        command=OPEN_CHANGED_FILE,
                        arguments=[uri, number, change.call_index, change.file_index],
                    ),
                )
            )
    return safe_lenses(lenses)


def _shown(lenses: list[types.CodeLens]) -> list[tuple[int, str, list]]:
    return [(lens.range.start.line, lens.command.title, list(lens.command.arguments)) for lens in lenses]


def _again_and_again(cwd: str) -> str:
    """A session of the repository at ``cwd`` that patches src/app.py three times and src/missing.py twice."""
    session = Session(
        "019e0000-0000-7000-8000-00000000000e", "2026-05-01", cwd, {"repository_url": "https://github.com/dev/repo"}
    )
    for number in range(3):
        session.turn(f"edit {number}")
        session.top_patch(f"call_e{number}", patch_text(update("src/app.py", f"@@\n+# edit {number}\n")), True)
        if number < 2:
            session.top_patch(f"call_m{number}", patch_text(add("src/missing.py", [f"n = {number}"])), True)
    return session.text()


@pytest.fixture
def world(tmp_path: Path):
    repo, folder, _db, _made = build_world(tmp_path)
    return repo, folder


@pytest.mark.parametrize("where", ["here", "elsewhere"])
def test_the_lenses_of_repeated_touches_are_the_former_ones_and_each_path_is_checked_once(world, where, monkeypatch):
    repo, _folder = world
    server = _server(repo)
    feature = server.features[ChangedFileFeature]
    uri = (repo.parent / "rollout-2026-05-01T10-00-00-019e0000.jsonl").as_uri()
    analysis = analyze_text(_again_and_again(str(repo) if where == "here" else ELSEWHERE))
    expected = [
        (3, "open src/app.py", [uri, 3, 0, 0]),
        (9, "open src/app.py", [uri, 9, 0, 0]),
        (15, "open src/app.py", [uri, 15, 0, 0]),
    ]
    checked: list[str] = []
    check = Access.workspace_file

    def counted(self, path: str) -> bool:
        checked.append(path)
        return check(self, path)

    monkeypatch.setattr(Access, "workspace_file", counted)
    assert _shown(_former(server, analysis, uri)) == expected
    former, checked[:] = list(checked), []
    assert _shown(feature.code_lenses(analysis, uri)) == expected
    # the same checks in the same order, each once: the former code asked them again for every touch
    assert checked == list(dict.fromkeys(former))
    # here: app.py found at once (3 touches), missing.py's own path and candidates (2 touches × 4 checks, 3
    # distinct paths); elsewhere: 4 checks per touch of either file, 4 distinct paths per file
    assert (len(former), len(checked)) == ((11, 4) if where == "here" else (20, 8))
    if where == "elsewhere":  # each file's own path, then the same path below the folder from each base above the cwd
        assert checked == [
            f"{ELSEWHERE}/src/app.py",
            str(repo / "checkouts" / "repo" / "src" / "app.py"),
            str(repo / "repo" / "src" / "app.py"),
            str(repo / "src" / "app.py"),
            f"{ELSEWHERE}/src/missing.py",
            str(repo / "checkouts" / "repo" / "src" / "missing.py"),
            str(repo / "repo" / "src" / "missing.py"),
            str(repo / "src" / "missing.py"),
        ]
    # the next request checks again: a file deleted meanwhile has no lens any more
    checked.clear()
    (repo / "src" / "app.py").unlink()
    assert _shown(feature.code_lenses(analysis, uri)) == []
    assert str(repo / "src" / "app.py") in checked
    assert _shown(_former(server, analysis, uri)) == []


def test_every_session_of_the_world_has_the_former_lenses(world):
    """build_world's sessions (moved, deleted, failed and Windows patches; another repository), here and as
    recorded elsewhere."""
    repo, folder = world
    server = _server(repo)
    feature = server.features[ChangedFileFeature]
    compared = 0
    for rollout in sorted(folder.glob("*.jsonl")):
        text = rollout.read_text(encoding="utf-8")
        for variant in (text, text.replace(str(repo), ELSEWHERE)):
            analysis = analyze_text(variant)
            uri = rollout.as_uri()
            assert _shown(feature.code_lenses(analysis, uri)) == _shown(_former(server, analysis, uri))
            compared += len(_former(server, analysis, uri))
    assert compared == 10  # a: 2 lenses, b: 2 (each here and elsewhere), c and d: none; a sanity count
