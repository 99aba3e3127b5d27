import { strict as assert } from "node:assert";
import { test } from "node:test";

import { BLAME_SESSIONS, BlameLocation, blameArguments, blameItems, blamePlaceholder, isBlameLocations, splitPath }
  from "../src/blameSessions";

const C: BlameLocation = {
  uri: "file:///home/u/.codex/sessions/2026/03/01/rollout-2026-03-01T10-00-00-019c.jsonl",
  range: { start: { line: 3, character: 0 }, end: { line: 3, character: 339 } },
  title: "2026-03-01 10:00 · update · add a review note", session: "019c0000-0000-7000-8000-00000000000c",
};
const B: BlameLocation = {
  uri: "file:///home/u/run%201/rollout-2026-02-01T10-00-00-019b.jsonl",
  range: { start: { line: 3, character: 210 }, end: { line: 3, character: 552 } },
  title: "2026-02-01 10:00 · update · capitalise the greeting", session: "019b0000-0000-7000-8000-00000000000b",
};
const A_FAILED: BlameLocation = {
  uri: "file:///c%3A/Users/dev/sessions/rollout-2026-01-01T10-00-00-019a.jsonl",
  range: { start: { line: 7, character: 0 }, end: { line: 7, character: 120 } },
  title: "2026-01-01 10:00 · update (failed) · log $(zap) something", session: "019a0000-0000-7000-8000-00000000000a",
};
const A_ADD: BlameLocation = { ...A_FAILED, range: { start: { line: 3, character: 0 }, end: { line: 3, character: 90 } },
  title: "2026-01-01 10:00 · add · create the app" };

test("the lens's [uri] asks for the locations only; any other call goes through unchanged", () => {
  assert.equal(BLAME_SESSIONS, "rollout-lsp.blameSessions");
  assert.deepEqual(blameArguments(["file:///repo/src/app.py"]), ["file:///repo/src/app.py", { ask: false }]);
  assert.equal(blameArguments(["file:///repo/src/app.py", { ask: true }]), undefined);
  assert.equal(blameArguments([]), undefined);
  assert.equal(blameArguments([42]), undefined);
});

test("the server's answer is taken only when it is a list of locations", () => {
  assert.equal(isBlameLocations([C, B]), true);
  assert.equal(isBlameLocations([]), true);
  assert.equal(isBlameLocations(null), false);
  assert.equal(isBlameLocations([{ uri: C.uri, title: C.title }]), false);
  assert.equal(isBlameLocations([{ ...C, range: { start: { line: "3", character: 0 }, end: C.range.end } }]), false);
});

test("a row per change in the server's order: title, line and rollout file, session and folder", () => {
  assert.deepEqual(blameItems([C, B, A_FAILED, A_ADD]).map(({ label, description, detail }) => [label, description, detail]), [
    ["2026-03-01 10:00 · update · add a review note", "line 4 · rollout-2026-03-01T10-00-00-019c.jsonl",
      "session 019c0000-0000-7000-8000-00000000000c · /home/u/.codex/sessions/2026/03/01"],
    ["2026-02-01 10:00 · update · capitalise the greeting", "line 4 · rollout-2026-02-01T10-00-00-019b.jsonl",
      "session 019b0000-0000-7000-8000-00000000000b · /home/u/run 1"],
    ["2026-01-01 10:00 · update (failed) · log $\u200b(zap) something", "line 8 · rollout-2026-01-01T10-00-00-019a.jsonl",
      "session 019a0000-0000-7000-8000-00000000000a · c:/Users/dev/sessions"],
    ["2026-01-01 10:00 · add · create the app", "line 4 · rollout-2026-01-01T10-00-00-019a.jsonl",
      "session 019a0000-0000-7000-8000-00000000000a · c:/Users/dev/sessions"],
  ]);
  assert.equal(blameItems([B])[0].location, B);  // what the row opens: the rollout at the call
  assert.equal(blameItems([{ ...B, session: null }])[0].detail, "/home/u/run 1");
});

test("the placeholder counts sessions, and changes when a session made several", () => {
  assert.equal(blamePlaceholder([C, B]), "2 Codex sessions changed this file, newest first: open one at its call");
  assert.equal(blamePlaceholder([C, B, A_FAILED, A_ADD]),
    "3 Codex sessions changed this file (4 changes), newest first: open one at its call");
  assert.equal(blamePlaceholder([B]), "1 Codex session changed this file, newest first: open one at its call");
});

test("a URI's folder and file name, decoded", () => {
  assert.deepEqual(splitPath("file:///home/u/run%201/x.jsonl"), { folder: "/home/u/run 1", name: "x.jsonl" });
  assert.deepEqual(splitPath("file:///x.jsonl"), { folder: "/", name: "x.jsonl" });
  assert.deepEqual(splitPath("vscode-remote://ssh-remote%2Bbox/home/u/s.jsonl"), { folder: "/home/u", name: "s.jsonl" });
});
