"""reset_arrays: several arrays zeroed in place by one call, as MXNet 1.9.1's."""

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError


def test_reset_arrays_zeroes_every_input_in_place():
    a = mx.nd.ones((2, 3))
    b = mx.nd.array([1.5, -2.0, 3.0, 4.0], dtype="float16")
    c = mx.nd.arange(6, dtype="float64").reshape((3, 2))
    out = mx.nd.reset_arrays(a, b, c, num_arrays=3)
    assert out == []  # no outputs, as MXNet
    for x, dtype in ((a, np.float32), (b, np.float16), (c, np.float64)):
        got = x.asnumpy()
        assert got.dtype == dtype and not got.any()


def test_reset_arrays_count_must_match():
    with pytest.raises(MXNetError, match="num_arrays=2"):
        mx.nd.reset_arrays(mx.nd.ones((2,)), num_arrays=2)
