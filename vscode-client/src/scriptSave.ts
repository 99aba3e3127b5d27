// When an edited exec script goes into the rollout: on an explicit save of its tab only. Auto-save (VS Code's
// `files.autoSave`, on by default in code-server) would write half-typed code into the rollout every second and
// turn its calls dead. Pure (no vscode import), so the unit tests run it under plain node.

/** `vscode.TextDocumentSaveReason`: Manual 1, AfterDelay 2, FocusOut 3. */
export const MANUAL_SAVE = 1;

/** Whether a save of the script's tab writes it into the rollout: only one the user asked for. */
export function writesIntoRollout(reason: number | undefined): boolean {
  return reason === MANUAL_SAVE;
}

/** What an auto-save of the script's tab says (once): the script stays in the tab. */
export const KEPT_MESSAGE = "Rollout: auto-save keeps the script in its tab; save it (Ctrl+S) to write it into the rollout.";

/** The arguments of `rollout-lsp.writeScript` for a save: the server refuses a script that does not parse. */
export function writeArguments(target: { uri: string; line: number; callId: string | null }, script: string): unknown[] {
  return [target.uri, target.line, script, target.callId, { requireValid: true }];
}

/** Whether the rollout is saved after the script went into it: when it had no unsaved change before, the
 * user's save of the script is a save of the rollout (an unsaved change of their own stays theirs to save). */
export function savesRolloutAfter(rolloutWasDirty: boolean, answer: { applied: boolean; changed: boolean }): boolean {
  return !rolloutWasDirty && answer.applied && answer.changed;
}
