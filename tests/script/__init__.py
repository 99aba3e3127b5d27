"""Tests of the `script` level (the folder mirrors the source)."""
