// Rollouts analysed from disk: VS Code gives extensions no document over 50 MB, so the server reads the file
// (`rollout/analyzeFile`), a tree view lists its calls and findings, and its findings go to Problems.
import * as fs from "fs";
import * as path from "path";
import * as readline from "readline";
import * as vscode from "vscode";
import { LanguageClient } from "vscode-languageclient/node";

import {
  AnalyzedFile, Call, CallFilter, CallStatus, DEFAULT_LARGE_MODE, LargeRolloutMode, Range, WINDOW_LINES, callLabel,
  callRange, callStatus, filterLabel, groupByTurn, isCompressed, largeRolloutAction, matchesFilter, megabytes,
  publishesProblems, severityNumber, turnLabel, windowDocument, windowStart,
} from "./largeFiles";
import { DEFAULT_FILES } from "./settings";

type Node = {
  label: string; description?: string; tooltip?: string; children?: Node[]; icon?: string; color?: string;
  at?: { file: string; range: Range };
};

const OPEN_AT = "rolloutLsp.largeRollout.openAt";
const FILTER = "rolloutLsp.largeRollout.filter";
/** Read-only windows of a large rollout: a row opens its line here, since the editor will not open the file. */
const WINDOW_SCHEME = "rollout-large";

const STATUS_ICONS: Record<CallStatus, { icon: string; color?: string }> = {
  failed: { icon: "error", color: "testing.iconFailed" },
  completed: { icon: "pass", color: "testing.iconPassed" },
  "no output": { icon: "circle-outline" },
  dead: { icon: "circle-slash" },
};

export class LargeRolloutView implements vscode.TreeDataProvider<Node> {
  private roots: Node[] = [];
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  shown: AnalyzedFile | undefined;
  filter: CallFilter = {};
  treeView: vscode.TreeView<Node> | undefined;

  show(result: AnalyzedFile | undefined): void {
    this.shown = result;
    this.roots = result ? this.nodes(result) : [];
    if (this.treeView) this.treeView.description = filterLabel(this.filter) || undefined;
    this.changed.fire(undefined);
  }

  setFilter(filter: CallFilter): void {
    this.filter = filter;
    this.show(this.shown);
  }

  private nodes(result: AnalyzedFile): Node[] {
    if (result.error) return [{ label: result.error, icon: "error" }];
    const file = result.file ?? "";
    const calls = result.calls.filter((call) => matchesFilter(call, this.filter));
    const groups = groupByTurn(calls, result.turns ?? []);
    const turnNumbers = new Map((result.turns ?? []).map((turn, index) => [turn, index + 1]));
    const callNode = (call: Call): Node => {
      const status = callStatus(call);
      return { ...callLabel(call), description: `${callLabel(call).description} · ${status}`, ...STATUS_ICONS[status],
        at: { file, range: callRange(call) } };
    };
    const shown = filterLabel(this.filter);
    return [
      { label: path.basename(file) || "rollout", icon: "file", tooltip: file,
        description: shown ? `${calls.length} of ${result.calls.length} calls (${shown})` : `${result.calls.length} calls`,
        children: groups.map(({ turn, calls: inTurn }) => ({
          ...turnLabel(turn, turn ? turnNumbers.get(turn) ?? 0 : 0, inTurn), icon: "comment-discussion",
          tooltip: turn?.title, children: inTurn.map(callNode),
          at: turn ? { file, range: { start: { line: turn.line, character: 0 }, end: { line: turn.line, character: 0 } } }
            : undefined })) },
      { label: "Findings", description: String(result.diagnostics.length), icon: "warning",
        children: result.diagnostics.map((d) => ({
          label: `${d.range.start.line + 1}:${d.range.start.character + 1} ${d.code}`, description: d.message,
          tooltip: `${d.severity}: ${d.message}`, icon: d.severity === "error" ? "error" : "warning",
          at: { file, range: d.range } })) },
    ];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    const item = new vscode.TreeItem(node.label, node.children?.length
      ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.description = node.description;
    item.tooltip = node.tooltip ? new vscode.MarkdownString().appendCodeblock(node.tooltip, "sh") : undefined;
    if (node.icon) item.iconPath = new vscode.ThemeIcon(node.icon, node.color ? new vscode.ThemeColor(node.color) : undefined);
    if (node.at && !node.children?.length) {
      item.command = { command: OPEN_AT, title: "Open at This Line", arguments: [node.at.file, node.at.range] };
    }
    return item;
  }

  getChildren(node?: Node): Node[] {
    return node ? node.children ?? [] : this.roots;
  }
}

/** A window of a large rollout's lines around one line, at the file's own line numbers (read from disk). */
class RolloutWindows implements vscode.TextDocumentContentProvider {
  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const line = Number(new URLSearchParams(uri.query).get("line"));
    const start = windowStart(Number.isInteger(line) && line >= 0 ? line : 0);
    const end = start + 2 * WINDOW_LINES;
    const window: string[] = [];
    const input = fs.createReadStream(uri.fsPath, { encoding: "utf8" });
    const lines = readline.createInterface({ input, crlfDelay: Infinity });
    let number = 0;
    try {
      for await (const text of lines) {
        if (number >= start) window.push(text);
        if (++number > end) break;
      }
    } finally {
      lines.close();
      input.destroy();
    }
    return windowDocument(window, start);
  }
}

/**
 * The view, its commands, Problems for large rollouts, and the watch on tabs that offers the view at once.
 * The view shows the rollout of the active tab (the last one read when the active tab is another file); a
 * file's findings leave Problems when its last tab closes.
 * Returns what looks at the tabs already open: call it once the server runs.
 */
export function registerLargeRollouts(context: vscode.ExtensionContext,
                                      client: () => LanguageClient | undefined): () => void {
  const view = new LargeRolloutView();
  const problems = vscode.languages.createDiagnosticCollection("rollout-large");
  // files offered or analysed in this window, with their size and modification time: a tab that shows the
  // same file again asks nothing; one that shows it grown (a session still running) reads it again
  const seen = new Set<string>();
  const results = new Map<string, AnalyzedFile>();  // each file read, while a tab shows it
  const chosen = new Set<string>();  // files read through "Open Large Rollout…": no tab needs to show them

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
    results.set(file, result);
    view.show(result);
    const uri = vscode.Uri.file(file);
    if (publishesProblems(size) || isCompressed(file)) problems.set(uri, result.diagnostics.map(toDiagnostic));
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

  const openFiles = (): Set<string> => new Set(vscode.window.tabGroups.all.flatMap((group) => group.tabs)
    .flatMap((tab) => (tab.input instanceof vscode.TabInputText && tab.input.uri.scheme === "file" ? [tab.input.uri.fsPath] : [])));

  /** The view follows the active tab; a file no tab shows any more leaves Problems (the view keeps the last one
   * shown: its rows open windows of the file, which needs no tab). */
  const follow = (): void => {
    const still = openFiles();
    for (const file of [...results.keys()]) {
      if (still.has(file) || chosen.has(file)) continue;
      problems.delete(vscode.Uri.file(file));
      for (const key of [...seen]) if (key.startsWith(`${file}\n`)) seen.delete(key);  // reopened: read again
      if (view.shown !== results.get(file)) results.delete(file);
    }
    const active = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    const activeFile = active instanceof vscode.TabInputText && active.uri.scheme === "file" ? active.uri.fsPath : undefined;
    const shown = activeFile !== undefined ? results.get(activeFile) : undefined;
    if (shown && shown !== view.shown) view.show(shown);
  };

  const pickFilter = async (): Promise<void> => {
    const tools = [...new Set((view.shown?.calls ?? []).map((call) => call.tool).filter((t): t is string => !!t))].sort();
    const items: (vscode.QuickPickItem & { apply: () => Promise<CallFilter | undefined> })[] = [
      { label: "$(error) Failed calls", picked: !!view.filter.failed,
        apply: async () => ({ ...view.filter, failed: !view.filter.failed }) },
      { label: "$(search) Text in the command or files…", description: view.filter.text,
        apply: async () => {
          const text = await vscode.window.showInputBox({ prompt: "Calls whose command, expansion or files contain",
            value: view.filter.text ?? "" });
          return text === undefined ? undefined : { ...view.filter, text: text || undefined };
        } },
      ...tools.map((tool) => ({ label: `$(tools) ${tool}`, description: view.filter.tool === tool ? "shown" : undefined,
        apply: async () => ({ ...view.filter, tool: view.filter.tool === tool ? undefined : tool }) })),
      { label: "$(clear-all) Every call", apply: async () => ({}) },
    ];
    const picked = await vscode.window.showQuickPick(items, { placeHolder: `Large Rollout: ${filterLabel(view.filter) || "every call"}` });
    const filter = picked ? await picked.apply() : undefined;
    if (filter) view.setFilter(filter);
  };

  view.treeView = vscode.window.createTreeView("rolloutLsp.largeRollout", { treeDataProvider: view });
  context.subscriptions.push(
    problems,
    view.treeView,
    vscode.workspace.registerTextDocumentContentProvider(WINDOW_SCHEME, new RolloutWindows()),
    vscode.commands.registerCommand(FILTER, pickFilter),
    vscode.commands.registerCommand("rolloutLsp.openLargeRollout", async (picked?: vscode.Uri) => {
      const uri = picked instanceof vscode.Uri ? picked : (await vscode.window.showOpenDialog({
        canSelectMany: false, openLabel: "Analyse", filters: { Rollouts: ["jsonl", "zst"] },
      }))?.[0];
      if (!uri) return;
      chosen.add(uri.fsPath);
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
      // the file itself is too large for the editor (a warning, then no features): its lines around the row's,
      // read from disk, at their own line numbers, read-only
      const window = vscode.Uri.file(file).with({ scheme: WINDOW_SCHEME, query: `line=${range.start.line}` });
      const document = await vscode.workspace.openTextDocument(window);
      await vscode.languages.setTextDocumentLanguage(document, "rollout");
      await vscode.window.showTextDocument(document, { selection, preview: true, viewColumn: vscode.ViewColumn.Active });
    }),
    vscode.window.tabGroups.onDidChangeTabs((event) => {
      considerTabs(event.opened);
      follow();
    }),
    vscode.window.tabGroups.onDidChangeTabGroups(() => follow()),
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
