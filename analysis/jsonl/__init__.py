"""Level 1, text: a JSON Lines document as lines, positions (code points, UTF-16, UTF-8) through JSON escapes,
the spans of JSON values, reading files (plain, zstd, streamed) and the finding type, with secret patterns.

Knows no record shapes and no scripts; imports nothing else of ``analysis``."""
