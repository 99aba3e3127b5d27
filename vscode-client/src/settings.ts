// What the extension sends the server and which documents it gives it. Pure logic, no `import 'vscode'`.

export const CODES = [
  "invalid-json", "record-shape", "script-syntax", "dead-branch", "computed-command", "expanded-command",
  "unresolved-patch-path", "patch-syntax", "unpaired-call", "secret", "dynamic-code",
  "invocation-invalid", "invocation-shape", "invocation-exit", "invocation-tool", "invocation-order", "invocation-empty",
  "unexplained-invocation", "missing-invocation", "exit-mismatch", "unknown-record", "unmatched-event",
  "event-contradicts", "turn-failed", "parent-missing", "file-limit",
] as const;

export const DEFAULT_FILES = ["**/rollout-*.jsonl", "**/.codex/{sessions,archived_sessions}/**/*.jsonl"];

/** Invocation logs of recording shims, linked by the server to the rollout of the same run. */
export const DEFAULT_INVOCATION_LOGS = ["**/cli_mocks/calls.jsonl"];

/** The server command of its code lenses (it shows the script through window/showDocument). */
export const SERVER_SHOW_SCRIPT = "rollout-lsp.showDecodedScript";
/** The server command of an informational lens (a session's totals): it shows the lens's text as a message. */
export const SERVER_SHOW_INFO = "rollout-lsp.showInfo";

/** The language of rollouts: the extension's, with word wrap on and no word-based suggestions by default. */
export const ROLLOUT_LANGUAGE = "rollout";

/** Every JSON Lines file, whatever its name: the server answers only when its content is a rollout (its first
 * records), and stays quiet for other files. `.jsonl.zst` files are not text: they go to the Large Rollout
 * view, which has the server read them from disk. */
export const ANY_JSON_LINES = "**/*.jsonl";

/** Hovers show transcript text: never trusted (no command links), never HTML. */
export const MARKDOWN_OPTIONS = Object.freeze({ isTrusted: false, supportHtml: false });

export type DocumentFilter = { scheme: string; pattern: string } | { scheme: string; language: string };

/** The URI schemes of the documents the server gets (local files, and files of a remote window). */
export const SERVER_SCHEMES: readonly string[] = ["file", "vscode-remote"];

/** The rollout patterns in effect: `rolloutLsp.files`, or the default when it is empty. */
export function rolloutPatterns(patterns: readonly string[] | undefined): readonly string[] {
  return patterns && patterns.length ? patterns : DEFAULT_FILES;
}

/** Documents by path pattern, with no language filter, so files mapped to `json` match too: every JSON Lines
 * file (the server decides by content), the rollout patterns (which may name other files), invocation logs
 * (`invocationLogs`; an empty list selects none), and any document in the rollout language (a file switched to
 * it with "Treat as Rollout"). */
export function documentSelector(patterns: readonly string[] | undefined,
                                 invocationLogs: readonly string[] = DEFAULT_INVOCATION_LOGS): DocumentFilter[] {
  const chosen = [...new Set([ANY_JSON_LINES, ...rolloutPatterns(patterns), ...invocationLogs])];
  const byPattern = chosen.flatMap((pattern) => SERVER_SCHEMES.map((scheme) => ({ scheme, pattern })));
  return [...byPattern, ...SERVER_SCHEMES.map((scheme) => ({ scheme, language: ROLLOUT_LANGUAGE }))];
}

export type Getter = <T>(key: string, fallback: T) => T;

/** The server's initializationOptions from the `rolloutLsp` settings (the keys the server reads). */
export function initializationOptions(get: Getter): Record<string, unknown> {
  const severity = get<Record<string, string>>("severity", {});
  const known = Object.fromEntries(Object.entries(severity).filter(([code]) => (CODES as readonly string[]).includes(code)));
  return {
    severity: known,
    secretPatterns: get<string[]>("secretPatterns", []),
    hoverOutputLines: get<number>("hoverOutputLines", 20),
    files: get<string[]>("files", DEFAULT_FILES),
    invocationLogs: get<string[]>("invocationLogs", DEFAULT_INVOCATION_LOGS),
    debounceMs: get<number>("debounceMs", 30),
    // vscode-languageclient 9 empties the Problems view each time it cancels a pull request (while typing):
    // published diagnostics replace the old ones only when the new ones are ready
    pullDiagnostics: false,
  };
}

/** Settings whose change needs a new server (how it starts, which documents it gets). */
export function needsRestart(changed: (section: string) => boolean): boolean {
  return ["rolloutLsp.server", "rolloutLsp.files", "rolloutLsp.invocationLogs"].some(changed);
}

/** The read-only URI of an exec record's decoded script. */
export function scriptUri(documentUri: string, line: number, callId: string | null): string {
  const name = (callId || `line-${line + 1}`).replace(/[^A-Za-z0-9_.-]/g, "_");
  const query = new URLSearchParams({ uri: documentUri, line: String(line) }).toString();
  return `rollout-script:/${name}.js?${query}`;
}

export function parseScriptUri(query: string): { uri: string; line: number } | null {
  const params = new URLSearchParams(query);
  const uri = params.get("uri");
  const line = Number(params.get("line"));
  return uri && Number.isInteger(line) && line >= 0 ? { uri, line } : null;
}

/** The `type`s of a rollout's records: analysis/session/records.py's KNOWN_TYPES (tests/test_vscode_sniff.py
 * holds the two lists equal). */
export const ROLLOUT_RECORD_TYPES: readonly string[] = [
  "session_meta", "response_item", "compacted", "turn_context", "event_msg", "inter_agent_communication",
  "inter_agent_communication_metadata", "world_state", "token_usage_record", "security_risk_score",
  "retained_context", "realtime_item", "rollout_reference", "fork_reference",
];

/** Records looked at before a file is taken as no rollout (analysis/session/sniff.py's SAMPLE). */
export const SNIFF_SAMPLE = 50;

/** Whether one decoded line makes its file a rollout: analysis/session/sniff.py's `is_rollout_value`, the rule
 * the server decides by (a rollout record's `type`; for Codex before 0.58, the envelope-less header or a
 * `record_type` state line; a bare `{"type": "message"}` is other tools' chat log). */
export function isRolloutValue(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  if ("type" in record && record.type !== null) return typeof record.type === "string" && ROLLOUT_RECORD_TYPES.includes(record.type);
  if ("payload" in record) return false;
  if ("record_type" in record) return true;
  return typeof record.id === "string" && typeof record.timestamp === "string"
    && ("instructions" in record || "git" in record);
}

/** Whether one of the first ``sample`` records (non-blank lines) makes the text a rollout (sniff.py's
 * `looks_like_rollout`): a line that does not parse is skipped, as there. */
export function looksLikeRollout(lines: Iterable<string>, sample = SNIFF_SAMPLE): boolean {
  let seen = 0;
  for (const line of lines) {
    if (!line.trim()) continue;
    if (++seen > sample) return false;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    if (isRolloutValue(value)) return true;
  }
  return false;
}

/** Languages a JSON Lines file may open in before its content says it is a rollout. */
export const SNIFFED_LANGUAGES: readonly string[] = ["jsonl", "json", "plaintext"];

/** Whether a document opened in ``languageId`` at ``path`` is one to look into: a `.jsonl` file (any name) that
 * is not already in the rollout language. */
export function sniffsLanguage(languageId: string, path: string, scheme: string): boolean {
  return SERVER_SCHEMES.includes(scheme) && /\.jsonl$/i.test(path) && SNIFFED_LANGUAGES.includes(languageId);
}

/** The answer of the server's `rollout-lsp.nextFailure` and `rollout-lsp.previousFailure`. */
export interface FailureStop {
  line: number; character?: number; outcome: string; index?: number; count?: number; wrapped?: boolean;
}

/** The status bar's text after Next or Previous Failed Call: where it went, which of how many, and that it went
 * round (the server also says so in a message). */
export function failureStatus(found: FailureStop, forward: boolean): string {
  const of = found.index !== undefined && found.count !== undefined ? ` (${found.index} of ${found.count})` : "";
  const round = found.wrapped ? (forward ? ", back to the first" : ", back to the last") : "";
  return `Rollout: failed call${of} at line ${found.line + 1}, ${found.outcome}${round}`;
}
