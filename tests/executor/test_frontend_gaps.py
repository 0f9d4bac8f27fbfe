"""Executor behaviours that MXNet 1.9.1's own unit tests rely on."""

import numpy as np

import mxlite as mx


def test_simple_bind_ignores_non_shape_kwargs():
    y = mx.sym.var("a") * 2
    exe = y.simple_bind(mx.cpu(), a=(2, 3), axis=1, mode="clip", other=(4,))
    assert exe.arg_arrays[0].shape == (2, 3)


def test_zero_gradient_op_needs_no_head_gradient():
    x, y = mx.sym.var("x"), mx.sym.var("y")
    exe = (x == y).simple_bind(mx.cpu(), x=(2, 2), y=(2, 2))
    exe.forward(is_train=True)
    exe.backward()
    assert np.all(exe.grad_dict["x"].asnumpy() == 0)


def test_unread_head_gradient_shape_is_not_checked():
    x = mx.sym.var("x")
    xg = mx.nd.ones((2, 3))
    exe = mx.sym.shape_array(x).bind(mx.cpu(), args={"x": mx.nd.ones((2, 3))}, args_grad={"x": xg})
    exe.forward(is_train=True)
    exe.backward([mx.nd.ones((2, 3))])
    assert np.all(xg.asnumpy() == 0)


def _monitor_names(sym):
    names = []
    exe = sym.simple_bind(mx.cpu(), grad_req="null")
    exe.set_monitor_callback(lambda n, a: names.append(n.decode()), monitor_all=True)
    exe.forward()
    mx.nd.waitall()
    return names


def test_monitor_input_names_follow_mxnet():
    d = mx.sym.Variable("data", shape=(2, 3, 4, 4))
    assert _monitor_names(mx.sym.Activation(d, act_type="relu", name="act"))[1] == "act_input0"
    assert _monitor_names(mx.sym.softmax(d, name="sm"))[1] == "sm_data"


def test_monitor_names_an_aliased_operators_input_by_its_argument():
    # cumsum is an alias of _np_cumsum, whose MXNet registration lists its input as "a"
    d = mx.sym.Variable("data", shape=(2, 3))
    assert _monitor_names(mx.sym.cumsum(d, name="cs"))[1] == "cs_a"
