"""Level 2, one exec script: its syntax tree (tree-sitter), its module-code verdict (esprima), its tool calls
with their exact arguments, patches, expansions and reachability, and its notes.

Knows no rollout, no record and no document; imports only :mod:`analysis.jsonl`."""
