"""Shape and type inference over whole graphs (mxlite.symbol.infer)."""

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import DTypeError, ShapeError
from mxlite.operator import registry


def test_backward_fill_from_output_and_errors_name_operator():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    s = mx.sym.elemwise_add(a, b, name="add")
    assert s.infer_shape(a=(2, 3)) == ([(2, 3), (2, 3)], [(2, 3)], [])
    with pytest.raises(ShapeError, match="Error in operator add"):
        s.infer_shape(a=(2, 3), b=(3, 3))


def test_partial_and_incomplete():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    s = mx.sym.Group([mx.sym.relu(a), mx.sym.relu(b)])
    assert s.infer_shape_partial(a=(2, 3)) == ([(2, 3), ()], [(2, 3), ()], [])
    with pytest.warns(UserWarning, match="b: \\(\\)"):
        assert s.infer_shape(a=(2, 3)) == (None, None, None)
    with pytest.raises(mx.MXNetError, match="unknown input 'c'"):
        s.infer_shape(c=(1,))


def test_shape_and_dtype_hints_on_variables():
    v = mx.sym.var("v", shape=(4, 5), dtype="float16")
    s = mx.sym.relu(v)
    assert s.infer_shape() == ([(4, 5)], [(4, 5)], [])
    assert s.infer_type() == ([np.float16], [np.float16], [])


def test_infer_type_partial_and_conflict():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    s = mx.sym.elemwise_add(a, b, name="add")
    assert s.infer_type(a="float64", b="float64") == ([np.float64] * 2, [np.float64], [])
    # the float64 case once failed: np.dtype("float64") == None is True in NumPy
    r = mx.sym.relu(mx.sym.relu(a))
    assert r.infer_type(a="float64") == ([np.float64], [np.float64], [])
    assert s.infer_type_partial() == ([None, None], [None], [])
    with pytest.raises(DTypeError, match="Error in operator add"):
        s.infer_type(a="float32", b="float64")


def test_weights_from_data():
    if registry.find("FullyConnected") is None:
        pytest.skip("operators not registered yet: FullyConnected")
    fc = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=4, name="fc1")
    assert fc.infer_shape(data=(2, 3)) == ([(2, 3), (4, 3), (4,)], [(2, 4)], [])
    with pytest.raises(ShapeError, match="fc1.*weight"):
        fc.infer_shape(data=(2, 3), fc1_weight=(5, 3))
