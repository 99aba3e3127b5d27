"""Tests of the `session` level (the folder mirrors the source)."""
