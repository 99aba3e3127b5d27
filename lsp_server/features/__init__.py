"""Editor features: plain classes from analysis results to lsprotocol types (registered in server.py)."""
