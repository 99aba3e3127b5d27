import { strict as assert } from "node:assert";
import { test } from "node:test";

import {
  DEFAULT_FILES, DEFAULT_INVOCATION_LOGS, MARKDOWN_OPTIONS, SNIFF_SAMPLE, documentSelector, failureStatus, initializationOptions,
  isRolloutValue, looksLikeRollout, needsRestart, parseScriptUri, scriptUri, sniffsLanguage,
} from "../src/settings";

test("every JSON Lines file, the rollout patterns, invocation logs and the rollout language are selected", () => {
  const rolloutLanguage = [{ scheme: "file", language: "rollout" }, { scheme: "vscode-remote", language: "rollout" }];
  assert.deepEqual(documentSelector(undefined), [
    { scheme: "file", pattern: "**/*.jsonl" }, { scheme: "vscode-remote", pattern: "**/*.jsonl" },
    { scheme: "file", pattern: "**/rollout-*.jsonl" }, { scheme: "vscode-remote", pattern: "**/rollout-*.jsonl" },
    { scheme: "file", pattern: "**/.codex/{sessions,archived_sessions}/**/*.jsonl" },
    { scheme: "vscode-remote", pattern: "**/.codex/{sessions,archived_sessions}/**/*.jsonl" },
    { scheme: "file", pattern: "**/cli_mocks/calls.jsonl" }, { scheme: "vscode-remote", pattern: "**/cli_mocks/calls.jsonl" },
    ...rolloutLanguage,
  ]);
  // a pattern for other files (a user's `*.trace.json`) is kept beside every .jsonl; a repeated one comes once
  assert.deepEqual(documentSelector(["**/*.trace.json", "**/*.jsonl"], []), [
    { scheme: "file", pattern: "**/*.jsonl" }, { scheme: "vscode-remote", pattern: "**/*.jsonl" },
    { scheme: "file", pattern: "**/*.trace.json" }, { scheme: "vscode-remote", pattern: "**/*.trace.json" },
    ...rolloutLanguage]);
  assert.deepEqual(documentSelector(["**/*.trace.json"], ["**/shims/*.log"]).map((f) => "pattern" in f ? f.pattern : f.language),
    ["**/*.jsonl", "**/*.jsonl", "**/*.trace.json", "**/*.trace.json", "**/shims/*.log", "**/shims/*.log", "rollout", "rollout"]);
  assert.equal(documentSelector([]).length, 2 * (1 + DEFAULT_FILES.length + DEFAULT_INVOCATION_LOGS.length + 1));
});

test("initialization options carry every server setting and drop unknown codes", () => {
  const values: Record<string, unknown> = {
    severity: { "dead-branch": "error", "no-such-code": "off" }, secretPatterns: ["tok_[0-9]+"], hoverOutputLines: 5,
  };
  const options = initializationOptions(<T>(key: string, fallback: T) => (key in values ? values[key] as T : fallback));
  assert.deepEqual(options, {
    severity: { "dead-branch": "error" }, secretPatterns: ["tok_[0-9]+"], hoverOutputLines: 5,
    files: DEFAULT_FILES, invocationLogs: DEFAULT_INVOCATION_LOGS, debounceMs: 30, pullDiagnostics: false,
  });
});

test("server and file settings restart the server; others are sent to it", () => {
  assert.equal(needsRestart((s) => s === "rolloutLsp.server"), true);
  assert.equal(needsRestart((s) => s === "rolloutLsp.files"), true);
  assert.equal(needsRestart((s) => s === "rolloutLsp.invocationLogs"), true);
  assert.equal(needsRestart((s) => s === "rolloutLsp.severity"), false);
});

test("decoded script URIs round-trip the document and line", () => {
  const uri = scriptUri("file:///home/u/.codex/sessions/2026/rollout-1.jsonl", 41, "call_A/B");
  assert.equal(uri, "rollout-script:/call_A_B.js?uri=file%3A%2F%2F%2Fhome%2Fu%2F.codex%2Fsessions%2F2026%2F" +
    "rollout-1.jsonl&line=41");
  assert.deepEqual(parseScriptUri(uri.split("?")[1]), { uri: "file:///home/u/.codex/sessions/2026/rollout-1.jsonl", line: 41 });
  assert.equal(parseScriptUri("uri=x&line=-1"), null);
  assert.equal(scriptUri("file:///r.jsonl", 0, null), "rollout-script:/line-1.js?uri=file%3A%2F%2F%2Fr.jsonl&line=0");
});

test("hover Markdown from transcripts is never trusted and never HTML", () => {
  assert.deepEqual({ ...MARKDOWN_OPTIONS }, { isTrusted: false, supportHtml: false });
  assert.ok(Object.isFrozen(MARKDOWN_OPTIONS));
});

test("a .jsonl is a rollout by its first records, by the server's rule (analysis/session/sniff.py)", () => {
  const meta = '{"timestamp":"2026-07-20T10:00:00Z","type":"session_meta","payload":{"id":"x"}}';
  assert.equal(looksLikeRollout([meta]), true);
  assert.equal(looksLikeRollout(["", "not json", meta]), true);  // blank lines and broken lines are skipped
  assert.equal(looksLikeRollout(['{"type":"message","role":"user"}']), false);  // other tools' chat logs
  assert.equal(looksLikeRollout(['{"id":"a","timestamp":"t","instructions":"…"}']), true);  // before Codex 0.58
  assert.equal(looksLikeRollout(['{"record_type":"state"}']), true);
  assert.equal(looksLikeRollout(['{"id":"a","timestamp":"t","payload":{}}']), false);
  assert.equal(looksLikeRollout(['{"ts":1,"tool":"git","argv":[],"exit":0}']), false);  // an invocation log
  assert.equal(looksLikeRollout([...Array(SNIFF_SAMPLE).fill('{"type":"other"}'), meta]), false);  // past the sample
  assert.equal(looksLikeRollout([...Array(SNIFF_SAMPLE - 1).fill('{"type":"other"}'), meta]), true);
  assert.deepEqual([isRolloutValue(null), isRolloutValue([meta]), isRolloutValue({ type: null, record_type: 1 })],
    [false, false, true]);
  assert.deepEqual([
    sniffsLanguage("jsonl", "/w/attached-session.jsonl", "file"), sniffsLanguage("json", "/w/a.JSONL", "vscode-remote"),
    sniffsLanguage("rollout", "/w/a.jsonl", "file"), sniffsLanguage("jsonl", "/w/a.json", "file"),
    sniffsLanguage("jsonl", "/w/a.jsonl", "git"),
  ], [true, true, false, false, false]);
});

test("the status bar after Next or Previous Failed Call says which of how many, and when it went round", () => {
  assert.equal(failureStatus({ line: 11, character: 310, outcome: "exit 2", index: 2, count: 3, wrapped: false }, true),
    "Rollout: failed call (2 of 3) at line 12, exit 2");
  assert.equal(failureStatus({ line: 8, character: 0, outcome: "failed", index: 1, count: 3, wrapped: true }, true),
    "Rollout: failed call (1 of 3) at line 9, failed, back to the first");
  assert.equal(failureStatus({ line: 11, outcome: "failed", index: 3, count: 3, wrapped: true }, false),
    "Rollout: failed call (3 of 3) at line 12, failed, back to the last");
  assert.equal(failureStatus({ line: 4, outcome: "exit 1" }, true), "Rollout: failed call at line 5, exit 1");
});
