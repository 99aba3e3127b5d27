"""Tool completions after `tools.` carry their documentation in the format the client reads (Markdown, or clean
plain text for a client that takes only ``plaintext``), and the first tool is preselected."""

from __future__ import annotations

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.helpers import fixture, json_escaped
from tests.lsp_support import SERVER, diagnostics_of, open_text, position_of, push_capabilities, start, uri_of

SCRIPT = 'text("x");\nawait tools.'
LINE = (
    '{"timestamp":"2026-07-20T10:00:00.000Z","type":"response_item","payload":{"type":"custom_tool_call",'
    '"call_id":"c9","name":"exec","input":"' + json_escaped(SCRIPT) + '"}}'
)
EXEC_PLAIN = "\n".join(
    [
        "tools.exec_command: run a shell command: {cmd, workdir?, …}",
        "",
        "Arguments:",
        "- cmd: string: the shell command line",
        "- workdir: string: the working directory",
        "- shell: string: the shell binary",
        "- login: boolean: login shell semantics",
        "- tty: boolean: run in a pseudo-terminal",
        "- yield_time_ms: number: wait before returning",
        "- max_output_tokens: number: the output budget",
        '- sandbox_permissions: "use_default" | "require_escalated" | "with_additional_permissions"',
        "- justification: string: why escalation is needed",
        "- prefix_rule: string[]: the approval prefix to suggest",
    ]
)


def capabilities(formats: list[types.MarkupKind] | None) -> types.ClientCapabilities:
    caps = push_capabilities()
    caps.text_document.completion = types.CompletionClientCapabilities(
        completion_item=types.ClientCompletionItemOptions(documentation_format=formats)
    )
    return caps


@pytest_lsp.fixture(config=SERVER, params=["markdown", "plaintext", "unsaid"])
async def client(lsp_client: LanguageClient, request):
    formats = {
        "markdown": [types.MarkupKind.Markdown, types.MarkupKind.PlainText],
        "plaintext": [types.MarkupKind.PlainText],
        "unsaid": None,
    }[request.param]
    lsp_client.documentation_kind = request.param
    await start(lsp_client, capabilities(formats))
    yield
    await lsp_client.shutdown_session()


async def test_tool_documentation_in_the_clients_format(client: LanguageClient):
    uri = uri_of("rollout-completing.jsonl")
    open_text(client, uri, fixture("rollout-demo.jsonl") + LINE + "\n")
    await diagnostics_of(client, uri)
    found = await client.text_document_completion_async(
        types.CompletionParams(types.TextDocumentIdentifier(uri), types.Position(10, position_of(LINE, "tools.", 6)))
    )
    items = {i.label: i for i in found.items}
    # the tool an editor lists first (by sortText: the code-mode tools, by name) is the one preselected
    assert [i.label for i in sorted(found.items, key=lambda i: i.sort_text)][:2] == ["apply_patch", "exec_command"]
    assert [i.label for i in found.items if i.preselect] == ["apply_patch"]
    document = items["exec_command"].documentation
    if client.documentation_kind == "plaintext":
        assert (document.kind, document.value) == (types.MarkupKind.PlainText, EXEC_PLAIN)
        assert (
            items["update_plan"].documentation.value
        ) == "tools.update_plan: update the plan: {plan: [{step, status}]}"
    else:  # Markdown, escaped where Markdown would read the text otherwise
        assert document.kind == types.MarkupKind.Markdown
        assert document.value.split("\n")[:4] == [
            r"**tools.exec\_command**: run a shell command\: \{cmd, workdir?, …\}",
            "",
            "Arguments:",
            r"- `cmd`: string\: the shell command line",
        ]
