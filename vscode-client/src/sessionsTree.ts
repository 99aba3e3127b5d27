// The Codex Sessions view's data, apart from VS Code: the server's session list (`rollout-lsp.sessions`, the
// list `rollout-lsp sessions --json` prints) made into projects → days → sessions, subagents and forks nested
// under their parent, and the view's filter.
import * as path from "path";

export const SESSIONS_COMMAND = "rollout-lsp.sessions";

export interface Tokens { input: number; cached_input: number; output: number; reasoning_output: number; total: number }
export interface Cost { usd: number | null; priced: boolean; models: string[]; prices_as_of?: string | null }

/** One object of `rollout-lsp sessions --json` (the fields the view reads; the server may send more). */
export interface Session {
  id: string;
  rollout: string;
  project: string | null;
  name: string | null;
  request: string | null;
  started: string | null;
  ended: string | null;
  duration_s: number | null;
  turns: number;
  calls: number;
  failed_calls: number;
  files_changed?: number;
  bytes?: number;
  archived?: boolean;
  live?: boolean;
  tokens?: Tokens | null;
  cost?: Cost | null;
  parent?: string | null;
  root?: string | null;
  parent_thread?: string | null;
  agent_path?: string | null;
  nickname?: string | null;
  children?: string[];
  referenced_by?: string[];
}

export type SessionsNode = ProjectNode | DayNode | SessionNode;
export interface ProjectNode { kind: "project"; key: string; project: string; label: string; description: string;
  children: DayNode[] }
export interface DayNode { kind: "day"; key: string; day: string; label: string; description: string;
  parent: ProjectNode; children: SessionNode[] }
export interface SessionNode { kind: "session"; key: string; session: Session; label: string; description: string;
  tooltip: string; icon: string; parent: DayNode | SessionNode; children: SessionNode[] }

/** The shape the server must answer with: a list of objects with at least an id and a rollout. */
export function isSessionList(value: unknown): value is Session[] {
  return Array.isArray(value) && value.every((s) => typeof s === "object" && s !== null
    && typeof (s as Session).id === "string" && typeof (s as Session).rollout === "string");
}

/** The one row the view shows when the server could not list the sessions. */
export function sessionsErrorMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : typeof error === "object" && error !== null
    && typeof (error as { message?: unknown }).message === "string" ? (error as { message: string }).message : String(error);
  if (/is not defined|unknown command|no such command|command not found/i.test(message) && message.includes(SESSIONS_COMMAND)) {
    return `This rollout-lsp server has no ${SESSIONS_COMMAND} command: update rollout-lsp to list sessions.`;
  }
  return `Could not list the sessions: ${message}`;
}

/** The day a session started, in local time (YYYY-MM-DD), or "undated". */
export function localDay(started: string | null | undefined): string {
  const date = started ? new Date(started) : undefined;
  if (!date || Number.isNaN(date.getTime())) return "undated";
  const two = (n: number): string => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}`;
}

/** A duration in the one format of every view (the lenses', hovers' and Outline's `0.2 s`, `31.5 s`, `20 s`, and
 * `rollout-lsp sessions`' `3 min 05 s`, `2 h 04 min`): to a tenth of a second under a minute. */
export function formatDuration(seconds: number | null | undefined): string | undefined {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return undefined;
  const tenths = Math.round(seconds * 10) / 10;
  if (tenths < 60) return `${tenths} s`;
  const s = Math.round(seconds);
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")} min`;
}

/** `$0.42`, `<$0.01`, or `no price` when a model of the session has no known price (nothing guessed). */
export function formatCost(cost: Cost | null | undefined): string | undefined {
  if (!cost) return undefined;
  if (cost.usd === null || !cost.priced) return "no price";
  if (cost.usd > 0 && cost.usd < 0.005) return "<$0.01";
  return `$${cost.usd.toFixed(2)}`;
}

function firstLine(text: string, limit = 80): string {
  const line = text.trim().split(/\r?\n/)[0].trim();
  return line.length > limit ? `${line.slice(0, limit - 1)}…` : line;
}

/** A session's row: the thread's name, else its request's first line, else its id. */
export function sessionLabel(session: Session): string {
  if (session.name?.trim()) return firstLine(session.name);
  if (session.request?.trim()) return firstLine(session.request);
  return session.nickname?.trim() ? session.nickname.trim() : session.id;
}

/** duration · cost · N failed (the parts known). */
export function sessionDescription(session: Session): string {
  const parts = [formatDuration(session.duration_s), formatCost(session.cost)];
  if (session.failed_calls > 0) parts.push(`${session.failed_calls} failed`);
  if (session.live) parts.push("live");
  if (session.archived) parts.push("archived");
  return parts.filter((p): p is string => !!p).join(" · ");
}

function sessionTooltip(session: Session): string {
  const lines = [sessionLabel(session), `session ${session.id}`, session.rollout];
  if (session.name && session.request) lines.push(`request: ${firstLine(session.request, 200)}`);
  if (session.agent_path || session.nickname) lines.push(`subagent ${[session.nickname, session.agent_path].filter(Boolean).join(" ")}`);
  lines.push(`started ${session.started ?? "?"}, ended ${session.ended ?? "?"}`);
  lines.push(`${session.turns} turns, ${session.calls} calls, ${session.failed_calls} failed`
    + (session.files_changed !== undefined ? `, ${session.files_changed} files changed` : ""));
  if (session.tokens) {
    const t = session.tokens;
    lines.push(`tokens: ${t.total} (input ${t.input}, cached ${t.cached_input}, output ${t.output}, reasoning ${t.reasoning_output})`);
  }
  if (session.cost) {
    lines.push(`cost: ${formatCost(session.cost)}${session.cost.models?.length ? ` (${session.cost.models.join(", ")})` : ""}`
      + (session.cost.prices_as_of ? `, prices as of ${session.cost.prices_as_of}` : ""));
  }
  return lines.join("\n");
}

function sessionIcon(session: Session): string {
  if (session.live) return "pulse";
  if (session.parent_thread || session.agent_path) return "hubot";
  if (session.parent) return "repo-forked";
  if (session.archived) return "archive";
  return session.failed_calls > 0 ? "comment-discussion" : "comment";
}

/** The parent a session is nested under: its parent thread (a subagent), else the session it was forked from,
 * when that session is in the list. */
export function parentOf(session: Session, ids: ReadonlySet<string>): string | undefined {
  if (session.parent_thread && session.parent_thread !== session.id && ids.has(session.parent_thread)) {
    return session.parent_thread;
  }
  if (session.parent && session.parent !== session.id && ids.has(session.parent)) return session.parent;
  return undefined;
}

/**
 * The filter: words separated by spaces, each found (ignoring case) in the session's name, request, project,
 * local day (`2026-03`, `2026-03-01`), id or nickname. A session is shown when it matches, or one of its
 * ancestors or descendants does (the path to a match, and a match's subagents, stay visible).
 */
export function matchesFilter(session: Session, filter: string): boolean {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return true;
  const text = [session.name, session.request, session.project, localDay(session.started), session.id,
    session.nickname, session.agent_path].filter(Boolean).join("\n").toLowerCase();
  return words.every((word) => text.includes(word));
}

function newestFirst(a: Session, b: Session): number {
  return (b.started ?? "").localeCompare(a.started ?? "") || a.id.localeCompare(b.id);
}

function count(n: number, one: string): string {
  return `${n} ${one}${n === 1 ? "" : "s"}`;
}

function totalCost(sessions: readonly Session[]): string | undefined {
  if (!sessions.length || sessions.some((s) => !s.cost)) return undefined;
  if (sessions.some((s) => s.cost?.usd === null || !s.cost?.priced)) {
    const known = sessions.reduce((sum, s) => sum + (s.cost?.usd ?? 0), 0);
    return `≥ $${known.toFixed(2)}`;
  }
  return formatCost({ usd: sessions.reduce((sum, s) => sum + (s.cost?.usd ?? 0), 0), priced: true, models: [] });
}

/**
 * The tree: a project per `project` (the folder's name as label, newest session's project first), a day per
 * local start day (newest first), the sessions of that day newest first; a subagent or fork under its parent
 * (whatever its own day), in the order they started. ``filter`` as in {@link matchesFilter}.
 */
export function buildTree(sessions: readonly Session[], filter = ""): ProjectNode[] {
  const byId = new Map<string, Session>();
  for (const session of sessions) if (!byId.has(session.id)) byId.set(session.id, session);
  const ids = new Set(byId.keys());
  const parents = new Map<string, string>();
  for (const session of byId.values()) {
    const parent = parentOf(session, ids);
    if (parent !== undefined) parents.set(session.id, parent);
  }
  // a cycle of parents (never written by Codex): its members are roots
  for (const id of ids) {
    const seen = new Set([id]);
    for (let at = parents.get(id); at !== undefined; at = parents.get(at)) {
      if (seen.has(at)) {
        parents.delete(id);
        break;
      }
      seen.add(at);
    }
  }
  const kids = new Map<string, Session[]>();
  for (const [child, parent] of parents) {
    const list = kids.get(parent) ?? [];
    list.push(byId.get(child) as Session);
    kids.set(parent, list);
  }
  const shown = new Set<string>();
  for (const session of byId.values()) {
    if (!matchesFilter(session, filter)) continue;
    for (let at: string | undefined = session.id; at !== undefined && !shown.has(at); at = parents.get(at)) shown.add(at);
    const below = [...(kids.get(session.id) ?? [])];
    while (below.length) {
      const next = below.pop() as Session;
      shown.add(next.id);
      below.push(...(kids.get(next.id) ?? []));
    }
  }

  const roots = [...byId.values()].filter((s) => !parents.has(s.id) && shown.has(s.id)).sort(newestFirst);
  const projects = new Map<string, Map<string, Session[]>>();
  for (const session of roots) {
    const project = session.project || "(no project)";
    const days = projects.get(project) ?? new Map<string, Session[]>();
    const day = localDay(session.started);
    days.set(day, [...(days.get(day) ?? []), session]);
    projects.set(project, days);
  }
  const family = (session: Session): Session[] => [session, ...(kids.get(session.id) ?? []).flatMap(family)];
  const sessionNode = (session: Session, parent: DayNode | SessionNode): SessionNode => {
    const node: SessionNode = { kind: "session", key: `session:${session.id}`, session, label: sessionLabel(session),
      description: sessionDescription(session), tooltip: sessionTooltip(session), icon: sessionIcon(session), parent,
      children: [] };
    node.children = (kids.get(session.id) ?? []).filter((s) => shown.has(s.id))
      .sort((a, b) => -newestFirst(a, b)).map((s) => sessionNode(s, node));
    return node;
  };
  const result: ProjectNode[] = [];
  for (const [project, days] of projects) {
    const all = [...days.values()].flat().flatMap(family).filter((s) => shown.has(s.id));
    const node: ProjectNode = { kind: "project", key: `project:${project}`, project,
      label: project === "(no project)" ? project : path.basename(project) || project,
      description: [count(all.length, "session"), totalCost(all), project].filter(Boolean).join(" · "), children: [] };
    for (const [day, inDay] of days) {
      const everyone = inDay.flatMap(family).filter((s) => shown.has(s.id));
      const dayNode: DayNode = { kind: "day", key: `day:${project}\n${day}`, day, label: day, parent: node,
        description: [count(everyone.length, "session"), totalCost(everyone)].filter(Boolean).join(" · "), children: [] };
      dayNode.children = inDay.map((s) => sessionNode(s, dayNode));
      node.children.push(dayNode);
    }
    result.push(node);
  }
  return result;
}

/** The node of the session whose rollout is ``file`` (compared as paths), searched depth first. */
export function findRollout(tree: readonly ProjectNode[], file: string): SessionNode | undefined {
  const wanted = path.resolve(file);
  const search = (nodes: readonly SessionNode[]): SessionNode | undefined => {
    for (const node of nodes) {
      if (path.resolve(node.session.rollout) === wanted) return node;
      const below = search(node.children);
      if (below) return below;
    }
    return undefined;
  };
  for (const project of tree) for (const day of project.children) {
    const found = search(day.children);
    if (found) return found;
  }
  return undefined;
}

/** The session index's database file, as the server finds it: `$ROLLOUT_LSP_INDEX`, else `index.sqlite3` in
 * `$XDG_CACHE_HOME/codex-rollout-lsp` (`~/.cache` when unset). */
export function indexDatabase(env: Readonly<Record<string, string | undefined>>, home: string): string {
  if (env.ROLLOUT_LSP_INDEX) return env.ROLLOUT_LSP_INDEX.replace(/^~(?=$|[\\/])/, home);
  return path.join(env.XDG_CACHE_HOME || path.join(home, ".cache"), "codex-rollout-lsp", "index.sqlite3");
}
