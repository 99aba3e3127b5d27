// A tree view of a rollout analysed from disk: files over 50 MB never reach extensions as documents.
import * as vscode from "vscode";

interface Range { start: { line: number; character: number }; end: { line: number; character: number } }
interface Call {
  line: number; tool: string | null; kind: string; command: string | null; workdir: string | null;
  files: { action: string; path: string; move_to: string | null }[]; computed: boolean;
  expansion: string[] | null; executed: string; call_id: string | null; output: { status: string | null } | null;
}
interface Diagnostic { range: Range; severity: string; code: string; message: string }
export interface AnalyzedFile { file: string | null; error: string | null; calls: Call[]; diagnostics: Diagnostic[] }

type Node = { label: string; description?: string; tooltip?: string; children?: Node[]; icon?: string };

export class LargeRolloutView implements vscode.TreeDataProvider<Node> {
  private roots: Node[] = [];
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  show(result: AnalyzedFile): void {
    this.roots = result.error ? [{ label: result.error, icon: "error" }] : [
      { label: result.file ?? "rollout", description: `${result.calls.length} calls`, icon: "file",
        children: result.calls.map(callNode) },
      { label: "Findings", description: String(result.diagnostics.length), icon: "warning",
        children: result.diagnostics.map((d) => ({
          label: `${d.range.start.line + 1}:${d.range.start.character + 1} ${d.code}`, description: d.message,
          tooltip: `${d.severity}: ${d.message}`, icon: d.severity === "error" ? "error" : "warning" })) },
    ];
    this.changed.fire(undefined);
  }

  getTreeItem(node: Node): vscode.TreeItem {
    const item = new vscode.TreeItem(node.label, node.children?.length
      ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.description = node.description;
    item.tooltip = node.tooltip ? new vscode.MarkdownString().appendCodeblock(node.tooltip, "sh") : undefined;
    if (node.icon) item.iconPath = new vscode.ThemeIcon(node.icon);
    return item;
  }

  getChildren(node?: Node): Node[] {
    return node ? node.children ?? [] : this.roots;
  }
}

function callNode(call: Call): Node {
  const text = call.command ?? (call.files.length ? call.files.map((f) => `${f.action} ${f.path}`).join(", ")
    : call.computed ? "computed" : call.tool ?? "call");
  const marks = [call.executed === "no" ? "dead" : "", call.computed ? "computed" : ""].filter(Boolean).join(", ");
  return {
    label: `${call.line + 1}: ${call.tool ?? "?"}`,
    description: `${text}${marks ? ` (${marks})` : ""}`,
    tooltip: [call.command, ...(call.expansion ?? [])].filter(Boolean).join("\n") || text,
    icon: call.kind === "patch" ? "diff" : call.kind === "command" ? "terminal" : "tools",
  };
}
