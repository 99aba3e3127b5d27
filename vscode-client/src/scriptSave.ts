// When an edited exec script goes into the rollout: on every save of its tab, an explicit one (Ctrl+S) and an
// auto-save alike, and only when it parses (the server refuses one that does not, saying where). A save that
// writes nothing fails: VS Code keeps the tab dirty (a dirty mark, and a prompt when it is closed), and the status
// bar says why until the script is written. Pure (no vscode import), so the unit tests run it under plain node.

/** The arguments of `rollout-lsp.writeScript` for a save: the server refuses a script that does not parse. */
export function writeArguments(target: { uri: string; line: number; callId: string | null }, script: string): unknown[] {
  return [target.uri, target.line, script, target.callId, { requireValid: true }];
}

/** Whether the rollout is saved after the script went into it: when it had no unsaved change before, the
 * user's save of the script is a save of the rollout (an unsaved change of their own stays theirs to save). */
export function savesRolloutAfter(rolloutWasDirty: boolean, answer: { applied: boolean; changed: boolean }): boolean {
  return !rolloutWasDirty && answer.applied && answer.changed;
}

/** Whether a save of the tab has anything to write: its text differs from what the record holds (as last read
 * from the rollout or written into it). Saving the unchanged text asks nothing of the server. */
export function hasUnwritten(script: string, inRollout: string | undefined): boolean {
  return inRollout === undefined || script !== inRollout;
}

/** The status bar's words while the active script's last save wrote nothing, and a click to try again. */
export function pendingStatus(failure: string): { text: string; tooltip: string; command: string } {
  return {
    text: "$(warning) Script not in the rollout",
    tooltip: `${failure}\nThe edit stays in this tab (unsaved) until it is written. Click to write it (Ctrl+S).`,
    command: "rolloutLsp.saveScript",
  };
}
