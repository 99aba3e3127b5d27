import { strict as assert } from "node:assert";
import { test } from "node:test";

import { hasUnwritten, pendingStatus, savesRolloutAfter, writeArguments } from "../src/scriptSave";

test("a save writes the script only when its text is not what the record holds", () => {
  assert.equal(hasUnwritten("text(1);\n", "text(1);\n"), false);  // Ctrl+S after an auto-save wrote it
  assert.equal(hasUnwritten("text(2);\n", "text(1);\n"), true);
  assert.equal(hasUnwritten("", "text(1);\n"), true);  // an emptied script is an edit too
  assert.equal(hasUnwritten("text(1);\n", undefined), true);  // never read: ask the server
});

test("while a save wrote nothing the status bar says why and a click tries again", () => {
  const failure = "Rollout: the script was not written back (the script does not parse: line 2, column 5).";
  assert.deepEqual(pendingStatus(failure), {
    text: "$(warning) Script not in the rollout",
    tooltip: `${failure}\nThe edit stays in this tab (unsaved) until it is written. Click to write it (Ctrl+S).`,
    command: "rolloutLsp.saveScript",
  });
});

test("a save asks the server to refuse a script that does not parse", () => {
  assert.deepEqual(writeArguments({ uri: "file:///r.jsonl", line: 4, callId: "call_1" }, "text(1);\n"),
    ["file:///r.jsonl", 4, "text(1);\n", "call_1", { requireValid: true }]);
  assert.deepEqual(writeArguments({ uri: "file:///r.jsonl", line: 0, callId: null }, "")[3], null);
});

test("the rollout is saved with the script only when it had no unsaved change of its own", () => {
  assert.equal(savesRolloutAfter(false, { applied: true, changed: true }), true);
  assert.equal(savesRolloutAfter(true, { applied: true, changed: true }), false);
  assert.equal(savesRolloutAfter(false, { applied: true, changed: false }), false);
  assert.equal(savesRolloutAfter(false, { applied: false, changed: false }), false);
});
