"""Doctests see ``mx`` and ``np`` as MXNet's docstring examples assume."""

import os

import numpy as np
import pytest

import mxlite as mx

# MXLITE_CONV_ALGO=auto picks Winograd or im2col per shape by timing them, so values would move
# by float32 rounding from run to run; the suite pins im2col, and the Winograd tests choose their
# algorithm (auto included) themselves.
os.environ.setdefault("MXLITE_CONV_ALGO", "im2col")

# Importing it turns the `mxnet` alias on (mxlite/run/): never in the test process itself.
collect_ignore_glob = ["mxlite/run/shim/*"]


@pytest.fixture(autouse=True)
def _doctest_names(doctest_namespace: dict) -> None:
    doctest_namespace["mx"] = mx
    doctest_namespace["np"] = np
