"""The packaging suite: opens the .vsix files that `make vsix-all` builds into vscode-client/dist/. Run by
`make vsix-all` (never by `make test`); fails at once, saying why, when a package is missing."""

import pytest

from tests.packaging.test_vsix import TARGETS, vsix_of


def pytest_sessionstart(session):
    missing = [str(vsix_of(t)) for t in TARGETS if not vsix_of(t).is_file()]
    if missing:
        raise pytest.UsageError(f"the packaging suite needs {', '.join(missing)}: run `make vsix-all` first")
