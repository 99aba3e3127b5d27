"""Issue 31, points 1 and 7: a rollout cannot make the product read, or probe, a file outside the workspace and
the Codex sessions folders (analysis/jsonl/access.py, docs/security.md).  Each test names the attack it stands
for; the server is driven as an editor drives it (pytest-lsp), the command line as a user runs it.  HOME and
CODEX_HOME are fake folders of the test's own."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from analysis.reports.index import RolloutIndex
from analysis.session.references import find_rollout
from tests.blame_support import Session, build_world, patch_text, update
from tests.helpers import ROOT
from tests.lsp_support import open_text, push_capabilities

WORK = Path(tempfile.gettempdir()) / f"rollout-lsp-paths-test-{os.getpid()}"
ENV = {
    "PYTHONPATH": str(ROOT),
    "HOME": str(WORK / "home"),
    "CODEX_HOME": str(WORK / "codex"),
    "ROLLOUT_LSP_INDEX": str(WORK / "index.sqlite3"),
    "ROLLOUT_LSP_INDEX_REFRESH": "0",
}
SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "lsp_server", "serve"], server_env=ENV)
PARENT_ID = "019a7777-0000-7000-8000-000000000001"
SESSION_ID = "019a7777-0000-7000-8000-000000000002"
SECRET = "TOP SECRET LINE"


def world() -> dict[str, Path]:
    """The workspace ``ws`` (``src/app.py``; ``link``: a link to ``outside``), ``outside/secret.txt``,
    ``elsewhere/notes.txt``, a Codex home with a linked rollout, and a real rollout outside every Codex home."""
    shutil.rmtree(WORK, ignore_errors=True)
    ws = WORK / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "app.py").write_text("print('hello')\n", encoding="utf-8")
    outside = WORK / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET + "\n", encoding="utf-8")
    (ws / "link").symlink_to(outside, target_is_directory=True)
    (WORK / "elsewhere").mkdir()
    (WORK / "elsewhere" / "notes.txt").write_text(SECRET + "\n", encoding="utf-8")
    (WORK / "home").mkdir()
    parent = Session(PARENT_ID, "2026-01-01", "/tmp")
    parent.turn("first turn")
    stray = parent.save(outside)  # a real rollout, outside every Codex home and the workspace
    day = WORK / "codex" / "sessions" / "2026" / "01" / "01"
    day.mkdir(parents=True)
    linked = day / stray.name  # named as Codex names it, in the sessions folder: a link to a file outside
    linked.symlink_to(stray)
    return {"ws": ws, "outside": outside, "stray": stray, "linked": linked, "day": day}


def patching_session() -> Session:
    """A session in ``ws`` whose patches name /etc/passwd, /proc/self/environ, ../outside/secret.txt, an
    absolute path elsewhere, link/secret.txt (through the link), and last its own src/app.py."""
    session = Session(SESSION_ID, "2026-01-02", str(WORK / "ws"))
    session.turn("change files")
    for number, path in enumerate(
        (
            "/etc/passwd",
            "/proc/self/environ",
            "../outside/secret.txt",
            str(WORK / "elsewhere" / "notes.txt"),
            "link/secret.txt",
            "src/app.py",
        )
    ):
        session.top_patch(f"call_{number}", patch_text(update(path, f"@@\n {SECRET}\n+added\n")), success=True)
    return session


def referring_session(*references: dict) -> str:
    """A session whose ``rollout_reference`` records name a parent (by path, by id)."""
    session = Session(SESSION_ID, "2026-01-02", "/tmp")
    for payload in references:
        session.write("rollout_reference", payload)
    session.turn("go on")
    return session.text()


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "lsp_server", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **ENV},
        cwd=cwd,
        timeout=120,
    )


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    places = world()
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=push_capabilities(), root_uri=places["ws"].as_uri())
    )
    lsp_client.places = places
    yield
    await lsp_client.shutdown_session()
    shutil.rmtree(WORK, ignore_errors=True)


async def test_a_patch_naming_etc_passwd_proc_dotdot_elsewhere_or_a_link_out_gets_no_lens_and_no_read(
    client: LanguageClient,
):
    """`*** Update File: /etc/passwd`, `/proc/self/environ`, `../outside/secret.txt`, an absolute path
    elsewhere, `link/secret.txt` through a linked folder: no lens, and the command neither reads the file nor
    shows it (it would tell whether the file holds the hunk's line: a probe of any file on the machine)."""
    session = patching_session()
    rollout = session.save(client.places["ws"])
    uri = rollout.as_uri()
    open_text(client, uri, rollout.read_text(encoding="utf-8"))
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri)))
    app_line = next(n for n, r in enumerate(session.records) if r["payload"].get("call_id") == "call_5")
    assert [
        (lens.range.start.line, lens.command.title, list(lens.command.arguments))
        for lens in lenses
        if lens.command and lens.command.command == "rollout-lsp.openChangedFile"
    ] == [(app_line, "open src/app.py", [uri, app_line, 0, 0])]
    calls = [n for n, r in enumerate(session.records) if r["payload"].get("type") == "custom_tool_call"]
    for line in calls[:5]:
        answer = await client.workspace_execute_command_async(
            types.ExecuteCommandParams("rollout-lsp.openChangedFile", [uri, line, 0, 0])
        )
        assert answer is None
    assert client.shown_documents == []
    ws = client.places["ws"]
    assert [m.message for m in client.messages] == [
        f"{shown} is not opened: {target} is outside the workspace folders (not read), and that path is not "
        "below a workspace folder."
        for shown, target in (
            ("/etc/passwd", "/etc/passwd"),
            ("/proc/self/environ", "/proc/self/environ"),
            (str(WORK / "outside" / "secret.txt"), str(WORK / "outside" / "secret.txt")),
            (str(WORK / "elsewhere" / "notes.txt"), str(WORK / "elsewhere" / "notes.txt")),
            ("link/secret.txt", str(ws / "link" / "secret.txt")),
        )
    ]
    opened = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("rollout-lsp.openChangedFile", [uri, app_line, 0, 0])
    )
    assert opened["uri"] == (ws / "src" / "app.py").as_uri()  # the workspace's own file still opens


async def test_a_parent_named_by_path_outside_the_codex_sessions_folders_is_not_read_by_the_outline(
    client: LanguageClient,
):
    """`rollout_reference` to /etc/passwd and to a rollout outside the Codex homes: the server's outline
    detail says the parent is not found, and reads neither (it would show `passwd · lines 1–N`)."""
    stray = client.places["stray"]
    text = referring_session({"rollout_path": "/etc/passwd"}, {"rollout_path": str(stray)})
    path = client.places["ws"] / "rollout-2026-01-02T10-00-00-child.jsonl"
    path.write_text(text, encoding="utf-8")
    open_text(client, path.as_uri(), text)
    [root] = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(path.as_uri()))
    )
    parents = [(s.name, s.detail) for s in root.children if s.name.startswith("inherited from")]
    assert parents == [
        (
            "inherited from session ? (not found)",
            f"its rollout is not found ({named} is outside the Codex sessions folders: not read)",
        )
        for named in ("/etc/passwd", str(stray))
    ]


def test_outline_does_not_read_a_parent_named_etc_passwd_or_a_file_outside_the_codex_homes():
    """`{"type":"rollout_reference","payload":{"rollout_path":"/etc/passwd"}}` made `outline` print
    `/etc/passwd, lines 1–26`; a rollout outside the Codex homes named by path is not read either."""
    places = world()
    try:
        stray = places["stray"]
        child = WORK / "child.jsonl"
        child.write_text(
            referring_session({"rollout_path": "/etc/passwd"}, {"rollout_path": str(stray)}), encoding="utf-8"
        )
        result = run("outline", str(child))
        assert result.returncode == 0, result.stderr
        assert result.stdout.splitlines()[1:3] == [
            f"  inherited from session ? (not found): its rollout is not found ({named} is outside the Codex "
            "sessions folders: not read)"
            for named in ("/etc/passwd", str(stray))
        ]
        checked = run("check", "--fail-on", "error", str(child))
        assert [line.split(": information ")[1] for line in checked.stdout.splitlines()] == [
            f"parent-missing this segment continues session ? (its rollout_path {named} is outside the Codex "
            "sessions folders: not read): its inherited history cannot be shown"
            for named in ("/etc/passwd", str(stray))
        ]
        # the same parent inside the configured Codex home is read (the rule grants what it should)
        home = WORK / "configured"
        (home / "sessions").mkdir(parents=True)
        inside = home / "sessions" / stray.name
        shutil.copy(stray, inside)
        child.write_text(referring_session({"rollout_path": str(inside)}), encoding="utf-8")
        read = run("outline", "--codex-home", str(home), str(child))
        assert read.stdout.splitlines()[1] == f"  inherited from session ? (1 turn): {inside}, lines 1–3"
        assert run("outline", str(child)).stdout.splitlines()[1].endswith("sessions folders: not read)")
    finally:
        shutil.rmtree(WORK, ignore_errors=True)


def test_a_linked_rollout_in_the_sessions_folder_pointing_outside_is_refused():
    """`rollout-…-<id>.jsonl` in the sessions folder, a symbolic link to a file outside: looked up by id, it is
    not followed (its real path is outside every Codex sessions folder and the workspace)."""
    places = world()
    try:
        assert os.path.islink(places["linked"]) and places["linked"].resolve() == places["stray"]
        sessions = str(WORK / "codex" / "sessions")
        assert find_rollout(PARENT_ID, [sessions]) is None
        child = places["day"] / f"rollout-2026-01-02T10-00-00-{SESSION_ID}.jsonl"
        child.write_text(referring_session({"rollout_id": PARENT_ID, "thread_id": PARENT_ID}), encoding="utf-8")
        result = run("outline", str(child))
        assert result.stdout.splitlines()[1] == (
            f"  inherited from session {PARENT_ID} (not found): its rollout is not found"
        )
        # the same rollout copied there (no link) is found by id
        places["linked"].unlink()
        shutil.copy(places["stray"], places["linked"])
        assert find_rollout(PARENT_ID, [sessions]) == str(places["linked"])
        found = run("outline", str(child)).stdout.splitlines()[1]
        assert found == f"  inherited from session {PARENT_ID} (1 turn): {places['linked']}, lines 1–3"
    finally:
        shutil.rmtree(WORK, ignore_errors=True)


ROOT_SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "lsp_server", "serve"], server_env=ENV)


@pytest_lsp.fixture(config=ROOT_SERVER)
async def root_client(lsp_client: LanguageClient):
    """A client that declares `/` its workspace, and an index that holds a patch of /etc/passwd."""
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    repo, folder, db, _made = build_world(WORK)
    first = Path("/etc/passwd").read_text(encoding="utf-8", errors="replace").splitlines()[0]
    attack = Session("019a7777-0000-7000-8000-00000000000e", "2026-01-03", "/")
    attack.turn("edit the system")
    attack.top_patch("call_etc", patch_text(update("/etc/passwd", f"@@\n+{first}\n")), success=True)
    attack.save(folder)
    with RolloutIndex.open(db) as index:
        assert index.update([str(folder)]).errors == []
    await lsp_client.initialize_session(types.InitializeParams(capabilities=push_capabilities(), root_uri="file:///"))
    lsp_client.repo = repo
    yield
    await lsp_client.shutdown_session()
    shutil.rmtree(WORK, ignore_errors=True)


async def test_blame_with_a_client_whose_workspace_is_root_reads_nothing(root_client: LanguageClient):
    """Blame, with a client that declares `/` its workspace, read and attributed lines of /etc/passwd: `/`
    grants nothing, so neither /etc/passwd nor any other file gets a lens or a hover."""
    for path in (Path("/etc/passwd"), root_client.repo / "src" / "app.py"):
        identifier = types.TextDocumentIdentifier(path.as_uri())
        assert list(await root_client.text_document_code_lens_async(types.CodeLensParams(identifier))) == []
        hover = await root_client.text_document_hover_async(types.HoverParams(identifier, types.Position(0, 0)))
        assert hover is None
    located = await root_client.workspace_execute_command_async(
        types.ExecuteCommandParams("rollout-lsp.blameSessions", [Path("/etc/passwd").as_uri(), {"ask": False}])
    )
    assert located == []


def test_json_of_a_refused_parent_names_no_path():
    """The JSON outline of a refused parent: no path, its lines and turns 0 (nothing read)."""
    places = world()
    try:
        child = WORK / "child.jsonl"
        child.write_text(referring_session({"rollout_path": "/etc/passwd"}), encoding="utf-8")
        out = json.loads(run("outline", "--json", str(child)).stdout)
        assert [(d["code"], d["message"]) for d in out["diagnostics"] if d["code"] == "parent-missing"] == [
            (
                "parent-missing",
                "this segment continues session ? (its rollout_path /etc/passwd is outside the Codex sessions "
                "folders: not read): its inherited history cannot be shown",
            )
        ]
        assert places["stray"].is_file()
    finally:
        shutil.rmtree(WORK, ignore_errors=True)


def test_a_sessions_cwd_is_probed_for_git_only_where_a_rollout_may_make_us_look(tmp_path, monkeypatch):
    """The index and archive look for ``.git`` above a session's ``cwd``, a path anyone's rollout names: a system
    folder, a folder of secrets, a network share or a relative path is refused on its text, never stat'ed."""
    from analysis.reports.index import repositories

    repo = tmp_path / "project"
    (repo / ".git").mkdir(parents=True)
    (repo / "src" / "app").mkdir(parents=True)
    touched: list[str] = []
    real_isdir, real_exists = os.path.isdir, os.path.exists

    def isdir(path):
        touched.append(str(path))
        return real_isdir(path)

    def exists(path):
        touched.append(str(path))
        return real_exists(path)

    monkeypatch.setattr(repositories.os.path, "isdir", isdir)
    monkeypatch.setattr(repositories.os.path, "exists", exists)
    refused = [
        "/etc/ssl",
        "/proc/self/cwd",
        str(tmp_path / ".ssh" / "keys"),
        str(tmp_path / ".aws"),
        "//fileserver/share/project",
        "\\\\fileserver\\share\\project",
        "project/src",
        "",
        "/tmp/a\0b",
    ]
    assert [repositories.find_repository_root(path) for path in refused] == [None] * len(refused)
    assert touched == []
    assert repositories.find_repository_root(str(repo / "src" / "app")) == str(repo)
    assert touched == [
        str(repo / "src" / "app"),
        str(repo / "src" / "app" / ".git"),
        str(repo / "src" / ".git"),
        str(repo / ".git"),
    ]
