import { strict as assert } from "node:assert";
import { test } from "node:test";

import {
  Call, DEFAULT_LARGE_MODE, EXTENSION_SYNC_LIMIT, LENS_LINE_LIMIT, LENS_SIZE_LIMIT, Lens, Turn, WINDOW_LINES, callLabel,
  callRange, callStatus, confirmationLimit, filterLabel, globRegExp, groupByTurn, isCompressed, isRolloutPath,
  largeRolloutAction, leftWithoutTab, lensSummary, lensesRefused, matchesFilter, megabytes, opensPastConfirmation, publishesProblems,
  severityNumber, turnLabel, windowDocument, windowStart,
} from "../src/largeFiles";
import { DEFAULT_FILES } from "../src/settings";

const MB = 1024 * 1024;

test("the rollout patterns match as VS Code's document filters do", () => {
  assert.equal(isRolloutPath("/home/u/logs/rollout-2026-07-20T10-00-00-abc.jsonl", DEFAULT_FILES), true);
  assert.equal(isRolloutPath("/home/u/.codex/sessions/2026/07/20/anything.jsonl", DEFAULT_FILES), true);
  assert.equal(isRolloutPath("/home/u/.codex/archived_sessions/x.jsonl", DEFAULT_FILES), true);
  assert.equal(isRolloutPath("C:\\Users\\u\\.codex\\sessions\\2026\\x.jsonl", DEFAULT_FILES), true);
  assert.equal(isRolloutPath("/home/u/.codex/history.jsonl", DEFAULT_FILES), false);
  assert.equal(isRolloutPath("/home/u/logs/rollout-a.jsonl.bak", DEFAULT_FILES), false);
  assert.equal(isRolloutPath("/home/u/logs/my-rollout-a.jsonl", DEFAULT_FILES), false);
  assert.equal(isRolloutPath("/data/run.trace.jsonl", ["**/*.trace.jsonl"]), true);
  assert.equal(isRolloutPath("/data/run.trace.jsonl", []), false);
  assert.equal(globRegExp("**/rollout-*.jsonl").test("rollout-a.jsonl"), true);  // `**/` is also no folder
  assert.equal(globRegExp("**/rollout-*.jsonl").test("/a/rollout-b/c.jsonl"), false);  // `*` stays in one name
  assert.equal(globRegExp("/srv/{a,b}/?.jsonl").test("/srv/b/x.jsonl"), true);
  assert.equal(globRegExp("/srv/{a,b}/?.jsonl").test("/srv/c/x.jsonl"), false);
  assert.equal(globRegExp("/srv/*.jsonl").test("/srv/d/x.jsonl"), false);
});

test("only a rollout over VS Code's 50 MB sync limit is read from disk, once, as the setting says", () => {
  const file = "/home/u/logs/rollout-big.jsonl";
  assert.equal(EXTENSION_SYNC_LIMIT, 50 * MB);
  assert.equal(DEFAULT_LARGE_MODE, "open");
  assert.equal(largeRolloutAction(file, 60 * MB, DEFAULT_FILES, "open", false), "open");
  assert.equal(largeRolloutAction(file, 60 * MB, DEFAULT_FILES, "ask", false), "ask");
  assert.equal(largeRolloutAction(file, 60 * MB, DEFAULT_FILES, "off", false), "none");
  assert.equal(largeRolloutAction(file, 60 * MB, DEFAULT_FILES, "open", true), "none");  // already read
  assert.equal(largeRolloutAction(file, 50 * MB, DEFAULT_FILES, "open", false), "none");  // the editor syncs it
  assert.equal(largeRolloutAction(file, 50 * MB + 1, DEFAULT_FILES, "open", false), "open");
  assert.equal(largeRolloutAction("/home/u/big-table.jsonl", 60 * MB, DEFAULT_FILES, "open", false), "none");
});

test("a compressed rollout goes to the view whatever its size or name: the editor cannot read it", () => {
  assert.equal(isCompressed("/home/u/rollout-a.jsonl.zst"), true);
  assert.equal(isCompressed("/home/u/rollout-a.jsonl"), false);
  assert.equal(largeRolloutAction("/home/u/copied.jsonl.zst", 1 * MB, DEFAULT_FILES, "open", false), "open");
  assert.equal(largeRolloutAction("/home/u/copied.jsonl.zst", 1 * MB, DEFAULT_FILES, "ask", false), "ask");
  assert.equal(largeRolloutAction("/home/u/copied.jsonl.zst", 1 * MB, DEFAULT_FILES, "off", false), "none");
  assert.equal(largeRolloutAction("/home/u/copied.jsonl.zst", 1 * MB, DEFAULT_FILES, "open", true), "none");
});

const base: Call = {
  line: 0, tool: "exec_command", kind: "command", command: "pytest -q", workdir: "/w", files: [], computed: false,
  expansion: null, executed: "yes", call_id: "c1", output: { status: "completed", exit_code: 0 },
};

test("each call's status: failed (a status or a non-zero exit), completed, no output, dead", () => {
  assert.equal(callStatus(base), "completed");
  assert.equal(callStatus({ ...base, output: { status: "completed", exit_code: 1 } }), "failed");
  assert.equal(callStatus({ ...base, output: { status: "failed" } }), "failed");
  assert.equal(callStatus({ ...base, output: null }), "no output");
  assert.equal(callStatus({ ...base, output: { status: null } }), "no output");
  assert.equal(callStatus({ ...base, executed: "no", output: null }), "dead");
});

test("the view's filter: failed calls, one tool, text in the command, expansion or files", () => {
  const failed: Call = { ...base, line: 3, command: "cargo test", output: { status: "completed", exit_code: 101 } };
  const patch: Call = { ...base, line: 5, tool: "apply_patch", kind: "patch", command: null,
    files: [{ action: "update", path: "src/Greet.py", move_to: null }] };
  const computed: Call = { ...base, line: 7, command: null, computed: true, expansion: ["ls docs", "ls src"] };
  const calls = [base, failed, patch, computed];
  const lines = (filter: Parameters<typeof matchesFilter>[1]) => calls.filter((c) => matchesFilter(c, filter)).map((c) => c.line);
  assert.deepEqual(lines({}), [0, 3, 5, 7]);
  assert.deepEqual(lines({ failed: true }), [3]);
  assert.deepEqual(lines({ tool: "apply_patch" }), [5]);
  assert.deepEqual(lines({ text: "greet" }), [5]);  // files, case-insensitive
  assert.deepEqual(lines({ text: "ls src" }), [7]);  // the expansion of a computed command
  assert.deepEqual(lines({ tool: "exec_command", text: "test" }), [0, 3]);
  assert.deepEqual(lines({ failed: true, tool: "apply_patch" }), []);
  assert.equal(filterLabel({}), "");
  assert.equal(filterLabel({ failed: true, tool: "exec_command", text: "pytest" }), 'failed · exec_command · "pytest"');
});

test("calls are grouped by turn, in file order, with a group for calls before the first turn", () => {
  const turns: Turn[] = [{ line: 10, end_line: 19, title: "Fix   the\ntests" }, { line: 2, end_line: 9, title: "Look around" }];
  const at = (line: number, status: "ok" | "failed" = "ok"): Call => ({ ...base, line,
    output: { status: "completed", exit_code: status === "ok" ? 0 : 1 } });
  const groups = groupByTurn([at(12), at(1), at(4, "failed"), at(15, "failed"), at(5)], turns);
  assert.deepEqual(groups.map((g) => [g.turn?.line ?? null, g.calls.map((c) => c.line)]),
    [[null, [1]], [2, [4, 5]], [10, [12, 15]]]);
  assert.deepEqual(groupByTurn([at(12)], turns).map((g) => g.turn?.line), [10]);  // a turn with no call left out
  assert.deepEqual(turnLabel(turns[0], 2, groups[2].calls), { label: "turn 2 (line 11): Fix the tests",
    description: "2 calls, 1 failed" });
  assert.deepEqual(turnLabel(null, 0, groups[0].calls), { label: "before the first turn", description: "1 call" });
  assert.equal(turnLabel({ line: 0, end_line: 1, title: "x".repeat(80) }, 1, []).label, `turn 1 (line 1): ${"x".repeat(59)}…`);
});

test("a row opens a window of the file at the file's own line numbers", () => {
  assert.equal(WINDOW_LINES, 40);
  assert.equal(windowStart(10), 0);
  assert.equal(windowStart(1000), 960);
  const text = windowDocument(["{\"a\":1}", "{\"b\":2}"], 3);
  assert.equal(text, "…\n…\n…\n{\"a\":1}\n{\"b\":2}");
  assert.equal(text.split("\n")[3], "{\"a\":1}");  // line 4 of the file is line 4 here
});

test("findings go to Problems only for a file the server cannot publish for", () => {
  assert.equal(publishesProblems(50 * MB), false);
  assert.equal(publishesProblems(50 * MB + 1), true);
  assert.deepEqual(["error", "warning", "information", "hint", "other"].map(severityNumber), [0, 1, 2, 3, 1]);
});

test("a call's row names it and opens the file at its line", () => {
  const call: Call = {
    line: 41, tool: "exec_command", kind: "command", command: "pytest -q", workdir: "/w", files: [], computed: false,
    expansion: null, executed: "no", call_id: "c1", output: null,
  };
  assert.deepEqual(callLabel(call), { label: "42: exec_command", description: "pytest -q (dead)", tooltip: "pytest -q" });
  assert.deepEqual(callRange(call), { start: { line: 41, character: 0 }, end: { line: 41, character: 0 } });
  const patch: Call = { ...call, tool: "apply_patch", kind: "patch", command: null, executed: "yes",
    files: [{ action: "update", path: "a.py", move_to: null }, { action: "add", path: "b.py", move_to: null }] };
  assert.deepEqual(callLabel(patch), { label: "42: apply_patch", description: "update a.py, add b.py",
    tooltip: "update a.py, add b.py" });
  const computed: Call = { ...call, command: null, computed: true, executed: "maybe", expansion: ["ls a", "ls b"] };
  assert.deepEqual(callLabel(computed), { label: "42: exec_command", description: "computed (computed)",
    tooltip: "ls a\nls b" });
  assert.equal(megabytes(62.4 * MB), "62 MB");
});

test("VS Code's large-file confirmation: the user's value, else 10 MB remote, 50 MB in a browser, 1 GB on the desktop", () => {
  assert.equal(confirmationLimit(undefined, true, true), 10 * MB);  // code-server: a remote window in a browser
  assert.equal(confirmationLimit(undefined, true, false), 10 * MB);  // Remote - SSH
  assert.equal(confirmationLimit(undefined, false, true), 50 * MB);
  assert.equal(confirmationLimit(undefined, false, false), 1024 * MB);
  assert.equal(confirmationLimit(30, true, true), 30 * MB);
});

test("a rollout over the confirmation limit and within the sync limit is opened past the confirmation", () => {
  const file = "/home/u/.codex/sessions/2026/07/20/rollout-a.jsonl";
  assert.equal(opensPastConfirmation(file, 20 * MB, DEFAULT_FILES, 10 * MB, true), true);
  assert.equal(opensPastConfirmation(file, 10 * MB, DEFAULT_FILES, 10 * MB, true), false);  // VS Code opens it
  assert.equal(opensPastConfirmation(file, 50 * MB, DEFAULT_FILES, 10 * MB, true), true);
  assert.equal(opensPastConfirmation(file, 50 * MB + 1, DEFAULT_FILES, 10 * MB, true), false);  // the large view's
  assert.equal(opensPastConfirmation(file, 20 * MB, DEFAULT_FILES, 1024 * MB, true), false);  // the desktop
  assert.equal(opensPastConfirmation(file, 20 * MB, DEFAULT_FILES, 10 * MB, false), false);  // the setting is off
  assert.equal(opensPastConfirmation("/home/u/big-table.jsonl", 20 * MB, DEFAULT_FILES, 10 * MB, true), false);
});

test("the editor draws no lenses over 20 MB characters or 300,000 lines, unless the optimizations are off", () => {
  assert.equal(LENS_SIZE_LIMIT, 20 * MB);
  assert.equal(LENS_LINE_LIMIT, 300_000);
  assert.equal(lensesRefused(20 * MB + 1, 12_813, true, true), true);
  assert.equal(lensesRefused(20 * MB, 12_813, true, true), false);
  assert.equal(lensesRefused(1 * MB, 300_001, true, true), true);
  assert.equal(lensesRefused(1 * MB, 300_000, true, true), false);
  assert.equal(lensesRefused(30 * MB, 12_813, false, true), false);  // "[jsonl]": {"editor.largeFileOptimizations": false}
  assert.equal(lensesRefused(30 * MB, 12_813, true, false), false);  // no lenses wanted
});

test("the status bar gives the session's totals, else how many exec records have a lens", () => {
  const exec = (line: number): Lens => ({ line, title: "1 command · exit 0", command: "rolloutLsp.showDecodedScript",
    arguments: ["file:///r.jsonl", line] });
  const session: Lens = { line: 0, title: "session: 1.2M tokens · context 80k of 272k", command: null, arguments: [] };
  assert.equal(lensSummary([session, exec(4), exec(7)]), "session: 1.2M tokens · context 80k of 272k");
  assert.equal(lensSummary(Array.from({ length: 4996 }, (_, n) => exec(n))), "4,996 exec records");
  assert.equal(lensSummary([exec(4)]), "1 exec record");
  assert.equal(lensSummary([]), "0 exec records");
  const failures: Lens = { line: 0, title: "3 failed calls · first: line 8, exit 1", command: "rollout-lsp.nextFailure",
    arguments: ["file:///r.jsonl", -1] };
  const opens: Lens = { line: 7, title: "open src/app.py", command: "rollout-lsp.openChangedFile", arguments: [] };
  assert.equal(lensSummary([failures, exec(4), opens, exec(7)]), "2 exec records");
  const totals: Lens = { ...session, command: "rollout-lsp.showInfo", arguments: [session.title] };
  assert.equal(lensSummary([failures, totals, exec(4)]), "session: 1.2M tokens · context 80k of 272k");
});

test("a document leaves Problems when its last tab closes, not while another tab shows it", () => {
  assert.deepEqual(leftWithoutTab(["file:///w/a.jsonl", "file:///w/b.jsonl", "file:///w/a.jsonl"], ["file:///w/b.jsonl"]),
    ["file:///w/a.jsonl"]);
  assert.deepEqual(leftWithoutTab([], ["file:///w/b.jsonl"]), []);
});
