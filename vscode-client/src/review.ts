// Read-only review of rollouts: which rollouts are opened read-only (those under a Codex home, unless the
// setting `rolloutLsp.reviewReadOnly` is off) and the user's choices for single files this session ("Allow
// Edits of This Rollout", "Review This Rollout Read-Only"). Pure (no vscode import), so the unit tests run it
// under plain node; reviewMode.ts applies it to VS Code's editors.
import * as path from "path";

/**
 * The Codex homes, as the server finds them (analysis/jsonl/access.py, `Access.create`): the `rolloutLsp.codexHome`
 * setting, `$ROLLOUT_LSP_CODEX_HOME`, `$CODEX_HOME` and `~/.codex`; `~` expanded, relative ones dropped, each
 * once. ``real`` resolves symbolic links (the server compares real paths).
 */
export function codexHomes(setting: string | null | undefined, env: Record<string, string | undefined>, home: string,
                           real: (p: string) => string = (p) => p): string[] {
  const given = [setting, env.ROLLOUT_LSP_CODEX_HOME, env.CODEX_HOME, path.join(home, ".codex")];
  const homes: string[] = [];
  for (const one of given) {
    if (!one) continue;
    const expanded = one === "~" ? home : one.startsWith("~/") ? path.join(home, one.slice(2)) : one;
    if (!path.isAbsolute(expanded)) continue;
    const resolved = real(path.resolve(expanded));
    if (!homes.includes(resolved)) homes.push(resolved);
  }
  return homes;
}

/** Whether the file ``file`` (an absolute path, resolved as the homes are) is inside one of ``homes``. */
export function isUnderCodexHome(file: string, homes: readonly string[]): boolean {
  const resolved = path.resolve(file);
  return homes.some((home) => resolved.startsWith(home.endsWith(path.sep) ? home : home + path.sep));
}

/** Whether a file is reviewed read-only: the user's choice for it this session, else the default. */
export class ReviewChoices {
  private readonly choices = new Map<string, boolean>(); // uri → read-only, as the user chose this session

  /** ``underCodexHome``: the file is in a Codex home; ``byDefault``: the setting `rolloutLsp.reviewReadOnly`. */
  isReadOnly(uri: string, underCodexHome: boolean, byDefault: boolean): boolean {
    return this.choices.get(uri) ?? (byDefault && underCodexHome);
  }

  /** The user allowed edits of ``uri`` (false) or asked to review it read-only (true). */
  choose(uri: string, readOnly: boolean): void {
    this.choices.set(uri, readOnly);
  }

  /** Whether the user chose for ``uri``: a choice outlives the setting's default. */
  chosen(uri: string): boolean {
    return this.choices.has(uri);
  }
}

/**
 * Whether a rollout this extension made read-only was made writeable some other way (the "Click here to set
 * writeable" of VS Code's own read-only message, its Set Active Editor Writeable in Session): it became dirty,
 * which only a typed edit does. A file reloaded from disk (Codex appending to a live rollout) changes but stays
 * clean; one already dirty when it was made read-only says nothing.
 */
export function madeWriteableElsewhere(appliedReadOnly: boolean, dirtyWhenApplied: boolean, dirty: boolean): boolean {
  return appliedReadOnly && !dirtyWhenApplied && dirty;
}

/** The status bar's word for a rollout's state, and what a click on it does. */
export function reviewStatus(readOnly: boolean): { text: string; tooltip: string; command: string } {
  return readOnly
    ? { text: "$(lock) Rollout: read-only", tooltip: "Reviewed read-only: keystrokes are refused and nothing is written to disk. Click to allow edits of this rollout.", command: "rolloutLsp.allowEdits" }
    : { text: "$(unlock) Rollout: editable", tooltip: "Edits of this rollout are saved (auto-save too). Click to review it read-only.", command: "rolloutLsp.reviewReadOnly" };
}

/** What saving an exec script of a reviewed rollout says: nothing is written into it. */
export const REVIEWED_MESSAGE =
  "Rollout: the rollout is read-only for review; run \"Rollout: Allow Edits of This Rollout\" to write scripts into it.";
