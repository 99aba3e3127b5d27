"""Real exec scripts from ../shared/corpus/wild/ (SHAPES.md says where each shape is): every command tool
read as a command, exact constant values and expansions, and which calls run whenever their script completes."""

from functools import cache

from analysis import analyze_text
from analysis.reports.report import outline_json
from tests.helpers import SHARED

WILD = SHARED / "corpus" / "wild"
WINDOWS = "doudouqie66__CommonTools__rollout-2026-06-11T11-07-05-019eb4a5-ce35-7110-979d-d1ef09ca4131.jsonl"
FILES_MAP = "doudouqie66__CommonTools__rollout-2026-06-11T11-01-20-019eb4a0-8879-77f1-b27a-dc6ad5b9e046.jsonl"
TUPLES = "doudouqie66__CommonTools__rollout-2026-07-28T10-47-45-019fa69e-fd46-7541-88cc-0f3cc262b77c.jsonl"
KOREAN = "seokhyeonhong__motion-jepa__rollout-2026-08-01T07-19-28-019fba42-ce37-78e1-a43b-ca31d6ad2dbe.jsonl"
UGC = "C:\\WeGameApps\\rail_apps\\OasisEraEditor(2001776)\\ShadowTrackerExtra\\UGCProjects\\"


@cache
def analysis_of(name: str):
    analysis = analyze_text((WILD / name).read_bytes().decode("utf-8"))
    return analysis, outline_json(name, analysis)


def calls_on(name: str, line: int) -> list[dict]:
    return [c for c in analysis_of(name)[1]["calls"] if c["line"] == line - 1]


def findings_on(name: str, line: int) -> list[tuple[str, str]]:
    return [
        (d["code"], d["severity"])
        for d in analysis_of(name)[1]["diagnostics"]
        if d["range"]["start"]["line"] == line - 1
    ]


def test_shell_command_in_a_script_is_a_command():
    [call] = calls_on(WINDOWS, 96)
    assert (call["tool"], call["kind"], call["command"], call["workdir"], call["computed"]) == (
        "shell_command",
        "command",
        "Get-Content $env:USERPROFILE\\.codex\\AGENTS.md -Raw",
        "c:" + UGC[2:] + "test_03",
        False,
    )
    assert analysis_of(WINDOWS)[0].calls_on(95)[0].call.arguments == {"timeout_ms": 10000}
    assert findings_on(WINDOWS, 96) == []


def test_shell_command_over_a_mapped_const_array():
    [call] = calls_on(FILES_MAP, 471)
    assert (call["tool"], call["kind"], call["command"], call["workdir"], call["computed"]) == (
        "shell_command",
        "command",
        None,
        UGC + "Test_01",
        True,
    )
    assert call["expansion"] == [
        f"$i=0; Get-Content -LiteralPath '{f}' | ForEach-Object {{ $i++; '{{0,4}}: {{1}}' -f $i, $_ }}"
        for f in (
            "ExtendResource\\JUMP\\BionicBoot\\Script\\Blueprint\\UGCGameState.lua",
            "Script\\Blueprint\\UGCGameState.lua",
            "Script\\Blueprint\\UI\\MainUI.lua",
            "Script\\L_Enum_Event.lua",
        )
    ]
    assert findings_on(FILES_MAP, 471) == [("expanded-command", "information")]


def test_no_command_call_of_the_corpus_is_left_unread():
    """Every command-running call has its exact command, its exact expansion, or is computed (and says so)."""
    unread = []
    for path in sorted(WILD.glob("*.jsonl")):
        analysis, _ = analysis_of(path.name)
        for located in analysis.calls:
            call = located.call
            if call.tool in ("shell_command", "shell", "exec_command", "container.exec", "local_shell"):
                if call.kind != "command" or call.command is None and not call.computed:
                    unread.append((path.name, located.line + 1, call.tool))
    assert unread == []


def test_numeric_array_mapped_into_a_command():
    [call] = calls_on(KOREAN, 51)
    assert (call["command"], call["computed"], call["workdir"]) == (None, True, "/source/seokhyeon/tmp")
    assert call["expansion"] == [
        f"npx --yes k-skill-rhwp render ./귀국보고서.hwp --page {page} --format html" for page in (0, 1, 2)
    ]
    assert analysis_of(KOREAN)[0].calls_on(50)[0].call.arguments["prefix_rule"] == ["npx", "--yes", "k-skill-rhwp"]
    assert findings_on(KOREAN, 51) == [("expanded-command", "information")]
    # a spread of the same map beside a literal call
    info, render = calls_on(KOREAN, 88)
    assert info["command"] == "npx --yes k-skill-rhwp info ./귀국보고서_SIGGRAPH_2026.hwp"
    assert render["expansion"] == [
        f"npx --yes k-skill-rhwp render ./귀국보고서_SIGGRAPH_2026.hwp --page {page} --format html"
        for page in (0, 1, 2)
    ]


def test_command_built_by_concatenation_of_consts():
    edit, render = calls_on(KOREAN, 160)
    assert (edit["command"], edit["computed"]) == (
        "npx --yes k-skill-rhwp set-cell-text ./귀국보고서_SIGGRAPH_2026_수정.hwp /tmp/paragraph_test.hwp "
        "--section 0 --parent-paragraph 1 --control 0 --cell 5 --cell-paragraph 0 "
        "--text '첫 번째 일정 문장입니다.\n두 번째 일정 문장입니다.\n세 번째 일정 문장입니다.'",
        False,
    )
    assert render["command"] == "npx --yes k-skill-rhwp render /tmp/paragraph_test.hwp --page 0 --format html"
    assert findings_on(KOREAN, 160) == []
    # line 170 builds its command from a `let` and JSON.stringify in a loop: not exactly known, and said so
    [loop] = calls_on(KOREAN, 170)
    assert (loop["command"], loop["computed"], loop["expansion"]) == (None, True, None)
    assert findings_on(KOREAN, 170) == [("computed-command", "warning")]


def test_tools_name_over_a_const_array_of_tuples():
    [call] = calls_on(TUPLES, 20)
    assert (call["tool"], call["kind"], call["command"], call["computed"], call["workdir"]) == (
        "shell_command",
        "command",
        None,
        True,
        UGC + "chongzita",
    )
    assert call["expansion_tools"] == ["shell_command"] * 4
    assert call["expansion"][0] == (
        "Get-Content -LiteralPath '.\\Script\\Blueprint\\Actor\\SaveAir_Colli.lua'; "
        "Get-Content -LiteralPath '.\\Script\\Blueprint\\Prefabs\\Regions\\Aire04.lua'; "
        "Get-Content -LiteralPath '.\\Script\\Blueprint\\Actor\\RunArea.lua'"
    )
    assert call["expansion"][3].startswith('rg -n -S "OnComponentBeginOverlap|K2_SetActorLocation|TeleportTo|碰撞|')
    assert findings_on(TUPLES, 20) == [("expanded-command", "information")]
    # a const array of objects read through `c.url` in a for…of with try/catch
    [loop] = calls_on(TUPLES, 30)
    assert [e.split(" -Method")[0] for e in loop["expansion"]] == [
        "$r=Invoke-WebRequest -Uri 'http://127.0.0.1:12463'",
        "$r=Invoke-WebRequest -Uri 'http://127.0.0.1:12463/mcp'",
    ]


def test_calls_that_run_whenever_the_script_completes():
    unconditional = lambda name, line: [c.call.unconditional for c in analysis_of(name)[0].calls_on(line - 1)]  # noqa
    assert unconditional(WINDOWS, 96) == [True]  # `const r = await tools.shell_command(…)` at the top level
    assert unconditional(KOREAN, 160) == [True, False]  # the second comes after `if (…) { …; exit(); }`
    assert unconditional(TUPLES, 20) == [False]  # in a .map callback, inside try
    assert unconditional(FILES_MAP, 471) == [False]  # in a .map callback
    assert unconditional(KOREAN, 88) == [True, False]  # an array element of Promise.all; a map callback
