"""Keyword arguments to operators without parameters are ignored, as MXNet 1.9.1 does; a wrong
number of inputs is refused naming the arguments."""

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import ShapeError
from mxlite.operator import registry


def test_parameterless_operators_ignore_keywords():
    a, b = mx.nd.array([1.0, -2.0]), mx.nd.array([0.0, 0.0])
    # MXNet's test_loss.py calls broadcast_maximum(..., axis=1)
    np.testing.assert_array_equal(mx.nd.broadcast_maximum(a, b, axis=1).asnumpy(), [1.0, 0.0])
    np.testing.assert_array_equal(mx.nd.relu(a, foo=3).asnumpy(), [1.0, 0.0])


@pytest.mark.parametrize(
    "op, params, match",
    [
        (
            "Convolution",
            {"kernel": (1, 1), "num_filter": 1},
            r"3 inputs \['data', 'weight', 'bias'\] with no_bias=False",
        ),
        ("Dropout", {}, r"1 input \['data'\], got 2"),
        ("Correlation", {}, r"2 inputs \['data1', 'data2'\], got 1"),
        ("LeakyReLU", {"act_type": "prelu"}, r"2 inputs \['data', 'gamma'\] with act_type='prelu'"),
    ],
)
def test_wrong_number_of_inputs_names_the_arguments(op, params, match):
    prop = registry.get(op).get_prop(params)
    n = len(prop.list_arguments())
    shapes = [(1, 1, 3, 3)] * (1 if n > 1 else 2)
    with pytest.raises(ShapeError, match=f"{op}: takes {match}"):
        prop.infer_shape(shapes)


def test_wrong_number_of_inputs_is_an_mxnet_error():
    import pytest

    a = mx.nd.ones((2, 2))
    # MXNet's test_sparse_nd_exception: retain without its indices
    with pytest.raises(mx.base.MXNetError, match="_sparse_retain: expected 2 inputs"):
        mx.nd.sparse.retain(a, invalid_arg="garbage_value")
    with pytest.raises(mx.base.MXNetError, match="sin: expected 1 inputs"):
        mx.nd.sin(a, a)
