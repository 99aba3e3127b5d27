"""End to end: an invocation log (``cli_mocks/calls.jsonl``) and the rollout of its run, open in one server.

The log is written by hand, the way the recording shim of tests/reports/test_invocations.py writes it (one JSON object
per invocation), so its times and exits are known exactly: one stale line an earlier run left, one line the
rollout's first command made, one whose exit differs from the rollout's; the rollout's second command left none.
"""

from __future__ import annotations

import json

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from analysis.jsonl.lines import split_lines
from fixtures.build import exec_call, exec_output, meta, result, turn, user
from tests.helpers import ROOT, json_escaped, utf16_slice
from tests.lsp_support import SERVER, change, diagnostics_of, open_text, position_of, pull_capabilities, start

RUN = ROOT / "fixtures" / "run-1"
ROLLOUT_URI = (RUN / "rollout-2026-11-30T12-00-00-run1.jsonl").as_uri()
OTHER_URI = (RUN / "rollout-2026-11-30T12-30-00-run2.jsonl").as_uri()
LOG_URI = (RUN / "cli_mocks" / "calls.jsonl").as_uri()
COMMANDS = [
    ("uip ixp projects delete proj-1", 0),
    ("uip ixp projects list --json", 0),
    ("curl -s https://example.invalid/health", 7),
]


def rollout(commands: list[tuple[str, int]]) -> str:
    lines = [meta(), turn(), user("Clean up the old IXP project")]
    for number, (command, code) in enumerate(commands, 1):
        script = f"text(await tools.exec_command({{cmd: {json.dumps(command)}}}));\n"
        lines += [exec_call(f"call_{number}", script), exec_output(f"call_{number}", result(code, ""))]
    return "\n".join(lines) + "\n"


def invocation(ts: float, tool: str, argv: list[str], code: int) -> str:
    return json.dumps({"ts": ts, "tool": tool, "argv": argv, "exit": code})


LOG = (
    "\n".join(
        [
            invocation(1764503000.5, "uip", ["ixp", "projects", "delete", "proj-0"], 0),  # an earlier run's
            invocation(1764504000.25, "uip", ["ixp", "projects", "delete", "proj-1"], 0),
            invocation(1764504002, "curl", ["-s", "https://example.invalid/health"], 0),  # the rollout shows exit 7
        ]
    )
    + "\n"
)


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    await start(lsp_client)
    yield
    await lsp_client.shutdown_session()


def covered(text: str, rng: types.Range) -> str:
    assert rng.start.line == rng.end.line
    return utf16_slice(split_lines(text)[rng.start.line], rng.start.character, rng.end.character)


def call_text(command: str) -> str:
    return json_escaped(f"tools.exec_command({{cmd: {json.dumps(command)}}})")


async def open_both(client: LanguageClient) -> tuple[list[types.Diagnostic], list[types.Diagnostic]]:
    """Open the rollout, then the log: the log's diagnostics, and the rollout's published again."""
    open_text(client, ROLLOUT_URI, rollout(COMMANDS))
    assert await diagnostics_of(client, ROLLOUT_URI) == []  # no log linked yet
    client.diagnostics.pop(ROLLOUT_URI, None)
    open_text(client, LOG_URI, LOG)
    return await diagnostics_of(client, LOG_URI), await diagnostics_of(client, ROLLOUT_URI)


async def test_log_and_rollout_findings(client: LanguageClient):
    text = rollout(COMMANDS)
    on_log, on_rollout = await open_both(client)
    assert [
        (d.code, d.range.start.line, d.range.start.character, d.range.end.character, d.severity) for d in on_log
    ] == [
        ("unexplained-invocation", 0, 0, len(LOG.splitlines()[0]), types.DiagnosticSeverity.Warning),
        ("exit-mismatch", 2, 0, len(LOG.splitlines()[2]), types.DiagnosticSeverity.Warning),
    ]
    assert (
        on_log[0].message == "no command of the rollout runs `uip ixp projects delete proj-0`: a log from "
        "another run, or a command the rollout does not show"
    )
    assert on_log[0].related_information is None
    mismatch = on_log[1]
    assert (
        mismatch.message == "recorded exit 0, but the rollout shows exit code 7 for "
        "`curl -s https://example.invalid/health` (line 8)"
    )
    [related] = mismatch.related_information
    assert related.location.uri == ROLLOUT_URI and related.location.range.start.line == 7
    assert covered(text, related.location.range) == call_text(COMMANDS[2][0])
    assert related.message == "the command that made it (line 8 of rollout-2026-11-30T12-00-00-run1.jsonl)"
    [missing] = on_rollout
    assert (missing.code, missing.range.start.line) == ("missing-invocation", 5)
    assert covered(text, missing.range) == call_text(COMMANDS[1][0])
    assert (
        missing.message == "`uip ixp projects list --json` runs the recorded tool uip, but the log has no "
        "invocation of it: the shim did not run or could not write"
    )
    assert [(r.location.uri, r.location.range.start.line, r.message) for r in missing.related_information] == [
        (ROLLOUT_URI, 6, "the output of this call (line 7)"),
        (LOG_URI, 0, "the invocation log calls.jsonl"),
    ]


async def test_log_outline_and_hover(client: LanguageClient):
    await open_both(client)
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(LOG_URI))
    )
    assert [
        (
            s.name,
            s.detail,
            s.range.start.line,
            s.range.end.line,
            [(c.name, c.detail, c.range.start.line) for c in s.children],
        )
        for s in symbols
    ] == [
        (
            "uip",
            "2 invocations",
            0,
            1,
            [
                ("uip ixp projects delete proj-0", "exit 0 · 2025-11-30T11:43:20.500Z", 0),
                ("uip ixp projects delete proj-1", "exit 0 · 2025-11-30T12:00:00.250Z", 1),
            ],
        ),
        (
            "curl",
            "1 invocation",
            2,
            2,
            [("curl -s https://example.invalid/health", "exit 0 · 2025-11-30T12:00:02.000Z", 2)],
        ),
    ]
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(LOG_URI), types.Position(1, 3))
    )
    assert hover.contents.value == "\n\n".join(
        [
            "**uip** invocation (line 2)",
            "```sh\nuip ixp projects delete proj-1\n```",
            "- ts: 1764504000.25 (2025-11-30T12:00:00.250Z)\n- tool: `uip`\n"
            "- argv: `ixp`, `projects`, `delete`, `proj-1`\n- exit: 0",
            "made by line 4 of rollout\\-2026\\-11\\-30T12\\-00\\-00\\-run1\\.jsonl: `uip ixp projects delete proj-1` · exit 0",
        ]
    )
    assert (hover.range.start.line, hover.range.start.character, hover.range.end.character) == (
        1,
        0,
        len(LOG.splitlines()[1]),
    )
    stale = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(LOG_URI), types.Position(0, 0))
    )
    assert stale.contents.value.endswith("no command of rollout\\-2026\\-11\\-30T12\\-00\\-00\\-run1\\.jsonl runs it")
    # the rollout call's hover lists its invocation
    text = rollout(COMMANDS)
    line = split_lines(text)[3]
    on_call = await client.text_document_hover_async(
        types.HoverParams(
            types.TextDocumentIdentifier(ROLLOUT_URI), types.Position(3, position_of(line, "tools.exec_command"))
        )
    )
    assert on_call.contents.value.endswith(
        "\n\n**invocations**\n\n- calls\\.jsonl line 2: `uip ixp projects delete proj-1` · exit 0 · "
        "2025-11-30T12:00:00.250Z"
    )


async def test_definition_both_ways(client: LanguageClient):
    text = rollout(COMMANDS)
    await open_both(client)
    [to_call] = await client.text_document_definition_async(
        types.DefinitionParams(types.TextDocumentIdentifier(LOG_URI), types.Position(2, 5))
    )
    assert to_call.uri == ROLLOUT_URI and to_call.range.start.line == 7
    assert covered(text, to_call.range) == call_text(COMMANDS[2][0])
    assert (
        await client.text_document_definition_async(
            types.DefinitionParams(types.TextDocumentIdentifier(LOG_URI), types.Position(0, 5))
        )
        == []
    )  # stale: nothing made it
    line = split_lines(text)[3]
    [to_log] = await client.text_document_definition_async(
        types.DefinitionParams(
            types.TextDocumentIdentifier(ROLLOUT_URI), types.Position(3, position_of(line, "tools.exec_command"))
        )
    )
    assert to_log.uri == LOG_URI and (
        to_log.range.start.line,
        to_log.range.start.character,
        to_log.range.end.character,
    ) == (1, 0, len(LOG.splitlines()[1]))
    # outside the call, definition still goes from the call record to its output
    [to_output] = await client.text_document_definition_async(
        types.DefinitionParams(types.TextDocumentIdentifier(ROLLOUT_URI), types.Position(3, 0))
    )
    assert (to_output.uri, to_output.range.start.line) == (ROLLOUT_URI, 4)


async def test_editing_the_log_updates_the_rollout(client: LanguageClient):
    await open_both(client)
    client.diagnostics.pop(ROLLOUT_URI, None)
    added = invocation(1764504001, "uip", ["ixp", "projects", "list", "--json"], 0) + "\n"
    change(client, LOG_URI, 2, (2, 0), (2, 0), added)
    assert [d.code for d in await diagnostics_of(client, LOG_URI)] == ["unexplained-invocation", "exit-mismatch"]
    assert await diagnostics_of(client, ROLLOUT_URI) == []  # the record is there now
    # closing the log takes its findings off the rollout; reopening the rollout alone has none either
    client.diagnostics.pop(ROLLOUT_URI, None)
    change(client, LOG_URI, 3, (2, 0), (3, 0), "")
    assert [d.code for d in await diagnostics_of(client, ROLLOUT_URI)] == ["missing-invocation"]
    client.diagnostics.pop(ROLLOUT_URI, None)
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(LOG_URI)))
    assert await diagnostics_of(client, ROLLOUT_URI) == []


async def test_the_rollout_that_explains_most_and_the_link_command(client: LanguageClient):
    await open_both(client)
    # a later run ran only the curl check: it explains one invocation, the first rollout explains two
    client.diagnostics.pop(LOG_URI, None)
    open_text(client, OTHER_URI, rollout([("curl -s https://example.invalid/health", 0)]))
    await diagnostics_of(client, OTHER_URI)
    report = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("rollout-lsp.linkInvocationLog", [LOG_URI])
    )
    assert report == {
        "log": LOG_URI,
        "rollout": ROLLOUT_URI,
        "named": False,
        "matched": 2,
        "unexplained": 1,
        "missing": 1,
    }
    client.diagnostics.pop(LOG_URI, None)
    client.diagnostics.pop(ROLLOUT_URI, None)
    report = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("rollout-lsp.linkInvocationLog", [LOG_URI, OTHER_URI])
    )
    assert report == {"log": LOG_URI, "rollout": OTHER_URI, "named": True, "matched": 1, "unexplained": 2, "missing": 0}
    assert [(d.code, d.range.start.line) for d in await diagnostics_of(client, LOG_URI)] == [
        ("unexplained-invocation", 0),
        ("unexplained-invocation", 1),
    ]  # curl exited 0 in that run: no mismatch
    assert await diagnostics_of(client, ROLLOUT_URI) == []  # no log linked to it now
    report = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("rollout-lsp.linkInvocationLog", [LOG_URI, None])
    )
    assert (report["rollout"], report["named"]) == (ROLLOUT_URI, False)


@pytest_lsp.fixture(config=SERVER)
async def shims_client(lsp_client: LanguageClient):
    lsp_client.set_configuration({"invocationLogs": ["**/shims/*.log"]}, section="rolloutLsp")
    await start(lsp_client)
    yield
    await lsp_client.shutdown_session()


async def test_the_invocation_logs_setting(shims_client: LanguageClient):
    open_text(shims_client, ROLLOUT_URI, rollout(COMMANDS))
    await diagnostics_of(shims_client, ROLLOUT_URI)
    elsewhere = (RUN / "shims" / "calls.log").as_uri()
    open_text(shims_client, elsewhere, LOG)
    assert [d.code for d in await diagnostics_of(shims_client, elsewhere)] == [
        "unexplained-invocation",
        "exit-mismatch",
    ]
    open_text(shims_client, LOG_URI, LOG)  # not a log under this setting (nor a rollout): nothing
    assert await diagnostics_of(shims_client, LOG_URI) == []
    assert (
        await shims_client.text_document_document_symbol_async(
            types.DocumentSymbolParams(types.TextDocumentIdentifier(LOG_URI))
        )
        == []
    )


@pytest_lsp.fixture(config=SERVER)
async def pull_client(lsp_client: LanguageClient):
    await start(lsp_client, pull_capabilities())
    yield
    await lsp_client.shutdown_session()


async def test_pulled_diagnostics_of_both_documents(pull_client: LanguageClient):
    open_text(pull_client, ROLLOUT_URI, rollout(COMMANDS))
    open_text(pull_client, LOG_URI, LOG)

    async def pulled(uri: str) -> list[tuple[str, int]]:
        report = await pull_client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(types.TextDocumentIdentifier(uri))
        )
        return [(d.code, d.range.start.line) for d in report.items]

    await pulled(ROLLOUT_URI), await pulled(LOG_URI)  # both analysed (a client pulls again on refresh)
    assert await pulled(LOG_URI) == [("unexplained-invocation", 0), ("exit-mismatch", 2)]
    assert await pulled(ROLLOUT_URI) == [("missing-invocation", 5)]
    assert pull_client.diagnostics == {}  # nothing pushed
