"""The peer corpus: 100 exec scripts from six other projects' test suites, each checked against what
../shared/corpus/peer/SOURCE.md says that peer's test expects, read with its mapping rules: calls in source
order (tool, command or computed, patch files, workdir, output status); ``script-syntax`` exactly where the
peer says the script does not run; ``computed-command`` only where a computed answer is expected; where the
peer refuses a form whose value JavaScript fixes, the exact value and computed both agree (``either``)."""

import json

import pytest

from analysis import analyze_text
from analysis.reports.report import outline_json
from tests.helpers import SHARED

PEER = SHARED / "corpus" / "peer" / "cases.jsonl"
COMPUTED = object()


def call(tool, value, workdir=None, status=None):
    return (tool, value, workdir, status)


def either(*alternatives):  # SOURCE.md's {"any": [...]}
    return ("any", alternatives)


EXPECTED = {
    1: [call("exec_command", "ok")],
    2: [call("exec_command", "ok")],
    3: [call("exec_command", "echo real")],
    4: [call("exec_command", "echo real")],
    5: [call("apply_patch", COMPUTED)],
    6: [call("mcp__workflow_mcp__workflow_run_status", None)],
    7: [call("exec_command", "ls")],
    8: [call("exec_command", "echo never")],
    9: [call("apply_patch", ("never.ts",))],
    10: [call("exec_command", "ls -la"), call("exec_command", "git log")],
    11: [],
    12: [],
    13: [call("apply_patch", ("temp/a.ts",))],
    14: [call("exec_command", "ls -la")],
    15: [],
    16: [
        call(
            "exec_command",
            "git status --short --branch && git rev-parse HEAD && git rev-parse origin/main",
            workdir="/repo",
        ),
        call("exec_command", "gh pr view 560 --json state,mergedAt,mergeCommit,url", workdir="/repo"),
    ],
    17: [
        call("exec_command", "printf 0"),
        call("exec_command", "printf 1"),
        call("exec_command", "printf 2"),
        call("exec_command", "printf 3"),
        call("exec_command", "printf 4"),
        call("exec_command", "printf 5"),
        call("exec_command", "printf 6"),
        call("exec_command", "printf 7"),
    ],
    18: [call("exec_command", "npm test", workdir="/repo")],
    19: [
        call(
            "exec_command",
            "git diff --binary origin/main...feat/rendering-debug-mode | git apply --check",
            workdir="/repo",
        )
    ],
    20: [
        call(
            "exec_command",
            'git stash push -u -m "snapshot" && git status --short --branch && git rev-parse HEAD && git rev-parse origin/main && git stash list -1',
        )
    ],
    21: [call("exec_command", 'cd "/tmp/a dir" && claude -p "hi there"')],
    22: [call("exec_command", "sh -c 'claude -p hi'")],
    23: [call("exec_command", "claude -p hi")],
    24: [call("exec_command", 'claude -p "hi"')],
    25: [call("exec_command", "claude -p hi")],
    26: [call("exec_command", "claude -p hi")],
    27: [call("exec_command", "claude -p hi")],
    28: [call("exec_command", "claude -p hi")],
    29: [call("exec_command", "claude -p hi")],
    30: [call("exec_command", "bash"), call("write_stdin", None)],
    31: [call("mcp__cross_agent__delegate", None)],
    32: [call("exec_command", "ls")],
    33: [call("exec_command", "ls")],
    34: [call("exec_command", "ls")],
    35: [],
    36: [call("exec_command", COMPUTED)],
    37: [either(call("mcp__cross_agent__delegate", None), call(None, COMPUTED))],
    38: [call("write_stdin", None)],
    39: [call("exec_command", "printf inside > ./PROBE-6b-inside.txt", workdir="/sample/.worktrees/6b-codex")],
    40: [],
    41: [call("mcp__cross_agent__list_roles", None)],
    42: [call("exec_command", "wc -l README.md")],
    43: [either(call("exec_command", COMPUTED))],
    44: [either(call("exec_command", "ls"), call("exec_command", COMPUTED))],
    45: [either(call("exec_command", COMPUTED))],
    46: [either(call("exec_command", "ls"), call("exec_command", COMPUTED))],
    47: [either(call("exec_command", "ls"), call("exec_command", COMPUTED))],
    48: [either(call("exec_command", "ls"), call(None, COMPUTED))],
    49: [call("exec_command", COMPUTED)],
    50: [call("exec_command", COMPUTED)],
    51: [call("exec_command", "ls")],
    52: [call("exec_command", "ls")],
    53: [call("exec_command", "ls")],
    54: [call("exec_command", "claude -p hi")],
    55: [call("exec_command", "claude -p hi")],
    56: [call("exec_command", "ls")],
    57: [call("exec_command", "ls")],
    58: [call("exec_command", "ls")],
    59: [call("exec_command", "echo hi > out", workdir="/repo")],
    60: [call("exec_command", "echo hi > out", workdir="/repo")],
    61: [call("exec_command", "echo hi > out", workdir="/repo")],
    62: [call("exec_command", "echo a > out\n")],
    63: [call("exec_command", "echo > fake")],
    64: [],
    65: [],
    66: [call("exec_command", COMPUTED)],
    67: [either(call("exec_command", "echo > fake"), call("exec_command", COMPUTED))],
    68: [either(call("exec_command", "echo > fake"), call("exec_command", COMPUTED))],
    69: [either(call("exec_command", "two"), call("exec_command", COMPUTED))],
    70: [call("exec_command", COMPUTED)],
    71: [either(call("exec_command", "one"), call("exec_command", COMPUTED))],
    72: [call("exec_command", "one"), call("exec_command", "two")],
    73: [either(call("exec_command", "one"), call("exec_command", COMPUTED))],
    74: [
        call("exec_command", "python3 - <<'PY'\np='src/example.ts'\nopen(p,'w').write('hello')\nPY\ngit diff --check"),
        call("mcp__agmux_memory__session_upsert", None),
    ],
    75: [call("exec_command", "echo hi > fake")],
    76: [],
    77: [call("exec_command", COMPUTED)],
    78: [call("write_stdin", None), call("exec_command", "npx tsc --noEmit")],
    79: [call("write_stdin", None)],
    80: [call("apply_patch", ("a.rs",), status="completed"), call("exec_command", "cargo test", status="completed")],
    81: [call("apply_patch", ("a",))],
    82: [],
    83: [call("exec_command", "rg x"), call("apply_patch", ("a",))],
    84: [call("exec_command", "ls -la", workdir="/tmp/p")],
    85: [call("exec_command", "awk '{print: $1}' a.txt", workdir="/w")],
    86: [call("exec_command", "sleep 1")],
    87: [call("write_stdin", None)],
    88: [call("exec_command", "x"), call("exec_command", "y")],
    89: [call("exec_command", "ls", status="completed")],
    90: [call("exec_command", "boom", status="failed")],
    91: [call("exec_command", "cat src/app/main.py")],
    92: [call("exec_command", "echo ready"), call("exec_command", "tlapm PrivateChild.tla")],
    93: [],
    94: [],
    95: [either(call("exec_command", "tlapm Dynamic.tla"), call("exec_command", COMPUTED))],
    96: [either(call("exec_command", COMPUTED))],
    97: [either(call("exec_command", "echo safe"), call("exec_command", COMPUTED))],
    98: [either(call("exec_command", COMPUTED))],
    99: [either(call("exec_command", "echo safe"), call("exec_command", COMPUTED))],
    100: [],
}
# the peer says the script does not run: V8 refuses it (7, 35 and 100 do not parse; 49 and 50 hold legacy octal
# escapes, which module code forbids)
REFUSED = {7, 35, 49, 50, 100}
NEVER = {"patch-syntax", "unresolved-patch-path", "invalid-json", "record-shape", "dynamic-code"}


@pytest.fixture(scope="module")
def peer():
    text = PEER.read_bytes().decode("utf-8")
    analysis = analyze_text(text)
    out = outline_json(str(PEER), analysis)
    lines = text.split("\n")
    cases = {}
    for index, line in enumerate(lines):
        payload = json.loads(line)["payload"] if line.strip() else {}
        if payload.get("type") == "custom_tool_call":
            cases[int(payload["call_id"][len("peer_") :])] = index
    calls, codes = {}, {}
    for c in out["calls"]:
        calls.setdefault(c["line"], []).append(c)
    for d in out["diagnostics"]:
        codes.setdefault(d["range"]["start"]["line"], set()).add(d["code"])
    return cases, calls, codes


def answer(c):
    if c["tool"] is None:  # tools[name] with a name known only at run time
        value = COMPUTED
    elif c["kind"] == "command":
        value = COMPUTED if c["command"] is None else c["command"]
    elif c["kind"] == "patch":
        value = COMPUTED if c["computed"] else tuple(f["path"] for f in c["files"])
    else:
        value = None
    return (c["tool"], value, c["workdir"], (c["output"] or {}).get("status"))


def agrees(expected, got):
    if isinstance(expected, tuple) and expected[0] == "any":
        return got in expected[1]
    return got == expected


def test_every_case_is_pinned(peer):
    cases, _, _ = peer
    assert sorted(cases) == list(range(1, 101)) == sorted(EXPECTED)


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_peer_case(peer, case):
    cases, calls, codes = peer
    line = cases[case]
    got = [answer(c) for c in calls.get(line, [])]
    expected = EXPECTED[case]
    assert len(got) == len(expected) and all(agrees(e, g) for e, g in zip(expected, got)), got
    found = codes.get(line, set())
    assert ("script-syntax" in found) == (case in REFUSED)
    assert not found & NEVER
    may_be_computed = any(g[1] is COMPUTED or g[0] is None for g in got)
    assert "computed-command" not in found or may_be_computed


def test_all_one_hundred_agree(peer):
    cases, calls, codes = peer
    agreed = 0
    for case, expected in EXPECTED.items():
        got = [answer(c) for c in calls.get(cases[case], [])]
        if (
            len(got) == len(expected)
            and all(agrees(e, g) for e, g in zip(expected, got))
            and ("script-syntax" in codes.get(cases[case], set())) == (case in REFUSED)
        ):
            agreed += 1
    assert agreed == 100
