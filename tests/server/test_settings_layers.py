"""Settings are layered: defaults ← initializationOptions ← workspace/configuration ← didChangeConfiguration.

Clients answer ``workspace/configuration`` in three ways (eglot, vim-lsp, Neovim 0.8+, Helix answer ``null``
or ``{}`` when the user configured nothing there): an answer that says nothing changes nothing."""

from __future__ import annotations

import asyncio

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from analysis.jsonl.lines import split_lines
from tests.helpers import fixture
from tests.lsp_support import SERVER, diagnostics_of, open_text, position_of, push_capabilities, start, uri_of

OPTIONS = {"hoverOutputLines": 1, "severity": {"unpaired-call": "off"}}
INFO, WARNING, ERROR = (
    types.DiagnosticSeverity.Information,
    types.DiagnosticSeverity.Warning,
    types.DiagnosticSeverity.Error,
)


@pytest_lsp.fixture(config=SERVER)
async def raw_client(lsp_client: LanguageClient):
    yield lsp_client
    await lsp_client.shutdown_session()


async def output_lines(client: LanguageClient, uri: str) -> str:
    """The output shown in the hover of the demo's first call (the last lines of the hover)."""
    line = split_lines(fixture("rollout-demo.jsonl"))[4]
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(4, position_of(line, "exec_command")))
    )
    value = hover.contents.value
    return value[value.rindex("output") :]


async def until(client: LanguageClient, uri: str, wanted, timeout: float = 15):
    """Diagnostics of ``uri`` and the hover's output once ``wanted(codes, output)`` holds."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        found = [(d.code, d.severity) for d in client.diagnostics.get(uri, [])]
        output = await output_lines(client, uri)
        if wanted(found, output):
            return found, output
        assert asyncio.get_running_loop().time() < deadline, (found, output)
        await asyncio.sleep(0.05)


async def opened(client: LanguageClient) -> tuple[str, list]:
    uri = uri_of("rollout-demo.jsonl")
    open_text(client, uri, fixture("rollout-demo.jsonl"))
    return uri, [(d.code, d.severity) for d in await diagnostics_of(client, uri)]


@pytest.mark.parametrize("answer", [None, {}, {"pylsp": {"plugins": {}}}], ids=["null", "empty", "another-section"])
async def test_an_answer_that_says_nothing_keeps_the_initialization_options(raw_client: LanguageClient, answer):
    client = raw_client
    if answer is not None:
        client.set_configuration(answer, section="rolloutLsp")
    await start(client, options=OPTIONS)
    uri, codes = await opened(client)
    assert codes == [("expanded-command", INFO), ("dead-branch", WARNING)]
    output = await output_lines(client, uri)
    assert "F\n… (2 more lines)" in output and "FAILED" not in output


async def test_hover_output_lines_stay_30_when_the_client_answers_null(raw_client: LanguageClient):
    await start(raw_client, options={"hoverOutputLines": 30})
    uri, _ = await opened(raw_client)
    assert "F\nFAILED tests/test_greet.py::test_hello\n" in await output_lines(raw_client, uri)
    assert "more line" not in await output_lines(raw_client, uri)


async def test_each_layer_over_the_ones_before(raw_client: LanguageClient):
    client = raw_client
    client.set_configuration({"severity": {"dead-branch": "error"}}, section="rolloutLsp")
    await start(client, options=OPTIONS)
    uri, codes = await opened(client)
    # the configuration adds a severity; the options' severity and hoverOutputLines stay
    assert codes == [("expanded-command", INFO), ("dead-branch", ERROR)]
    assert "F\n… (2 more lines)" in await output_lines(client, uri)
    client.set_configuration({"hoverOutputLines": 0}, section="rolloutLsp")  # severity removed there
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await until(
        client,
        uri,
        lambda codes, output: codes == [("expanded-command", INFO), ("dead-branch", WARNING)] and "F\n" not in output,
    )
    # pushed settings go over the configuration's
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"rolloutLsp": {"hoverOutputLines": 2, "severity": {"unpaired-call": "hint"}}}
        )
    )
    await until(
        client,
        uri,
        lambda codes, output: (
            codes[0] == ("unpaired-call", types.DiagnosticSeverity.Hint)
            and "FAILED tests/test_greet.py::test_hello" in output
        ),
    )
    # nothing pushed and nothing configured: the initialization options again
    client.set_configuration(None, section="rolloutLsp")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await until(
        client,
        uri,
        lambda codes, output: (
            codes == [("expanded-command", INFO), ("dead-branch", WARNING)] and "F\n… (2 more lines)" in output
        ),
    )


async def test_a_client_without_workspace_configuration(raw_client: LanguageClient):
    capabilities = push_capabilities()
    capabilities.workspace.configuration = False
    await start(raw_client, capabilities, options=OPTIONS)
    uri, codes = await opened(raw_client)
    assert codes == [("expanded-command", INFO), ("dead-branch", WARNING)]
    raw_client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"rolloutLsp": {"severity": {"dead-branch": "error"}}})
    )
    await until(
        raw_client,
        uri,
        lambda codes, output: (
            codes == [("expanded-command", INFO), ("dead-branch", ERROR)] and "F\n… (2 more lines)" in output
        ),
    )
    raw_client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={}))
    await until(raw_client, uri, lambda codes, output: codes == [("expanded-command", INFO), ("dead-branch", WARNING)])
