"""A real Kate (Debian's kate 22.12) runs the server through its own LSP client, set up as docs/editors.md says.

`make e2e-kate` runs this file in a D-Bus session (`dbus-run-session`) with Qt's offscreen platform: no display is
needed. The docs' two Kate files go into a temporary XDG config and data home (the server settings Kate's "User Server
Settings" page writes, and the Rollout highlighting definition); the `rollout-lsp` that Kate finds through PATH is
tests/kate/lsp_tap.py, which logs every JSON-RPC message both ways and runs the real `rollout-lsp serve`. Kate opens a
rollout fixture; the test reads what Kate and the server said to each other, and what Kate's LSP client logged as
received (LSPCLIENT_DEBUG=1), then closes Kate's window over D-Bus as a user closes it. Not part of `make test`
(its name is not test_*.py): it needs Kate."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import FIXTURES, ROOT

DOC = (ROOT / "docs" / "editors.md").read_text(encoding="utf-8")
FIXTURE = FIXTURES / "rollout-demo.jsonl"
PATIENCE = 180.0  # seconds: generous, for a loaded machine; nothing here measures time


def doc_block(marker: str) -> str:
    """The fenced block that follows ``<!-- marker -->`` in docs/editors.md (as tests/test_editor_docs.py reads
    the snippets)."""
    match = re.search(rf"^<!-- {re.escape(marker)} -->\n```\w+\n(.*?)\n```$", DOC, re.M | re.S)
    assert match, marker
    return match.group(1)


def qdebug_bytes(quoted: str) -> bytes:
    """The bytes of a QByteArray as QDebug prints it: quoted, with C escapes, \\xNN for other bytes and ``""`` to
    end a hex escape before a hex digit."""
    assert quoted.startswith('"') and quoted.endswith('"'), quoted[:80]
    escapes = {"n": 10, "t": 9, "r": 13, "a": 7, "b": 8, "f": 12, "v": 11, '"': 34, "\\": 92}
    body, out, i = quoted[1:-1], bytearray(), 0
    while i < len(body):
        char = body[i]
        if char == '"' and body[i : i + 2] == '""':
            i += 2
        elif char == "\\" and body[i + 1] == "x":
            digits = re.match(r"[0-9a-fA-F]{1,2}", body[i + 2 :])
            assert digits, body[i : i + 8]
            out.append(int(digits.group(0), 16))
            i += 2 + len(digits.group(0))
        elif char == "\\":
            out.append(escapes[body[i + 1]])
            i += 2
        else:
            out += char.encode()
            i += 1
    return bytes(out)


def received_by_kate(stderr: str) -> list[Any]:
    """The messages Kate's LSP client logged as read from the server (LSPCLIENT_DEBUG=1: a line ending in
    "message payload:", then the payload as QDebug prints it)."""
    lines = stderr.splitlines()
    return [
        json.loads(qdebug_bytes(lines[n + 1].strip()))
        for n, line in enumerate(lines[:-1])
        if line.endswith("message payload:")
    ]


class Kate:
    """One Kate process with its own XDG homes, PATH and logs."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.log = base / "lsp.log"
        self.stderr_path = base / "kate.stderr"
        self.rollout = base / "work" / "rollout-demo.jsonl"
        self.process: subprocess.Popen[bytes] | None = None

    def set_up(self) -> None:
        config, data, bin_dir = self.base / "config", self.base / "data", self.base / "bin"
        (config / "kate" / "lspclient").mkdir(parents=True)
        (config / "kate" / "lspclient" / "settings.json").write_text(doc_block("snippet: kate") + "\n")
        (data / "org.kde.syntax-highlighting" / "syntax").mkdir(parents=True)
        (data / "org.kde.syntax-highlighting" / "syntax" / "rollout.xml").write_text(
            doc_block("kate-file: rollout.xml") + "\n"
        )
        bin_dir.mkdir()
        server = shutil.which("rollout-lsp", path=str(ROOT / ".venv" / "bin"))
        assert server, "make install puts rollout-lsp in .venv/bin"
        tap = bin_dir / "rollout-lsp"
        python = ROOT / ".venv" / "bin" / "python"
        tap.write_text(f'#!/bin/sh\nexec {python} {ROOT / "tests" / "kate" / "lsp_tap.py"} {self.log} {server} "$@"\n')
        tap.chmod(0o755)
        # Kate asks once whether it may start a server's command line and keeps the answer in katerc: this is
        # the line a user's "Yes" writes (Kate runs the command by its full path, found through PATH)
        (config / "katerc").write_text(f"[lspclient]\nAllowedServerCommandLines={tap} serve\n")
        self.rollout.parent.mkdir()
        shutil.copyfile(FIXTURE, self.rollout)
        runtime = self.base / "runtime"
        runtime.mkdir(mode=0o700)
        (self.base / "home").mkdir()  # Kate runs the server in the home folder (no root configured)
        self.env = {
            **os.environ,
            "HOME": str(self.base / "home"),
            "XDG_CONFIG_HOME": str(config),
            "XDG_DATA_HOME": str(data),
            "XDG_CACHE_HOME": str(self.base / "cache"),
            "XDG_RUNTIME_DIR": str(runtime),
            "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
            "QT_QPA_PLATFORM": "offscreen",
            "LSPCLIENT_DEBUG": "1",
        }

    def start(self) -> None:
        with open(self.stderr_path, "wb") as stderr:
            self.process = subprocess.Popen(
                ["kate", "--new", str(self.rollout)],
                cwd=self.rollout.parent,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
            )

    def messages(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text(encoding="utf-8").splitlines()]

    def wait_for(self, what: str, done: Callable[[list[dict[str, Any]]], bool]) -> list[dict[str, Any]]:
        deadline = time.monotonic() + PATIENCE
        while time.monotonic() < deadline:
            messages = self.messages()
            if done(messages):
                return messages
            assert self.process is not None and self.process.poll() is None, f"Kate ended before {what}"
            time.sleep(0.5)
        raise AssertionError(f"no {what} in {PATIENCE:.0f} s: {[m['message'].get('method') for m in self.messages()]}")

    def close_window(self) -> int:
        """Close Kate's window the way its D-Bus service offers (a user closing the window): Kate ends."""
        assert self.process is not None
        subprocess.run(
            [
                "dbus-send",
                "--session",
                "--print-reply",
                f"--dest=org.kde.kate-{self.process.pid}",
                "/MainApplication",
                "org.qtproject.Qt.QApplication.closeAllWindows",
            ],
            check=True,
            capture_output=True,
            timeout=PATIENCE,
        )
        return self.process.wait(timeout=PATIENCE)

    def servers_left(self) -> list[int]:
        """The processes still running with this test's log in their command line (the tap and the server)."""
        left = []
        for proc in Path("/proc").iterdir():
            try:
                if proc.name.isdigit() and str(self.log).encode() in (proc / "cmdline").read_bytes():
                    left.append(int(proc.name))
            except OSError:
                continue
        return left

    def stop(self) -> None:
        """After the test: nothing of this Kate left running."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        for pid in self.servers_left():
            os.kill(pid, signal.SIGKILL)


@pytest.fixture
def kate(tmp_path: Path) -> Iterator[Kate]:
    assert shutil.which("kate") and shutil.which("dbus-send"), "make e2e-kate installs kate and dbus"
    assert os.environ.get("DBUS_SESSION_BUS_ADDRESS"), "run in a D-Bus session: make e2e-kate"
    session = Kate(tmp_path)
    session.set_up()
    try:
        yield session
    finally:
        session.stop()


def by_method(messages: list[dict[str, Any]], side: str, method: str) -> list[dict[str, Any]]:
    return [m["message"] for m in messages if m["from"] == side and m["message"].get("method") == method]


def answer(messages: list[dict[str, Any]], request: dict[str, Any]) -> dict[str, Any]:
    [reply] = [
        m["message"]
        for m in messages
        if m["from"] == "server" and "method" not in m["message"] and m["message"].get("id") == request["id"]
    ]
    return reply


def test_kate_starts_the_server_of_the_docs_and_uses_it(kate: Kate) -> None:
    uri = kate.rollout.as_uri()
    kate.start()
    assert kate.process is not None

    def diagnosed(messages: list[dict[str, Any]]) -> bool:
        return any(d["params"]["uri"] == uri for d in by_method(messages, "server", "textDocument/publishDiagnostics"))

    def symbols_answered(messages: list[dict[str, Any]]) -> bool:
        asked = by_method(messages, "client", "textDocument/documentSymbol")
        replied = {m["message"].get("id") for m in messages if m["from"] == "server" and "method" not in m["message"]}
        return bool(asked) and all(request["id"] in replied for request in asked)

    messages = kate.wait_for("diagnostics and symbols", lambda m: diagnosed(m) and symbols_answered(m))

    # the server was started by this Kate, with the snippet's initializationOptions
    first = messages[0]
    assert first["from"] == "client" and first["message"]["method"] == "initialize"
    initialize = first["message"]
    assert initialize["params"]["processId"] == kate.process.pid
    assert initialize["params"]["initializationOptions"] == {"hoverOutputLines": 30}
    assert initialize["params"]["capabilities"]["textDocument"]["documentSymbol"] == {
        "hierarchicalDocumentSymbolSupport": True
    }
    assert answer(messages, initialize)["result"]["serverInfo"]["name"] == "rollout-lsp"
    assert len(by_method(messages, "client", "initialized")) == 1

    # Kate opened the rollout in the language the docs' highlighting gives it
    [opened] = by_method(messages, "client", "textDocument/didOpen")
    assert opened["params"]["textDocument"]["uri"] == uri
    assert opened["params"]["textDocument"]["languageId"] == "rollout"
    assert opened["params"]["textDocument"]["text"] == FIXTURE.read_text(encoding="utf-8")

    # Kate's symbol outline asked for the document's symbols; the server answered with the session
    asked = by_method(messages, "client", "textDocument/documentSymbol")
    assert {request["params"]["textDocument"]["uri"] for request in asked} == {uri}
    symbols = answer(messages, asked[0])["result"]
    assert [symbol["name"] for symbol in symbols] == ["session 019f0000-0000-7000-8000-000000000001"]

    # the server published the rollout's findings
    [diagnostics] = [
        d["params"]
        for d in by_method(messages, "server", "textDocument/publishDiagnostics")
        if d["params"]["uri"] == uri
    ]
    assert sorted(d["code"] for d in diagnostics["diagnostics"]) == ["dead-branch", "expanded-command", "unpaired-call"]

    # Kate's LSP client read these answers (its own log of what it received)
    received = received_by_kate(kate.stderr_path.read_text(encoding="utf-8", errors="replace"))
    assert answer(messages, initialize) in received
    assert answer(messages, asked[0]) in received
    assert {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": diagnostics} in [
        {key: m[key] for key in ("jsonrpc", "method", "params") if key in m} for m in received
    ]

    # closing Kate's window closes the document and shuts the server down; nothing is left running
    assert kate.close_window() == 0
    messages = kate.messages()
    assert [m["params"]["textDocument"]["uri"] for m in by_method(messages, "client", "textDocument/didClose")] == [uri]
    assert [m["message"]["method"] for m in messages if m["from"] == "client"][-2:] == ["shutdown", "exit"]
    deadline = time.monotonic() + PATIENCE
    while kate.servers_left() and time.monotonic() < deadline:
        time.sleep(0.5)
    assert kate.servers_left() == []
