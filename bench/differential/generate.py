"""Generated exec scripts for the differential test against acorn: every form issue 9 found tree-sitter
misreading (``await (f)()``, scopes, escaped names, destructuring, reassigned aliases) and every kind of script
that is valid only in sloppy mode or not at all, mixed with ordinary code.  Deterministic for a seed.

    python bench/differential/generate.py [COUNT] [SEED]   → a JSON array of scripts
"""

from __future__ import annotations

import json
import random
import sys

# %(n)s is replaced by a number unique in the script, so declarations never clash by accident
CALLS = [
    'await tools.exec_command({cmd: "ls"});',
    'await tools.\\u0065xec_command({cmd: "claude -p hi"});',
    '\\u0074ools.write_stdin({session_id: 1, chars: ""});',
    'await (tools.write_stdin)({session_id: 1, chars: ""});',
    'await (0, tools.view_image)({path: "x.png"});',
    "await ((tools.update_plan))({plan: []});",
    "tools?.update_plan({plan: []});",
    'await tools["apply_patch"]("*** Begin Patch\\n*** End Patch");',
    'const {["write_stdin"]: g%(n)s} = tools; await g%(n)s({session_id: 2});',
    'const {exec_command: e%(n)s, "view_image": v%(n)s = null} = tools; await e%(n)s({cmd: "pwd"}); v%(n)s({});',
    "const t%(n)s = tools; await t%(n)s.list_mcp_resources({});",
    "let u%(n)s = tools; u%(n)s = {x() {}}; u%(n)s.x();",
    "let w%(n)s = tools; await w%(n)s.wait({cell_id: 1});",
    "const [a%(n)s] = tools; a%(n)s();",
    "const {x%(n)s: {y%(n)s}} = tools; y%(n)s();",
    "const {...r%(n)s} = tools; r%(n)s.rest();",
    "class K%(n)s { static { var tools = {inner() {}}; tools.inner(); } } tools.outer%(n)s();",
    "function f%(n)s(a = tools.dflt%(n)s()) { var tools = {body() {}}; tools.body(); }",
    "const h%(n)s = function tools() { tools.self(); }; tools.after%(n)s();",
    "const C%(n)s = class tools { m() { tools.self(); } }; tools.later%(n)s();",
    'for (const c%(n)s of ["a", "b"]) await tools.exec_command({cmd: c%(n)s});',
    "if (false) tools.dead({});",
    "{ const tools = {shadow() {}}; tools.shadow(); }",
    "function p%(n)s(tools) { return tools.param(); }",
    '"tools.in_string()"; // tools.in_comment()\n',
    "const re%(n)s = /tools.regex\\(/;",
    'try { await tools.exec_command({cmd: "t"}); } catch (tools) { tools.caught(); }',
    "await Promise.all([1, 2].map(async (i) => tools.exec_command({cmd: `echo ${i}`})));",
    # issue 21: every parenthesised form after await (the call starts at its parenthesis), alias chains,
    # namespaced tools and ALL_TOOLS lookups of Codex 0.147 and later
    'await (tools).exec_command({cmd: "paren"});',
    'await ((tools)).view_image({path: "y.png"});',
    "await (tools?.update_plan)?.({plan: []});",
    'await (tools)["write_stdin"]({session_id: 3, chars: ""});',
    "const aw%(n)s = await (tools); await aw%(n)s.list_mcp_resources({});",
    'const f%(n)s = tools.exec_command; const g%(n)s = f%(n)s; const h%(n)s = (g%(n)s); await h%(n)s({cmd: "chain"});',
    "const t1%(n)s = tools, t2%(n)s = t1%(n)s; const t3%(n)s = t2%(n)s; t3%(n)s.view_image({path: 'z'});",
    "let c1%(n)s = tools.exec_command; const c2%(n)s = c1%(n)s; c1%(n)s = null; c2%(n)s({cmd: 'x'});",
    'const sp%(n)s = await tools.multi_agent_v1__spawn_agent({task_name: "t", message: "m"});',
    "await tools.multi_agent_v1__wait_agent({targets: [sp%(n)s.agent_id], timeout_ms: 1000});",
    'await tools.web__run({search_query: [{q: "x"}]}); await tools.image_gen__imagegen({prompt: "p"});',
    "for (const t%(n)s of ALL_TOOLS) if (t%(n)s.name === 'x') await tools[t%(n)s.name]({});",
]
# literals nested deeper than esprima-fork's recursion under Python's default limit (V8 reads them)
DEEP = 150
NOISE = [
    'const date%(n)s = "2026-07-01";',
    'const path%(n)s = "C:\\\\users\\\\2";',
    'text(String(1).split(/\\s+/).join("\\n"));',
    "for (const x%(n)s of [1]) { if (x%(n)s) break; }",
    "const m%(n)s = 0.5 + 1_000 + 0x1F;",
    "let z%(n)s = 1; z%(n)s = 2;",
    "const q%(n)s = (a) => a ?? (1 || 2);",
    "label%(n)s: for (;;) { break label%(n)s; }",
    "const w%(n)s = {let: 1, package: 2, static: 3}; w%(n)s.let + w%(n)s.package;",
    'const pk%(n)s = "package.json with yield_time_ms";',
    "const n%(n)s = 0.08 + 1e-7 + 0b101 + 0o17 + 1_000n + 10;",
    "async function af%(n)s() { await af%(n)s; }",
    "class S%(n)s { static async m() { await 1; } static { this.x = 1; } }",
    "blk%(n)s: { break blk%(n)s; }",
    "switch (1) { case 1: break; default: }",
    "do { continue; } while (0);",
    "const o%(n)s = a?.b?.(1) ?? null;",
    "const nw%(n)s = new (globalThis.Date)();",
    "const g%(n)s = function* () { yield 1; };",
    "const tpl%(n)s = String.raw`\\08`;",
    "const deep%(n)s = " + "[" * DEEP + "]" * DEEP + ";",
    "const deepo%(n)s = " + "{a: " * DEEP + "1" + "}" * DEEP + ";",
    "const deepc%(n)s = " + "f(" * DEEP + ")" * DEEP + ";",
    # issue 33: valid look-alikes of the refused forms above
    "if (a) { function fv%(n)s() {} }",
    "lv%(n)s: for (;;) break lv%(n)s;",
    "const ob%(n)s = { lo: function () {} };",
]
PRAGMAS = ["// @exec: {}", '// @exec: {"yield_time_ms": 10000}', '// @exec: {"max_output_tokens": null}']
REFUSED = [
    'const s%(n)s = "\\143laude";',
    'const s%(n)s = "ls\\08";',
    "const o%(n)s = 010;",
    "const o%(n)s = 08;",
    "with (Math) { max(1); }",
    "delete globalThis_x%(n)s; let globalThis_x%(n)s; delete globalThis_x%(n)s;",
    "let d%(n)s = 1; let d%(n)s = 2;",
    "break;",
    "continue;",
    "return 1;",
    "await x ** 2;",
    "(a)\n=> 1;",
    "new a?.b();",
    "const bad%(n)s = /a(/;",
    "const bad%(n)s = /a/gg;",
    "const j%(n)s = <div/>;",
    "function dup%(n)s(a, a) {}",
    "var static = 1;",
    "a ?? b || c;",
    "lab: lab: 1;",
    "function nf%(n)s() { await x; }",
    "const k%(n)s;",
    "eval = 1;",
    "if (a) function ff%(n)s() {}",
    "({__proto__: 1, __proto__: 2});",
    "yield 1;",
    "3in [];",
    "const u%(n)s = 0_1;",
    "a?.b = 1;",
    "class A%(n)s { constructor() {} constructor() {} }",
    "try {} catch (e) { let e; }",
    "const t%(n)s = `\\08`;",
    "-x ** 2;",
    "a?.b`x`;",
    "({a}) = 1;",
    "for (f() of x);",
    "let let = 1;",
    "package = 1;",
    "arguments++;",
    "(a, a) => 1;",
    "let rd%(n)s; { var rd%(n)s; }",
    "const cf%(n)s = 1; function cf%(n)s() {}",
    "export default 1; export default 2;",
    "new.target;",
    "super.x;",
    "class P%(n)s { #a; m() { this.#b; } }",
    "({get a(x) {}});",
    'function us%(n)s(a = 1) { "use strict"; }',
    "v\\u0061r ue%(n)s = 1;",
    "a\u2028=> 1;",
    "delete (x);",
    "const rg%(n)s = /(?<a>.)(?<a>.)/;",
    "if (1) class Q%(n)s {}",
    "for (let [a, a] of x);",
    "function* yg%(n)s() { yield\n* 1; }",
    "const fr%(n)s = <></>;",
    "<!-- html comment",
    "lb%(n)s: while (1) { break nolabel; }",
    "const ap%(n)s = () => { await x; };",
    # issue 33: a function declaration as the body of an if, else, loop or label (sloppy JavaScript, a
    # SyntaxError in module code), a labelled function in a block or an arrow's body (tree-sitter reads the
    # braces as an object literal), and ``let`` as a name where only sloppy code allows one
    "if (a) x(); else function fe%(n)s() {}",
    "while (0) function fw%(n)s() {}",
    "for (;;) function fo%(n)s() {}",
    "for (const k%(n)s in o) function fi%(n)s() {}",
    "do function fd%(n)s() {} while (0)",
    "lf%(n)s: function fl%(n)s() {}",
    "{ lb%(n)s: function fb%(n)s() {} }",
    "const ar%(n)s = () => { la%(n)s: function fa%(n)s() {} };",
    "if (a) async function fs%(n)s() {}",
    "if (a) let\nx%(n)s = 1",
    "x%(n)s = let;",
]


def generate(count: int, seed: int = 9) -> list[str]:
    rng = random.Random(seed)
    scripts = []
    for _ in range(count):
        parts = [rng.choice(CALLS) for _ in range(rng.randint(1, 3))]
        parts += [rng.choice(NOISE) for _ in range(rng.randint(0, 2))]
        if rng.random() < 0.35:
            parts.append(rng.choice(REFUSED))
        rng.shuffle(parts)
        if rng.random() < 0.1:  # a pragma is a comment to V8 (and valid to Codex)
            parts.insert(0, rng.choice(PRAGMAS))
        scripts.append("\n".join(part % {"n": index} for index, part in enumerate(parts)))
    return scripts


if __name__ == "__main__":
    print(
        json.dumps(
            generate(int(sys.argv[1]) if len(sys.argv) > 1 else 3000, int(sys.argv[2]) if len(sys.argv) > 2 else 9)
        )
    )
