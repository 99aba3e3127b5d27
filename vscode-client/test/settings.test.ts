import { strict as assert } from "node:assert";
import { test } from "node:test";

import { DEFAULT_FILES, DEFAULT_INVOCATION_LOGS, MARKDOWN_OPTIONS, documentSelector, initializationOptions, needsRestart, parseScriptUri, scriptUri } from "../src/settings";

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
