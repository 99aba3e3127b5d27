import { strict as assert } from "node:assert";
import { test } from "node:test";

import { editableScriptUri, parseEditableScriptUri, writeFailure } from "../src/scriptTarget";

test("an editable script's URI ends in .js and names its record", () => {
  const rollout = "file:///home/u/rollout-2026-07-20%20a.jsonl";
  const uri = editableScriptUri({ uri: rollout, line: 4, callId: "call_uni3" });
  assert.equal(uri.split("?")[0], "rollout-exec:/rollout-2026-07-20_a-call_uni3.js");
  assert.deepEqual(parseEditableScriptUri(uri.split("?")[1]), { uri: rollout, line: 4, callId: "call_uni3" });
  const bare = editableScriptUri({ uri: rollout, line: 0, callId: null });
  assert.equal(bare.split("?")[0], "rollout-exec:/rollout-2026-07-20_a-line-1.js");
  assert.deepEqual(parseEditableScriptUri(bare.split("?")[1]), { uri: rollout, line: 0, callId: null });
  assert.equal(parseEditableScriptUri("uri=&line=1"), null);
  assert.equal(parseEditableScriptUri("uri=x&line=-1"), null);
});

test("a refused write says why", () => {
  assert.equal(writeFailure({ applied: true, reason: null }), null);
  assert.equal(writeFailure({ applied: false, reason: "no exec record at line 3" }),
    "Rollout: the script was not written back (no exec record at line 3).");
  assert.equal(writeFailure({ applied: false, reason: null }),
    "Rollout: the script was not written back (the rollout changed since the script was opened; save again).");
  assert.equal(writeFailure(null), "Rollout: the server did not answer; the script was not written back.");
});
