"""Level 3, one rollout: its records, each line's analysis, call outputs and events paired with calls, turns,
usage, and the lineage of sessions (forks and subagents).

Imports :mod:`analysis.script` and :mod:`analysis.jsonl`; knows nothing of authoring, reports or editors."""
