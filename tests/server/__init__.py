"""Tests of the `server` level (the folder mirrors the source)."""
