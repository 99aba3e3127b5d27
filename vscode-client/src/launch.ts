// How the server is started. Pure logic, no `import 'vscode'`, so `node --test` covers it.

export interface LaunchSettings {
  /** rolloutLsp.server.command: a command line; when set it wins. */
  command: string;
  /** rolloutLsp.server.python: an interpreter; empty means "ask the Python extension". */
  python: string;
}

export interface ServerLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  /** Where the command came from, for messages: "setting", "python setting", "python extension", "default". */
  source: string;
}

/** Splits a command line into words the way a POSIX shell would for plain words and quotes. */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote === "'") {
      if (c === "'") quote = null;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === "\\" && i + 1 < line.length && '"\\$`'.includes(line[i + 1])) word += line[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === "\\" && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) throw new Error(`unterminated ${quote} quote in server command: ${line}`);
  if (inWord) words.push(word);
  return words;
}

/**
 * The process to start: the command setting when set; otherwise a Python interpreter (the setting, the
 * Python extension's, or python3) running the server bundled with the extension from `bundledLibs`.
 */
export function serverLaunch(settings: LaunchSettings, bundledLibs: string, pythonFromExtension?: string,
                             env: Record<string, string | undefined> = {}): ServerLaunch {
  if (settings.command.trim()) {
    const [command, ...args] = splitCommandLine(settings.command.trim());
    return { command, args, env: {}, source: "setting" };
  }
  const python = settings.python.trim() || pythonFromExtension || "python3";
  const source = settings.python.trim() ? "python setting" : pythonFromExtension ? "python extension" : "default";
  const pythonPath = [bundledLibs, env.PYTHONPATH].filter((p): p is string => !!p).join(pathSeparator(env));
  return {
    command: python,
    args: ["-m", "lsp_server", "serve"],
    // PYTHONDONTWRITEBYTECODE emptied: the bundle ships no bytecode, so the first start writes it into the
    // extension's folder and the next ones read it; with the variable set in the user's environment every start
    // compiled the server and its libraries from source again (0.8 s more CPU per start in code-server here)
    env: { PYTHONPATH: pythonPath, PYTHONNOUSERSITE: "1", PYTHONDONTWRITEBYTECODE: "" },
    source,
  };
}

function pathSeparator(env: Record<string, string | undefined>): string {
  return env.OS === "Windows_NT" ? ";" : ":";
}

/** The message and fixes shown when the server cannot start. */
export function startFailure(launch: ServerLaunch, error: string): { message: string; actions: string[] } {
  const what = `${launch.command} ${launch.args.join(" ")}`.trim();
  if (launch.source === "setting") {
    return {
      message: `Rollout: the server command from rolloutLsp.server.command failed (${what}): ${error}. ` +
        "Fix the setting, or clear it to use the server bundled with the extension.",
      actions: ["Open Settings", "Show Output"],
    };
  }
  return {
    message: `Rollout: could not start the language server with ${launch.command} (${error}). ` +
      "It needs CPython 3.10 to 3.13: set rolloutLsp.server.python to such an interpreter, or " +
      "rolloutLsp.server.command to a `rollout-lsp serve` you installed (pipx install or uv tool install).",
    actions: ["Open Settings", "Show Output"],
  };
}

/** bundled/PLATFORM.json: the VS Code target this package was built for and the CPython versions it carries. */
export interface BundleManifest {
  target: string;
  pythons: string[];
}

/** What an interpreter says of itself when it runs PROBE_SCRIPT. */
export interface Interpreter {
  implementation: string;
  version: string;
  target: string;
}

/** Prints "cpython 3.12 linux x86_64": the implementation, the version, sys.platform and the machine. */
export const PROBE_SCRIPT =
  "import sys, platform; print(sys.implementation.name, '%d.%d' % sys.version_info[:2], sys.platform, platform.machine())";

/** The VS Code target name (linux-x64, darwin-arm64, win32-x64, …) of a sys.platform and a machine name. */
export function vscodeTarget(sysPlatform: string, machine: string): string {
  const os = sysPlatform.startsWith("linux") ? "linux" : sysPlatform;
  const arch = ({ x86_64: "x64", amd64: "x64", aarch64: "arm64", arm64: "arm64" } as Record<string, string>)[
    machine.toLowerCase()] ?? machine.toLowerCase();
  return `${os}-${arch}`;
}

export function parseProbe(output: string): Interpreter | undefined {
  const words = output.trim().split(/\s+/);
  if (words.length !== 4 || !/^\d+\.\d+$/.test(words[1])) return undefined;
  return { implementation: words[0], version: words[1], target: vscodeTarget(words[2], words[3]) };
}

/** The folder of compiled dependencies (bundled/native/cp312, …) that fits the interpreter, or what to do. */
export type NativeChoice = { folder: string } | { problem: string; actions: string[] };

export function chooseNative(manifest: BundleManifest, interpreter: Interpreter | undefined,
                             python: string): NativeChoice {
  const versions = manifest.pythons.join(", ");
  const otherwise = "or set rolloutLsp.server.command to `rollout-lsp serve` of a server you installed yourself " +
    "(pipx install, or uv tool install, of the project: see the README).";
  const actions = ["Open Settings", "Show Output"];
  if (!interpreter) {
    return { problem: `Rollout: ${python} did not say which Python it is, so the server bundled with the extension ` +
      `cannot start. Set rolloutLsp.server.python to a CPython ${versions} interpreter, ${otherwise}`, actions };
  }
  const which = `${python} is ${interpreter.implementation} ${interpreter.version} on ${interpreter.target}`;
  if (interpreter.target !== manifest.target) {
    return { problem: `Rollout: ${which}, but this is the ${manifest.target} package of the extension. Install ` +
      `codex-rollout-lsp-${interpreter.target}.vsix if that is your machine, or set rolloutLsp.server.python ` +
      `to a ${manifest.target} CPython ${versions}, ${otherwise}`, actions };
  }
  if (interpreter.implementation !== "cpython" || !manifest.pythons.includes(interpreter.version)) {
    return { problem: `Rollout: ${which}; the server bundled with the extension carries compiled parts for ` +
      `CPython ${versions} only. Set rolloutLsp.server.python to one of those, ${otherwise}`, actions };
  }
  return { folder: `cp${interpreter.version.replace(".", "")}` };
}

/** ``launch`` with the compiled dependencies in ``nativeDir`` ahead of the bundled pure-Python ones. */
export function withNative(launch: ServerLaunch, nativeDir: string, env: Record<string, string | undefined> = {}):
    ServerLaunch {
  return { ...launch, env: { ...launch.env, PYTHONPATH: [nativeDir, launch.env.PYTHONPATH].filter(Boolean).join(
    pathSeparator(env)) } };
}
