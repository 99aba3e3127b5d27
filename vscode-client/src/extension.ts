// The VS Code side: starts `rollout-lsp serve` and adds the commands and the large-rollout view.
import { execFile } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as vscode from "vscode";
import { LanguageClient, LanguageClientOptions, ServerOptions, State } from "vscode-languageclient/node";

import { BLAME_SESSIONS, blameArguments, blameItems, blamePlaceholder, isBlameLocations } from "./blameSessions";
import { askAboutExecRecord } from "./execRecord";
import { BundleManifest, PROBE_SCRIPT, ServerLaunch, chooseNative, parseProbe, serverLaunch, startFailure, withNative }
  from "./launch";
import { registerInvocationLogLinking } from "./invocationLogs";
import { registerClosedDocuments, registerLargeDocuments } from "./largeDocuments";
import { registerLargeRollouts } from "./largeRollout";
import { codexHomes } from "./review";
import { registerReviewMode } from "./reviewMode";
import { registerScriptEditing } from "./scriptFs";
import { SessionsView, registerSessionsView } from "./sessionsView";
import { hasSessions, needsServer, startsAtActivation } from "./startEarly";
import {
  FailureStop, MARKDOWN_OPTIONS, ROLLOUT_LANGUAGE, SERVER_SHOW_INFO, SERVER_SHOW_SCRIPT, SNIFF_SAMPLE, documentSelector,
  failureStatus, initializationOptions, looksLikeRollout, needsRestart, parseScriptUri, scriptUri, sniffsLanguage,
} from "./settings";

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;
let sessionsView: SessionsView | undefined;
let holdsDiagnostics: ((uri: vscode.Uri, found: readonly vscode.Diagnostic[]) => boolean) | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("Rollout LSP");
  const scripts = new DecodedScripts();
  context.subscriptions.push(
    output,
    vscode.workspace.registerTextDocumentContentProvider("rollout-script", scripts),
    vscode.commands.registerCommand("rolloutLsp.showDecodedScript", showDecodedScript),
    vscode.commands.registerCommand("rolloutLsp.copyCommand", copyCommand),
    vscode.commands.registerCommand("rolloutLsp.restartServer", () => restart(context)),
    vscode.commands.registerCommand("rolloutLsp.exportRollout", exportRollout),
    vscode.commands.registerCommand("rolloutLsp.nextFailure", () => goToFailure(true)),
    vscode.commands.registerCommand("rolloutLsp.previousFailure", () => goToFailure(false)),
    vscode.workspace.onDidOpenTextDocument(rolloutByContent),
    vscode.commands.registerCommand("rolloutLsp.treatAsRollout", treatAsRollout),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (needsRestart((section) => event.affectsConfiguration(section))) void restart(context);
    }),
  );
  registerScriptEditing(context, () => client, registerReviewMode(context));
  registerInvocationLogLinking(context, () => client);
  registerLargeDocuments(context);  // before the server starts: opening a 10-50 MB rollout needs none
  holdsDiagnostics = registerClosedDocuments(context, () => client?.diagnostics);
  for (const document of vscode.workspace.textDocuments) void rolloutByContent(document);
  const openLargeTabs = registerLargeRollouts(context, () => client);
  sessionsView = registerSessionsView(context, () => client);
  const serverUp = async () => {
    await start(context);
    sessionsView?.refresh();  // shown before the server ran: ask it now
    openLargeTabs();  // a rollout over 50 MB already in a tab when VS Code (re)starts
  };
  const config = vscode.workspace.getConfiguration("rolloutLsp");
  const homes = codexHomes(config.get<string | null>("codexHome"), process.env, os.homedir());
  const open = vscode.workspace.textDocuments.map((document) => document.languageId);
  const rollouts = await vscode.workspace.findFiles("**/rollout-*.jsonl", "**/node_modules/**", 1);
  if (startsAtActivation(open, rollouts.length > 0, config.get<boolean>("server.startEarly", true), hasSessions(homes))) {
    await serverUp();
    return;
  }
  // activated once VS Code started, in a window with no Codex sessions: the server waits for its first document
  const waiting = vscode.workspace.onDidOpenTextDocument((document) => {
    if (!needsServer(document.languageId) || client) return;
    waiting.dispose();
    void serverUp();
  });
  context.subscriptions.push(waiting);
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}

async function start(context: vscode.ExtensionContext): Promise<void> {
  const config = vscode.workspace.getConfiguration("rolloutLsp");
  let launch = serverLaunch(
    { command: config.get<string>("server.command", ""), python: config.get<string>("server.python", "") },
    path.join(context.extensionPath, "bundled", "libs"),
    await pythonFromExtension(),
    process.env,
  );
  if (launch.source !== "setting") {  // the bundled server: pick the compiled dependencies for this Python
    const native = await nativeFolder(context, launch);
    if (native === undefined) return;
    launch = withNative(launch, native, process.env);
  }
  output.appendLine(`Starting the server (${launch.source}): ${launch.command} ${launch.args.join(" ")}`);
  const serverOptions: ServerOptions = {
    command: launch.command,
    args: launch.args,
    options: { env: { ...process.env, ...launch.env } },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: documentSelector(config.get<string[]>("files"), config.get<string[]>("invocationLogs")),
    initializationOptions: initializationOptions((key, fallback) => config.get(key, fallback)),
    synchronize: { configurationSection: "rolloutLsp" },
    outputChannel: output,
    markdown: MARKDOWN_OPTIONS,
    middleware: {
      // a document no tab shows any more: its diagnostics stay out of Problems (largeDocuments.ts)
      handleDiagnostics: (uri, diagnostics, next) => next(uri, holdsDiagnostics?.(uri, diagnostics) ? [] : diagnostics),
      // The server's lenses run its own command, which shows the script through window/showDocument in any
      // editor; VS Code has a view of its own for it, so its lenses run the extension's command instead.
      // An informational lens (a session's totals) runs a server command that shows its text as a message, for
      // editors that draw a lens without a command badly; VS Code draws it as plain text.
      provideCodeLenses: async (document, token, next) => {
        const lenses = await next(document, token);
        for (const lens of lenses ?? []) {
          if (lens.command?.command === SERVER_SHOW_SCRIPT) lens.command.command = "rolloutLsp.showDecodedScript";
          else if (lens.command?.command === SERVER_SHOW_INFO) {
            lens.command.command = "";
            lens.command.arguments = undefined;
          }
        }
        return lenses;
      },
      // The blame lens's command would have the server ask with window/showMessageRequest: a notification with a
      // button per change. The extension asks for the locations only and lists them in a quick pick.
      executeCommand: async (command, args, next) => {
        const locationsOnly = command === BLAME_SESSIONS ? blameArguments(args) : undefined;
        if (!locationsOnly) return next(command, args);
        const locations = await next(command, locationsOnly);
        if (isBlameLocations(locations)) await pickBlameSession(locations);
        return locations;
      },
    },
  };
  client = new RolloutClient("rolloutLsp", "Rollout LSP", serverOptions, clientOptions);
  try {
    await client.start();
  } catch (error) {
    await reportStartFailure(launch, String(error instanceof Error ? error.message : error));
    return;
  }
  client.onDidChangeState((event) => {
    if (event.newState === State.Stopped) output.appendLine("The server stopped.");
  });
}

/** The changes of a file (newest first) in a quick pick; the rollout of the one picked opens at its call. */
async function pickBlameSession(locations: Parameters<typeof blameItems>[0]): Promise<void> {
  if (!locations.length) {
    void vscode.window.showInformationMessage("Rollout: no Codex session changed this file (session index).");
    return;
  }
  const picked = await vscode.window.showQuickPick(blameItems(locations), {
    placeHolder: blamePlaceholder(locations), matchOnDescription: true, matchOnDetail: true,
  });
  if (!picked) return;
  const { start, end } = picked.location.range;
  await vscode.window.showTextDocument(vscode.Uri.parse(picked.location.uri), {
    selection: new vscode.Range(start.line, start.character, end.line, end.character), preview: false,
  });
}

/** A language client whose log says "error" only for errors. */
class RolloutClient extends LanguageClient {
  // vscode-languageclient 9.0.1 logs every exit of the server as an error, the normal exit (code 0) after
  // shutdown on a restart or reload included
  override error(message: string, data?: unknown, showNotification?: boolean | "force"): void {
    if (message === "Server process exited with code 0.") {
      this.info(message);
      return;
    }
    super.error(message, data, showNotification);
  }
}

async function restart(context: vscode.ExtensionContext): Promise<void> {
  const old = client;
  client = undefined;
  try {
    await old?.stop();
  } catch (error) {
    output.appendLine(`Stopping the server failed: ${error}`);
  }
  await start(context);
  sessionsView?.refresh();
}

async function reportStartFailure(launch: ServerLaunch, error: string): Promise<void> {
  output.appendLine(`The server did not start: ${error}`);
  const { message, actions } = startFailure(launch, error);
  const choice = await vscode.window.showErrorMessage(message, ...actions);
  if (choice === "Open Settings") await vscode.commands.executeCommand("workbench.action.openSettings", "rolloutLsp.server");
  if (choice === "Show Output") output.show();
}

/** bundled/native/cpXY for the interpreter of ``launch``, or undefined after telling the user what to do. */
async function nativeFolder(context: vscode.ExtensionContext, launch: ServerLaunch): Promise<string | undefined> {
  const bundled = path.join(context.extensionPath, "bundled");
  let probe: string;
  try {
    probe = await new Promise<string>((resolve, reject) => execFile(launch.command, ["-c", PROBE_SCRIPT],
      { timeout: 20_000 }, (error, stdout) => (error ? reject(error) : resolve(stdout))));
  } catch (error) {
    await reportStartFailure(launch, String(error instanceof Error ? error.message : error));
    return undefined;
  }
  const manifest = JSON.parse(fs.readFileSync(path.join(bundled, "PLATFORM.json"), "utf-8")) as BundleManifest;
  const choice = chooseNative(manifest, parseProbe(probe), launch.command);
  if ("problem" in choice) {
    output.appendLine(choice.problem);
    const picked = await vscode.window.showErrorMessage(choice.problem, ...choice.actions);
    if (picked === "Open Settings") await vscode.commands.executeCommand("workbench.action.openSettings", "rolloutLsp.server");
    if (picked === "Show Output") output.show();
    return undefined;
  }
  return path.join(bundled, "native", choice.folder);
}

async function pythonFromExtension(): Promise<string | undefined> {
  const extension = vscode.extensions.getExtension("ms-python.python");
  if (!extension) return undefined;
  try {
    const api = extension.isActive ? extension.exports : await extension.activate();
    const environment = api?.environments?.getActiveEnvironmentPath?.();
    return environment?.path || undefined;
  } catch {
    return undefined;
  }
}

/** Read-only documents with an exec record's decoded JavaScript. */
class DecodedScripts implements vscode.TextDocumentContentProvider {
  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const target = parseScriptUri(uri.query);
    if (!target || !client) return "// the rollout or its server is not available";
    const result = await client.sendRequest<{ script: string } | null>("workspace/executeCommand", {
      command: "rollout-lsp.decodedScript", arguments: [target.uri, target.line],
    });
    return result ? result.script : "// this line holds no exec script";
  }
}

async function showDecodedScript(uri?: string, line?: number): Promise<void> {
  const found = await askAboutExecRecord<{ script: string; call_id: string | null }>(
    client, "rollout-lsp.decodedScript", uri, line);
  if (!found) return;
  const document = await vscode.workspace.openTextDocument(
    vscode.Uri.parse(scriptUri(found.uri, found.line, found.answer.call_id)));
  await vscode.languages.setTextDocumentLanguage(document, "javascript");
  await vscode.window.showTextDocument(document, { preview: true, viewColumn: vscode.ViewColumn.Beside });
}

/** The odd file (another extension, a rollout the server did not recognise by its first records) read as a
 * rollout: its language becomes `rollout`, which the server takes as a rollout whatever its content. A
 * compressed `.jsonl.zst` is not text: it goes to the Large Rollout view, which has the server read it. */
async function treatAsRollout(resource?: vscode.Uri): Promise<void> {
  const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
  const uri = resource instanceof vscode.Uri ? resource : vscode.window.activeTextEditor?.document.uri
    ?? (tab?.input instanceof vscode.TabInputText ? tab.input.uri : undefined);
  if (!uri) {
    void vscode.window.showWarningMessage("Rollout: open the file to treat as a rollout.");
    return;
  }
  if (uri.path.endsWith(".zst")) {
    await vscode.commands.executeCommand("rolloutLsp.openLargeRollout", uri);
    return;
  }
  const document = await vscode.workspace.openTextDocument(uri);
  await vscode.languages.setTextDocumentLanguage(document, ROLLOUT_LANGUAGE);
}

async function copyCommand(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || !client) return;
  const position = editor.selection.active;
  const result = await client.sendRequest<{ command: string | null; expansion: string[] | null; patch: string | null } | null>(
    "workspace/executeCommand",
    { command: "rollout-lsp.callCommand", arguments: [editor.document.uri.toString(), position.line, position.character] });
  const text = result?.command ?? (result?.expansion ? result.expansion.join("\n") : null) ?? result?.patch ?? null;
  if (text === null) {
    void vscode.window.showInformationMessage("Rollout: no exactly known command here (it is computed, or not a call).");
    return;
  }
  await vscode.env.clipboard.writeText(text);
  void vscode.window.setStatusBarMessage("Rollout: command copied", 3000);
}

/** The next (or previous) failed call from the cursor: the server's `rollout-lsp.nextFailure` or
 * `rollout-lsp.previousFailure` moves the cursor there (window/showDocument) and says in a message when it went
 * round the end; the status bar says which of how many. */
async function goToFailure(forward: boolean): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || !client) return;
  const { line, character } = editor.selection.active;
  const found = await client.sendRequest<FailureStop | null>("workspace/executeCommand", {
    command: forward ? "rollout-lsp.nextFailure" : "rollout-lsp.previousFailure",
    arguments: [editor.document.uri.toString(), line, character],
  });
  if (!found) void vscode.window.showInformationMessage("Rollout: no call failed in this session.");
  else vscode.window.setStatusBarMessage(failureStatus(found, forward), 5000);
}

/** A `.jsonl` file of any name whose first records are a rollout's (the server's own rule, analysis/session/
 * sniff.py, which settings.ts repeats) takes the rollout language: word wrap, its colours, its settings. */
async function rolloutByContent(document: vscode.TextDocument): Promise<void> {
  if (!sniffsLanguage(document.languageId, document.uri.path, document.uri.scheme)) return;
  const lines = function* (): Generator<string> {
    for (let n = 0, records = 0; n < document.lineCount && records <= SNIFF_SAMPLE; n++) {
      const text = document.lineAt(n).text;
      if (text.trim()) records++;
      yield text;
    }
  };
  if (!looksLikeRollout(lines())) return;
  try {
    await vscode.languages.setTextDocumentLanguage(document, ROLLOUT_LANGUAGE);
  } catch (error) {
    output.appendLine(`${document.uri.fsPath} is a rollout, but its language did not change: ${error}`);
  }
}

/** The open rollout as a Markdown or HTML document (the server's `rollout-lsp.export`), secrets redacted. */
async function exportRollout(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || !client) {
    void vscode.window.showWarningMessage("Rollout: open a rollout to export it.");
    return;
  }
  const picked = await vscode.window.showQuickPick(
    [{ label: "Markdown", format: "md" }, { label: "HTML", format: "html" }], { placeHolder: "Export the rollout as" });
  if (!picked) return;
  const result = await client.sendRequest<{ text: string; name: string } | null>("workspace/executeCommand", {
    command: "rollout-lsp.export", arguments: [editor.document.uri.toString(), picked.format, true],
  });
  if (!result) {
    void vscode.window.showInformationMessage("Rollout: this document is not a rollout.");
    return;
  }
  const target = await vscode.window.showSaveDialog({
    defaultUri: vscode.Uri.joinPath(editor.document.uri, "..", result.name),
    filters: picked.format === "md" ? { Markdown: ["md"] } : { HTML: ["html"] },
  });
  if (!target) return;
  await vscode.workspace.fs.writeFile(target, Buffer.from(result.text, "utf8"));
  if (picked.format === "md") {
    await vscode.window.showTextDocument(target, { preview: true });
    return;
  }
  // an HTML export is read in a browser: the notification offers to open it there, or to show its folder
  const choice = await vscode.window.showInformationMessage(
    `Rollout: exported to ${target.fsPath}`, "Open", "Reveal in File Explorer");
  if (choice === "Open") await vscode.env.openExternal(target);
  else if (choice === "Reveal in File Explorer") await vscode.commands.executeCommand("revealFileInOS", target);
}

