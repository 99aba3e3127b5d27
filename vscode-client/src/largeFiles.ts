// Which rollouts the editor cannot give the server, and what the large-rollout view shows of them.
// Pure logic, no `import 'vscode'`: the tests import it.

/** VS Code never syncs a model over 50 MB (characters) to extensions: no didOpen, no providers, no Problems. */
export const EXTENSION_SYNC_LIMIT = 50 * 1024 * 1024;

export type LargeRolloutMode = "open" | "ask" | "off";
/** A tab that shows a rollout too large for the editor reads it at once: the editor offers nothing else for it. */
export const DEFAULT_LARGE_MODE: LargeRolloutMode = "open";

interface Position { line: number; character: number }
export interface Range { start: Position; end: Position }
export interface Call {
  line: number; tool: string | null; kind: string; command: string | null; workdir: string | null;
  files: { action: string; path: string; move_to: string | null }[]; computed: boolean;
  expansion: string[] | null; executed: string; call_id: string | null; output: { status: string | null } | null;
}
export interface Finding { range: Range; severity: string; code: string; message: string }
/** The answer of the server's `rollout/analyzeFile`. */
export interface AnalyzedFile { file: string | null; error: string | null; calls: Call[]; diagnostics: Finding[] }

/** A glob of the `rolloutLsp.files` kind (`**`, `*`, `?`, `{a,b}`) as a regular expression on a `/` path. */
export function globRegExp(glob: string): RegExp {
  let out = "";
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*" && glob[i + 1] === "*") {
      i++;
      if (glob[i + 1] === "/") {  // `**/` matches no folder or any number of them
        i++;
        out += "(?:.*/)?";
      } else {
        out += ".*";
      }
    } else if (c === "*") out += "[^/]*";
    else if (c === "?") out += "[^/]";
    else if (c === "{") { braces++; out += "(?:"; }
    else if (c === "}" && braces > 0) { braces--; out += ")"; }
    else if (c === "," && braces > 0) out += "|";
    else out += c.replace(/[.+^$()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${glob.startsWith("/") || glob.startsWith("**") ? "" : "(?:.*/)?"}${out}$`);
}

/** Whether ``path`` (a file system path) is a rollout by the ``patterns`` of `rolloutLsp.files`. */
export function isRolloutPath(path: string, patterns: readonly string[]): boolean {
  const slashed = path.replace(/\\/g, "/");
  return patterns.some((pattern) => globRegExp(pattern).test(slashed));
}

/**
 * What to do when a tab shows ``path`` of ``size`` bytes: nothing for a file the editor syncs (the server
 * has it as a document and publishes its findings itself), else open or offer the large-rollout view.
 * Bytes count at least as many characters as VS Code's limit counts only for ASCII, which a rollout nearly is
 * (JSON escapes most of the rest), so a file over the limit in bytes is taken as over it.
 */
export function largeRolloutAction(path: string, size: number, patterns: readonly string[],
                                   mode: LargeRolloutMode, seen: boolean): "open" | "ask" | "none" {
  if (mode === "off" || seen || size <= EXTENSION_SYNC_LIMIT) return "none";
  return isRolloutPath(path, patterns) ? mode : "none";
}

/** Whether the view's findings go to Problems: only for a file the server cannot publish for (too large). */
export function publishesProblems(size: number): boolean {
  return size > EXTENSION_SYNC_LIMIT;
}

/** The `vscode.DiagnosticSeverity` of a finding's severity (Error 0, Warning 1, Information 2, Hint 3). */
export function severityNumber(severity: string): 0 | 1 | 2 | 3 {
  return severity === "error" ? 0 : severity === "information" ? 2 : severity === "hint" ? 3 : 1;
}

/** The range a row of the view selects when it opens the file: the finding's range, or the call's line. */
export function callRange(call: Call): Range {
  return { start: { line: call.line, character: 0 }, end: { line: call.line, character: 0 } };
}

/** A row's one-line text for a call: the command, else the patched files, else what it is. */
export function callLabel(call: Call): { label: string; description: string; tooltip: string } {
  const text = call.command ?? (call.files.length ? call.files.map((f) => `${f.action} ${f.path}`).join(", ")
    : call.computed ? "computed" : call.tool ?? "call");
  const marks = [call.executed === "no" ? "dead" : "", call.computed ? "computed" : ""].filter(Boolean).join(", ");
  return {
    label: `${call.line + 1}: ${call.tool ?? "?"}`,
    description: `${text}${marks ? ` (${marks})` : ""}`,
    tooltip: [call.command, ...(call.expansion ?? [])].filter(Boolean).join("\n") || text,
  };
}

/** The size in MB a message shows. */
export function megabytes(size: number): string {
  return `${Math.round(size / (1024 * 1024))} MB`;
}

/** VS Code's `TextModel.LARGE_FILE_SIZE_THRESHOLD` (characters) and `LARGE_FILE_LINE_COUNT_THRESHOLD`: above
 * either, with `editor.largeFileOptimizations` on, its editor draws no code lenses, folding or colours. */
export const LENS_SIZE_LIMIT = 20 * 1024 * 1024;
export const LENS_LINE_LIMIT = 300_000;

/**
 * The size in bytes over which VS Code shows "Open Anyway" instead of a file (`workbench.editorLargeFileConfirmation`):
 * the value the user set (in MB), else VS Code's default for where the file is, 10 MB in a remote window
 * (code-server, Remote - SSH, Codespaces), 50 MB in a browser, 1 GB on the desktop.
 */
export function confirmationLimit(configuredMb: number | undefined, remote: boolean, web: boolean): number {
  if (typeof configuredMb === "number" && configuredMb > 0) return configuredMb * 1024 * 1024;
  return (remote ? 10 : web ? 50 : 1024) * 1024 * 1024;
}

/**
 * Whether the extension opens ``path`` (``size`` bytes) itself: a rollout over VS Code's confirmation limit that
 * VS Code still gives extensions (at most 50 MB), which `openTextDocument` loads without asking.
 */
export function opensPastConfirmation(path: string, size: number, patterns: readonly string[], limit: number,
                                      enabled: boolean): boolean {
  return enabled && size > limit && size <= EXTENSION_SYNC_LIMIT && isRolloutPath(path, patterns);
}

/** Whether VS Code's editor draws no code lenses for a document of ``length`` characters and ``lines`` lines. */
export function lensesRefused(length: number, lines: number, largeFileOptimizations: boolean, codeLens: boolean): boolean {
  return codeLens && largeFileOptimizations && (length > LENS_SIZE_LIMIT || lines > LENS_LINE_LIMIT);
}

export interface Lens { line: number; title: string; command: string | null; arguments: unknown[] }

/** The status bar's text for a rollout whose lenses the editor does not draw: the session's totals when the
 * server gave them (the lens without a command on the first lines), else how many exec records have lenses. */
export function lensSummary(lenses: readonly Lens[]): string {
  const session = lenses.find((lens) => lens.command === null && lens.title.startsWith("session: "));
  if (session) return session.title;
  const scripts = lenses.filter((lens) => lens.command !== null).length;
  return `${scripts.toLocaleString("en-US")} exec record${scripts === 1 ? "" : "s"}`;
}
