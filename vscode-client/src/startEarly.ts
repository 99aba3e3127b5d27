// When the extension starts its server. Pure (no vscode import), so the unit tests run it under plain node.
//
// The server's own start (Python, pygls and lsprotocol: about 0.65 s of CPU) costs more than `rollout-lsp
// outline`'s whole run on a small rollout, so a server started by the first rollout opened makes that rollout's
// Outline wait for it (docs/benchmarks.md, "the editor's first answers"). For a Codex user (a Codex home with
// sessions) the extension starts the server once VS Code has started, before any rollout is opened; in other
// windows it waits for the first document the server may answer for.
import * as fs from "fs";
import * as path from "path";

/** The languages of documents the server may answer for (a rollout, or JSON Lines / JSON it sniffs). */
export const SERVER_LANGUAGES: ReadonlySet<string> = new Set(["rollout", "jsonl", "json"]);

/** Whether a document of ``languageId`` needs the server. */
export function needsServer(languageId: string): boolean {
  return SERVER_LANGUAGES.has(languageId);
}

/** Whether one of ``homes`` holds sessions (a `sessions` or `archived_sessions` folder). */
export function hasSessions(homes: readonly string[], isDirectory: (p: string) => boolean = directory): boolean {
  return homes.some((home) => ["sessions", "archived_sessions"].some((name) => isDirectory(path.join(home, name))));
}

/**
 * Whether the server starts when the extension activates: a document that needs it is open, the workspace holds
 * rollouts (`rollout-*.jsonl`), or (setting `rolloutLsp.server.startEarly`, on by default) a Codex home has
 * sessions. Otherwise it starts with the first document that needs it.
 */
export function startsAtActivation(openLanguages: readonly string[], workspaceRollouts: boolean, startEarly: boolean,
                                   codexSessions: boolean): boolean {
  return openLanguages.some(needsServer) || workspaceRollouts || (startEarly && codexSessions);
}

function directory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
