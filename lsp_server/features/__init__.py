"""Editor features: one class per group of LSP methods (see base.py), each listed once in server.FEATURES."""
