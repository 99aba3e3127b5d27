// The command "Rollout: Link Invocation Log to a Rollout…": the active invocation log is linked to the open
// rollout picked from a list (or back to the automatic choice) with the server command
// `rollout-lsp.linkInvocationLog`; the server then publishes both documents' findings again.
import * as vscode from "vscode";
import { LanguageClient } from "vscode-languageclient/node";

import { LINK_LOG, LOG_ACTIVE, LinkReport, OpenDocument, fileName, isInvocationLog, linkArguments, linkChoices,
  linkSummary } from "./invocationLink";
import { DEFAULT_FILES, DEFAULT_INVOCATION_LOGS } from "./settings";

export function registerInvocationLogLinking(context: vscode.ExtensionContext,
                                             client: () => LanguageClient | undefined): void {
  const showInPalette = (): void => {
    const document = vscode.window.activeTextEditor?.document;
    void vscode.commands.executeCommand("setContext", LOG_ACTIVE,
      document !== undefined && isInvocationLog(openDocument(document.uri), invocationLogs()));
  };
  context.subscriptions.push(
    // a menu of a log's editor passes its URI; the palette passes nothing (the active editor's log)
    vscode.commands.registerCommand("rolloutLsp.linkInvocationLog",
      (log?: vscode.Uri | string) => linkInvocationLog(client(), log)),
    vscode.window.onDidChangeActiveTextEditor(showInPalette),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration("rolloutLsp.invocationLogs")) showInPalette();
    }),
  );
  showInPalette();
}

async function linkInvocationLog(client: LanguageClient | undefined, log?: vscode.Uri | string): Promise<void> {
  const logUri = typeof log === "string" ? vscode.Uri.parse(log) : log ?? vscode.window.activeTextEditor?.document.uri;
  if (!logUri || !isInvocationLog(openDocument(logUri), invocationLogs())) {
    void vscode.window.showWarningMessage(
      "Rollout: open an invocation log (a file matching rolloutLsp.invocationLogs) to link it to a rollout.");
    return;
  }
  if (!client) {
    void vscode.window.showWarningMessage("Rollout: the language server is not running.");
    return;
  }
  const current = await client.sendRequest<LinkReport>("workspace/executeCommand",
    { command: LINK_LOG, arguments: [logUri.toString()] });
  const files = vscode.workspace.getConfiguration("rolloutLsp").get<string[]>("files", DEFAULT_FILES);
  const open = vscode.workspace.textDocuments.map((document) => ({
    ...openDocument(document.uri), shown: vscode.workspace.asRelativePath(document.uri, false).replace(/\\/g, "/") }));
  const choices = linkChoices(open, files, invocationLogs(), current);
  if (choices.length === 1 && !current.named) {  // only "Choose automatically", which it is already
    void vscode.window.showInformationMessage(
      `Rollout: no rollout is open to link ${fileName(logUri.toString())} to: open the rollout of its run first.`);
    return;
  }
  const picked = await vscode.window.showQuickPick(choices,
    { placeHolder: `Link ${fileName(logUri.toString())} to the rollout of its run`, matchOnDetail: true });
  if (!picked) return;
  const report = await client.sendRequest<LinkReport>("workspace/executeCommand",
    { command: LINK_LOG, arguments: linkArguments(logUri.toString(), picked) });
  void vscode.window.showInformationMessage(linkSummary(report));
}

function invocationLogs(): string[] {
  return vscode.workspace.getConfiguration("rolloutLsp").get<string[]>("invocationLogs", DEFAULT_INVOCATION_LOGS);
}

function openDocument(uri: vscode.Uri): OpenDocument {
  return { uri: uri.toString(), scheme: uri.scheme, path: uri.path };
}
