import os

from hypothesis import HealthCheck, settings

# CI runs a bounded number of examples; `make fuzz` runs the full profile (docs/reliability.md).
settings.register_profile(
    "ci", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
settings.register_profile(
    "full", max_examples=4000, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# No test reads or writes the user's own session index (~/.cache/codex-rollout-lsp): a server or command started
# by a test without an index of its own gets an empty one of this test process (the tests that pin the default
# path set the variable themselves).
if not os.environ.get("ROLLOUT_LSP_INDEX"):
    import tempfile

    os.environ["ROLLOUT_LSP_INDEX"] = os.path.join(tempfile.mkdtemp(prefix="rollout-lsp-tests-"), "index.sqlite3")
