"""lsp_server/wire.py against the installed pygls: each private part of pygls it relies on is still there and
still behaves as the server needs, so a pygls upgrade that breaks one fails here."""

import inspect
import json

from lsprotocol import types
from pygls.protocol import LanguageServerProtocol, default_converter
from pygls.protocol.json_rpc import JsonRPCResponseMessage
from pygls.workspace import Workspace

from lsp_server.documents import RolloutWorkspace
from lsp_server.server import create_server
from lsp_server.wire import Encoded, Fragment, Plain, RolloutProtocol, encode_tree, install_workspace, shut_down


class _Writer:
    def __init__(self) -> None:
        self.data = b""

    def write(self, data: bytes) -> None:
        self.data += data

    def bodies(self) -> list:
        out, rest = [], self.data
        while rest:
            head, _, rest = rest.partition(b"\r\n\r\n")
            length = int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0])
            out.append(json.loads(rest[:length]))
            rest = rest[length:]
        return out


def _protocol() -> tuple[RolloutProtocol, _Writer]:
    server = create_server()
    protocol = server.protocol
    writer = _Writer()
    protocol.set_writer(writer)
    return protocol, writer


def test_the_private_parts_of_pygls_the_wire_overrides_are_there():
    for name in ("_send_data", "_serialize_message", "_send_response", "structure_message", "handle_message"):
        assert callable(getattr(LanguageServerProtocol, name, None)), name
    assert list(inspect.signature(LanguageServerProtocol._send_data).parameters) == ["self", "data"]
    assert list(inspect.signature(LanguageServerProtocol._serialize_message).parameters) == ["self", "data"]
    assert "error" in inspect.signature(LanguageServerProtocol._send_response).parameters
    protocol, _ = _protocol()
    assert protocol._shutdown is False and shut_down(protocol) is False
    assert isinstance(protocol._include_headers, bool)
    assert "_workspace" in vars(protocol)
    assert (
        Workspace("file:///w", types.TextDocumentSyncKind.Incremental)._sync_kind
        == types.TextDocumentSyncKind.Incremental
    )


def test_an_encoded_result_is_written_as_its_bytes():
    protocol, writer = _protocol()
    protocol._send_response(7, result=Encoded([b'[{"a":', b"1}]"]))
    protocol.notify_encoded("textDocument/publishDiagnostics", b'{"uri":"u","diagnostics":[]}')
    assert writer.bodies() == [
        {"jsonrpc": "2.0", "id": 7, "result": [{"a": 1}]},
        {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {"uri": "u", "diagnostics": []}},
    ]


def test_a_plain_result_is_not_converted_again():
    protocol, writer = _protocol()
    message = JsonRPCResponseMessage(id=3, result=Plain([{"name": "x"}]), jsonrpc="2.0")
    serialized = protocol._serialize_message(message)
    assert serialized == {"jsonrpc": "2.0", "id": 3, "result": [{"name": "x"}]} and type(serialized["result"]) is list
    protocol._send_response(3, result=Plain([{"name": "x"}]))
    assert writer.bodies() == [{"jsonrpc": "2.0", "id": 3, "result": [{"name": "x"}]}]


def test_a_request_whose_params_do_not_deserialize_is_answered_with_an_error():
    protocol, writer = _protocol()
    protocol.initialized_by_client = True
    try:
        protocol.structure_message({"jsonrpc": "2.0", "id": 5, "method": types.TEXT_DOCUMENT_HOVER, "params": {}})
    except Exception:
        pass
    [answer] = writer.bodies()
    assert answer["id"] == 5 and answer["error"]["code"] < 0


def test_the_workspace_is_swapped_for_the_line_exact_one():
    protocol, _ = _protocol()
    protocol._workspace = Workspace("file:///w", types.TextDocumentSyncKind.Incremental)
    install_workspace(protocol, "utf-32")
    assert isinstance(protocol.workspace, RolloutWorkspace)
    assert protocol.workspace.position_encoding == "utf-32" and protocol.workspace.root_uri == "file:///w"


def test_encode_tree_is_the_json_of_the_tree_with_fragments_in_place():
    child = types.DocumentSymbol(
        name="c",
        kind=types.SymbolKind.Event,
        range=types.Range(types.Position(1, 0), types.Position(1, 2)),
        selection_range=types.Range(types.Position(1, 0), types.Position(1, 2)),
    )
    root = types.DocumentSymbol(
        name="r", kind=types.SymbolKind.Module, range=child.range, selection_range=child.range, children=[child]
    )
    expected = default_converter().unstructure([root])
    pieces: list[bytes] = []
    encode_tree([root], pieces)
    assert json.loads(b"".join(pieces)) == expected
    fragment = Fragment(json.dumps(default_converter().unstructure(child)).encode())
    root.children = [fragment]  # type: ignore[list-item]
    pieces = []
    encode_tree([root], pieces)
    assert json.loads(b"".join(pieces)) == expected
