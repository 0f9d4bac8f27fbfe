"""Fixtures shared by the engine tests."""

from __future__ import annotations

import pytest

from mxlite.engine import create

THREADED_KINDS = ["ThreadedEngine", "ThreadedEnginePerDevice"]


@pytest.fixture(params=THREADED_KINDS)
def eng(request):
    """A fresh engine of each threaded kind, shut down after the test (files that test one
    kind define their own ``eng``)."""
    e = create(request.param)
    yield e
    e.shutdown()
