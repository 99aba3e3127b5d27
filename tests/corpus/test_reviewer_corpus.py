"""What a reviewer reads at a glance, pinned on the real rollouts issue 22 names (../shared/corpus/wild): the
row text of failed, non-zero, interrupted and timed-out calls, the chunks of a continued process, expansion
children, the labels of each tool kind, the files a session changed and the findings profiles."""

from __future__ import annotations

import json
from functools import cache
from types import SimpleNamespace

from analysis.jsonl.findings import COMPUTED_COMMAND
from analysis.jsonl.positions import PositionEncoding
from analysis.jsonl.source import load
from analysis.reports.export import export
from analysis.reports.report import outline_text
from analysis.session.files_changed import changed_files
from analysis.session.labels import call_label, call_outcome, output_chunks, record_outcome
from analysis.session.profiles import AUTHOR, READER, quiet_findings, severity_in
from analysis.session.rollout import analyze_text
from lsp_server.features.symbols import SymbolFeature
from lsp_server.masking import Masker
from tests.helpers import SHARED, run_cli

WILD = SHARED / "corpus" / "wild"
MOTION = "seokhyeonhong__motion-jepa__rollout-2026-07-26T06-37-23-019f9b36-1e6d-7651-9801-5450483871e2.jsonl"
HWP = "seokhyeonhong__motion-jepa__rollout-2026-08-01T07-19-28-019fba42-ce37-78e1-a43b-ca31d6ad2dbe.jsonl"
SKILLS = "seokhyeonhong__motion-jepa__rollout-2026-08-01T07-14-05-019fba3d-e2be-7722-a0af-76168179677c.jsonl"
AGENTS = "doudouqie66__CommonTools__rollout-2026-07-11T10-22-29-019f4efb-ae76-7e30-b44e-3fa464c16193.jsonl"
DYNAMIC = "doudouqie66__CommonTools__rollout-2026-07-28T10-47-45-019fa69e-fd46-7541-88cc-0f3cc262b77c.jsonl"
WEB = "doudouqie66__CommonTools__rollout-2026-06-11T11-07-05-019eb4a5-ce35-7110-979d-d1ef09ca4131.jsonl"
MCP = "tvvshow__gokao__rollout-2025-12-25T06-56-06-019b5293-a6da-70d1-95f9-95bdb1810b75.jsonl"
TIMEOUT = "LAF-US__IDAHO-VAULT__rollout-2026-04-15T11-58-23-019d924b-53f5-78f1-a0d4-69aa13191f54.jsonl"


@cache
def analysis_of(name: str):
    return analyze_text(load(str(WILD / name)).text)


def outline(name: str):
    """The Outline the server sends for the rollout (its document symbols)."""
    feature = SymbolFeature.__new__(SymbolFeature)
    feature.server = SimpleNamespace(masker=Masker(), workspace=SimpleNamespace(folders={}))
    feature._missing = {}
    [root] = feature.document_symbols(analysis_of(name), PositionEncoding.UTF16)
    return root


def rows(name: str) -> dict[int, tuple[str, str | None, list[str]]]:
    """Each call record's row by its line (0-based): its name, its detail and its children's names."""
    out = {}
    for turn in outline(name).children:
        for row in turn.children or ():
            if row.kind.name == "Function":
                out[row.range.start.line] = (row.name, row.detail, [c.name for c in row.children or ()])
    return out


def test_failed_non_zero_and_interrupted_rows_are_marked():
    shown = rows(MOTION)
    pwd = (
        "exec_command: pwd && rg --files -g 'AGENTS.md' -g '!**/.git/**' -g '!**/__pycache__/**' | head -50 && "
        "rg --files | sed …"
    )
    assert shown[15][:2] == (f"[exit 1] {pwd}", "call_LNJlEkyCt3GRASC4mjROgppk · 0 s")  # bwrap refused it
    assert shown[19][:2] == (pwd, "call_dlwMAzYqAQE8ycPydnckDckD · 0 s")  # the rerun
    assert shown[84][0].startswith("[interrupted (exit 130)] exec_command: ls -ld dataset/BonesSeed/soma_* && ")
    assert shown[84][1] == "call_C6JCNOg2gCGKJH3pWN2QwgdY · 10 s · after 1 write_stdin"
    assert shown[91][:2] == (
        'write_stdin: session 94014 "\\u0003"',  # the Ctrl-C: a chunk of line 85's call
        "call_5LGqMxsm0xlapnX0DdHSh2DR · 0 s · continues line 85",
    )
    assert shown[633][0] == "[failed] apply_patch: update dataset/preprocess_dataset.py"
    root = outline(MOTION)
    assert root.detail.endswith(" · 16 failed (first: line 16, exit 1)")
    assert root.children[0].name.startswith("turn 1 (line 4): ")  # its thread_settings_applied records are read
    assert root.children[0].detail.startswith("3 failed (first: line 16, exit 1) · ")


def test_the_cli_outline_says_the_same():
    lines = outline_text(MOTION, analysis_of(MOTION), [], PositionEncoding.UTF16).splitlines()
    assert lines[1] == "  session: 172 calls, 16 failed (first: line 16, exit 1)"
    assert "    line 16: exec_command call_LNJlEkyCt3GRASC4mjROgppk  [exit 1, 0 s]" in lines
    assert (
        "    line 85: exec_command call_C6JCNOg2gCGKJH3pWN2QwgdY  [interrupted (exit 130), 10 s, "
        "after 1 write_stdin]" in lines
    )
    assert (
        "    line 92: write_stdin call_5LGqMxsm0xlapnX0DdHSh2DR  [completed, exit 130, 0 s, continues line 85]" in lines
    )


def test_a_timed_out_command():
    analysis = analysis_of(TIMEOUT)
    assert (analysis.records[27].name, record_outcome(analysis, 27).text) == ("shell_command", "timed out (exit 124)")


def test_the_chunks_of_a_continued_process():
    analysis = analysis_of(MOTION)
    chunks = output_chunks(analysis, analysis.record_output(84))
    assert [line for line, _ in chunks] == [85, 92]  # the listing it printed, then the Ctrl-C's empty output
    assert chunks[0][1].splitlines()[:4] == [
        "drwxrwx--- 3 1000 1000  25 Mar 10 22:06 dataset/BonesSeed/soma_proportional",
        "drwxr-xr-x 4 root root 117 Mar 27 14:55 dataset/BonesSeed/soma_shapes",
        "drwxrwx--- 3 3000 root  25 Mar 10 22:16 dataset/BonesSeed/soma_uniform",
        "uniform-present",
    ]
    assert chunks[1] == (92, "")


def test_expansions_are_outline_children():
    name, detail, children = rows(AGENTS)[34]  # Promise.all over four known commands; the script failed
    assert (name, detail) == ("[failed] exec · 4 commands: rg -n -i --glob '*.lua' '(timer|set…", "1 command · 0.4 s")
    [call] = outline_children(AGENTS, 34)
    assert call.name.startswith("shell_command: 4 commands: rg -n -i --glob '*.lua' '(timer|settimeout|delay|tick|")
    assert [c.name[:60] for c in call.children] == [
        "shell_command: rg -n -i --glob '*.lua' '(timer|settimeout|de",
        "shell_command: rg -n -i --glob '*.lua' '(rpc|server_|client_",
        "shell_command: rg -n -i --glob '*.lua' '(bind|unbind|listen|",
        "shell_command: $lua = rg --files -g '*.lua' Script ExtendRes",
    ]
    # each at its element of the list, in the list's order (an Outline sorted by position keeps it)
    starts = [(c.range.start.line, c.range.start.character) for c in call.children]
    assert [line for line, _ in starts] == [34] * 4 and starts == sorted(set(starts))
    [dynamic] = outline_children(DYNAMIC, 19)  # tools[name] over a const array
    assert [c.name[:56] for c in dynamic.children] == [
        "shell_command: Get-Content -LiteralPath '.\\Script\\Bluepr",
        "shell_command: Get-Content -LiteralPath '.\\Script\\Bluepr",
        'shell_command: rg -n -S "SaveAir_Colli|Aire04|RunArea|Is',
        'shell_command: rg -n -S "OnComponentBeginOverlap|K2_SetA',
    ]
    assert [c.detail for c in dynamic.children] == [f"element {n} of the list" for n in (1, 2, 3, 4)]


def outline_children(name: str, line: int):
    for turn in outline(name).children:
        for row in turn.children or ():
            if row.range.start.line == line and row.kind.name == "Function":
                return row.children
    raise AssertionError(f"no row on line {line + 1}")


def label_at(name: str, line: int, index: int = 0) -> str:
    [located] = [c for c in analysis_of(name).calls_on(line) if c.index == index]
    return call_label(located.call)


def test_labels_of_each_tool_kind():
    assert label_at(AGENTS, 17) == "collaboration · spawn_agent: timer_audit (message encrypted)"
    assert (
        label_at(MCP, 1101) == "mcp__desktop-commander__write_file: /mnt/d/mybitcoin/2/cuda-bsgs-production-full/"
        "RCKangaroo/.claude/context-summary-res…"
    )
    assert label_at(MCP, 1058) == "mcp__context7__resolve-library-id: libraryName: CUDA"
    assert label_at(WEB, 93) == "web_search: open_page https://developer.gp.qq.com/api/"
    assert label_at(SKILLS, 30) == "web · run: search_query: Codex k-skill HWP 편집 스킬 사용법 (+1)"
    assert (
        label_at(MOTION, 413) == "apply_patch: add src/motion_jepa/visualization.py, delete visualize_dataset.py, "
        "add visualize_dataset.py"
    )
    assert (
        label_at(MOTION, 936) == "view_image: /source/seokhyeon/motion-jepa/motion-jepa/output/"
        "mot_base_1d-bs.512-ep.300/motion-jepa-1d-plots.png"
    )
    assert label_at(AGENTS, 13) == "update_plan: 4 steps"


def test_a_call_the_failed_script_may_not_have_reached():
    [located] = analysis_of(WEB).calls_on(95)  # an invalid workdir: the script failed at its one call, which says why
    assert call_outcome(analysis_of(WEB), located).text == "execution error: NotADirectory"


def test_files_changed_by_the_session():
    changed = changed_files(analysis_of(MOTION))
    assert len(changed) == 44
    assert [(f.path, f.final, [t.line + 1 for t in f.touches]) for f in changed[:3]] == [
        (".gitignore", "updated", [171]),
        ("dataset/preprocess_dataset.py", "added", [171, 216, 390, 395, 431, 634, 815, 823]),
        ("src/helper.py", "updated", [176]),
    ]
    result = run_cli("files", str(WILD / MOTION))
    assert result.stdout.splitlines()[:4] == [
        # three files a failed patch named by a relative path were written later by their absolute path: one file each
        f"{WILD / MOTION} (session 019f9b36-1e6d-7651-9801-5450483871e2): 44 files changed",
        "  turn 4 (line 155): Implement the plan.",
        "    .gitignore: updated (line 171)",
        "    dataset/preprocess_dataset.py: added (lines 171, 216)",
    ]
    [session] = json.loads(run_cli("files", "--json", str(WILD / MOTION)).stdout)
    assert len(session["files"]) == 44 and session["turns"][0]["turn"] == 4


def test_profiles_on_a_session_a_reader_opens():
    analysis = analysis_of(HWP)
    quiet = quiet_findings(analysis.calls)
    computed = [f for f in analysis.findings if f.code == COMPUTED_COMMAND]
    assert len(computed) == 48
    assert {severity_in(READER, f, quiet).label for f in computed} == {"hint"}  # every script completed
    assert {severity_in(AUTHOR, f, quiet).label for f in computed} == {"warning"}
    shown = json.loads(run_cli("check", "--json", "--profile", "reader", str(WILD / HWP)).stdout)
    # its one information finding was thread_settings_applied's unknown-record: a record read now (issue 21)
    assert [(d["code"], d["severity"]) for d in shown if d["severity"] != "hint"] == []


def test_export_of_a_real_session():
    out = export(analysis_of(MOTION), MOTION, "md")
    assert "- **Codex version**: 0.145.0\n" in out
    assert "## Turn 1 (line 4) · 3 failed (first: line 16, exit 1)\n" in out
    assert (
        "### `[interrupted (exit 130)] exec_command` (line 85) · interrupted (exit 130) · 10 s · "
        "after 1 write\\_stdin\n" in out
    )


def hover(name: str, line: int, column: int, uri: str = "file:///r.jsonl") -> str:
    from lsprotocol import types

    from lsp_server.features.hover import HoverFeature

    feature = HoverFeature.__new__(HoverFeature)
    feature.server = SimpleNamespace(masker=Masker(), settings=SimpleNamespace(hover_output_lines=3))
    feature.uri = uri
    return feature.hover_of(analysis_of(name), types.Position(line, column), PositionEncoding.UTF16).contents.value


def test_hovers_say_what_a_reviewer_asks():
    spawn = hover(AGENTS, 17, 5)
    assert spawn.startswith(
        "**collaboration · spawn\\_agent** · tool · executed: yes \\(a call Codex made\\)\n\n"
        "its `message` is encrypted: the words the subagent was given are in its own rollout\n\n"
    )
    interrupted = hover(MOTION, 84, 10)  # the command continued by write_stdin: both chunks, the listing first
    assert (
        "**output** in 2 chunks ([line 86](file:///r.jsonl#L86), [line 93](file:///r.jsonl#L93)): "
        "interrupted \\(exit 130\\) · 10 s · after 1 write\\_stdin" in interrupted
    )
    assert (
        "chunk 1 ([line 86](file:///r.jsonl#L86)):\n\n```\n"
        "drwxrwx--- 3 1000 1000  25 Mar 10 22:06 dataset/BonesSeed/soma_proportional\n" in interrupted
    )
    assert interrupted.endswith("chunk 2 ([line 93](file:///r.jsonl#L93), write\\_stdin): no output")


ROCKET = "doudouqie66__CommonTools__rollout-2026-07-27T15-55-30-019fa292-6130-7d30-aaf2-e967b06d7824.jsonl"


def test_a_command_the_script_threw_is_marked_with_its_exit_code():
    """Windows sessions: a `shell_command` that exits non-zero throws its result as the script's error
    (`Script error:\\nExit code: 1\\nWall time: …`); the script's one command is the one that failed."""
    analysis = analysis_of(ROCKET)
    marked = [(c.line + 1, o.text) for c in analysis.calls if (o := call_outcome(analysis, c)) is not None and o.failed]
    assert marked == [
        (29, "exit 1"),
        (61, "exit 1"),
        (103, "exit 1"),
        (354, "exit 1"),
        (385, "timed out (exit 124)"),
        (641, "exit 1"),
        (683, "exit 1"),
        (811, "exit 1"),
        (844, "exit 1"),
        (988, "exit 1"),
        (992, "exit 1"),
        (1038, "exit 1"),
    ]
    assert call_label(analysis.calls_on(28)[0].call) == "shell_command: jq --version"
