// Which exec record an editable script document stands for: its rollout, line and call_id, in the URI.
// Pure (no vscode import), so the unit tests run it under plain node.

export const EDIT_SCHEME = "rollout-exec";

export interface ScriptTarget {
  uri: string; // the rollout document
  line: number; // where the record was when the script was opened (the server follows a moved call_id)
  callId: string | null;
}

/** A URI whose path ends in `.js` (so VS Code opens it as JavaScript) and whose query names the record. */
export function editableScriptUri(target: ScriptTarget): string {
  const base = decodeURIComponent(target.uri.split(/[?#]/)[0].split("/").pop() || "rollout").replace(/\.jsonl$/, "");
  const name = `${base}-${target.callId || `line-${target.line + 1}`}`.replace(/[^A-Za-z0-9_.-]/g, "_");
  const query = new URLSearchParams({ uri: target.uri, line: String(target.line), callId: target.callId ?? "" });
  return `${EDIT_SCHEME}:/${name}.js?${query.toString()}`;
}

export function parseEditableScriptUri(query: string): ScriptTarget | null {
  const params = new URLSearchParams(query);
  const uri = params.get("uri");
  const line = Number(params.get("line"));
  if (!uri || !Number.isInteger(line) || line < 0) return null;
  return { uri, line, callId: params.get("callId") || null };
}

/** What `rollout-lsp.writeScript` answered, as the message a failed save shows. */
export function writeFailure(answer: { applied: boolean; reason: string | null } | null | undefined): string | null {
  if (!answer) return "Rollout: the server did not answer; the script was not written back.";
  if (answer.applied) return null;
  const why = answer.reason === null ? "the rollout changed since the script was opened; save again" : answer.reason;
  return `Rollout: the script was not written back (${why}).`;
}
