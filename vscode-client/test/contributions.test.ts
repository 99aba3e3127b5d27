import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { ROLLOUT_LANGUAGE } from "../src/settings";

// out-test/test/ → the extension's folder
const root = join(__dirname, "..", "..");
const contributes = JSON.parse(readFileSync(join(root, "package.json"), "utf-8")).contributes;

test("rollouts have a language of their own, coloured as JSON, with word wrap and no word suggestions", () => {
  const [language] = contributes.languages;
  assert.equal(language.id, ROLLOUT_LANGUAGE);
  assert.deepEqual(language.filenamePatterns,
    ["rollout-*.jsonl", "**/.codex/sessions/**/*.jsonl", "**/.codex/archived_sessions/**/*.jsonl"]);
  assert.deepEqual(contributes.configurationDefaults, {
    "[rollout]": { "editor.wordWrap": "on", "editor.wordBasedSuggestions": "off" } });
  const [grammar] = contributes.grammars;
  assert.equal(grammar.language, ROLLOUT_LANGUAGE);
  const syntax = JSON.parse(readFileSync(join(root, grammar.path), "utf-8"));
  assert.deepEqual([syntax.scopeName, syntax.patterns], [grammar.scopeName, [{ include: "source.json" }]]);
  assert.ok(JSON.parse(readFileSync(join(root, language.configuration), "utf-8")).brackets);
});

test("Treat as Rollout, and Ctrl+S in a script's tab writes it into the rollout", () => {
  const commands = contributes.commands.map((c: { command: string }) => c.command);
  assert.ok(commands.includes("rolloutLsp.treatAsRollout") && commands.includes("rolloutLsp.saveScript"));
  assert.deepEqual(contributes.keybindings, [{ command: "rolloutLsp.saveScript", key: "ctrl+s", mac: "cmd+s",
    when: "resourceScheme == rollout-exec" }]);
});
