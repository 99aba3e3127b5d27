// The other side of the differential test: acorn (as V8 reads a module: ecmaVersion latest, sourceType
// module) and eslint-scope (ES module scopes) list each script's tools calls.
//   node reader.mjs < scripts.json   → [{"valid": bool, "error": str|null, "calls": [tool names]}, …]
// A call is of a tool when its callee (parentheses, `(0, f)` and `?.` aside) is `tools.x` / `tools["x"]` with
// `tools` the global or a name bound once to it, or a name destructured from it by a literal key at the first
// level of the pattern, and never assigned again.
import { readFileSync } from "node:fs";
import * as acorn from "acorn";
import * as eslintScope from "eslint-scope";

function unwrap(node) {
  while (node) {
    if (node.type === "ChainExpression") node = node.expression;
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
    return { valid: false, error: error.message, calls: [] };
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

  const isTools = (node, depth = 0) => {
    node = unwrap(node);
    if (!node || depth > 8) return false;
    if (node.type === "Identifier") {
      const ref = refs.get(node);
      if (!ref || !ref.resolved) return node.name === "tools";
      const def = singleBinding(ref.resolved);
      return !!def && def.node.id.type === "Identifier" && !!def.node.init && isTools(def.node.init, depth + 1);
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

  const toolOf = (callee, depth = 0) => {
    callee = unwrap(callee);
    if (!callee || depth > 8) return null;
    if (callee.type === "MemberExpression") return memberName(callee);
    if (callee.type !== "Identifier") return null;
    const ref = refs.get(callee);
    if (!ref || !ref.resolved) return null;
    const def = singleBinding(ref.resolved);
    if (!def) return null;
    const id = def.node.id;
    if (id.type === "Identifier") {
      const init = unwrap(def.node.init);
      return init && init.type === "MemberExpression" ? memberName(init) : null;
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
  const visit = (node) => {
    if (!node || typeof node.type !== "string") return;
    if (node.type === "CallExpression") {
      const tool = toolOf(node.callee);
      if (tool !== null) calls.push(tool);
    }
    for (const key of Object.keys(node)) {
      const value = node[key];
      if (Array.isArray(value)) value.forEach((v) => v && typeof v.type === "string" && visit(v));
      else if (value && typeof value.type === "string" && key !== "parent") visit(value);
    }
  };
  visit(ast);
  return { valid: true, error: null, calls };
}

const scripts = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(scripts.map(read)));
