// Editor latency as VS Code sees it: an LSP client in Node (VS Code's runtime) that frames messages over the
// server's stdio and parses every one with V8's JSON.parse, as vscode-jsonrpc does. It times what the user
// waits for (a message has arrived and been parsed), not a client's conversion into editor objects.
//   node bench/lsp_latency.mjs '{"command": [...], "cwd": ..., "file": ..., "edits": N, "requests": N}'
//   → one JSON object of samples in seconds (bench/run.py turns them into medians and p95s)
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const options = JSON.parse(process.argv[2]);
const now = () => Number(process.hrtime.bigint()) / 1e9;

class Client {
  constructor(child) {
    this.child = child;
    this.nextId = 0;
    this.waiting = new Map(); // id → resolve
    this.published = new Map(); // version → when its first diagnostics came
    this.lastPublished = new Map(); // version → when its latest diagnostics came
    this.onPublish = null;
    this.chunks = [];
    this.buffered = 0;
    this.bodyLength = -1;
    this.symbolParse = [];
    child.stdout.on("data", (chunk) => this.receive(chunk));
  }

  send(method, params, request = false) {
    const message = { jsonrpc: "2.0", method, params };
    let answer = null;
    if (request) {
      message.id = ++this.nextId;
      answer = new Promise((resolve) => this.waiting.set(message.id, resolve));
    }
    const body = Buffer.from(JSON.stringify(message), "utf8");
    this.child.stdin.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, "ascii"), body]));
    return answer;
  }

  // a server that stops answering fails the run instead of hanging it
  request(method, params, timeout = 120) {
    const answer = this.send(method, params, true);
    let timer;
    const late = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer to ${method} in ${timeout} s`)), timeout * 1000);
    });
    return Promise.race([answer, late]).finally(() => clearTimeout(timer));
  }

  // chunks are joined only once a whole header or body is there: a 3 MB outline comes in many 64 KB reads
  receive(chunk) {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    for (;;) {
      if (this.bodyLength < 0) {
        const data = this.take(this.buffered);
        const end = data.indexOf("\r\n\r\n");
        if (end < 0) { this.keep(data); return; }
        const header = data.subarray(0, end).toString("ascii");
        this.bodyLength = Number(/content-length:\s*(\d+)/i.exec(header)[1]);
        this.keep(data.subarray(end + 4));
      }
      if (this.buffered < this.bodyLength) return;
      const data = this.take(this.buffered);
      const body = data.subarray(0, this.bodyLength);
      this.keep(data.subarray(this.bodyLength));
      this.bodyLength = -1;
      this.handle(body);
    }
  }

  take(length) {
    const data = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, length);
    this.chunks = [];
    this.buffered = 0;
    return data;
  }

  keep(rest) {
    if (rest.length) { this.chunks.push(rest); this.buffered = rest.length; }
  }

  handle(body) {
    const arrived = now();
    const message = JSON.parse(body.toString("utf8"));
    if (message.method === "textDocument/publishDiagnostics") {
      const version = message.params.version ?? 0;
      const at = now();
      if (!this.published.has(version)) this.published.set(version, at);
      this.lastPublished.set(version, at);
      if (this.onPublish) this.onPublish();
    } else if (message.id !== undefined && message.method === undefined && this.waiting.has(message.id)) {
      const resolve = this.waiting.get(message.id);
      this.waiting.delete(message.id);
      resolve({ message, arrived, parsed: now() });
    }
  }

  nextPublication(timeout) {
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.onPublish = null; resolve(false); }, timeout * 1000);
      this.onPublish = () => { clearTimeout(timer); this.onPublish = null; resolve(true); };
    });
  }

  async diagnosticsFor(version) {
    while (!this.published.has(version)) {
      if (!(await this.nextPublication(120))) throw new Error(`no diagnostics for version ${version} in 120 s`);
    }
    return this.published.get(version);
  }

  // a server may publish a document's findings in parts while it reads it: the last one, once quiet
  async settled(version, quiet = 5.0) {
    await this.diagnosticsFor(version);
    while (await this.nextPublication(quiet)) { /* another part came */ }
    return this.lastPublished.get(version);
  }
}

function peakMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/^VmHWM:\s+(\d+)/m.exec(status)[1]) / 1024;
}

const [program, ...args] = options.command;
let shuttingDown = false;
const child = spawn(program, args, { cwd: options.cwd, stdio: ["pipe", "pipe", "ignore"] });
child.on("exit", (code) => {
  if (!shuttingDown) { process.stderr.write(`the server exited (${code}) before it was asked to\n`); process.exit(1); }
});
const client = new Client(child);
await client.request("initialize", {
  processId: null, rootUri: null,
  capabilities: { textDocument: { documentSymbol: { hierarchicalDocumentSymbolSupport: true } } },
});
client.send("initialized", {});
const text = readFileSync(options.file, "utf8");
const uri = pathToFileURL(options.file).href;
let started = now();
client.send("textDocument/didOpen", { textDocument: { uri, languageId: "jsonl", version: 1, text } });
const first = (await client.diagnosticsFor(1)) - started;
const complete = (await client.settled(1)) - started;

const lines = text.split(/\r\n|\r|\n/);
const targets = [];
lines.forEach((line, number) => {
  if (line.includes('"name":"exec"') && line.includes("tools.")) targets.push([number, line.indexOf("tools.")]);
});
const edits = [];
for (let i = 0; i < Math.min(options.edits, targets.length); i++) {
  const [number] = targets[i];
  const version = i + 2;
  const marker = lines[number].indexOf('"call_id":"') + '"call_id":"'.length; // one character of the call id
  started = now();
  client.send("textDocument/didChange", {
    textDocument: { uri, version },
    contentChanges: [{ range: { start: { line: number, character: marker }, end: { line: number, character: marker + 1 } }, text: "X" }],
  });
  edits.push((await client.diagnosticsFor(version)) - started);
}
const hovers = [];
for (const [number, column] of targets.slice(0, options.requests)) {
  started = now();
  const { parsed } = await client.request("textDocument/hover", { textDocument: { uri }, position: { line: number, character: column + 2 } });
  hovers.push(parsed - started);
}
const symbols = [], symbolsParse = [];
for (let i = 0; i < Math.max(5, Math.floor(options.requests / 5)); i++) {
  started = now();
  const { arrived, parsed } = await client.request("textDocument/documentSymbol", { textDocument: { uri } });
  symbols.push(parsed - started);
  symbolsParse.push(parsed - arrived);
}
const peak = peakMb(child.pid);
shuttingDown = true;
await client.request("shutdown", null);
client.send("exit", null);
await new Promise((resolve) => child.on("exit", resolve));
process.stdout.write(JSON.stringify({
  first_diagnostics_s: first, complete_diagnostics_s: complete, edit: edits, hover: hovers,
  symbols, symbols_parse: symbolsParse, peak_mb: peak,
}) + "\n");
