import { strict as assert } from "node:assert";
import { test } from "node:test";

import { chooseNative, parseProbe, serverLaunch, splitCommandLine, startFailure, vscodeTarget, withNative } from "../src/launch";

test("a command line is split like a shell splits plain words and quotes", () => {
  assert.deepEqual(splitCommandLine("rollout-lsp serve"), ["rollout-lsp", "serve"]);
  assert.deepEqual(splitCommandLine(`"/opt/my env/bin/python" -m lsp_server  serve`),
    ["/opt/my env/bin/python", "-m", "lsp_server", "serve"]);
  assert.deepEqual(splitCommandLine(`a 'b c' "d \\"e\\"" f\\ g ''`), ["a", "b c", 'd "e"', "f g", ""]);
  assert.throws(() => splitCommandLine(`python "unterminated`), /unterminated " quote/);
});

test("the command setting wins", () => {
  const launch = serverLaunch({ command: "/venv/bin/rollout-lsp serve --log-level DEBUG", python: "/usr/bin/python3.12" },
    "/ext/bundled/libs", "/py/ext/python");
  assert.deepEqual(launch, { command: "/venv/bin/rollout-lsp", args: ["serve", "--log-level", "DEBUG"], env: {},
    source: "setting" });
});

test("the python setting, then the Python extension, then python3 run the bundled server", () => {
  const base = { command: " ", python: "" };
  assert.deepEqual(serverLaunch({ ...base, python: "/usr/bin/python3.11" }, "/ext/bundled/libs", "/py/ext"), {
    command: "/usr/bin/python3.11", args: ["-m", "lsp_server", "serve"],
    env: { PYTHONPATH: "/ext/bundled/libs", PYTHONNOUSERSITE: "1", PYTHONDONTWRITEBYTECODE: "" },
    source: "python setting",
  });
  assert.equal(serverLaunch(base, "/ext/bundled/libs", "/py/ext").command, "/py/ext");
  assert.equal(serverLaunch(base, "/ext/bundled/libs", "/py/ext").source, "python extension");
  const fallback = serverLaunch(base, "/ext/bundled/libs", undefined, { PYTHONPATH: "/mine" });
  assert.equal(fallback.command, "python3");
  assert.equal(fallback.source, "default");
  assert.equal(fallback.env.PYTHONPATH, "/ext/bundled/libs:/mine");
  assert.equal(serverLaunch(base, "C:\\ext\\libs", undefined, { OS: "Windows_NT", PYTHONPATH: "D:\\x" }).env.PYTHONPATH,
    "C:\\ext\\libs;D:\\x");
});

test("a start failure says what failed and how to fix it", () => {
  const bundled = startFailure(serverLaunch({ command: "", python: "" }, "/libs"), "spawn python3 ENOENT");
  assert.match(bundled.message, /could not start the language server with python3 \(spawn python3 ENOENT\)/);
  assert.match(bundled.message, /rolloutLsp\.server\.python/);
  assert.deepEqual(bundled.actions, ["Open Settings", "Show Output"]);
  const own = startFailure(serverLaunch({ command: "rollout-lsp serve", python: "" }, "/libs"), "exit 1");
  assert.match(own.message, /rolloutLsp\.server\.command failed \(rollout-lsp serve\): exit 1/);
});

const MANIFEST = { target: "darwin-arm64", pythons: ["3.10", "3.11", "3.12", "3.13"] };

test("an interpreter's probe names its VS Code target", () => {
  assert.deepEqual(parseProbe("cpython 3.12 darwin arm64\n"), { implementation: "cpython", version: "3.12", target: "darwin-arm64" });
  assert.deepEqual(parseProbe("cpython 3.10 linux aarch64"), { implementation: "cpython", version: "3.10", target: "linux-arm64" });
  assert.deepEqual(parseProbe("cpython 3.13 win32 AMD64\r\n"), { implementation: "cpython", version: "3.13", target: "win32-x64" });
  assert.equal(vscodeTarget("linux", "x86_64"), "linux-x64");
  assert.equal(parseProbe("Python 2.7.18"), undefined);
});

test("the compiled dependencies that fit the interpreter are chosen", () => {
  assert.deepEqual(chooseNative(MANIFEST, parseProbe("cpython 3.12 darwin arm64"), "/usr/bin/python3"), { folder: "cp312" });
  assert.deepEqual(chooseNative(MANIFEST, parseProbe("cpython 3.10 darwin arm64"), "python3"), { folder: "cp310" });
  const launch = serverLaunch({ command: "", python: "/py" }, "/ext/bundled/libs", undefined, {});
  assert.equal(withNative(launch, "/ext/bundled/native/cp312", {}).env.PYTHONPATH,
    "/ext/bundled/native/cp312:/ext/bundled/libs");
  assert.equal(withNative(launch, "C:\\ext\\native\\cp312", { OS: "Windows_NT" }).env.PYTHONPATH,
    "C:\\ext\\native\\cp312;/ext/bundled/libs");
});

test("when no set fits, the message says why and how to fix it", () => {
  const old = chooseNative(MANIFEST, parseProbe("cpython 3.9 darwin arm64"), "/usr/bin/python3");
  assert.ok("problem" in old);
  assert.equal(old.problem, "Rollout: /usr/bin/python3 is cpython 3.9 on darwin-arm64; the server bundled with the " +
    "extension carries compiled parts for CPython 3.10, 3.11, 3.12, 3.13 only. Set rolloutLsp.server.python to one of " +
    "those, or set rolloutLsp.server.command to `rollout-lsp serve` of a server you installed yourself (pipx install, " +
    "or uv tool install, of the project: see the README).");
  assert.deepEqual(old.actions, ["Open Settings", "Show Output"]);
  const rosetta = chooseNative(MANIFEST, parseProbe("cpython 3.12 darwin x86_64"), "/usr/local/bin/python3");
  assert.ok("problem" in rosetta && rosetta.problem.startsWith("Rollout: /usr/local/bin/python3 is cpython 3.12 on " +
    "darwin-x64, but this is the darwin-arm64 package of the extension. Install codex-rollout-lsp-darwin-x64.vsix"));
  const pypy = chooseNative(MANIFEST, parseProbe("pypy 3.10 darwin arm64"), "pypy3");
  assert.ok("problem" in pypy && pypy.problem.includes("pypy3 is pypy 3.10 on darwin-arm64; the server bundled"));
  const silent = chooseNative(MANIFEST, undefined, "python3");
  assert.ok("problem" in silent && silent.problem.startsWith("Rollout: python3 did not say which Python it is"));
});
