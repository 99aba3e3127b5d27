import { strict as assert } from "node:assert";
import { test } from "node:test";

import { LINK_LOG, OpenDocument, fileName, isInvocationLog, linkArguments, linkChoices, linkSummary }
  from "../src/invocationLink";
import { DEFAULT_INVOCATION_LOGS } from "../src/settings";

const LOG: OpenDocument = { uri: "file:///work/run%201/cli_mocks/calls.jsonl", scheme: "file", path: "/work/run 1/cli_mocks/calls.jsonl" };
const RUN1: OpenDocument = { uri: "file:///work/run%201/rollout-run1.jsonl", scheme: "file", path: "/work/run 1/rollout-run1.jsonl" };
const RUN2: OpenDocument = {
  uri: "vscode-remote://ssh-remote%2Bbox/home/u/.codex/sessions/2026/11/30/session.jsonl", scheme: "vscode-remote",
  path: "/home/u/.codex/sessions/2026/11/30/session.jsonl",
};
const OPEN: OpenDocument[] = [
  LOG, RUN1,
  { uri: "file:///work/notes.jsonl", scheme: "file", path: "/work/notes.jsonl" },  // no rollout pattern
  { uri: "rollout-script:/call_1.js?uri=x", scheme: "rollout-script", path: "/call_1.js" },  // the server never has it
  { uri: "git:/work/run%201/rollout-run1.jsonl?%7B%7D", scheme: "git", path: "/work/run 1/rollout-run1.jsonl" },
  RUN2, RUN1,  // VS Code lists a document once; a repeat is dropped all the same
];

test("the command is the server's, and a log is a server document matching invocationLogs", () => {
  assert.equal(LINK_LOG, "rollout-lsp.linkInvocationLog");
  assert.equal(isInvocationLog(LOG, DEFAULT_INVOCATION_LOGS), true);
  assert.equal(isInvocationLog({ ...LOG, scheme: "vscode-remote" }, DEFAULT_INVOCATION_LOGS), true);
  assert.equal(isInvocationLog({ ...LOG, scheme: "git" }, DEFAULT_INVOCATION_LOGS), false);
  assert.equal(isInvocationLog(RUN1, DEFAULT_INVOCATION_LOGS), false);
  assert.equal(isInvocationLog(LOG, []), false);
  assert.equal(isInvocationLog({ ...LOG, path: "/work/shims/run.log" }, ["**/shims/*.log"]), true);
});

test("the choices are the open rollouts the server has, then Choose automatically", () => {
  const choices = linkChoices(OPEN, undefined, DEFAULT_INVOCATION_LOGS,
    { log: LOG.uri, rollout: RUN1.uri, named: false, matched: 2, unexplained: 1, missing: 1 });
  assert.deepEqual(choices, [
    { label: "rollout-run1.jsonl", description: "linked now (chosen automatically)", detail: "/work/run 1", rollout: RUN1.uri },
    { label: "session.jsonl", description: "", detail: "/home/u/.codex/sessions/2026/11/30", rollout: RUN2.uri },
    { label: "Choose automatically", description: "now: rollout-run1.jsonl",
      detail: "the open rollout whose commands explain the most invocations", rollout: null },
  ]);
});

test("a named link is marked on its rollout, not on Choose automatically", () => {
  const choices = linkChoices(OPEN, [], DEFAULT_INVOCATION_LOGS, { log: LOG.uri, rollout: RUN2.uri, named: true });
  assert.deepEqual(choices.map((c) => [c.label, c.description]),
    [["rollout-run1.jsonl", ""], ["session.jsonl", "linked now"], ["Choose automatically", ""]]);
  const none = linkChoices(OPEN, undefined, DEFAULT_INVOCATION_LOGS, { log: LOG.uri, rollout: null, named: false });
  assert.deepEqual(none.map((c) => c.description), ["", "", "now: none"]);
});

test("the choices follow rolloutLsp.files and never offer a log", () => {
  const choices = linkChoices(OPEN, ["**/*.jsonl"], DEFAULT_INVOCATION_LOGS, null);
  assert.deepEqual(choices.map((c) => c.rollout), [RUN1.uri, "file:///work/notes.jsonl", RUN2.uri, null]);
  assert.deepEqual(linkChoices([LOG], undefined, DEFAULT_INVOCATION_LOGS, null).map((c) => c.rollout), [null]);
});

test("a rollout is shown by its path relative to the workspace when there is one", () => {
  const shown = [{ ...RUN1, shown: "run 1/rollout-run1.jsonl" }, { ...RUN2, shown: "session.jsonl" },
    { uri: "file:///rollout-top.jsonl", scheme: "file", path: "/rollout-top.jsonl" }];
  assert.deepEqual(linkChoices(shown, undefined, DEFAULT_INVOCATION_LOGS, null).map((c) => [c.label, c.detail]), [
    ["rollout-run1.jsonl", "run 1"], ["session.jsonl", undefined], ["rollout-top.jsonl", "/"],
    ["Choose automatically", "the open rollout whose commands explain the most invocations"]]);
});

test("the arguments sent link the log to the picked rollout, or back to choosing with null", () => {
  const choices = linkChoices(OPEN, undefined, DEFAULT_INVOCATION_LOGS, null);
  assert.deepEqual(linkArguments(LOG.uri, choices[1]), [LOG.uri, RUN2.uri]);
  assert.deepEqual(linkArguments(LOG.uri, choices[2]), [LOG.uri, null]);
});

test("the server's answer is told with the file names and counts", () => {
  assert.equal(linkSummary({ log: LOG.uri, rollout: RUN1.uri, named: true, matched: 1, unexplained: 2, missing: 0 }),
    "Rollout: calls.jsonl is linked to rollout-run1.jsonl: 1 invocation explained, 2 unexplained, 0 commands with no invocation.");
  assert.equal(linkSummary({ log: LOG.uri, rollout: RUN2.uri, named: false, matched: 3, unexplained: 0, missing: 1 }),
    "Rollout: calls.jsonl is linked to session.jsonl (chosen automatically): 3 invocations explained, 0 unexplained, "
    + "1 command with no invocation.");
  assert.equal(linkSummary({ log: LOG.uri, rollout: null, named: false }),
    "Rollout: calls.jsonl is linked to no rollout (no open rollout runs its tools).");
  assert.equal(linkSummary({ log: LOG.uri, rollout: "file:///work/closed%20one.jsonl", named: true }),
    "Rollout: calls.jsonl is linked to closed one.jsonl, which is not open as a rollout: it has no findings from it.");
  assert.equal(fileName("file:///a/b%ZZ.jsonl"), "b%ZZ.jsonl");
});
