// The Codex sessions that changed a workspace file (the server command `rollout-lsp.blameSessions`, run by the
// lens at the top of the file) as rows of a VS Code quick pick. The server would ask with
// window/showMessageRequest, which VS Code draws as a notification with one button per change: unreadable past
// a few. The extension asks for the locations only and shows them itself. Pure logic, no `import 'vscode'`: the
// tests import it.

/** The server command: `[uri]` asks the client to pick a change, `[uri, {ask: false}]` only answers them. */
export const BLAME_SESSIONS = "rollout-lsp.blameSessions";

export interface Position {
  line: number; // 0-based
  character: number; // UTF-16 code units
}

/** One change of the file, newest first: where its call is in its rollout. */
export interface BlameLocation {
  uri: string; // the rollout
  range: { start: Position; end: Position }; // the call (the apply_patch inside a script, or the whole record)
  title: string; // `2026-03-01 10:00 · update · add a review note` (the user's words of the turn)
  session?: string | null;
}

/** A quick pick row, with the location it opens. */
export interface BlameItem {
  label: string;
  description: string;
  detail: string;
  location: BlameLocation;
}

/** The arguments the extension sends for a lens's `[uri]`: the locations only. A call that already says what it
 * wants (a second argument) is sent as it is; undefined when the arguments are not the lens's. */
export function blameArguments(args: readonly unknown[]): unknown[] | undefined {
  if (args.length !== 1 || typeof args[0] !== "string") return undefined;
  return [args[0], { ask: false }];
}

/** Whether the server's answer is a list of locations (it answers null for a file blame does not cover). */
export function isBlameLocations(value: unknown): value is BlameLocation[] {
  return Array.isArray(value) && value.every((item) =>
    typeof item === "object" && item !== null && typeof item.uri === "string" && typeof item.title === "string"
    && typeof item.range?.start?.line === "number" && typeof item.range?.start?.character === "number"
    && typeof item.range?.end?.line === "number" && typeof item.range?.end?.character === "number");
}

/** The rows, in the server's order (newest first): the change's title as the label, the call's line (1-based)
 * and the rollout's file name as the description (the line first: a long name is cut at its end), the session
 * and the rollout's folder as the detail. */
export function blameItems(locations: readonly BlameLocation[]): BlameItem[] {
  return locations.map((location) => {
    const { folder, name } = splitPath(location.uri);
    return {
      // `$(name)` in a label is drawn as an icon: the user's words are shown as typed
      label: location.title.replace(/\$\(/g, "$\u200b("),
      description: `line ${location.range.start.line + 1} · ${name}`,
      detail: [location.session ? `session ${location.session}` : "", folder].filter(Boolean).join(" · "),
      location,
    };
  });
}

/** The quick pick's placeholder: how many sessions and changes. */
export function blamePlaceholder(locations: readonly BlameLocation[]): string {
  const sessions = new Set(locations.map((l) => l.session || l.uri)).size;
  const changes = locations.length;
  return `${sessions} Codex session${sessions === 1 ? "" : "s"} changed this file`
    + (changes !== sessions ? ` (${changes} changes)` : "") + ", newest first: open one at its call";
}

/** The folder and the file name of a URI's path, decoded (`file:///home/u/run%201/x.jsonl` → `/home/u/run 1`,
 * `x.jsonl`). */
export function splitPath(uri: string): { folder: string; name: string } {
  let path: string;
  try {
    path = decodeURIComponent(new URL(uri).pathname);
  } catch {
    path = uri;
  }
  if (/^\/[A-Za-z]:\//.test(path)) path = path.slice(1); // file:///c:/Users/… is c:/Users/… on Windows
  const slash = path.lastIndexOf("/");
  return slash < 0 ? { folder: "", name: path } : { folder: path.slice(0, slash) || "/", name: path.slice(slash + 1) };
}
