// The exec record a command is about: the one a code lens names, else the one under the cursor. Shared by
// Show Decoded Script and Edit Exec Script as JavaScript, which ask the server different things about it.
import * as vscode from "vscode";
import { LanguageClient } from "vscode-languageclient/node";

export interface ExecRecordAnswer<T> {
  uri: string; // the rollout
  line: number; // the line the command was run on (the server may answer with where the record is now)
  answer: T;
}

/**
 * Runs the server command ``serverCommand`` with ``[rollout URI, line]`` of the exec record at ``uri`` and
 * ``line`` (a code lens's arguments), else at the active editor's cursor. Undefined, after telling the user
 * why, when there is no such place, no server, or the line is not an exec record.
 */
export async function askAboutExecRecord<T>(client: LanguageClient | undefined, serverCommand: string,
                                            uri?: string, line?: number): Promise<ExecRecordAnswer<T> | undefined> {
  const editor = vscode.window.activeTextEditor;
  const documentUri = uri ?? editor?.document.uri.toString();
  const at = line ?? editor?.selection.active.line;
  if (!documentUri || at === undefined || !client) {
    void vscode.window.showWarningMessage("Rollout: put the cursor on an exec record of a rollout.");
    return undefined;
  }
  const answer = await client.sendRequest<T | null>(
    "workspace/executeCommand", { command: serverCommand, arguments: [documentUri, at] });
  if (!answer) {
    void vscode.window.showInformationMessage("Rollout: this line is not an exec record.");
    return undefined;
  }
  return { uri: documentUri, line: at, answer };
}
