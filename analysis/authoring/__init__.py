"""Level 4, writing rollouts: semantic tokens, completions and the exec script as an editable text.

Imports the levels below (session, script, jsonl); knows nothing of :mod:`analysis.reports`."""
