"""What Kate showed (docs/editors.md, "## Kate"): ``shutdown`` sent as a notification, and a server or command
started in a folder that no longer exists.  Raw JSON-RPC over stdio, as the client sends it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.helpers import FIXTURES, ROOT
from tests.server.test_server_robustness import RawClient

DEMO = FIXTURES / "rollout-demo.jsonl"
INITIALIZE: dict[str, object] = {"processId": None, "rootUri": None, "capabilities": {}}


def in_deleted_folder(folder: Path) -> list[str]:
    """A command prefix: ``sh`` goes into ``folder``, removes it, then runs the command there."""
    folder.mkdir()
    return ["sh", "-c", 'cd "$0" && rmdir "$0" && exec "$@"', str(folder)]


def environment(home: Path) -> dict[str, str]:
    home.mkdir(exist_ok=True)
    return {**os.environ, "HOME": str(home), "PYTHONPATH": str(ROOT)}


class DeletedFolderClient(RawClient):
    """:class:`RawClient` for a server started in a folder removed before it runs."""

    def __init__(self, folder: Path, home: Path) -> None:
        self.stderr = subprocess.PIPE
        self.proc = subprocess.Popen(
            [*in_deleted_folder(folder), sys.executable, "-m", "lsp_server", "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=environment(home),
        )
        self.buffer = b""


def messages_until(client: RawClient, msg_id: int) -> list[dict]:
    """Every message the server sends up to the answer to ``msg_id``, that answer last."""
    out = []
    while True:
        out.append(client.read())
        if out[-1].get("id") == msg_id and "method" not in out[-1]:
            return out


def open_demo(client: RawClient) -> None:
    client.send(
        {
            "jsonrpc": "2.0",
            "method": "textDocument/didOpen",
            "params": {
                "textDocument": {"uri": DEMO.as_uri(), "languageId": "rollout", "version": 1, "text": DEMO.read_text()}
            },
        }
    )


def outline_of_demo(client: RawClient, msg_id: int) -> list[dict]:
    open_demo(client)
    return client.request(msg_id, "textDocument/documentSymbol", {"textDocument": {"uri": DEMO.as_uri()}})["result"]


def test_a_shutdown_notification_shuts_down():
    """Kate 22.12 sends ``shutdown`` without an id: the server shuts down, answers nothing to it, refuses what
    comes after with InvalidRequest (the specification's answer after shutdown), and ``exit`` ends with 0."""
    client = RawClient(stderr=subprocess.PIPE)
    try:
        assert "capabilities" in client.request(1, "initialize", INITIALIZE)["result"]
        client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        client.send({"jsonrpc": "2.0", "method": "shutdown"})
        client.send(_hover(2))
        after = messages_until(client, 2)
        assert [m for m in after if "id" in m] == [
            {
                "jsonrpc": "2.0",
                "id": 2,
                "error": {
                    "code": -32600,
                    "message": "textDocument/hover: the server is shutting down (shutdown was received)",
                },
            }
        ]
        client.send({"jsonrpc": "2.0", "method": "shutdown"})  # a second one changes nothing
        client.send({"jsonrpc": "2.0", "method": "exit"})
        assert client.proc.wait(20) == 0
        rest = client.proc.stdout.read()
        assert b'"id"' not in rest  # no answer to either notification
        assert client.proc.stderr.read() == b""  # no "Invalid Params" traceback
    finally:
        client.close()
        client.proc.stderr.close()


def _hover(msg_id: int) -> dict:
    return {
        "jsonrpc": "2.0",
        "id": msg_id,
        "method": "textDocument/hover",
        "params": {"textDocument": {"uri": DEMO.as_uri()}, "position": {"line": 4, "character": 0}},
    }


def test_the_server_starts_in_a_deleted_folder(tmp_path: Path):
    """Started in a folder deleted since, the server works from the home folder, says so on stderr and in the
    client's log, and reads rollouts as anywhere else."""
    folder, home = tmp_path / "gone", tmp_path / "home"
    said = (
        f"rollout-lsp serve: {folder} cannot be read (No such file or directory; deleted?): working from {home} instead"
    )
    reference = RawClient()
    try:
        reference.request(1, "initialize", INITIALIZE)
        reference.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        expected = outline_of_demo(reference, 2)
    finally:
        reference.close()
    client = DeletedFolderClient(folder, home)
    assert client.proc.stderr is not None
    try:
        assert "capabilities" in client.request(1, "initialize", INITIALIZE)["result"]
        client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        client.send({"jsonrpc": "2.0", "id": 2, "method": "workspace/symbol", "params": {"query": "zzz"}})
        logged = [m["params"] for m in messages_until(client, 2) if m.get("method") == "window/logMessage"]
        assert {"type": 2, "message": said} in logged
        symbols = outline_of_demo(client, 3)
        assert symbols == expected
        assert symbols[0]["name"] == "session 019f0000-0000-7000-8000-000000000001"
        assert client.request(4, "shutdown", None)["result"] is None
        client.send({"jsonrpc": "2.0", "method": "exit"})
        assert client.proc.wait(20) == 0
        assert client.proc.stderr.read().decode() == said + "\n"
    finally:
        client.close()
        client.proc.stderr.close()


def cli_in_deleted_folder(tmp_path: Path, name: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*in_deleted_folder(tmp_path / name), sys.executable, "-m", "lsp_server", *args],
        capture_output=True,
        text=True,
        env=environment(tmp_path / "home"),
        timeout=120,
    )


def cli_here(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "lsp_server", *args], capture_output=True, text=True, cwd=ROOT, timeout=120
    )


def test_check_and_outline_of_an_absolute_path_from_a_deleted_folder(tmp_path: Path):
    for command, status in (("check", 1), ("outline", 0)):
        for extra in ((), ("--json",)):
            done = cli_in_deleted_folder(tmp_path, f"{command}{len(extra)}", command, *extra, str(DEMO))
            here = cli_here(command, *extra, str(DEMO))
            assert (done.returncode, done.stdout, done.stderr) == (status, here.stdout, ""), (command, extra)


def test_a_relative_path_from_a_deleted_folder_is_said_not_a_traceback(tmp_path: Path):
    why = (
        "the current folder cannot be read (deleted?), so a relative path cannot be found from it: give absolute "
        "paths, or run it from a folder that exists\n"
    )
    check = cli_in_deleted_folder(tmp_path, "check", "check", "rollout-demo.jsonl")
    assert (check.returncode, check.stdout, check.stderr) == (2, "", f"rollout-lsp check: {why}")
    outline = cli_in_deleted_folder(tmp_path, "outline", "outline", "rollout-demo.jsonl")
    assert (outline.returncode, outline.stdout) == (2, "")
    assert outline.stderr == (
        f"rollout-lsp: cannot read rollout-demo.jsonl: No such file or directory\nrollout-lsp outline: {why}"
    )
