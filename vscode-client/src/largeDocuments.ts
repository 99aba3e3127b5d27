// Rollouts of 10 to 50 MB, which VS Code still gives extensions but treats as large files: in a remote window or
// a browser it shows "Open Anyway" instead of them (`workbench.editorLargeFileConfirmation`), and over 20 MB its
// editor draws no code lenses (`editor.largeFileOptimizations`). The extension opens such a rollout itself and
// lists its lenses from the status bar.
import * as fs from "fs";
import * as path from "path";
import * as vscode from "vscode";

import { Lens, confirmationLimit, isRolloutPath, leftWithoutTab, lensSummary, lensesRefused, megabytes,
  opensPastConfirmation } from "./largeFiles";
import { DEFAULT_FILES } from "./settings";

const SHOW_LENSES = "rolloutLsp.showLenses";
const DRAW_LENSES = "$(gear) Draw lenses in the editor for";

export function registerLargeDocuments(context: vscode.ExtensionContext): void {
  const opening = new Set<string>();  // files being loaded: a tab event during the load starts no second one

  /** A rollout's tab that VS Code shows as "Open Anyway": load the document and show it in that tab. */
  const openPastConfirmation = async (tab: vscode.Tab): Promise<void> => {
    if (!tab.isActive || !(tab.input instanceof vscode.TabInputText) || tab.input.uri.scheme !== "file") return;
    const uri = tab.input.uri;
    const config = vscode.workspace.getConfiguration("rolloutLsp");
    if (!isRolloutPath(uri.fsPath, config.get<string[]>("files", DEFAULT_FILES)) || opening.has(uri.fsPath)) return;
    if (vscode.window.visibleTextEditors.some((editor) => editor.document.uri.toString() === uri.toString())) return;
    let size: number;
    try {
      size = (await fs.promises.stat(uri.fsPath)).size;
    } catch {
      return;
    }
    const configured = vscode.workspace.getConfiguration("workbench", uri).inspect<number>("editorLargeFileConfirmation");
    const limit = confirmationLimit(
      configured?.workspaceFolderValue ?? configured?.workspaceValue ?? configured?.globalValue,
      vscode.env.remoteName !== undefined, vscode.env.uiKind === vscode.UIKind.Web);
    if (!opensPastConfirmation(uri.fsPath, size, config.get<string[]>("files", DEFAULT_FILES), limit,
      config.get<boolean>("openPastLargeFileConfirmation", true))) return;
    opening.add(uri.fsPath);
    try {
      // openTextDocument loads a file of any size VS Code syncs, with no confirmation: the editor then shows it
      const document = await vscode.window.withProgress({
        location: vscode.ProgressLocation.Notification,
        title: `Rollout: opening ${path.basename(uri.fsPath)} (${megabytes(size)}), over VS Code's `
          + `${megabytes(limit)} large-file confirmation…`,
      }, () => vscode.workspace.openTextDocument(uri));
      const still = vscode.window.tabGroups.all.flatMap((group) => group.tabs).find((t) =>
        t.input instanceof vscode.TabInputText && t.input.uri.toString() === uri.toString());
      if (!still) return;  // closed while it loaded
      await vscode.window.showTextDocument(document, { viewColumn: still.group.viewColumn, preview: still.isPreview });
    } catch (error) {
      void vscode.window.showErrorMessage(`Rollout: ${path.basename(uri.fsPath)} did not open: ${
        error instanceof Error ? error.message : String(error)}`);
    } finally {
      opening.delete(uri.fsPath);
    }
  };

  const lenses = new LensStatus();
  context.subscriptions.push(
    lenses,
    vscode.window.tabGroups.onDidChangeTabs((event) => {
      for (const tab of [...event.opened, ...event.changed]) void openPastConfirmation(tab);
    }),
    vscode.window.onDidChangeActiveTextEditor((editor) => lenses.follow(editor)),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration("editor") || event.affectsConfiguration("rolloutLsp.files")) {
        lenses.follow(vscode.window.activeTextEditor, true);
      }
    }),
    vscode.commands.registerCommand(SHOW_LENSES, () => lenses.pick()),
  );
  for (const tab of vscode.window.tabGroups.activeTabGroup.tabs) void openPastConfirmation(tab);
  lenses.follow(vscode.window.activeTextEditor);
}

/** The status bar item of a rollout whose editor draws no code lenses; clicking it lists them. */
class LensStatus implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem("rolloutLsp.lenses", vscode.StatusBarAlignment.Left, 10);
  private document: vscode.TextDocument | undefined;
  private lenses: Promise<Lens[]> | undefined;

  follow(editor: vscode.TextEditor | undefined, again = false): void {
    const document = editor?.document;
    if (document === this.document && !again) return;
    this.document = undefined;
    this.lenses = undefined;
    if (!document || !refusesLenses(document)) {
      this.item.hide();
      return;
    }
    this.document = document;
    this.item.name = "Rollout Lenses";
    this.item.text = "$(list-flat) Rollout lenses";
    this.item.tooltip = `VS Code draws no code lenses in a file over 20 MB or 300,000 lines (editor.largeFileOptimizations): `
      + `click for this rollout's lenses (${megabytes(document.offsetAt(document.lineAt(document.lineCount - 1).range.end))}).`;
    this.item.command = SHOW_LENSES;
    this.item.show();
    const lenses = this.lenses = codeLenses(document.uri);
    void lenses.then((found) => {
      if (this.lenses === lenses) this.item.text = `$(list-flat) ${lensSummary(found)}`;
    }, () => undefined);
  }

  async pick(): Promise<void> {
    const document = this.document ?? vscode.window.activeTextEditor?.document;
    if (!document) return;
    const found = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: "Rollout lenses" },
      () => this.document === document && this.lenses ? this.lenses : codeLenses(document.uri));
    type Item = vscode.QuickPickItem & { lens?: Lens };
    const items: Item[] = found.map((lens) => ({ label: lens.title, description: `line ${lens.line + 1}`, lens }));
    items.push({ label: "", kind: vscode.QuickPickItemKind.Separator },
      { label: `${DRAW_LENSES} ${document.languageId} files…`,
        detail: `Turns editor.largeFileOptimizations off for ${document.languageId}: VS Code then colours, folds and draws `
          + "lenses in such files whatever their size, from the next time it opens one." });
    const picked = await vscode.window.showQuickPick(items, {
      placeHolder: `${found.length} lenses of ${path.basename(document.uri.fsPath)}: pick one to go to its line`,
      matchOnDescription: true,
    });
    if (!picked) return;
    if (!picked.lens) {
      await drawLensesFor(document.languageId);
      return;
    }
    const at = new vscode.Position(picked.lens.line, 0);
    await vscode.window.showTextDocument(document, { selection: new vscode.Range(at, at) });
    if (picked.lens.command) await vscode.commands.executeCommand(picked.lens.command, ...picked.lens.arguments);
  }

  dispose(): void {
    this.item.dispose();
  }
}

function refusesLenses(document: vscode.TextDocument): boolean {
  if (document.uri.scheme !== "file") return false;
  const patterns = vscode.workspace.getConfiguration("rolloutLsp").get<string[]>("files", DEFAULT_FILES);
  if (!isRolloutPath(document.uri.fsPath, patterns)) return false;
  const editor = vscode.workspace.getConfiguration("editor", document);  // with the document's language overrides
  const length = document.offsetAt(document.lineAt(document.lineCount - 1).range.end);
  return lensesRefused(length, document.lineCount, editor.get<boolean>("largeFileOptimizations", true),
    editor.get<boolean>("codeLens", true));
}

async function codeLenses(uri: vscode.Uri): Promise<Lens[]> {
  const found = await vscode.commands.executeCommand<vscode.CodeLens[]>("vscode.executeCodeLensProvider", uri) ?? [];
  return found.map((lens) => ({
    line: lens.range.start.line, title: lens.command?.title ?? "", command: lens.command?.command || null,
    arguments: lens.command?.arguments ?? [],
  })).filter((lens) => lens.title).sort((a, b) => a.line - b.line);
}

/** Turns VS Code's large-file optimizations off for one language, in the user's settings, after saying what it costs. */
async function drawLensesFor(languageId: string): Promise<void> {
  await vscode.workspace.getConfiguration("editor", { languageId })
    .update("largeFileOptimizations", false, vscode.ConfigurationTarget.Global, true);
  const choice = await vscode.window.showInformationMessage(
    `Rollout: "[${languageId}]": {"editor.largeFileOptimizations": false} is in your settings. VS Code applies it to a `
    + "file when it opens it: reload the window to draw this rollout's lenses.", "Reload Window");
  if (choice === "Reload Window") await vscode.commands.executeCommand("workbench.action.reloadWindow");
}

/** The URIs a tab shows (a text tab's, both sides of a diff). */
function tabUris(tab: vscode.Tab): string[] {
  if (tab.input instanceof vscode.TabInputText) return [tab.input.uri.toString()];
  if (tab.input instanceof vscode.TabInputTextDiff) return [tab.input.original.toString(), tab.input.modified.toString()];
  return [];
}

/**
 * Documents whose last tab closed: their diagnostics leave Problems at once, and the server's later ones for
 * them are held until a tab shows them again (then they come back). VS Code keeps a document an extension opened
 * (a rollout over the large-file confirmation, which registerLargeDocuments opens itself) open for up to three
 * minutes after its tab closes (its BoundModelReferenceCollection), so no didClose reached the server and the
 * diagnostics of a closed 14.7 MB rollout stayed in Problems.
 * Returns the client's handleDiagnostics filter: true when it holds the diagnostics of ``uri`` back.
 */
export function registerClosedDocuments(context: vscode.ExtensionContext, diagnostics: () => vscode.DiagnosticCollection | undefined):
    (uri: vscode.Uri, found: readonly vscode.Diagnostic[]) => boolean {
  const held = new Map<string, readonly vscode.Diagnostic[]>();  // closed documents and their last diagnostics
  context.subscriptions.push(
    vscode.window.tabGroups.onDidChangeTabs((event) => {
      for (const uri of [...event.opened, ...event.changed].flatMap(tabUris)) {
        const kept = held.get(uri);
        if (kept === undefined) continue;
        held.delete(uri);
        diagnostics()?.set(vscode.Uri.parse(uri), kept);  // shown again before VS Code let it go: no new didOpen
      }
      const shown = vscode.window.tabGroups.all.flatMap((group) => group.tabs).flatMap(tabUris);
      for (const uri of leftWithoutTab(event.closed.flatMap(tabUris), shown)) {
        const collection = diagnostics();
        const parsed = vscode.Uri.parse(uri);
        held.set(uri, collection?.get(parsed) ?? []);
        collection?.delete(parsed);
      }
    }),
    vscode.workspace.onDidCloseTextDocument((document) => held.delete(document.uri.toString())),
  );
  return (uri, found) => {
    if (!held.has(uri.toString())) return false;
    held.set(uri.toString(), found);
    return true;
  };
}
