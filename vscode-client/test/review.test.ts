import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { REVIEWED_MESSAGE, ReviewChoices, codexHomes, isUnderCodexHome, madeWriteableElsewhere, reviewStatus } from "../src/review";

const root = join(__dirname, "..", "..");
const contributes = JSON.parse(readFileSync(join(root, "package.json"), "utf-8")).contributes;

test("the Codex homes are the server's: the setting, $ROLLOUT_LSP_CODEX_HOME, $CODEX_HOME, ~/.codex", () => {
  assert.deepEqual(codexHomes("/data/codex", { ROLLOUT_LSP_CODEX_HOME: "/srv/c", CODEX_HOME: "/opt/codex" }, "/home/u"),
    ["/data/codex", "/srv/c", "/opt/codex", "/home/u/.codex"]);
  assert.deepEqual(codexHomes(null, {}, "/home/u"), ["/home/u/.codex"]);
  // ~ expanded, a relative home dropped (as the server drops it), each home once, trailing slashes gone
  assert.deepEqual(codexHomes("~/alt", { CODEX_HOME: "relative/codex" }, "/home/u"), ["/home/u/alt", "/home/u/.codex"]);
  assert.deepEqual(codexHomes("/home/u/.codex/", { CODEX_HOME: "~" }, "/home/u"), ["/home/u/.codex", "/home/u"]);
  // symbolic links resolved as the server resolves them
  assert.deepEqual(codexHomes(undefined, { CODEX_HOME: "/link" }, "/home/u", (p) => p.replace("/link", "/real")),
    ["/real", "/home/u/.codex"]);
});

test("a file is under a Codex home only inside it, not beside it", () => {
  const homes = ["/home/u/.codex", "/opt/codex"];
  assert.equal(isUnderCodexHome("/home/u/.codex/sessions/2026/12/02/rollout-a.jsonl", homes), true);
  assert.equal(isUnderCodexHome("/opt/codex/archived_sessions/rollout-b.jsonl", homes), true);
  assert.equal(isUnderCodexHome("/opt/codex-copy/rollout-b.jsonl", homes), false);
  assert.equal(isUnderCodexHome("/home/u/project/rollout-c.jsonl", homes), false);
  assert.equal(isUnderCodexHome("/home/u/.codex/../project/rollout-c.jsonl", homes), false);
  assert.equal(isUnderCodexHome("/opt/codex", homes), false);  // the home itself is no file in it
});

test("read-only by default under a Codex home; the user's choice for one file wins over the default", () => {
  const choices = new ReviewChoices();
  const a = "file:///home/u/.codex/sessions/rollout-a.jsonl";
  const b = "file:///home/u/project/rollout-b.jsonl";
  assert.equal(choices.isReadOnly(a, true, true), true);
  assert.equal(choices.isReadOnly(b, false, true), false);
  assert.equal(choices.isReadOnly(a, true, false), false);  // rolloutLsp.reviewCodexHomeReadOnly off
  choices.choose(a, false);  // Allow Edits of This Rollout
  assert.equal(choices.isReadOnly(a, true, true), false);
  assert.equal(choices.chosen(a), true);
  choices.choose(b, true);  // Review This Rollout Read-Only, anywhere
  assert.equal(choices.isReadOnly(b, false, false), true);
  choices.choose(a, true);  // and back
  assert.equal(choices.isReadOnly(a, true, false), true);
  assert.equal(choices.chosen("file:///other.jsonl"), false);
});

test("a rollout made read-only that becomes dirty was made writeable by VS Code's own command", () => {
  assert.equal(madeWriteableElsewhere(true, false, true), true);  // typed: the document became dirty
  assert.equal(madeWriteableElsewhere(true, false, false), false);  // reloaded from disk (Codex appending): clean
  assert.equal(madeWriteableElsewhere(true, true, true), false);  // dirty already when made read-only
  assert.equal(madeWriteableElsewhere(false, false, true), false);  // never made read-only here
});

test("the status bar shows the state and a click turns it", () => {
  assert.deepEqual(reviewStatus(true), {
    text: "$(lock) Rollout: read-only",
    tooltip: "Reviewed read-only: keystrokes are refused and nothing is written to disk. Click to allow edits of this rollout.",
    command: "rolloutLsp.allowEdits",
  });
  assert.deepEqual(reviewStatus(false), {
    text: "$(unlock) Rollout: editable",
    tooltip: "Edits of this rollout are saved (auto-save too). Click to review it read-only.",
    command: "rolloutLsp.reviewReadOnly",
  });
  assert.match(REVIEWED_MESSAGE, /Allow Edits of This Rollout/);
});

test("the review commands and setting are contributed, each command offered in its state only", () => {
  const titles = Object.fromEntries(contributes.commands.map((c: { command: string; title: string }) => [c.command, c.title]));
  assert.equal(titles["rolloutLsp.allowEdits"], "Allow Edits of This Rollout");
  assert.equal(titles["rolloutLsp.reviewReadOnly"], "Review This Rollout Read-Only");
  const palette = Object.fromEntries(contributes.menus.commandPalette.map((m: { command: string; when: string }) => [m.command, m.when]));
  assert.equal(palette["rolloutLsp.allowEdits"], "rolloutLsp.review == readOnly");
  assert.equal(palette["rolloutLsp.reviewReadOnly"], "rolloutLsp.review == editable");
  const setting = contributes.configuration.properties["rolloutLsp.reviewCodexHomeReadOnly"];
  assert.deepEqual([setting.type, setting.default], ["boolean", true]);
});
