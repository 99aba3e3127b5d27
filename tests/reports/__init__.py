"""Tests of the `reports` level (the folder mirrors the source)."""
