"""Tests of the `authoring` level (the folder mirrors the source)."""
