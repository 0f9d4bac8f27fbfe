"""MXNet's deprecated NumpyOp / NDArrayOp (mxlite/symbol/python_op.py), run as custom ops."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx


def test_default_numpy_op_copies_forward_and_passes_ones_back():
    # MXNet 1.9.1's test_python_op: the default forward copies; the default backward writes 1
    with pytest.warns(UserWarning, match="NumpyOp has been deprecated"):
        op = mx.operator.NumpyOp()
    s = op.get_symbol(mx.sym.var("X"), name="numpy_op")
    assert s.list_outputs() == ["numpy_op_output"]
    dx = mx.nd.zeros(4)
    exe = s.bind(mx.cpu(), args=[mx.nd.arange(4) * 10], args_grad={"X": dx})
    exe.forward(is_train=True)
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(), [0, 10, 20, 30])
    exe.backward(mx.nd.ones(4) * 3)
    np.testing.assert_array_equal(dx.asnumpy(), [1, 1, 1, 1])


class _Square(mx.operator.NDArrayOp):
    def forward(self, in_data, out_data):
        out_data[0][:] = in_data[0] * in_data[0]

    def backward(self, out_grad, in_data, out_data, in_grad):
        in_grad[0][:] = 2 * in_data[0] * out_grad[0]


class _Scale(mx.operator.NumpyOp):
    def list_arguments(self):
        return ["a", "b"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]]

    def forward(self, in_data, out_data):
        assert isinstance(in_data[0], np.ndarray)
        out_data[0][:] = in_data[0] * in_data[1]

    def backward(self, out_grad, in_data, out_data, in_grad):
        in_grad[0][:] = out_grad[0] * in_data[1]
        in_grad[1][:] = out_grad[0] * in_data[0]


@pytest.mark.filterwarnings("ignore:.*deprecated")
def test_user_ndarray_and_numpy_ops_train():
    x = mx.sym.var("x")
    exe = _Square()(x, name="sq").bind(
        mx.cpu(), args=[mx.nd.array([1, 2, 3])], args_grad={"x": mx.nd.zeros(3)}
    )
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones(3))
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(), [1, 4, 9])
    np.testing.assert_array_equal(exe.grad_arrays[0].asnumpy(), [2, 4, 6])
    y = mx.sym.var("y")
    s = _Scale()(x, y, name="scale")
    assert s.list_arguments() == ["x", "y"]
    grads = {"x": mx.nd.ones(2), "y": mx.nd.zeros(2)}
    exe = s.bind(
        mx.cpu(),
        args={"x": mx.nd.array([1, 2]), "y": mx.nd.array([3, 4])},
        args_grad=grads,
        grad_req={"x": "add", "y": "write"},
    )
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones(2))
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(), [3, 8])
    np.testing.assert_array_equal(grads["x"].asnumpy(), [4, 5])  # 'add' keeps the 1 there
    np.testing.assert_array_equal(grads["y"].asnumpy(), [1, 2])
