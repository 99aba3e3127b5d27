// Rollouts analysed from disk: VS Code gives extensions no document over 50 MB, so the server reads the file
// (`rollout/analyzeFile`), a tree view lists its calls and findings, and its findings go to Problems.
import * as fs from "fs";
import * as path from "path";
import * as vscode from "vscode";
import { LanguageClient } from "vscode-languageclient/node";

import {
  AnalyzedFile, DEFAULT_LARGE_MODE, LargeRolloutMode, Range, callLabel, callRange, largeRolloutAction, megabytes,
  publishesProblems, severityNumber,
} from "./largeFiles";
import { DEFAULT_FILES } from "./settings";

type Node = {
  label: string; description?: string; tooltip?: string; children?: Node[]; icon?: string;
  at?: { file: string; range: Range };
};

const OPEN_AT = "rolloutLsp.largeRollout.openAt";

export class LargeRolloutView implements vscode.TreeDataProvider<Node> {
  private roots: Node[] = [];
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  show(result: AnalyzedFile): void {
    const file = result.file ?? "";
    this.roots = result.error ? [{ label: result.error, icon: "error" }] : [
      { label: path.basename(file) || "rollout", description: `${result.calls.length} calls`, icon: "file",
        tooltip: file, children: result.calls.map((call) => ({
          ...callLabel(call), icon: call.kind === "patch" ? "diff" : call.kind === "command" ? "terminal" : "tools",
          at: { file, range: callRange(call) } })) },
      { label: "Findings", description: String(result.diagnostics.length), icon: "warning",
        children: result.diagnostics.map((d) => ({
          label: `${d.range.start.line + 1}:${d.range.start.character + 1} ${d.code}`, description: d.message,
          tooltip: `${d.severity}: ${d.message}`, icon: d.severity === "error" ? "error" : "warning",
          at: { file, range: d.range } })) },
    ];
    this.changed.fire(undefined);
  }

  getTreeItem(node: Node): vscode.TreeItem {
    const item = new vscode.TreeItem(node.label, node.children?.length
      ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.description = node.description;
    item.tooltip = node.tooltip ? new vscode.MarkdownString().appendCodeblock(node.tooltip, "sh") : undefined;
    if (node.icon) item.iconPath = new vscode.ThemeIcon(node.icon);
    if (node.at) item.command = { command: OPEN_AT, title: "Open at This Line", arguments: [node.at.file, node.at.range] };
    return item;
  }

  getChildren(node?: Node): Node[] {
    return node ? node.children ?? [] : this.roots;
  }
}

/**
 * The view, its commands, Problems for large rollouts, and the watch on tabs that offers the view at once.
 * Returns what looks at the tabs already open: call it once the server runs.
 */
export function registerLargeRollouts(context: vscode.ExtensionContext,
                                      client: () => LanguageClient | undefined): () => void {
  const view = new LargeRolloutView();
  const problems = vscode.languages.createDiagnosticCollection("rollout-large");
  // files offered or analysed in this window, with their size and modification time: a tab that shows the
  // same file again asks nothing; one that shows it grown (a session still running) reads it again
  const seen = new Set<string>();

  const analyse = async (file: string, size: number): Promise<void> => {
    const server = client();
    if (!server) return;
    let result: AnalyzedFile;
    try {
      result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Rollout: reading ${path.basename(file)} (${megabytes(size)})…` },
        () => server.sendRequest<AnalyzedFile>("rollout/analyzeFile", { path: file }));
    } catch (error) {
      // the server reads only rollouts, workspace folders and the Codex sessions folders: it says which rule
      void vscode.window.showErrorMessage(`Rollout: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    view.show(result);
    const uri = vscode.Uri.file(file);
    if (publishesProblems(size)) problems.set(uri, result.diagnostics.map(toDiagnostic));
    await vscode.commands.executeCommand("setContext", "rolloutLsp.largeRolloutOpen", true);
    await vscode.commands.executeCommand("rolloutLsp.largeRollout.focus");
  };

  const consider = async (uri: vscode.Uri): Promise<void> => {
    if (uri.scheme !== "file") return;
    let stat: fs.Stats;
    try {
      stat = await fs.promises.stat(uri.fsPath);
    } catch {
      return;
    }
    const size = stat.size;
    const key = `${uri.fsPath}\n${size}\n${stat.mtimeMs}`;
    const config = vscode.workspace.getConfiguration("rolloutLsp");
    const action = largeRolloutAction(uri.fsPath, size, config.get<string[]>("files", DEFAULT_FILES),
      config.get<LargeRolloutMode>("largeRollout", DEFAULT_LARGE_MODE), seen.has(key));
    if (action === "none" || !client()) return;  // no server yet: the look at open tabs after its start finds it
    seen.add(key);
    if (action === "ask") {
      const choice = await vscode.window.showInformationMessage(
        `${path.basename(uri.fsPath)} (${megabytes(size)}) is too large for VS Code to give to extensions: `
        + "no outline or findings in the editor. Read it in the Large Rollout view?", "Read It", "Not Now");
      if (choice !== "Read It") return;
    }
    await analyse(uri.fsPath, size);
  };

  const considerTabs = (tabs: readonly vscode.Tab[]): void => {
    for (const tab of tabs) {
      if (tab.input instanceof vscode.TabInputText) void consider(tab.input.uri);
    }
  };

  context.subscriptions.push(
    problems,
    vscode.window.registerTreeDataProvider("rolloutLsp.largeRollout", view),
    vscode.commands.registerCommand("rolloutLsp.openLargeRollout", async (picked?: vscode.Uri) => {
      const uri = picked instanceof vscode.Uri ? picked : (await vscode.window.showOpenDialog({
        canSelectMany: false, openLabel: "Analyse", filters: { Rollouts: ["jsonl", "zst"] },
      }))?.[0];
      if (!uri) return;
      let size = 0;
      try {
        const stat = await fs.promises.stat(uri.fsPath);
        size = stat.size;
        seen.add(`${uri.fsPath}\n${size}\n${stat.mtimeMs}`);
      } catch {
        // the server answers with the error
      }
      await analyse(uri.fsPath, size);
    }),
    vscode.commands.registerCommand(OPEN_AT, async (file: string, range: Range) => {
      const selection = new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character);
      // `vscode.open` opens the editor without syncing the document to extensions, which a file over 50 MB
      // cannot be (openTextDocument refuses it)
      await vscode.commands.executeCommand("vscode.open", vscode.Uri.file(file), { selection, preview: true });
    }),
    vscode.window.tabGroups.onDidChangeTabs((event) => considerTabs(event.opened)),
  );
  return () => considerTabs(vscode.window.tabGroups.all.flatMap((group) => group.tabs));
}

function toDiagnostic(finding: AnalyzedFile["diagnostics"][number]): vscode.Diagnostic {
  const { start, end } = finding.range;
  const diagnostic = new vscode.Diagnostic(new vscode.Range(start.line, start.character, end.line, end.character),
    finding.message, severityNumber(finding.severity) as vscode.DiagnosticSeverity);
  diagnostic.code = finding.code;
  diagnostic.source = "rollout-lsp";  // the server's own source name
  return diagnostic;
}
