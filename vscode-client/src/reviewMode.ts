// Read-only review in VS Code: a rollout under a Codex home is made read-only for this session when its editor
// becomes active (VS Code's own `workbench.action.files.setActiveEditorReadonlyInSession`: the editor refuses
// keystrokes, so auto-save has nothing to write), with "Allow Edits of This Rollout" and "Review This Rollout
// Read-Only" to change it for one file, the setting `rolloutLsp.reviewCodexHomeReadOnly` to turn the default
// off, and the state in the status bar (a click toggles it). What is read-only is decided in review.ts.
import * as fs from "fs";
import * as os from "os";
import * as vscode from "vscode";

import { ReviewChoices, codexHomes, isUnderCodexHome, madeWriteableElsewhere, reviewStatus } from "./review";

const SET_READONLY = "workbench.action.files.setActiveEditorReadonlyInSession";
const SET_WRITEABLE = "workbench.action.files.setActiveEditorWriteableInSession";
const CONTEXT = "rolloutLsp.review"; // "readOnly" or "editable" while a rollout's editor is active, else ""

export interface Review {
  /** Whether the rollout ``uri`` is reviewed read-only (nothing may be written into it). */
  isReadOnly(uri: vscode.Uri): boolean;
  /** Allow edits of the rollout ``uri`` for this session (its editor follows when it is or becomes active). */
  allow(uri: vscode.Uri): Promise<void>;
}

function real(file: string): string {
  try {
    return fs.realpathSync.native(file);
  } catch {
    return file;
  }
}

/** A rollout on disk: the rollout language, or a JSON Lines file (under a Codex home, whatever its name). */
function isRolloutDocument(document: vscode.TextDocument): boolean {
  return document.uri.scheme === "file" && (document.languageId === "rollout" || document.uri.path.endsWith(".jsonl"));
}

export function registerReviewMode(context: vscode.ExtensionContext): Review {
  const choices = new ReviewChoices();
  const applied = new Map<string, boolean>(); // what this extension last made each file: read-only or not
  const dirtyWhenApplied = new Set<string>(); // files with unsaved changes when they were made read-only
  const status = vscode.window.createStatusBarItem("rolloutLsp.review", vscode.StatusBarAlignment.Left, 40);
  status.name = "Rollout Review";
  const settings = () => vscode.workspace.getConfiguration("rolloutLsp");
  let homes: string[] = [];
  const findHomes = () => {
    homes = codexHomes(settings().get<string | null>("codexHome"), process.env, os.homedir(), real);
  };
  findHomes();

  const isReadOnly = (uri: vscode.Uri): boolean => uri.scheme === "file" && choices.isReadOnly(
    uri.toString(), isUnderCodexHome(real(uri.fsPath), homes), settings().get<boolean>("reviewCodexHomeReadOnly", true));

  /** Make the active editor what its rollout should be; show the state. */
  const follow = async (): Promise<void> => {
    const editor = vscode.window.activeTextEditor;
    if (!editor || !isRolloutDocument(editor.document)) {
      status.hide();
      await vscode.commands.executeCommand("setContext", CONTEXT, "");
      return;
    }
    const key = editor.document.uri.toString();
    const readOnly = isReadOnly(editor.document.uri);
    // only ever undo what this extension did: a file read-only by the user's own settings stays so
    if (readOnly !== (applied.get(key) ?? false)) {
      applied.set(key, readOnly);
      if (readOnly && editor.document.isDirty) dirtyWhenApplied.add(key);
      else dirtyWhenApplied.delete(key);
      await vscode.commands.executeCommand(readOnly ? SET_READONLY : SET_WRITEABLE);
    }
    const shown = reviewStatus(readOnly);
    status.text = shown.text;
    status.tooltip = shown.tooltip;
    status.command = shown.command;
    status.show();
    await vscode.commands.executeCommand("setContext", CONTEXT, readOnly ? "readOnly" : "editable");
  };

  const choose = async (readOnly: boolean, uri?: vscode.Uri): Promise<void> => {
    const target = uri ?? vscode.window.activeTextEditor?.document.uri;
    const document = vscode.window.activeTextEditor?.document;
    if (!target || (!uri && (!document || !isRolloutDocument(document)))) {
      void vscode.window.showInformationMessage("Rollout: open a rollout first.");
      return;
    }
    choices.choose(target.toString(), readOnly);
    await follow();
  };

  context.subscriptions.push(
    status,
    vscode.window.onDidChangeActiveTextEditor(() => void follow()),
    vscode.workspace.onDidOpenTextDocument((document) => {  // a rollout recognised by content changes language
      if (document === vscode.window.activeTextEditor?.document) void follow();
    }),
    vscode.workspace.onDidChangeTextDocument((event) => {  // also sent when only the dirty state changed
      const key = event.document.uri.toString();
      if (!madeWriteableElsewhere(applied.get(key) ?? false, dirtyWhenApplied.has(key), event.document.isDirty)) return;
      applied.set(key, false);  // VS Code's own command made it writeable: the state follows, nothing is re-applied
      choices.choose(key, false);
      void follow();
    }),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration("rolloutLsp.codexHome")) findHomes();
      if (event.affectsConfiguration("rolloutLsp.codexHome") || event.affectsConfiguration("rolloutLsp.reviewCodexHomeReadOnly")) void follow();
    }),
    vscode.commands.registerCommand("rolloutLsp.allowEdits", (uri?: vscode.Uri) => choose(false, uri)),
    vscode.commands.registerCommand("rolloutLsp.reviewReadOnly", (uri?: vscode.Uri) => choose(true, uri)),
  );
  void follow();
  return { isReadOnly, allow: (uri) => choose(false, uri) };
}
