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
  expansion: string[] | null; executed: string; call_id: string | null;
  output: { status: string | null; exit_code?: number | null } | null;
}
export interface Finding { range: Range; severity: string; code: string; message: string }
/** A turn of the rollout: its first and last line and its title (the user's message, masked). */
export interface Turn { line: number; end_line: number; title: string }
/** The answer of the server's `rollout/analyzeFile` (`turns` from servers that send them). */
export interface AnalyzedFile {
  file: string | null; error: string | null; calls: Call[]; diagnostics: Finding[]; turns?: Turn[];
}

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
  if (mode === "off" || seen) return "none";
  if (isCompressed(path)) return mode;  // never text to the editor, whatever its size: only the server reads it
  if (size <= EXTENSION_SYNC_LIMIT) return "none";
  return isRolloutPath(path, patterns) ? mode : "none";
}

/** A zstd-compressed JSON Lines file (`rollout-….jsonl.zst`), which the server reads and the editor cannot. */
export function isCompressed(path: string): boolean {
  return /\.jsonl\.zst$/i.test(path);
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
const SHOWS_SCRIPT = /[.]showDecodedScript$/;  // the server's rollout-lsp.showDecodedScript, or the client's own

/** The status bar's text for a rollout whose lenses the editor does not draw: the session's totals when the
 * server gave them (the lens titled `session: …`), else how many exec records have lenses (those that show a
 * decoded script: a session's failure lens or a changed file's lens is no exec record). */
export function lensSummary(lenses: readonly Lens[]): string {
  const session = lenses.find((lens) => lens.title.startsWith("session: "));
  if (session) return session.title;
  const scripts = lenses.filter((lens) => lens.command !== null && SHOWS_SCRIPT.test(lens.command)).length;
  return `${scripts.toLocaleString("en-US")} exec record${scripts === 1 ? "" : "s"}`;
}

/** What became of a call, as a row of the Large Rollout view marks it. */
export type CallStatus = "failed" | "completed" | "no output" | "dead";

export function callStatus(call: Call): CallStatus {
  if (call.executed === "no") return "dead";
  const output = call.output;
  if (!output || output.status === null) return "no output";
  if (output.status !== "completed" || (output.exit_code ?? 0) !== 0) return "failed";
  return "completed";
}

/** The Large Rollout view's filter: failed calls only, one tool, and text in the call's command or files. */
export interface CallFilter { failed?: boolean; tool?: string; text?: string }

export function matchesFilter(call: Call, filter: CallFilter): boolean {
  if (filter.failed && callStatus(call) !== "failed") return false;
  if (filter.tool && call.tool !== filter.tool) return false;
  if (filter.text) {
    const needle = filter.text.toLowerCase();
    const haystack = [call.command, ...(call.expansion ?? []), ...call.files.map((f) => f.path), call.tool, call.call_id]
      .filter(Boolean).join("\n").toLowerCase();
    if (!haystack.includes(needle)) return false;
  }
  return true;
}

/** The filter as the view's description says it (`failed · exec_command · "pytest"`), empty for none. */
export function filterLabel(filter: CallFilter): string {
  return [filter.failed ? "failed" : "", filter.tool ?? "", filter.text ? JSON.stringify(filter.text) : ""]
    .filter(Boolean).join(" · ");
}

/** The calls grouped by the turn they are in (calls before the first turn in a group of their own, `turn`
 * null), in file order; a turn whose calls the filter left out is left out too. */
export function groupByTurn(calls: readonly Call[], turns: readonly Turn[]): { turn: Turn | null; calls: Call[] }[] {
  const sorted = [...turns].sort((a, b) => a.line - b.line);
  const groups: { turn: Turn | null; calls: Call[] }[] = [];
  let at = -1;
  for (const call of [...calls].sort((a, b) => a.line - b.line)) {
    while (at + 1 < sorted.length && sorted[at + 1].line <= call.line) at++;
    const turn = at >= 0 ? sorted[at] : null;
    const last = groups[groups.length - 1];
    if (last && last.turn === turn) last.calls.push(call);
    else groups.push({ turn, calls: [call] });
  }
  return groups;
}

/** A turn's row: `turn 3 (line 120): Fix the tests`, and how many of its calls failed. */
export function turnLabel(turn: Turn | null, index: number, calls: readonly Call[]): { label: string; description: string } {
  const failed = calls.filter((call) => callStatus(call) === "failed").length;
  const count = `${calls.length} call${calls.length === 1 ? "" : "s"}${failed ? `, ${failed} failed` : ""}`;
  if (!turn) return { label: "before the first turn", description: count };
  const title = turn.title.replace(/\s+/g, " ").trim();
  return { label: `turn ${index} (line ${turn.line + 1}): ${title.length > 60 ? `${title.slice(0, 59)}…` : title}`,
    description: count };
}

/** Lines shown around a row's line when the view opens it: the file is too large for the editor. */
export const WINDOW_LINES = 40;

/** The read-only document a row opens: the file's lines ``start`` onwards (``window``) at their own line
 * numbers, each line before them a lone `…`, so a position in the file is the same position here. */
export function windowDocument(window: readonly string[], start: number): string {
  return "…\n".repeat(start) + window.join("\n");
}

/** The first line of the window shown for ``line``. */
export function windowStart(line: number): number {
  return Math.max(0, line - WINDOW_LINES);
}

/** The documents a tab change leaves with no tab: ``closed`` (the URIs of the tabs just closed) less those another
 * tab still shows (``shown``). Their diagnostics leave Problems at once: VS Code keeps a document an extension
 * opened (a rollout over the large-file confirmation, which the extension opens itself) for up to three minutes
 * after its tab closes, so the server hears of no close and its diagnostics would stay. */
export function leftWithoutTab(closed: readonly string[], shown: readonly string[]): string[] {
  const still = new Set(shown);
  return [...new Set(closed)].filter((uri) => !still.has(uri));
}
