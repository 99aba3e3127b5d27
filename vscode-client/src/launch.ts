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
    args: ["-m", "analysis.cli", "serve"],
    env: { PYTHONPATH: pythonPath, PYTHONNOUSERSITE: "1" },
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
      "It needs Python 3 of the version the extension was built for: set rolloutLsp.server.python to that " +
      "interpreter, or rolloutLsp.server.command to a `rollout-lsp serve` you installed with pip.",
    actions: ["Open Settings", "Show Output"],
  };
}
