"""The corpus suite: tests over the public rollouts in ../shared/corpus/ (see README).  It is run by
`make test-corpus`, never by `make test`, and fails at once, saying why, when the corpus is not there."""

import pytest

from tests.helpers import SHARED


def pytest_sessionstart(session):
    if not (SHARED / "corpus").is_dir():
        raise pytest.UsageError(
            f"the corpus suite needs {SHARED / 'corpus'}: lay ../shared beside the clone "
            "or point ROLLOUT_LSP_SHARED at it"
        )
