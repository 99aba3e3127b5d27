// The Codex Sessions view: the server's session library (`rollout-lsp.sessions`) as projects → days → sessions,
// with a filter, a row that opens the rollout, "Reveal in Codex Sessions" from a rollout's tab, and a refresh
// when the session index's database changes.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as vscode from "vscode";
import { ExecuteCommandRequest, LanguageClient } from "vscode-languageclient/node";

import { EXTENSION_SYNC_LIMIT, isCompressed } from "./largeFiles";
import {
  ProjectNode, SESSIONS_COMMAND, Session, SessionsNode, buildTree, findRollout, indexDatabase, isSessionList,
  sessionsErrorMessage,
} from "./sessionsTree";

export const SESSIONS_VIEW = "rolloutLsp.sessions";
const OPEN = "rolloutLsp.sessions.open";
const FILTERED = "rolloutLsp.sessionsFiltered";

type Message = { kind: "message"; label: string; icon: string };
type Row = SessionsNode | Message;

export class SessionsView implements vscode.TreeDataProvider<Row> {
  private readonly changed = new vscode.EventEmitter<Row | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private sessions: Session[] | undefined;
  private message: Message | undefined;
  private tree: ProjectNode[] = [];
  private loading: Promise<void> | undefined;
  private stale = true;
  filter = "";
  treeView: vscode.TreeView<Row> | undefined;
  /** When the last request ended: the server may bring the index up to date while it answers, and that change
   * of the database must not ask again. */
  lastAnswer = 0;
  inFlight = false;

  constructor(private readonly client: () => LanguageClient | undefined) {}

  refresh(): void {
    this.stale = true;
    this.changed.fire(undefined);
  }

  setFilter(filter: string): void {
    this.filter = filter.trim();
    this.applyFilter();
    this.changed.fire(undefined);
  }

  private applyFilter(): void {
    this.tree = this.sessions ? buildTree(this.sessions, this.filter) : [];
    if (this.treeView) {
      this.treeView.description = this.filter ? `filter: ${this.filter}` : undefined;
      this.treeView.message = this.filter && this.sessions && !this.tree.length
        ? `No session matches "${this.filter}".` : undefined;
    }
    void vscode.commands.executeCommand("setContext", FILTERED, !!this.filter);
  }

  /** The sessions, asked of the server once per refresh. */
  async load(): Promise<void> {
    if (!this.stale) return;
    if (this.loading) return this.loading;
    this.loading = (async () => {
      this.stale = false;
      const server = this.client();
      if (!server) {
        this.sessions = undefined;
        this.message = { kind: "message", label: "The rollout-lsp server is not running.", icon: "warning" };
        return;
      }
      this.inFlight = true;
      try {
        const answer = await server.sendRequest(ExecuteCommandRequest.type, { command: SESSIONS_COMMAND, arguments: [{}] });
        if (isSessionList(answer)) {
          this.sessions = answer;
          this.message = undefined;
        } else {
          this.sessions = undefined;
          this.message = { kind: "message", icon: "error",
            label: `The server's ${SESSIONS_COMMAND} did not answer with a list of sessions.` };
        }
      } catch (error) {
        this.sessions = undefined;
        this.message = { kind: "message", label: sessionsErrorMessage(error), icon: "error" };
      } finally {
        this.inFlight = false;
        this.lastAnswer = Date.now();
      }
    })().finally(() => {
      this.loading = undefined;
      if (this.stale) this.changed.fire(undefined);  // refreshed while the server answered: ask again
    });
    await this.loading;
    this.applyFilter();
  }

  getTreeItem(row: Row): vscode.TreeItem {
    if (row.kind === "message") {
      const item = new vscode.TreeItem(row.label, vscode.TreeItemCollapsibleState.None);
      item.iconPath = new vscode.ThemeIcon(row.icon);
      item.tooltip = row.label;
      return item;
    }
    const expanded = row.kind === "project" || (row.kind === "day" && row.parent.children[0] === row);
    const item = new vscode.TreeItem(row.label, row.children.length
      ? expanded || this.filter ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed
      : vscode.TreeItemCollapsibleState.None);
    item.id = row.key;
    item.description = row.description;
    if (row.kind === "project") {
      item.iconPath = new vscode.ThemeIcon("folder");
      item.tooltip = row.project;
    } else if (row.kind === "day") {
      item.iconPath = new vscode.ThemeIcon("calendar");
    } else {
      item.iconPath = new vscode.ThemeIcon(row.icon, row.session.failed_calls > 0
        ? new vscode.ThemeColor("testing.iconFailed") : undefined);
      item.tooltip = row.tooltip;
      item.resourceUri = vscode.Uri.file(row.session.rollout);
      item.contextValue = "codexSession";
      item.command = { command: OPEN, title: "Open Rollout", arguments: [row.session.rollout] };
    }
    return item;
  }

  async getChildren(row?: Row): Promise<Row[]> {
    if (row) return row.kind === "message" ? [] : row.children;
    await this.load();
    if (this.message) return [this.message];
    if (this.sessions && !this.sessions.length) {
      return [{ kind: "message", icon: "info", label: "No session in the index (rollout-lsp index)." }];
    }
    return this.tree;
  }

  getParent(row: Row): Row | undefined {
    return row.kind === "day" || row.kind === "session" ? row.parent : undefined;
  }

  /** The row of ``file``'s session: the filter is cleared when it hides it. */
  async find(file: string): Promise<Row | undefined> {
    await this.load();
    let found = findRollout(this.tree, file);
    if (!found && this.filter && this.sessions) {
      const all = buildTree(this.sessions);
      if (findRollout(all, file)) {
        this.setFilter("");
        found = findRollout(this.tree, file);
      }
    }
    return found;
  }
}

/** Opens a session's rollout at its first line; one VS Code will not give to extensions (over 50 MB,
 * compressed) goes to the Large Rollout view. */
async function openRollout(file: string): Promise<void> {
  let size = 0;
  try {
    size = (await fs.promises.stat(file)).size;
  } catch {
    void vscode.window.showErrorMessage(`Rollout: ${file} is gone (moved or deleted since the index read it).`);
    return;
  }
  const uri = vscode.Uri.file(file);
  if (size > EXTENSION_SYNC_LIMIT || isCompressed(file)) {
    await vscode.commands.executeCommand("rolloutLsp.openLargeRollout", uri);
    return;
  }
  await vscode.window.showTextDocument(uri, { selection: new vscode.Range(0, 0, 0, 0), preview: true });
}

export function registerSessionsView(context: vscode.ExtensionContext, client: () => LanguageClient | undefined): SessionsView {
  const view = new SessionsView(client);
  view.treeView = vscode.window.createTreeView(SESSIONS_VIEW, { treeDataProvider: view, showCollapseAll: true });

  // the index's database (and its -wal journal) changes when `rollout-lsp index` or the server updates it
  const database = indexDatabase(process.env, os.homedir());
  const watcher = vscode.workspace.createFileSystemWatcher(
    new vscode.RelativePattern(vscode.Uri.file(path.dirname(database)), `${path.basename(database)}*`));
  let timer: NodeJS.Timeout | undefined;
  const onIndexChange = (): void => {
    if (view.inFlight || Date.now() - view.lastAnswer < 3000) return;  // the server's own update while answering
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      view.refresh();
    }, 1000);
  };

  context.subscriptions.push(
    view.treeView,
    watcher,
    watcher.onDidChange(onIndexChange),
    watcher.onDidCreate(onIndexChange),
    watcher.onDidDelete(onIndexChange),
    { dispose: () => timer && clearTimeout(timer) },
    vscode.commands.registerCommand(OPEN, openRollout),
    vscode.commands.registerCommand("rolloutLsp.sessions.refresh", () => view.refresh()),
    vscode.commands.registerCommand("rolloutLsp.sessions.show", async () => {
      view.refresh();
      await vscode.commands.executeCommand(`${SESSIONS_VIEW}.focus`);
    }),
    vscode.commands.registerCommand("rolloutLsp.sessions.filter", async () => {
      const text = await vscode.window.showInputBox({
        title: "Filter Codex Sessions", value: view.filter,
        prompt: "Words found in the name, request, project or day (2026-03-01, 2026-03) of a session; empty shows all",
      });
      if (text !== undefined) view.setFilter(text);
    }),
    vscode.commands.registerCommand("rolloutLsp.sessions.clearFilter", () => view.setFilter("")),
    vscode.commands.registerCommand("rolloutLsp.sessions.reveal", async (picked?: vscode.Uri) => {
      const uri = picked instanceof vscode.Uri ? picked : vscode.window.activeTextEditor?.document.uri;
      if (!uri || uri.scheme !== "file") {
        void vscode.window.showInformationMessage("Rollout: open a rollout to reveal its session.");
        return;
      }
      await vscode.commands.executeCommand(`${SESSIONS_VIEW}.focus`);
      const row = await view.find(uri.fsPath);
      if (!row) {
        void vscode.window.showInformationMessage(
          `Rollout: ${path.basename(uri.fsPath)} is not in the session index (rollout-lsp index reads the Codex sessions folders).`);
        return;
      }
      await view.treeView?.reveal(row, { select: true, focus: true, expand: true });
    }),
  );
  return view;
}
