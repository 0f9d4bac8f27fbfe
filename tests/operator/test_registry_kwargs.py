"""Keyword arguments to operators without parameters are ignored, as MXNet 1.9.1 does."""

import numpy as np

import mxlite as mx


def test_parameterless_operators_ignore_keywords():
    a, b = mx.nd.array([1.0, -2.0]), mx.nd.array([0.0, 0.0])
    # MXNet's test_loss.py calls broadcast_maximum(..., axis=1)
    np.testing.assert_array_equal(mx.nd.broadcast_maximum(a, b, axis=1).asnumpy(), [1.0, 0.0])
    np.testing.assert_array_equal(mx.nd.relu(a, foo=3).asnumpy(), [1.0, 0.0])


def test_wrong_number_of_inputs_is_an_mxnet_error():
    import pytest

    a = mx.nd.ones((2, 2))
    # MXNet's test_sparse_nd_exception: retain without its indices
    with pytest.raises(mx.base.MXNetError, match="_sparse_retain: expected 2 inputs"):
        mx.nd.sparse.retain(a, invalid_arg="garbage_value")
    with pytest.raises(mx.base.MXNetError, match="sin: expected 1 inputs"):
        mx.nd.sin(a, a)
