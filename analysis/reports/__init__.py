"""Level 4, reading many rollouts: reports for the command line (JSON and text), the streamed reading of large
files, census, export, the session index and invocation logs.

Imports the levels below (session, script, jsonl); knows nothing of :mod:`analysis.authoring`."""
