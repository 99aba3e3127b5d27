// The reference: a rollout reader written in the language of the scripts. acorn parses each exec script
// (ecmaVersion latest, module, top-level await); acorn-walk lists its `tools.*` calls and literal `cmd`s.
//   node bench/acorn_reference.mjs FILE...   → one JSON line of counts and seconds
import { readFileSync } from "node:fs";
import * as acorn from "acorn";
import * as walk from "acorn-walk";

const started = process.hrtime.bigint();
let scripts = 0, calls = 0, commands = 0, parseErrors = 0, scriptNs = 0n;

function toolName(callee) {
  const member = callee.type === "ChainExpression" ? callee.expression : callee;
  if (member.type !== "MemberExpression" || member.object.type !== "Identifier" || member.object.name !== "tools") return null;
  if (!member.computed && member.property.type === "Identifier") return member.property.name;
  if (member.computed && member.property.type === "Literal" && typeof member.property.value === "string") return member.property.value;
  return null;
}

for (const file of process.argv.slice(2)) {
  const text = readFileSync(file, "utf8");
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (!line.trim()) continue;
    let record;
    try { record = JSON.parse(line); } catch { continue; }
    const payload = record && record.payload;
    if (!payload || payload.type !== "custom_tool_call" || payload.name !== "exec" || typeof payload.input !== "string") continue;
    scripts++;
    const t0 = process.hrtime.bigint();
    try {
      const ast = acorn.parse(payload.input, { ecmaVersion: "latest", sourceType: "module", allowHashBang: true });
      walk.simple(ast, {
        CallExpression(node) {
          const name = toolName(node.callee);
          if (name === null) return;
          calls++;
          const arg = node.arguments[0];
          if (name === "exec_command" && arg && arg.type === "ObjectExpression") {
            const cmd = arg.properties.find((p) => p.type === "Property" && !p.computed &&
              ((p.key.type === "Identifier" && p.key.name === "cmd") || (p.key.type === "Literal" && p.key.value === "cmd")));
            if (cmd && cmd.value.type === "Literal" && typeof cmd.value.value === "string") commands++;
          }
        },
      });
    } catch {
      parseErrors++;
    }
    scriptNs += process.hrtime.bigint() - t0;
  }
}
console.log(JSON.stringify({
  scripts, calls, commands, parse_errors: parseErrors,
  script_seconds: Number(scriptNs) / 1e9, total_seconds: Number(process.hrtime.bigint() - started) / 1e9,
}));
