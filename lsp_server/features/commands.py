"""Server commands (``workspace/executeCommand``), so code lenses and editor commands work in every editor.

- ``rollout-lsp.showDecodedScript [uri, line]``: the code lens command.  The exec record's script, masked,
  is written to a read-only ``.js`` file and shown with ``window/showDocument`` (a client with its own
  view, like the VS Code extension, runs its own command instead).  Answers the file's URI and the script.
  A client that cannot show a document (or refuses to) is told where the file is with ``window/showMessage``,
  or with ``window/showMessageRequest`` and an "Open" action (which opens it outside the editor) when it has
  both.
- ``rollout-lsp.showInfo [text]``: the command of an informational lens (a session's totals): shows its
  text with ``window/showMessage``, so no lens has an empty command.
- ``rollout-lsp.decodedScript [uri, line]``: the script (masked), its call_id and line.
- ``rollout-lsp.sessions [filters]``: the sessions library, exactly ``rollout-lsp sessions --json`` (the index
  brought up to date first); ``filters`` is an optional object with ``project``, ``since``, ``older_than``
  (days), ``paths`` (a list) and ``db``.
- ``rollout-lsp.callCommand [uri, line, character]``: the exact command, patch or arguments of the call at a
  position, unmasked: it is what "Copy Command" puts on the clipboard to run again.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import re
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInternalError, JsonRpcInvalidParams
from pygls.uris import to_fs_path

from analysis.jsonl.positions import LineColumns
from analysis.session.rollout import RolloutAnalysis

from ..calls import call_at
from ..sessions import SHOW_INFO
from .base import Feature, lsp_command

log = logging.getLogger("rollout_lsp")
SHOW_SCRIPT = "rollout-lsp.showDecodedScript"
DECODED_SCRIPT = "rollout-lsp.decodedScript"
CALL_COMMAND = "rollout-lsp.callCommand"
SESSIONS = "rollout-lsp.sessions"
SESSIONS_TIMEOUT = 600.0  # seconds the command may take (a first index of hundreds of sessions)
OPEN = "Open"
SHOW_TIMEOUT = 10.0  # seconds a client has to answer window/showDocument


class CommandFeature(Feature):
    show_document = False
    message_request = False  # the client answers window/showMessageRequest with its actions

    def __init__(self, server: Any) -> None:
        super().__init__(server)
        self._offers: set[asyncio.Future] = set()

    def configure(self, capabilities: types.ClientCapabilities) -> None:
        window = capabilities.window
        self.show_document = bool(window and window.show_document and window.show_document.support)
        self.message_request = bool(window and window.show_message is not None)

    @lsp_command(SHOW_SCRIPT)
    async def show_decoded_script(self, *arguments: Any) -> dict | None:
        """Write the exec record's decoded script (masked) to a file and ask the client to show it."""
        uri, line = _uri_and_line(arguments)
        result = await self.rollout(uri)
        script = self.decoded_script(result.analysis, line) if result else None
        if script is None:
            return None
        path = script_file(uri, line, script["call_id"], script["script"])
        script["file"] = path.as_uri()
        script["shown"] = False
        if self.show_document:
            try:  # a client may answer null, or never: either is "not shown", never a request left waiting
                shown = await asyncio.wait_for(
                    self.server.window_show_document_async(
                        types.ShowDocumentParams(uri=path.as_uri(), take_focus=True)
                    ),
                    SHOW_TIMEOUT,
                )
                script["shown"] = bool(getattr(shown, "success", False))
            except Exception as error:  # a timeout, or an answer that is not a ShowDocumentResult
                log.debug("window/showDocument failed: %r", error)
        if not script["shown"]:
            self.tell_where(path, line)
        return script

    def tell_where(self, path: Path, line: int) -> None:
        """Say where the script of ``line`` was written, since the client did not open it."""
        message = f"The decoded script of line {line + 1} is in {path}"
        log.info("%s (the client did not open it)", message)
        if not (self.message_request and self.show_document):  # "Open" needs window/showDocument
            self.server.window_show_message(types.ShowMessageParams(types.MessageType.Info, message))
            return
        task = asyncio.ensure_future(self._offer_open(path, message))  # answered without waiting for the user
        self._offers.add(task)  # kept until done: the loop holds only a weak reference to a task
        task.add_done_callback(self._offers.discard)

    async def _offer_open(self, path: Path, message: str) -> None:
        try:
            choice = await self.server.window_show_message_request_async(
                types.ShowMessageRequestParams(types.MessageType.Info, message, [types.MessageActionItem(OPEN)])
            )
            if choice is not None and choice.title == OPEN:
                await self.server.window_show_document_async(types.ShowDocumentParams(uri=path.as_uri(), external=True))
        except Exception as error:  # the client went away or cannot open it: the message said where it is
            log.info("opening %s failed: %s", path, error)

    @lsp_command(SHOW_INFO)
    async def show_info(self, *arguments: Any) -> None:
        """Show an informational lens's text."""
        if not arguments or not isinstance(arguments[0], str):
            raise JsonRpcInvalidParams(f"{SHOW_INFO}: expected the arguments [text]")
        self.server.window_show_message(types.ShowMessageParams(types.MessageType.Info, arguments[0]))

    @lsp_command(DECODED_SCRIPT)
    async def decoded_script_command(self, *arguments: Any) -> dict | None:
        """The exec record's decoded script, masked."""
        uri, line = _uri_and_line(arguments)
        result = await self.rollout(uri)
        return self.decoded_script(result.analysis, line) if result else None

    @lsp_command(SESSIONS)
    async def sessions(self, *arguments: Any) -> list:
        """The ``sessions --json`` list, from the command line in a process of its own (what it prints is the
        answer, byte for byte the same list)."""
        command = [sys.executable, "-m", "lsp_server", *sessions_arguments(arguments)]
        process = await asyncio.create_subprocess_exec(
            *command, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
        )
        try:
            out, err = await asyncio.wait_for(process.communicate(), SESSIONS_TIMEOUT)
        except asyncio.TimeoutError:
            process.kill()
            raise JsonRpcInternalError(f"{SESSIONS}: no answer in {SESSIONS_TIMEOUT:.0f} s") from None
        if process.returncode != 0:
            raise JsonRpcInternalError(f"{SESSIONS}: {err.decode('utf-8', 'replace').strip()}")
        return json.loads(out)

    @lsp_command(CALL_COMMAND)
    async def call_command_command(self, *arguments: Any) -> dict | None:
        """The exact command (or patch, or list of commands) of the call at a position."""
        uri, line = _uri_and_line(arguments)
        character = arguments[2] if len(arguments) > 2 else 0
        if not isinstance(character, int):
            raise JsonRpcInvalidParams(f"{CALL_COMMAND}: the third argument must be a character offset")
        result = await self.rollout(uri)
        return self.call_command(result.analysis, line, character) if result else None

    def decoded_script(self, analysis: RolloutAnalysis, line: int) -> dict | None:
        if not 0 <= line < len(analysis.records):
            return None
        record = analysis.records[line]
        if record.script is None:
            return None
        return {
            "script": self.server.masker(record.script),
            "language": "javascript",
            "call_id": record.call_id,
            "line": line,
        }

    def call_command(self, analysis: RolloutAnalysis, line: int, character: int) -> dict | None:
        if not 0 <= line < len(analysis.records):
            return None
        column = LineColumns(analysis.lines[line]).from_units(character, self.server.encoding)
        located = call_at(analysis, line, column) or next(iter(analysis.calls_on(line)), None)
        if located is None:
            return None
        call = located.call
        return {
            "tool": call.tool,
            "kind": call.kind,
            "command": call.command,
            "workdir": call.workdir,
            "computed": call.computed,
            "expansion": list(call.expansion) if call.expansion else None,
            "patch": call.patch,
        }


def sessions_arguments(arguments: tuple) -> list[str]:
    """The ``sessions --json`` command line of the command's optional filters object."""
    filters = arguments[0] if arguments else None
    if filters is None:
        filters = {}
    if not isinstance(filters, dict):
        raise JsonRpcInvalidParams(f"{SESSIONS}: expected an optional object of filters")
    out = ["sessions", "--json"]
    for key, option in (("project", "--project"), ("since", "--since"), ("older_than", "--older-than"), ("db", "--db")):
        value = filters.get(key)
        if value is None:
            continue
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            raise JsonRpcInvalidParams(f"{SESSIONS}: {key} must be a string or a number")
        out += [option, str(value)]
    paths = filters.get("paths") or []
    if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
        raise JsonRpcInvalidParams(f"{SESSIONS}: paths must be a list of strings")
    return out + ["--", *paths] if paths else out


def _uri_and_line(arguments: tuple) -> tuple[str, int]:
    if (
        len(arguments) < 2
        or not isinstance(arguments[0], str)
        or not isinstance(arguments[1], int)
        or isinstance(arguments[1], bool)
    ):
        raise JsonRpcInvalidParams("expected the arguments [document URI, line number]")
    return arguments[0], arguments[1]


def script_file(uri: str, line: int, call_id: str | None, script: str) -> Path:
    """A read-only ``.js`` file holding a decoded script, in a folder of this user's own."""
    folder = Path(tempfile.gettempdir()) / f"rollout-lsp-{os.getuid() if hasattr(os, 'getuid') else 'user'}"
    folder.mkdir(mode=0o700, exist_ok=True)
    info = folder.lstat()
    if stat.S_ISLNK(info.st_mode) or (hasattr(os, "getuid") and info.st_uid != os.getuid()):
        raise PermissionError(f"{folder} is not this user's own folder")
    source = Path(to_fs_path(uri) or "rollout").stem
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{source}-line{line + 1}-{call_id or 'exec'}")[:120]
    digest = hashlib.sha256(uri.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    path = folder / f"{name}-{digest}.js"
    if path.exists():
        path.chmod(stat.S_IRUSR | stat.S_IWUSR)
    path.write_text(script, encoding="utf-8", errors="surrogatepass")
    path.chmod(stat.S_IRUSR)  # read-only: edits here would not go back into the rollout
    return path
