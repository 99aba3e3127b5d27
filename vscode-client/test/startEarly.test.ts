import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { test } from "node:test";
import { hasSessions, needsServer, startsAtActivation } from "../src/startEarly";

test("the server starts at activation when a document needs it, the workspace has rollouts, or early for Codex", () => {
  assert.equal(startsAtActivation(["typescript", "rollout"], false, false, false), true);
  assert.equal(startsAtActivation(["jsonl"], false, false, false), true);
  assert.equal(startsAtActivation(["typescript"], true, false, false), true);
  assert.equal(startsAtActivation(["typescript", "markdown"], false, true, true), true);
  assert.equal(startsAtActivation(["typescript", "markdown"], false, false, true), false);
  assert.equal(startsAtActivation(["typescript", "markdown"], false, true, false), false);
  assert.equal(startsAtActivation([], false, true, false), false);
});

test("only rollouts, JSON Lines and JSON need the server", () => {
  assert.deepEqual(["rollout", "jsonl", "json", "jsonc", "plaintext", "javascript"].map(needsServer),
                   [true, true, true, false, false, false]);
});

test("a Codex home has sessions when its sessions or archived_sessions folder exists", () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "start-early-"));
  const empty = path.join(base, "empty");
  const live = path.join(base, "live");
  const archived = path.join(base, "archived");
  const file = path.join(base, "file");
  fs.mkdirSync(empty);
  fs.mkdirSync(path.join(live, "sessions"), { recursive: true });
  fs.mkdirSync(path.join(archived, "archived_sessions"), { recursive: true });
  fs.mkdirSync(file);
  fs.writeFileSync(path.join(file, "sessions"), "not a folder");
  assert.equal(hasSessions([empty]), false);
  assert.equal(hasSessions([path.join(base, "missing")]), false);
  assert.equal(hasSessions([file]), false);
  assert.equal(hasSessions([empty, live]), true);
  assert.equal(hasSessions([archived]), true);
  fs.rmSync(base, { recursive: true });
});
