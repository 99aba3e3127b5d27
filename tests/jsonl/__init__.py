"""Tests of the `jsonl` level (the folder mirrors the source)."""
