// The exec script as a real, editable JavaScript document: a file system provider whose files are exec
// records.  Reading asks the server for the record's script (rollout-lsp.scriptSource); an explicit save (Ctrl+S,
// File > Save) sends the new text to rollout-lsp.writeScript, and the server asks VS Code (workspace/applyEdit)
// to apply one versioned edit to the rollout that changes only the record's `input` string, escaped as the line
// escapes it; a script that does not parse is refused, saying where.  The rollout is then saved too when it had
// no unsaved change before; its undo takes the edit back.  An auto-save writes the script the same way, so under
// `files.autoSave` a script that parses is in the rollout a moment after it is typed; one that does not (or any
// save that writes nothing) fails, so VS Code keeps the tab dirty and asks on close, and the status bar says why
// until it is written.  Nothing is written into a rollout reviewed read-only (reviewMode.ts).
import * as vscode from "vscode";
import { LanguageClient } from "vscode-languageclient/node";

import { askAboutExecRecord } from "./execRecord";
import { REVIEWED_MESSAGE } from "./review";
import { Review } from "./reviewMode";
import { hasUnwritten, pendingStatus, savesRolloutAfter, writeArguments } from "./scriptSave";
import { EDIT_SCHEME, ScriptTarget, editableScriptUri, parseEditableScriptUri, writeFailure } from "./scriptTarget";

interface ScriptSource { script: string; call_id: string | null; line: number; version: number | null }
interface WriteAnswer { applied: boolean; changed: boolean; line: number | null; reason: string | null }

export function registerScriptEditing(context: vscode.ExtensionContext, client: () => LanguageClient | undefined,
                                      review: Review): void {
  const files = new ExecScriptFiles(client, review);
  context.subscriptions.push(
    vscode.workspace.registerFileSystemProvider(EDIT_SCHEME, files, { isCaseSensitive: true }),
    vscode.commands.registerCommand("rolloutLsp.editScript", (uri?: string, line?: number) => editScript(client(), review, uri, line)),
    vscode.workspace.onDidChangeTextDocument((event) => files.rolloutChanged(event.document.uri.toString())),
    vscode.commands.registerCommand("rolloutLsp.saveScript", () => files.saveExplicitly()),
    files.status,
    vscode.window.onDidChangeActiveTextEditor(() => files.showStatus()),
    vscode.workspace.onDidCloseTextDocument((document) => files.closed(document.uri)),
    // VS Code's TypeScript service gives a document of this scheme syntax only (no types, so no `tools.`):
    // the server completes tools and their argument keys from the script's text and the rollout it belongs to
    vscode.languages.registerCompletionItemProvider({ scheme: EDIT_SCHEME }, new ScriptCompletions(client), ".", "{", ","),
  );
}

interface ScriptItem { label: string; kind: string; detail: string | null; sort: string | null; text: string; start: number; end: number }

class ScriptCompletions implements vscode.CompletionItemProvider {
  constructor(private readonly client: () => LanguageClient | undefined) {}

  async provideCompletionItems(document: vscode.TextDocument, position: vscode.Position): Promise<vscode.CompletionItem[]> {
    const client = this.client();
    const target = parseEditableScriptUri(document.uri.query);
    if (!client || !target) return [];
    const answer = await client.sendRequest<{ items: ScriptItem[] } | null>("workspace/executeCommand", {
      command: "rollout-lsp.scriptCompletion", arguments: [target.uri, document.getText(), document.offsetAt(position)],
    });
    return (answer?.items ?? []).map((found) => {
      const item = new vscode.CompletionItem(found.label,
        found.kind === "tool" ? vscode.CompletionItemKind.Function : vscode.CompletionItemKind.Property);
      item.detail = found.detail ?? undefined;
      item.sortText = found.sort ?? undefined;
      item.insertText = found.text;
      item.range = new vscode.Range(document.positionAt(found.start), document.positionAt(found.end));
      return item;
    });
  }
}

async function editScript(client: LanguageClient | undefined, review: Review, uri?: string, line?: number): Promise<void> {
  const found = await askAboutExecRecord<ScriptSource>(client, "rollout-lsp.scriptSource", uri, line);
  if (!found) return;
  const rollout = vscode.Uri.parse(found.uri);
  if (review.isReadOnly(rollout)) {
    const allow = "Allow Edits";
    const chosen = await vscode.window.showWarningMessage(
      "Rollout: this rollout is read-only for review. Allow edits of it to edit its exec scripts?", allow);
    if (chosen !== allow) return;
    await review.allow(rollout);
  }
  const target = { uri: found.uri, line: found.answer.line, callId: found.answer.call_id };
  const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(editableScriptUri(target)));
  await vscode.window.showTextDocument(document, { preview: false, viewColumn: vscode.ViewColumn.Beside });
}

class ExecScriptFiles implements vscode.FileSystemProvider {
  private readonly changes = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changes.event;
  // what each open script file last read: its text and the modification time VS Code compares on save
  private readonly known = new Map<string, { script: string; mtime: number }>();
  private readonly lines = new Map<string, number>(); // where a record moved to since its file was opened
  private pending: ReturnType<typeof setTimeout> | undefined;
  private readonly failures = new Map<string, string>(); // scripts whose last save wrote nothing, and why
  readonly status = vscode.window.createStatusBarItem("rolloutLsp.scriptPending", vscode.StatusBarAlignment.Left, 41);

  constructor(private readonly client: () => LanguageClient | undefined, private readonly review: Review) {
    this.status.name = "Rollout Script Not Written";
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  async stat(uri: vscode.Uri): Promise<vscode.FileStat> {
    const script = await this.read(uri);
    const size = new TextEncoder().encode(script).length;
    return { type: vscode.FileType.File, ctime: 0, mtime: this.known.get(uri.toString())?.mtime ?? 0, size };
  }

  async readFile(uri: vscode.Uri): Promise<Uint8Array> {
    return new TextEncoder().encode(await this.read(uri));
  }

  /** Any save of a script's tab (Ctrl+S, auto-save): written into the rollout, or failed so the tab stays dirty. */
  async writeFile(uri: vscode.Uri, content: Uint8Array): Promise<void> {
    const script = new TextDecoder().decode(content);
    if (!hasUnwritten(script, this.known.get(uri.toString())?.script)) return;
    const failure = await this.commit(uri, script);
    if (failure) throw vscode.FileSystemError.Unavailable(failure);
  }

  /** The status bar says why the active script's edit is not in the rollout, while it is not. */
  showStatus(): void {
    const document = vscode.window.activeTextEditor?.document;
    const failure = document && document.uri.scheme === EDIT_SCHEME ? this.failures.get(document.uri.toString()) : undefined;
    if (failure === undefined) {
      this.status.hide();
      return;
    }
    const shown = pendingStatus(failure);
    this.status.text = shown.text;
    this.status.tooltip = shown.tooltip;
    this.status.command = shown.command;
    this.status.show();
  }

  closed(uri: vscode.Uri): void {
    if (this.failures.delete(uri.toString())) this.showStatus();
  }

  /** Ctrl+S in a script's tab: the tab's text goes into the rollout even when auto-save left the tab clean. */
  async saveExplicitly(): Promise<void> {
    const document = vscode.window.activeTextEditor?.document;
    if (!document || document.uri.scheme !== EDIT_SCHEME) return;
    const failure = await this.commit(document.uri, document.getText());
    if (failure) {
      void vscode.window.showErrorMessage(failure);
      return;
    }
    if (document.isDirty) await document.save();  // the rollout has the text already: this only marks the tab saved
  }

  /** Write ``script`` into its record; the failure's message, or null. The status bar follows. */
  private async commit(uri: vscode.Uri, script: string): Promise<string | null> {
    const failure = await this.tryCommit(uri, script);
    if (failure === null) this.failures.delete(uri.toString());
    else this.failures.set(uri.toString(), failure);
    this.showStatus();
    return failure;
  }

  private async tryCommit(uri: vscode.Uri, script: string): Promise<string | null> {
    const key = uri.toString();
    const target = this.target(uri);
    if (this.review.isReadOnly(vscode.Uri.parse(target.uri))) return REVIEWED_MESSAGE;
    const rollout = () => vscode.workspace.textDocuments.find((d) => d.uri.toString() === target.uri);
    const wasDirty = rollout()?.isDirty ?? false;
    let answer: WriteAnswer | null;
    try {
      answer = await this.server().sendRequest<WriteAnswer | null>("workspace/executeCommand", {
        command: "rollout-lsp.writeScript", arguments: writeArguments(target, script),
      });
    } catch (error) {
      return `Rollout: the script was not written back (${error instanceof Error ? error.message : String(error)}).`;
    }
    const failure = writeFailure(answer);
    if (failure || !answer) return failure;
    if (answer.line !== null) this.lines.set(key, answer.line);
    this.remember(uri, script);
    if (savesRolloutAfter(wasDirty, answer)) await rollout()?.save();
    return null;
  }

  readDirectory(): [string, vscode.FileType][] {
    return [];
  }

  createDirectory(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  delete(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  rename(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  /** The rollout changed: let VS Code read open scripts of it again (it keeps a script with unsaved edits). */
  rolloutChanged(rollout: string): void {
    if (this.pending) clearTimeout(this.pending);
    this.pending = setTimeout(() => {
      const changed = [...this.known.keys()].filter((key) => this.target(vscode.Uri.parse(key)).uri === rollout);
      if (changed.length) this.changes.fire(changed.map((key) => ({ type: vscode.FileChangeType.Changed, uri: vscode.Uri.parse(key) })));
    }, 300);
  }

  private async read(uri: vscode.Uri): Promise<string> {
    const target = this.target(uri);
    const source = await this.server().sendRequest<ScriptSource | null>("workspace/executeCommand", {
      command: "rollout-lsp.scriptSource", arguments: [target.uri, target.line, target.callId],
    });
    if (!source) throw vscode.FileSystemError.FileNotFound(uri);
    this.lines.set(uri.toString(), source.line);
    this.remember(uri, source.script);
    return source.script;
  }

  private remember(uri: vscode.Uri, script: string): void {
    const key = uri.toString();
    const old = this.known.get(key);
    if (!old || old.script !== script) this.known.set(key, { script, mtime: Math.max(Date.now(), (old?.mtime ?? 0) + 1) });
  }

  private target(uri: vscode.Uri): ScriptTarget {
    const target = parseEditableScriptUri(uri.query);
    if (!target) throw vscode.FileSystemError.FileNotFound(uri);
    return { ...target, line: this.lines.get(uri.toString()) ?? target.line };
  }

  private server(): LanguageClient {
    const client = this.client();
    if (!client) throw vscode.FileSystemError.Unavailable("Rollout: the language server is not running");
    return client;
  }
}
