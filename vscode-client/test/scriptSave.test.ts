import { strict as assert } from "node:assert";
import { test } from "node:test";

import { KEPT_MESSAGE, MANUAL_SAVE, savesRolloutAfter, writeArguments, writesIntoRollout } from "../src/scriptSave";

test("only a save the user asked for writes the script into the rollout", () => {
  assert.equal(MANUAL_SAVE, 1);
  assert.equal(writesIntoRollout(1), true);  // Ctrl+S, File > Save
  assert.equal(writesIntoRollout(2), false);  // files.autoSave afterDelay
  assert.equal(writesIntoRollout(3), false);  // onFocusChange / onWindowChange
  assert.equal(writesIntoRollout(undefined), false);  // a save VS Code announced to nobody
  assert.match(KEPT_MESSAGE, /Ctrl\+S/);
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
