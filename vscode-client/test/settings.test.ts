import { strict as assert } from "node:assert";
import { test } from "node:test";

import { DEFAULT_FILES, DEFAULT_INVOCATION_LOGS, MARKDOWN_OPTIONS, documentSelector, initializationOptions, needsRestart, parseScriptUri, scriptUri } from "../src/settings";

test("documents are selected by pattern, with no language filter", () => {
  assert.deepEqual(documentSelector(undefined), [
    { scheme: "file", pattern: "**/rollout-*.jsonl" }, { scheme: "vscode-remote", pattern: "**/rollout-*.jsonl" },
    { scheme: "file", pattern: "**/.codex/{sessions,archived_sessions}/**/*.jsonl" },
    { scheme: "vscode-remote", pattern: "**/.codex/{sessions,archived_sessions}/**/*.jsonl" },
    { scheme: "file", pattern: "**/cli_mocks/calls.jsonl" }, { scheme: "vscode-remote", pattern: "**/cli_mocks/calls.jsonl" },
  ]);
  assert.deepEqual(documentSelector(["**/*.trace.jsonl"], []), [
    { scheme: "file", pattern: "**/*.trace.jsonl" }, { scheme: "vscode-remote", pattern: "**/*.trace.jsonl" }]);
  assert.deepEqual(documentSelector(["**/*.trace.jsonl"], ["**/shims/*.log"]).map((f) => f.pattern),
    ["**/*.trace.jsonl", "**/*.trace.jsonl", "**/shims/*.log", "**/shims/*.log"]);
  assert.equal(documentSelector([]).length, 2 * (DEFAULT_FILES.length + DEFAULT_INVOCATION_LOGS.length));
  assert.ok(documentSelector(undefined).every((f) => !("language" in f)));
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
