"""Doctests see ``mx`` and ``np`` as MXNet's docstring examples assume."""

import numpy as np
import pytest

import mxlite as mx

# Importing it turns the `mxnet` alias on (mxlite/run/): never in the test process itself.
collect_ignore_glob = ["mxlite/run/shim/*"]


@pytest.fixture(autouse=True)
def _doctest_names(doctest_namespace: dict) -> None:
    doctest_namespace["mx"] = mx
    doctest_namespace["np"] = np
