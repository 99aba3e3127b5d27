// The other side of the differential test: acorn (as V8 reads a module: ecmaVersion latest, sourceType
// module) and eslint-scope (ES module scopes) list each script's tools calls.
//   node reader.mjs < scripts.json
//     → [{"valid": bool, "error": str|null, "calls": [tool names], "ranges": [[tool, start, end]]}, …]
// A call is of a tool when its callee (parentheses, `(0, f)`, `await` and `?.` aside) is `tools.x` / `tools["x"]`
// with `tools` the global or a name bound once to it (through any number of such names), or a name
// destructured from it by a literal key at the first level of the pattern, or a name bound once to such a
// callee (again through any number of names), and never assigned again.  Ranges are the call expression's, in
// UTF-16 units.
import { readFileSync } from "node:fs";
import * as acorn from "acorn";
import * as eslintScope from "eslint-scope";

function unwrap(node) {
  while (node) {
    if (node.type === "ChainExpression") node = node.expression;
    else if (node.type === "AwaitExpression") node = node.argument;
    else if (node.type === "SequenceExpression") node = node.expressions[node.expressions.length - 1];
    else if (node.type === "ParenthesizedExpression") node = node.expression;
    else return node;
  }
  return node;
}

function read(source) {
  let ast;
  try {
    ast = acorn.parse(source, { ecmaVersion: "latest", sourceType: "module", allowHashBang: true, ranges: true });
  } catch (error) {
    return { valid: false, error: error.message, calls: [], ranges: [] };
  }
  const manager = eslintScope.analyze(ast, { ecmaVersion: 2022, sourceType: "module" });
  const refs = new Map(); // identifier node → reference
  for (const scope of manager.scopes) for (const ref of scope.references) refs.set(ref.identifier, ref);

  const singleBinding = (variable) => {
    if (!variable || variable.defs.length !== 1) return null;
    const def = variable.defs[0];
    if (def.type !== "Variable") return null;
    const writes = variable.references.filter((r) => r.isWrite());
    if (writes.some((r) => !r.init)) return null; // assigned again
    return def;
  };

  const isTools = (node, seen = new Set()) => {
    node = unwrap(node);
    if (!node) return false;
    if (node.type === "Identifier") {
      const ref = refs.get(node);
      if (!ref || !ref.resolved) return node.name === "tools";
      if (seen.has(ref.resolved)) return false;
      seen.add(ref.resolved);
      const def = singleBinding(ref.resolved);
      return !!def && def.node.id.type === "Identifier" && !!def.node.init && isTools(def.node.init, seen);
    }
    return false;
  };

  const keyName = (prop) => {
    if (!prop.computed && prop.key.type === "Identifier") return prop.key.name;
    if (prop.key.type === "Literal" && typeof prop.key.value === "string") return prop.key.value;
    return null;
  };

  const memberName = (member) => {
    if (!isTools(member.object)) return null;
    if (!member.computed && member.property.type === "Identifier") return member.property.name;
    if (member.computed && member.property.type === "Literal" && typeof member.property.value === "string")
      return member.property.value;
    return null;
  };

  const toolOf = (callee, seen = new Set()) => {
    callee = unwrap(callee);
    if (!callee) return null;
    if (callee.type === "MemberExpression") return memberName(callee);
    if (callee.type !== "Identifier") return null;
    const ref = refs.get(callee);
    if (!ref || !ref.resolved || seen.has(ref.resolved)) return null;
    seen.add(ref.resolved);
    const def = singleBinding(ref.resolved);
    if (!def) return null;
    const id = def.node.id;
    if (id.type === "Identifier") {
      const init = unwrap(def.node.init);
      if (!init) return null;
      if (init.type === "MemberExpression") return memberName(init);
      return init.type === "Identifier" ? toolOf(init, seen) : null;
    }
    if (id.type !== "ObjectPattern" || !isTools(def.node.init)) return null;
    for (const prop of id.properties) {
      if (prop.type !== "Property") continue;
      const value = prop.value.type === "AssignmentPattern" ? prop.value.left : prop.value;
      if (value === def.name) return keyName(prop);
    }
    return null;
  };

  const calls = [];
  const ranges = [];
  const visit = (node) => {
    if (!node || typeof node.type !== "string") return;
    if (node.type === "CallExpression") {
      const tool = toolOf(node.callee);
      if (tool !== null) {
        calls.push(tool);
        ranges.push([tool, node.start, node.end]);
      }
    }
    for (const key of Object.keys(node)) {
      const value = node[key];
      if (Array.isArray(value)) value.forEach((v) => v && typeof v.type === "string" && visit(v));
      else if (value && typeof value.type === "string" && key !== "parent") visit(value);
    }
  };
  visit(ast);
  return { valid: true, error: null, calls, ranges };
}

const scripts = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(scripts.map(read)));
