"""Doctests see ``mx`` and ``np`` as MXNet's docstring examples assume."""

import numpy as np
import pytest

import mxlite as mx


@pytest.fixture(autouse=True)
def _doctest_names(doctest_namespace: dict) -> None:
    doctest_namespace["mx"] = mx
    doctest_namespace["np"] = np
