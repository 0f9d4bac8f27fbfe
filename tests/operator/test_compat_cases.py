"""Regression tests for operator fixes found by MXNet 1.9.1's test_operator.py: ravel and
unravel with a -1 leading dim, tile and one_hot on zero-size inputs (mx.np_shape), tile with
a 0 rep, contrib.arange_like, softmax's 'length' dtype and errors raised in custom operators.
Expected values come from real MXNet 1.9.1."""

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import DTypeError, MXNetError, ShapeError


def test_unravel_index_leading_minus_one_keeps_the_rest():
    flat = mx.nd.array([-7, 7, 23, 100])
    want = [[-1, 1, 5, 25], [-3, 3, 3, 0]]  # C-style truncating division, as MXNet
    for shape in [(-1, 4), (2, 4)]:
        np.testing.assert_array_equal(mx.nd.unravel_index(flat, shape=shape).asnumpy(), want)


def test_ravel_multi_index_ignores_the_first_dim():
    idx = mx.nd.array([[1, 5], [2, -3]], dtype="int32")
    for shape in [(2, 4), (-1, 4)]:
        out = mx.nd.ravel_multi_index(idx, shape=shape)
        np.testing.assert_array_equal(out.asnumpy(), [6, 17])
        assert out.dtype == np.int32


def test_ravel_round_trip_matches_numpy():
    rng = np.random.default_rng(0)
    data = rng.integers(0, 50, size=(3, 40))
    shape = tuple(int(d) + 1 for d in data.max(axis=1))
    flat = np.ravel_multi_index(tuple(data), shape)
    a = mx.sym.var("a")
    got = mx.sym.unravel_index(a, shape=(-1,) + shape[1:]).eval(a=mx.nd.array(flat))[0]
    np.testing.assert_array_equal(got.asnumpy(), data)


def test_tile_and_one_hot_zero_size_input_under_np_shape():
    with mx.np_shape():
        a = mx.nd.array(np.zeros((2, 3, 0, 4), np.int32), dtype=np.int32)
        assert mx.nd.tile(a, (2, 4, 6)).shape == (2, 6, 0, 24)
        idx = mx.nd.array(np.zeros((2, 0, 9, 3)), dtype=np.int32)
        out = mx.nd.one_hot(idx, depth=10, dtype=np.int32)
        assert out.shape == (2, 0, 9, 3, 10) and out.dtype == np.int32


def test_tile_zero_rep_needs_np_shape():
    data = mx.nd.arange(16).reshape((4, 4))
    with pytest.raises(ShapeError, match="tile.*reps"):
        mx.nd.tile(data, (1, 0, 3))
    with mx.np_shape():
        assert mx.nd.tile(data, (2, 0)).shape == (8, 0)
    # the imperative inference cache must not carry the np_shape answer back out
    with pytest.raises(ShapeError, match="tile.*reps"):
        mx.nd.tile(data, (2, 0))


def test_arange_like():
    x = mx.nd.ones((3, 4), dtype="float64")
    out = mx.nd.contrib.arange_like(x)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out.asnumpy(), np.arange(12).reshape(3, 4))
    out = mx.nd.contrib.arange_like(x, start=1, step=2, axis=-1, repeat=2)
    np.testing.assert_array_equal(out.asnumpy(), [1, 1, 3, 3])
    s = mx.sym.contrib.arange_like(mx.sym.var("x"), axis=0)
    assert s.infer_shape(x=(5, 2))[1] == [(5,)]
    with pytest.raises(ShapeError, match="arange_like.*axis"):
        mx.nd.contrib.arange_like(x, axis=2)


def test_softmax_float_length_binds_and_fails_when_run():
    data = mx.sym.var("data", shape=(2, 3, 4))
    sym = mx.sym.softmax(data, use_length=True, axis=1, name="sm")
    exe = sym.simple_bind(ctx=mx.cpu(), grad_req="null")  # MXNet binds: 'length' is free
    assert exe.arg_dict["sm_length"].dtype == np.float32
    with pytest.raises(MXNetError, match="softmax.*length.*int32 or int64.*float32"):
        exe.forward()
        mx.nd.waitall()


def test_softmax_float_length_fails_at_the_imperative_call():
    with pytest.raises(DTypeError, match="softmax.*length.*float32"):
        mx.nd.softmax(mx.nd.ones((2, 3)), mx.nd.ones((2,)), use_length=True)
    out = mx.nd.softmax(mx.nd.ones((2, 3)), mx.nd.array([1, 2], dtype="int32"), use_length=True)
    np.testing.assert_allclose(out.asnumpy(), [[1, 0, 0], [0.5, 0.5, 0]])


class _Boom(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        raise AssertionError("boom in forward")


@mx.operator.register("suite_b_boom")
class _BoomProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=True)

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]], []

    def create_operator(self, ctx, shapes, dtypes):
        return _Boom()


@mx.operator.register("suite_b_bad_shape")
class _BadShapeProp(mx.operator.CustomOpProp):
    def infer_shape(self, in_shape):
        raise ValueError("no shape for you")


def test_custom_op_python_error_becomes_mxnet_error():
    with pytest.raises(MXNetError, match="suite_b_boom.*CustomOp.forward.*AssertionError") as e:
        mx.nd.Custom(mx.nd.zeros((2,)), op_type="suite_b_boom").wait_to_read()
    assert isinstance(e.value.__cause__, AssertionError)
    with pytest.raises(MXNetError, match="suite_b_bad_shape.*infer_shape.*ValueError"):
        mx.nd.Custom(mx.nd.zeros((2,)), op_type="suite_b_bad_shape")
