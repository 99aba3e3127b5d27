import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

// days are local: this file's process runs in New York (node --test gives each file its own process)
process.env.TZ = "America/New_York";

import {
  ProjectNode, SESSIONS_COMMAND, Session, SessionNode, buildTree, findRollout, formatCost, formatDuration,
  indexDatabase, isSessionList, localDay, matchesFilter, parentOf, sessionDescription, sessionLabel,
  sessionsErrorMessage,
} from "../src/sessionsTree";

const PRICED = (usd: number) => ({ usd, priced: true, models: ["gpt-5.6-sol"], prices_as_of: "2026-01-01" });

function session(id: string, started: string | null, more: Partial<Session> = {}): Session {
  return {
    id, rollout: `/home/u/.codex/sessions/rollout-${id}.jsonl`, project: "/home/u/work/app", name: null,
    request: `request of ${id}`, started, ended: null, duration_s: 90, turns: 2, calls: 5, failed_calls: 0,
    files_changed: 1, bytes: 1000, archived: false, live: false,
    tokens: { input: 100, cached_input: 50, output: 20, reasoning_output: 5, total: 120 }, cost: PRICED(0.5),
    parent: null, root: null, parent_thread: null, agent_path: null, nickname: null, children: [], referenced_by: [],
    ...more,
  };
}

// app: a named session on 03-01 (local) with a subagent that has its own subagent, and a fork of it on 03-03;
// an older unnamed one on 02-27; lib: a session on 03-02, newest of all
const MAIN = session("a1", "2026-03-01T15:00:00Z", { name: "Fix the login bug", duration_s: 3725, failed_calls: 2,
  cost: PRICED(1.23) });
const AGENT = session("a2", "2026-03-01T15:10:00Z", { parent_thread: "a1", root: "a1", agent_path: "/root/tester",
  nickname: "Tester", request: "run the tests\nand report", cost: { usd: null, priced: false, models: ["mystery"] } });
const SUBAGENT = session("a3", "2026-03-01T15:20:00Z", { parent_thread: "a2", root: "a1", duration_s: 12 });
const FORK = session("a4", "2026-03-03T02:30:00Z", { parent: "a1", request: "try another fix", duration_s: 59 });
const OLD = session("a0", "2026-02-28T01:00:00Z", { request: "  ", duration_s: null, cost: PRICED(0.001) });
const LIB = session("b1", "2026-03-04T12:00:00Z", { project: "/home/u/work/lib", name: "Release 2.0", live: true });
const ALL = [OLD, SUBAGENT, LIB, FORK, MAIN, AGENT];

type Shape = [string, string, Shape[]?];
function shape(nodes: readonly (ProjectNode | { label: string; description: string; children: readonly unknown[] })[]): Shape[] {
  return nodes.map((n) => (n.children.length
    ? [n.label, n.description, shape(n.children as ProjectNode[])] : [n.label, n.description]));
}

test("projects → days → sessions, newest first; subagents and forks under their parent", () => {
  assert.deepEqual(shape(buildTree(ALL)), [
    ["lib", "1 session · $0.50 · /home/u/work/lib", [
      ["2026-03-04", "1 session · $0.50", [["Release 2.0", "1 min 30 s · $0.50 · live"]]]]],
    ["app", "5 sessions · ≥ $2.23 · /home/u/work/app", [
      // the fork started on 03-02 (local) but sits under its parent's day
      ["2026-03-01", "4 sessions · ≥ $2.23", [
        ["Fix the login bug", "1 h 02 min · $1.23 · 2 failed", [
          ["run the tests", "1 min 30 s · no price", [["request of a3", "12 s · $0.50"]]],
          ["try another fix", "59 s · $0.50"]]]]],
      ["2026-02-27", "1 session · <$0.01", [["a0", "<$0.01"]]]]],
  ]);
});

test("a session is nested under its parent thread, else its fork parent, only when that one is listed", () => {
  const ids = new Set(["a1", "a2"]);
  assert.equal(parentOf(AGENT, ids), "a1");
  assert.equal(parentOf(session("x", null, { parent_thread: "a2", parent: "a1" }), ids), "a2");
  assert.equal(parentOf(session("x", null, { parent_thread: "zz", parent: "a1" }), ids), "a1");
  assert.equal(parentOf(FORK, new Set(["a4"])), undefined);
  // the parent not listed (filtered out by the server, deleted): the session is a root in its own day
  assert.deepEqual(shape(buildTree([FORK])), [["app", "1 session · $0.50 · /home/u/work/app", [
    ["2026-03-02", "1 session · $0.50", [["try another fix", "59 s · $0.50"]]]]]]);
  // a cycle of parents (never written by Codex) does not hide its sessions
  const loop = buildTree([session("c1", "2026-01-01T12:00:00Z", { parent: "c2" }),
    session("c2", "2026-01-01T13:00:00Z", { parent: "c1" })]);
  assert.deepEqual(loop[0].children[0].children.map((n) => [n.session.id, n.children.map((c) => c.session.id)]),
    [["c1", ["c2"]]]);
});

test("the filter: every word in the name, request, project or local day; ancestors and subagents of a match stay", () => {
  assert.equal(matchesFilter(MAIN, "LOGIN bug"), true);
  assert.equal(matchesFilter(MAIN, "login release"), false);
  assert.equal(matchesFilter(LIB, "work/lib"), true);
  assert.equal(matchesFilter(FORK, "2026-03-02"), true);  // 02:30 UTC on 03-03 is 21:30 on 03-02 in New York
  assert.equal(matchesFilter(FORK, "2026-03-03"), false);
  assert.equal(matchesFilter(MAIN, "   "), true);
  const ids = (tree: ProjectNode[]): string[] => {
    const walk = (nodes: readonly SessionNode[]): string[] => nodes.flatMap((n) => [n.session.id, ...walk(n.children)]);
    return tree.flatMap((p) => p.children.flatMap((d) => walk(d.children)));
  };
  assert.deepEqual(ids(buildTree(ALL, "login")), ["a1", "a2", "a3", "a4"]);  // the match and all below it
  assert.deepEqual(ids(buildTree(ALL, "tests")), ["a1", "a2", "a3"]);  // the path to the match, and below it
  assert.deepEqual(ids(buildTree(ALL, "2026-02")), ["a0"]);
  assert.deepEqual(ids(buildTree(ALL, "lib")), ["b1"]);
  assert.deepEqual(ids(buildTree(ALL, "nothing like it")), []);
  assert.deepEqual(shape(buildTree(ALL, "2026-03-04")), [["lib", "1 session · $0.50 · /home/u/work/lib", [
    ["2026-03-04", "1 session · $0.50", [["Release 2.0", "1 min 30 s · $0.50 · live"]]]]]]);
});

test("a row's label: the name, else the request's first line, else the nickname or id", () => {
  assert.equal(sessionLabel(MAIN), "Fix the login bug");
  assert.equal(sessionLabel(AGENT), "run the tests");
  assert.equal(sessionLabel(session("x", null, { request: null, nickname: "Scout" })), "Scout");
  assert.equal(sessionLabel(session("x", null, { request: "" })), "x");
  assert.equal(sessionLabel(session("x", null, { request: "y".repeat(100) })), `${"y".repeat(79)}…`);
});

test("a row's description: duration, cost, failed calls, live and archived", () => {
  assert.equal(sessionDescription(session("x", null, { duration_s: 7200, failed_calls: 1, archived: true,
    cost: PRICED(0) })), "2 h 00 min · $0.00 · 1 failed · archived");
  assert.equal(sessionDescription(session("x", null, { duration_s: null, cost: null })), "");
  // the lenses' format under a minute (0.1962 s is "0.2 s" there too), then minutes and hours
  assert.deepEqual([0, 0.1962, 31.54, 59.4, 59.96, 60, 3599, 3600, -1, null].map(formatDuration),
    ["0 s", "0.2 s", "31.5 s", "59.4 s", "1 min 00 s", "1 min 00 s", "59 min 59 s", "1 h 00 min", undefined, undefined]);
  assert.deepEqual([formatCost(PRICED(12.346)), formatCost(PRICED(0.004)), formatCost(PRICED(0.005)),
    formatCost({ usd: null, priced: false, models: [] }), formatCost(null)], ["$12.35", "<$0.01", "$0.01", "no price", undefined]);
});

test("days are local, undated last", () => {
  assert.equal(localDay("2026-03-01T04:59:59Z"), "2026-02-28");
  assert.equal(localDay("2026-03-01T05:00:00Z"), "2026-03-01");
  assert.equal(localDay(null), "undated");
  assert.equal(localDay("not a date"), "undated");
  const tree = buildTree([session("u", null), MAIN]);
  assert.deepEqual(tree[0].children.map((d) => d.label), ["2026-03-01", "undated"]);
});

test("Reveal finds a session's row by its rollout, nested or not, with the path up to it", () => {
  const tree = buildTree(ALL);
  const row = findRollout(tree, "/home/u/.codex/sessions/../sessions/rollout-a3.jsonl");
  assert.equal(row?.session.id, "a3");
  const up: string[] = [];
  for (let at: { label: string; parent?: unknown } | undefined = row; at; at = at.parent as typeof at) up.push(at.label);
  assert.deepEqual(up, ["request of a3", "run the tests", "Fix the login bug", "2026-03-01", "app"]);
  assert.equal(findRollout(tree, "/elsewhere/rollout-a3.jsonl"), undefined);
  assert.equal(findRollout(buildTree(ALL, "lib"), MAIN.rollout), undefined);
});

test("the server's answer, and its error when it has no sessions command", () => {
  assert.equal(SESSIONS_COMMAND, "rollout-lsp.sessions");
  assert.equal(isSessionList(ALL), true);
  assert.equal(isSessionList([]), true);
  assert.equal(isSessionList(null), false);
  assert.equal(isSessionList([{ id: "x" }]), false);
  // pygls's answer to an unknown command
  assert.equal(sessionsErrorMessage(new Error("Command name 'rollout-lsp.sessions' is not defined")),
    "This rollout-lsp server has no rollout-lsp.sessions command: update rollout-lsp to list sessions.");
  assert.equal(sessionsErrorMessage({ code: -32603, message: "database is locked" }),
    "Could not list the sessions: database is locked");
  assert.equal(sessionsErrorMessage("boom"), "Could not list the sessions: boom");
  // the command's own failure (the index unreadable) is shown as it is
  assert.equal(sessionsErrorMessage(new Error("rollout-lsp.sessions: error: /x/index.sqlite3: file not found")),
    "Could not list the sessions: rollout-lsp.sessions: error: /x/index.sqlite3: file not found");
});

test("the index database watched for a refresh is the server's", () => {
  assert.equal(indexDatabase({}, "/home/u"), "/home/u/.cache/codex-rollout-lsp/index.sqlite3");
  assert.equal(indexDatabase({ XDG_CACHE_HOME: "/cache" }, "/home/u"), "/cache/codex-rollout-lsp/index.sqlite3");
  assert.equal(indexDatabase({ ROLLOUT_LSP_INDEX: "~/idx.db", XDG_CACHE_HOME: "/cache" }, "/home/u"), "/home/u/idx.db");
  assert.equal(indexDatabase({ ROLLOUT_LSP_INDEX: "/tmp/i.sqlite3" }, "/home/u"), "/tmp/i.sqlite3");
});

test("the view, its commands and menus are contributed", () => {
  const contributes = JSON.parse(readFileSync(join(__dirname, "..", "..", "package.json"), "utf-8")).contributes;
  assert.deepEqual(contributes.views.explorer.find((v: { id: string }) => v.id === "rolloutLsp.sessions"),
    { id: "rolloutLsp.sessions", name: "Codex Sessions", visibility: "collapsed" });
  const titles = Object.fromEntries(contributes.commands.map((c: { command: string; title: string }) => [c.command, c.title]));
  assert.deepEqual([titles["rolloutLsp.sessions.filter"], titles["rolloutLsp.sessions.clearFilter"],
    titles["rolloutLsp.sessions.refresh"], titles["rolloutLsp.sessions.reveal"], titles["rolloutLsp.sessions.show"]],
  ["Filter Sessions…", "Clear Filter", "Refresh", "Reveal in Codex Sessions", "Show Codex Sessions"]);
  assert.deepEqual(contributes.menus["view/title"].filter((m: { when: string }) => m.when.includes("rolloutLsp.sessions"))
    .map((m: { command: string }) => m.command),
  ["rolloutLsp.sessions.filter", "rolloutLsp.sessions.clearFilter", "rolloutLsp.sessions.refresh"]);
  assert.deepEqual(contributes.menus["editor/title"], [{ command: "rolloutLsp.sessions.reveal",
    when: "editorLangId == rollout && resourceScheme == file" }]);
});
