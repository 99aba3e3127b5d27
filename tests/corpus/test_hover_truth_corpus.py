"""Hovers on the real rollouts of ../shared/corpus: a call's hover never says "executed: unknown" above its own
exit code, and a failed script's record hover (column 1) shows its result, exit code and output, as a call's
hover does.  The PowerShell sessions of doudouqie66/CommonTools throw a command's result as the script's error
(``Script error: Exit code: 1``): before, their hovers read "executed: unknown" then "exit 1", and the
record's showed the script alone."""

from __future__ import annotations

from functools import cache
from types import SimpleNamespace

from lsprotocol import types

from analysis.jsonl.source import load, rollout_files
from analysis.session.executed import executed, own_exit_code, script_exit_codes
from analysis.session.labels import call_outcome, record_outcome
from analysis.session.rollout import analyze_text
from lsp_server.features.hover import HoverFeature
from lsp_server.markdown import for_client
from lsp_server.masking import Masker
from tests.helpers import SHARED

CORPUS = SHARED / "corpus"
COMMON = "doudouqie66__CommonTools__rollout-2026-06-12T16-44-44-019ebb01-4a7a-7c12-9bb4-d3a37238731b.jsonl"


@cache
def analyses() -> list[tuple[str, object]]:
    return [(path, analyze_text(load(path).text)) for path in rollout_files([str(CORPUS)])]


def feature() -> HoverFeature:
    made = HoverFeature.__new__(HoverFeature)
    made.server = SimpleNamespace(masker=Masker(), settings=SimpleNamespace(hover_output_lines=20))
    made.uri = None
    return made


def test_the_thrown_exit_reads_as_ran_on_the_call_and_as_the_result_on_the_record():
    [(_, analysis)] = [(p, a) for p, a in analyses() if p.endswith(COMMON)]
    [located] = analysis.calls_on(29)
    call = feature().call_markdown(analysis, located)
    assert call.startswith("**shell\\_command** · command · executed: yes \\(it exited with code 1\\)\n\n```sh\nrg ")
    assert call.endswith(
        "**output** (line 31): exit 1 · 0.4 s\n\n```\nScript error: Exit code: 1\nWall time: 0.3 seconds\nOutput:\n```"
    )
    record = feature().record_markdown(analysis, 29, analysis.records[29])
    assert record.startswith("**exec** call\\_W4YtcUgySj24RfPXfdI3y5Y1 · 1 command · failed\n\n```javascript\n")
    assert record.endswith(
        "**output** (line 31): failed at its call · exit 1 · 0.4 s\n\n"
        "```\nScript error: Exit code: 1\nWall time: 0.3 seconds\nOutput:\n```"
    )


def test_no_call_of_the_corpus_reads_unknown_above_its_own_exit_code():
    shown = feature()
    unknown_with_exit = []
    ran_by_exit = 0
    for path, analysis in analyses():
        for located in analysis.calls:
            outcome = call_outcome(analysis, located)
            ran = executed(analysis, located, outcome)
            code = own_exit_code(located, outcome)
            if code is not None and ran.value != "yes":
                unknown_with_exit.append((path, located.line + 1, located.index))
            if ran.text.startswith("yes (it exited with code"):
                ran_by_exit += 1
                head = shown.call_markdown(analysis, located).split("\n", 1)[0]
                assert head.endswith(f"executed: yes \\(it exited with code {code}\\)")
    assert unknown_with_exit == []
    assert ran_by_exit >= 40  # 44: the thrown exits of the PowerShell sessions (and others like them)


def test_every_failed_script_shows_its_result_on_its_record():
    shown = feature()
    checked = 0
    for path, analysis in analyses():
        for line in analysis.call_records:
            record = analysis.records[line]
            outcome = record_outcome(analysis, line)
            output = analysis.record_output(line)
            if not record.is_exec or record.script is None or output is None or not (outcome and outcome.failed):
                continue
            text = shown.record_markdown(analysis, line, record)
            assert f"**output** (line {output.line + 1}): " in text or "**output** in " in text, (path, line)
            codes = script_exit_codes(output)
            if codes and not output.continued_by:
                facts = text.rsplit("**output** (line ", 1)[1].split("\n", 1)[0]
                assert f"exit {', '.join(map(str, codes))}" in facts or f"(exit {codes[0]})" in facts, (path, line)
            checked += 1
    assert checked >= 55  # 61 on this corpus


def test_a_plain_hover_of_the_corpus_has_no_fence_and_no_escape():
    [(_, analysis)] = [(p, a) for p, a in analyses() if p.endswith(COMMON)]
    [located] = analysis.calls_on(29)
    plain = for_client(feature().call_markdown(analysis, located), types.MarkupKind.PlainText).value
    assert plain.startswith("shell_command · command · executed: yes (it exited with code 1)\n\n    rg ")
    assert "```" not in plain and "\\_" not in plain
