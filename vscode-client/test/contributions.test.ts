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
  // no ambiguous-Unicode banner for a transcript in Chinese or Japanese (a rollout quotes what it is given)
  assert.deepEqual(contributes.configurationDefaults, {
    "[rollout]": { "editor.wordWrap": "on", "editor.wordBasedSuggestions": "off",
                   "editor.unicodeHighlight.ambiguousCharacters": false } });
  const [grammar] = contributes.grammars;
  assert.equal(grammar.language, ROLLOUT_LANGUAGE);
  const syntax = JSON.parse(readFileSync(join(root, grammar.path), "utf-8"));
  assert.deepEqual([syntax.scopeName, syntax.patterns], [grammar.scopeName, [{ include: "source.json" }]]);
  assert.ok(JSON.parse(readFileSync(join(root, language.configuration), "utf-8")).brackets);
});

test("Treat as Rollout, and Ctrl+S in a script's tab writes it into the rollout", () => {
  const commands = contributes.commands.map((c: { command: string }) => c.command);
  assert.ok(commands.includes("rolloutLsp.treatAsRollout") && commands.includes("rolloutLsp.saveScript"));
  assert.deepEqual(contributes.keybindings[0], { command: "rolloutLsp.saveScript", key: "ctrl+s", mac: "cmd+s",
    when: "resourceScheme == rollout-exec" });
});

test("Next and Previous Failed Call: in the palette, on Alt+F9 and Shift+Alt+F9 in a rollout's editor", () => {
  const titles = Object.fromEntries(contributes.commands.map((c: { command: string; title: string }) => [c.command, c.title]));
  assert.deepEqual([titles["rolloutLsp.nextFailure"], titles["rolloutLsp.previousFailure"]],
    ["Go to Next Failed Call", "Go to Previous Failed Call"]);
  // F8 and Alt+F8 stay VS Code's Next Problem (in files, in the file): these keys are free in its defaults
  const failures = contributes.keybindings.filter((k: { command: string }) => /Failure$/.test(k.command));
  assert.deepEqual(failures, [
    { command: "rolloutLsp.nextFailure", key: "alt+f9", when: "editorTextFocus && editorLangId == rollout" },
    { command: "rolloutLsp.previousFailure", key: "shift+alt+f9", when: "editorTextFocus && editorLangId == rollout" },
  ]);
});

test("the findings profile's default has a name the Settings UI shows, and no null", () => {
  const findings = contributes.configuration.properties["rolloutLsp.findings"];
  assert.deepEqual([findings.type, findings.enum, findings.default], ["string", ["auto", "reader", "author"], "auto"]);
  assert.equal(findings.enumDescriptions.length, 3);
  assert.ok(!JSON.stringify(findings).includes("null"));
});
