// Linking an invocation log (`cli_mocks/calls.jsonl` of a recording shim) to one of the open rollouts, through
// the server command `rollout-lsp.linkInvocationLog`: which documents are logs, the quick pick's choices, the
// command's arguments and what its answer tells the user. Pure logic, no `import 'vscode'`: the tests import it.
import { isRolloutPath } from "./largeFiles";
import { SERVER_SCHEMES, rolloutPatterns } from "./settings";

/** The server command: `[logUri]` answers the link, `[logUri, rolloutUri]` links, `[logUri, null]` unlinks. */
export const LINK_LOG = "rollout-lsp.linkInvocationLog";

/** The context key that shows the command in the palette: the active editor shows an invocation log. */
export const LOG_ACTIVE = "rolloutLsp.invocationLogActive";

/** An open text document, as far as linking needs it. */
export interface OpenDocument {
  uri: string; // the whole URI, as the server knows the document
  scheme: string;
  path: string; // the URI's path, decoded (`/home/u/run 1/rollout-x.jsonl`)
  shown?: string; // the path as the user knows it (relative to the workspace folder); else ``path``
}

/** The server's answer to `rollout-lsp.linkInvocationLog`: the log's link after the command. */
export interface LinkReport {
  log: string;
  rollout: string | null; // null: not linked (no open rollout runs the recorded tools)
  named: boolean; // the rollout was named with the command, not chosen automatically
  matched?: number; // the counts are there only when the rollout is open and is a rollout
  unexplained?: number;
  missing?: number;
}

/** A row of the quick pick: ``rollout`` null is "Choose automatically". */
export interface LinkChoice {
  label: string;
  description: string;
  detail?: string;
  rollout: string | null;
}

/** Whether the server has ``document`` as an invocation log (a path matching `rolloutLsp.invocationLogs`). */
export function isInvocationLog(document: OpenDocument, invocationLogs: readonly string[]): boolean {
  return SERVER_SCHEMES.includes(document.scheme) && isRolloutPath(document.path, invocationLogs);
}

/**
 * The choices for linking an invocation log: every open document the server has as a rollout (a path
 * matching `rolloutLsp.files` that is not a log: the server reads a document matching both as a log), in the
 * order given, then "Choose automatically". ``current`` is the server's answer for the log before the choice.
 */
export function linkChoices(documents: readonly OpenDocument[], files: readonly string[] | undefined,
                            invocationLogs: readonly string[], current: LinkReport | null): LinkChoice[] {
  const patterns = rolloutPatterns(files);
  const seen = new Set<string>();
  const choices: LinkChoice[] = [];
  for (const document of documents) {
    if (seen.has(document.uri) || !SERVER_SCHEMES.includes(document.scheme) || isInvocationLog(document, invocationLogs)
        || !isRolloutPath(document.path, patterns)) continue;
    seen.add(document.uri);
    const shown = document.shown ?? document.path;
    const slash = shown.lastIndexOf("/");
    choices.push({
      label: shown.slice(slash + 1),
      description: current?.rollout === document.uri ? (current.named ? "linked now" : "linked now (chosen automatically)") : "",
      detail: slash > 0 ? shown.slice(0, slash) : slash === 0 ? "/" : undefined,  // the folder; none at the top
      rollout: document.uri,
    });
  }
  const automatic = current && !current.named ? `now: ${current.rollout ? fileName(current.rollout) : "none"}` : "";
  choices.push({
    label: "Choose automatically",
    description: automatic,
    detail: "the open rollout whose commands explain the most invocations",
    rollout: null,
  });
  return choices;
}

/** The server command's arguments for a choice: `[logUri, rolloutUri]`, or `[logUri, null]` to choose automatically. */
export function linkArguments(logUri: string, choice: Pick<LinkChoice, "rollout">): [string, string | null] {
  return [logUri, choice.rollout];
}

/** What the server's answer after linking tells the user. */
export function linkSummary(report: LinkReport): string {
  const log = fileName(report.log);
  if (report.rollout === null) return `Rollout: ${log} is linked to no rollout (no open rollout runs its tools).`;
  const rollout = fileName(report.rollout);
  if (report.matched === undefined) {
    return `Rollout: ${log} is linked to ${rollout}, which is not open as a rollout: it has no findings from it.`;
  }
  const how = report.named ? "" : " (chosen automatically)";
  return `Rollout: ${log} is linked to ${rollout}${how}: ${count(report.matched, "invocation")} explained, `
    + `${report.unexplained ?? 0} unexplained, ${count(report.missing ?? 0, "command")} with no invocation.`;
}

/** The last segment of a URI's path, decoded (`rollout-x.jsonl`). */
export function fileName(uri: string): string {
  const last = uri.split(/[?#]/)[0].split("/").pop() || uri;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
