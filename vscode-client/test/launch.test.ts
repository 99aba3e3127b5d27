import { strict as assert } from "node:assert";
import { test } from "node:test";

import { serverLaunch, splitCommandLine, startFailure } from "../src/launch";

test("a command line is split like a shell splits plain words and quotes", () => {
  assert.deepEqual(splitCommandLine("rollout-lsp serve"), ["rollout-lsp", "serve"]);
  assert.deepEqual(splitCommandLine(`"/opt/my env/bin/python" -m analysis.cli  serve`),
    ["/opt/my env/bin/python", "-m", "analysis.cli", "serve"]);
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
    command: "/usr/bin/python3.11", args: ["-m", "analysis.cli", "serve"],
    env: { PYTHONPATH: "/ext/bundled/libs", PYTHONNOUSERSITE: "1" }, source: "python setting",
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
