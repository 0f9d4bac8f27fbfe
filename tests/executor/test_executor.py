"""Executor: bind/simple_bind, forward/backward results, requests, dicts, reshape, monitor."""

import numpy as np
import pytest

import mxlite as mx
from mxlite.executor import bind, simple_bind
from mxlite.operator import registry
from mxlite.test_utils import (
    check_consistency,
    check_numeric_gradient,
    check_symbolic_backward,
    check_symbolic_forward,
    simple_forward,
)


def _mlp():
    d = mx.sym.var("data")
    fc = mx.sym.FullyConnected(d, num_hidden=3, name="fc")
    return mx.sym.Activation(fc * fc + fc, act_type="tanh", name="act")


def _loc(seed=0):
    rng = np.random.default_rng(seed)
    return {
        "data": rng.standard_normal((2, 4)).astype(np.float32),
        "fc_weight": rng.standard_normal((3, 4)).astype(np.float32),
        "fc_bias": rng.standard_normal(3).astype(np.float32),
    }


def _expected(loc):
    x = loc["data"] @ loc["fc_weight"].T + loc["fc_bias"]
    y = np.tanh(x * x + x)
    dx = (1 - y**2) * (2 * x + 1)
    return y, {"data": dx @ loc["fc_weight"], "fc_weight": dx.T @ loc["data"], "fc_bias": dx.sum(0)}


def test_forward_and_backward_match_numpy():
    loc = _loc()
    y, grads = _expected(loc)
    check_symbolic_forward(_mlp(), loc, [y], rtol=1e-4, atol=1e-5)
    check_symbolic_backward(_mlp(), loc, [np.ones_like(y)], grads, rtol=1e-4, atol=1e-4)


def test_grad_req_add_accumulates_and_null_leaves_alone():
    loc = _loc(1)
    y, grads = _expected(loc)
    check_symbolic_backward(_mlp(), loc, [np.ones_like(y)], grads, rtol=1e-4, atol=1e-4,
                            grad_req="add")  # fmt: skip
    reqs = {"data": "null", "fc_weight": "add", "fc_bias": "write"}
    check_symbolic_backward(_mlp(), loc, [np.ones_like(y)], {k: grads[k] for k in reqs},
                            rtol=1e-4, atol=1e-4, grad_req=reqs)  # fmt: skip


def test_numeric_gradient_and_consistency():
    check_numeric_gradient(_mlp(), _loc(2), numeric_eps=1e-2, rtol=5e-2, atol=1e-2)
    exes = check_consistency(_mlp(), [{"ctx": mx.cpu(), "data": (2, 4)}] * 2)
    assert len(exes) == 2


def test_simple_bind_dicts_and_forward_kwargs():
    exe = simple_bind(_mlp(), mx.cpu(), data=(2, 4))
    assert list(exe.arg_dict) == ["data", "fc_weight", "fc_bias"]
    assert exe.arg_dict["fc_weight"].shape == (3, 4)
    assert set(exe.grad_dict) == {"data", "fc_weight", "fc_bias"}
    assert list(exe.output_dict) == ["act_output"]
    loc = _loc(3)
    exe.copy_params_from({"fc_weight": mx.nd.array(loc["fc_weight"]),
                          "fc_bias": mx.nd.array(loc["fc_bias"])})  # fmt: skip
    out = exe.forward(data=loc["data"])[0].asnumpy()
    np.testing.assert_allclose(out, _expected(loc)[0], rtol=1e-4, atol=1e-5)
    with pytest.raises(mx.base.MXNetError, match="unknown argument 'nope'"):
        exe.forward(nope=loc["data"])
    with pytest.raises(ValueError, match="extra"):
        exe.copy_params_from({"extra": mx.nd.ones((1,))})
    exe.copy_params_from({"extra": mx.nd.ones((1,))}, allow_extra_params=True)


def test_bind_checks_arguments():
    sym = _mlp()
    args = [mx.nd.array(v) for v in _loc().values()]
    with pytest.raises(mx.base.MXNetError, match="args"):
        bind(sym, mx.cpu(), args[:2])
    with pytest.raises(mx.base.MXNetError, match="grad_req"):
        bind(sym, mx.cpu(), args, args, grad_req="sometimes")
    with pytest.raises(mx.base.MXNetError, match="cannot infer"):
        simple_bind(sym, mx.cpu())


def test_reshape_shares_parameters():
    exe = simple_bind(_mlp(), mx.cpu(), data=(2, 4))
    small = exe.reshape(data=(1, 4))
    assert small.arg_dict["fc_weight"] is exe.arg_dict["fc_weight"]
    assert small.outputs[0].shape == (1, 3)
    with pytest.raises(mx.base.MXNetError, match="allow_up_sizing"):
        exe.reshape(data=(5, 4))
    big = exe.reshape(allow_up_sizing=True, data=(5, 4))
    assert big.forward()[0].shape == (5, 3)


def test_monitor_sees_every_output_and_debug_str_reports_total():
    exe = simple_bind(_mlp(), mx.cpu(), data=(2, 4))
    seen = []
    exe.set_monitor_callback(lambda name, arr: seen.append(name))
    exe.forward(is_train=True)
    assert b"fc_output" in seen and b"act_output" in seen  # bytes, as from MXNet's C API
    text = exe.debug_str()
    assert "Op:FullyConnected, Name=fc" in text
    assert f"Total {exe._plan.total_bytes} bytes" in text
    assert "MB allocated" in text


def test_reshape_keeps_the_monitor():
    # MXNet's Executor.reshape rebinds the monitor callback to the new executor (a Module
    # reshapes its executors when a batch of another shape comes)
    exe = simple_bind(_mlp(), mx.cpu(), data=(2, 4))
    seen = []
    exe.set_monitor_callback(
        lambda name, arr: seen.append((name, mx.nd.NDArray(arr).shape)), monitor_all=True
    )
    big = exe.reshape(allow_up_sizing=True, data=(5, 4))
    big.forward()
    assert (b"data", (5, 4)) in seen and (b"fc_output", (5, 3)) in seen


def test_monitor_callback_receives_what_mxnet_hands_it():
    # MXNet's C API calls back with the name as bytes and an NDArrayHandle (an int) that
    # MXNet's own test_operator.py turns into an array with ctypes
    import ctypes

    from mxlite.base import NDArrayHandle, py_str

    exe = simple_bind(_mlp(), mx.cpu(), data=(2, 4))
    exe.arg_dict["data"][:] = 3
    got = {}

    def callback(name, arr):
        assert isinstance(name, bytes) and isinstance(arr, int)
        handle = ctypes.cast(arr, NDArrayHandle)
        got[py_str(name)] = mx.nd.NDArray(handle, writable=False).asnumpy().copy()

    exe.set_monitor_callback(callback, monitor_all=True)
    exe.forward()
    np.testing.assert_array_equal(got["data"], np.full((2, 4), 3.0))
    np.testing.assert_array_equal(got["act_output"], exe.outputs[0].asnumpy())
    with pytest.raises(mx.MXNetError, match="handle"):
        mx.nd.NDArray(12345)


def test_simple_forward_and_group_outputs():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    g = mx.sym.Group([a + b, a * b])
    out = simple_forward(g, a=np.ones((2,)), b=np.full((2,), 3.0))
    np.testing.assert_allclose(out[0], [4, 4])
    np.testing.assert_allclose(out[1], [3, 3])


def test_operators_with_aux_states_train_and_infer():
    if registry.find("BatchNorm") is None:
        pytest.skip("BatchNorm is not registered yet")
    d = mx.sym.var("data")
    bn = mx.sym.BatchNorm(d, name="bn", fix_gamma=False)
    exe = simple_bind(bn, mx.cpu(), data=(4, 3))
    assert list(exe.aux_dict) == ["bn_moving_mean", "bn_moving_var"]
    exe.arg_dict["gamma" if "gamma" in exe.arg_dict else "bn_gamma"][:] = 1
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    out = exe.forward(is_train=True, data=x)[0].asnumpy()
    np.testing.assert_allclose(out.mean(0), 0, atol=1e-5)
    exe.backward(mx.nd.ones((4, 3)))
    assert exe.grad_dict["data"].shape == (4, 3)


def test_loss_output_needs_no_head_gradient():
    if registry.find("SoftmaxOutput") is None:
        pytest.skip("SoftmaxOutput is not registered yet")
    d = mx.sym.var("data")
    fc = mx.sym.FullyConnected(d, num_hidden=3, name="fc")
    out = mx.sym.SoftmaxOutput(fc, name="sm")
    exe = simple_bind(out, mx.cpu(), data=(2, 4))
    exe.arg_dict["data"][:] = 1.0
    exe.arg_dict["fc_weight"][:] = 0.1
    exe.forward(is_train=True)
    exe.backward()
    assert np.abs(exe.grad_dict["fc_weight"].asnumpy()).sum() > 0


def test_simple_bind_places_ctx_group_arguments_on_group2ctx():
    with mx.AttrScope(ctx_group="dev1"):
        a = mx.sym.Variable("a")
    b = mx.sym.Variable("b")
    exe = (a + b).simple_bind(mx.cpu(0), group2ctx={"dev1": mx.cpu(1)}, a=(2,), b=(2,))
    assert exe.arg_dict["a"].context == mx.cpu(1)
    assert exe.grad_dict["a"].context == mx.cpu(1)
    assert exe.arg_dict["b"].context == mx.cpu(0)
    exe.arg_dict["a"][:] = 1
    exe.arg_dict["b"][:] = 2
    assert exe.forward()[0].asnumpy().tolist() == [3, 3]


def test_grad_dict_keeps_null_arguments_as_mxnet():
    # MXNet 1.9.1: an array given for a 'null' argument stays in grad_dict, untouched; from
    # simple_bind such an argument maps to None
    a, b = mx.sym.var("a"), mx.sym.var("b")
    grads = {"a": mx.nd.ones(2) * 5, "b": mx.nd.ones(2) * 7}
    exe = (a * b).bind(
        mx.cpu(), {"a": mx.nd.ones(2), "b": mx.nd.ones(2) * 3}, args_grad=grads,
        grad_req={"a": "write", "b": "null"},
    )  # fmt: skip
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones(2))
    assert exe.grad_dict["b"] is grads["b"]
    assert exe.grad_dict["b"].asnumpy().tolist() == [7, 7]
    assert exe.grad_dict["a"].asnumpy().tolist() == [3, 3]
    exe = (a * b).simple_bind(mx.cpu(), a=(2,), b=(2,), grad_req={"a": "write", "b": "null"})
    assert exe.grad_dict["b"] is None and exe.grad_arrays[1] is None


def test_a_failing_step_is_named_in_the_error_whatever_the_bulking():
    # the steps of a forward run as one bulk engine function; the failure still names the
    # step that raised, as under NaiveEngine (tests/engine/test_naive.py)
    from mxlite.operator import GradNeeds, registry, simple_op

    def _fail(xp, x, env, out):
        raise FloatingPointError("kernel exploded")

    if registry.find("_test_exec_failing_op") is None:
        simple_op(
            "_test_exec_failing_op", forward=_fail, gradient=lambda xp, g, env: g,
            grad_needs=GradNeeds.OUT_GRAD, doc="fails (tests)",
        )  # fmt: skip
    d = mx.sym.var("d")
    net = mx.sym._internal._test_exec_failing_op(d, name="bad") * 2 + 1
    exe = net.bind(mx.cpu(), {"d": mx.nd.ones((3,))})
    exe.forward()
    with pytest.raises(mx.MXNetError, match="engine function 'bad' on cpu"):
        exe.outputs[0].asnumpy()


def test_name_dicts_are_made_once_and_output_dict_refuses_duplicated_names():
    y = mx.sym.relu(mx.sym.Variable("a"), name="r")
    exe = y.simple_bind(mx.cpu(), a=(2,))
    for name in ("arg_dict", "grad_dict", "aux_dict", "output_dict"):
        assert getattr(exe, name) is getattr(exe, name)
    assert list(exe.arg_dict) == ["a"] and exe.aux_dict == {}
    assert exe.output_dict["r_output"] is exe.outputs[0]
    twice = mx.sym.Group([y, y]).simple_bind(mx.cpu(), a=(2,))
    with pytest.raises(mx.base.MXNetError, match="output_dict: the symbol has duplicated output"):
        twice.output_dict  # noqa: B018
