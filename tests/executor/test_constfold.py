"""The constant-subgraph pass of inference plans (``executor/constfold.py``): steps computed
from parameters, auxiliary states and constants alone run once, and again only after one of
those is written; outputs equal the unfolded plan's; data, random operators, training
executors and ``MXLITE_INFERENCE_FOLD=0`` keep every step on every call."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest

import mxlite as mx

_PROBE = "_test_constfold_probe"  # _test_*: left out of the ONNX coverage test
_lock = threading.Lock()
_calls = [0]


def _probe_op() -> Any:
    """``2 * x``, counting its kernel's calls in ``_calls``."""
    from mxlite.operator import registry
    from mxlite.operator.simple_op import simple_op

    def forward(xp: Any, x: Any, env: Any, out: Any) -> Any:
        _calls[0] += 1
        return x * 2

    with _lock:
        if registry.find(_PROBE) is None:
            simple_op(_PROBE, forward=forward, gradient=lambda xp, g, env: g * 2)
    return getattr(mx.sym._internal, _PROBE)


@pytest.fixture
def probe() -> Any:
    op = _probe_op()
    _calls[0] = 0
    return op


def _net(probe: Any) -> mx.sym.Symbol:
    """data (2, 4) times a transformed weight, plus a positional row made from constants."""
    x, w = mx.sym.var("data"), mx.sym.var("w", shape=(3, 4), dtype="float32")
    wt = probe(mx.sym.transpose(w) * 0.5)  # weight transform: transpose, _mul_scalar, probe
    pos = mx.sym.sin(mx.sym.arange(3).reshape((1, 3)) + mx.sym.ones((1, 3)))
    return mx.sym.broadcast_add(mx.sym.dot(x, wt), pos, name="out")


def _bind(sym: mx.sym.Symbol, params: bool = True, grad_req: str = "null") -> Any:
    exe = sym.simple_bind(
        mx.cpu(), data=(2, 4), w=(3, 4), grad_req=grad_req,
        shared_arg_names=["w"] if params else None,
    )  # fmt: skip
    exe.arg_dict["w"][:] = mx.nd.array(np.arange(12.0).reshape(3, 4) / 7)
    return exe


def _want(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    return x @ (w.T * 0.5 * 2) + np.sin(np.arange(3.0) + 1)[None]


def _run(exe: Any, x: np.ndarray) -> np.ndarray:
    return exe.forward(data=mx.nd.array(x))[0].asnumpy()


def test_weight_transform_runs_once_and_again_after_a_write(probe: Any) -> None:
    exe = _bind(_net(probe))
    w = exe.arg_dict["w"].asnumpy()
    for k in range(3):
        x = np.full((2, 4), k + 1.0, np.float32)
        np.testing.assert_allclose(_run(exe, x), _want(w, x), rtol=1e-6)
    assert _calls[0] == 1
    w2 = np.ones((3, 4), np.float32)
    exe.copy_params_from({"w": mx.nd.array(w2)})
    x = np.full((2, 4), 2.0, np.float32)
    np.testing.assert_allclose(_run(exe, x), _want(w2, x), rtol=1e-6)
    _run(exe, x)
    assert _calls[0] == 2
    np.testing.assert_array_equal(exe.arg_dict["w"].asnumpy(), w2)  # read, never written


def test_outputs_equal_the_unfolded_plan(probe: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    sym = _net(probe)
    x = np.random.default_rng(0).uniform(-1, 1, (2, 4)).astype(np.float32)
    got = _run(_bind(sym), x)
    monkeypatch.setenv("MXLITE_INFERENCE_FOLD", "0")
    ref = _bind(sym)
    _calls[0] = 0
    want = _run(ref, x)
    _run(ref, x)
    assert _calls[0] == 2  # off: every call computes it
    np.testing.assert_array_equal(got, want)


def test_data_random_and_training_are_computed_each_call(probe: Any) -> None:
    x, w = mx.sym.var("data"), mx.sym.var("w")
    noise = probe(mx.sym.random.uniform(shape=(2, 4)))  # random: never a constant
    sym = mx.sym.Group([probe(x) + noise, mx.sym.sum(w)])
    exe = _bind(sym)
    for _ in range(2):
        exe.forward(data=mx.nd.ones((2, 4)))[0].wait_to_read()
    assert _calls[0] == 4
    for grad_req, params in (("write", True), ("null", False)):
        exe = _bind(_net(probe), params=params, grad_req=grad_req)
        _calls[0] = 0
        for _ in range(2):
            exe.forward(data=mx.nd.ones((2, 4)))[0].wait_to_read()
        assert _calls[0] == 2, grad_req  # training executor; a bind told no parameters
        exe.forward(is_train=True, data=mx.nd.ones((2, 4)))[0].wait_to_read()
        assert _calls[0] == 3


def test_fills_without_data_input_fold_in_any_executor(probe: Any) -> None:
    x = mx.sym.var("data")
    y = x + probe(mx.sym.ones((2, 4)))
    exe = y.bind(mx.cpu(), {"data": mx.nd.zeros((2, 4))}, grad_req="null")
    for k in range(3):
        out = exe.forward(data=mx.nd.full((2, 4), k))[0].asnumpy()
        np.testing.assert_array_equal(out, np.full((2, 4), k + 2.0))
    assert _calls[0] == 1


def test_a_constant_that_is_a_graph_output_is_still_written(probe: Any) -> None:
    w = mx.sym.var("w")
    sym = mx.sym.Group([probe(mx.sym.transpose(w)), mx.sym.var("data") * 1])
    exe = _bind(sym)
    for k in range(2):
        exe.arg_dict["w"][:] = k
        out = exe.forward(data=mx.nd.ones((2, 4)))[0].asnumpy()
        np.testing.assert_array_equal(out, np.full((4, 3), 2.0 * k))


@pytest.mark.parametrize("bulk", ["1", "0"])
def test_folded_weight_of_a_convolution_with_batch_norm(
    probe: Any, bulk: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The transformed weight feeds a convolution that BatchNorm folds into: a new weight is
    seen by both caches (the constant and the folded BatchNorm), with or without bulking."""
    monkeypatch.setenv("MXNET_EXEC_BULK_EXEC_INFERENCE", bulk)
    x, w = mx.sym.var("data"), mx.sym.var("w")
    c = mx.sym.Convolution(x, probe(w * 0.5), kernel=(3, 3), num_filter=4, no_bias=True)
    sym = mx.sym.Activation(mx.sym.BatchNorm(c, name="bn"), act_type="relu")
    rng = np.random.default_rng(2)
    names = ["w", "bn_gamma", "bn_beta"]
    exe = sym.simple_bind(mx.cpu(), data=(2, 3, 6, 6), grad_req="null", shared_arg_names=names)
    ref_args = {}
    for name, a in [*exe.arg_dict.items(), *exe.aux_dict.items()]:
        a[:] = mx.nd.array(rng.uniform(0.5, 1.5, a.shape))
        ref_args[name] = a.copy()
    data = mx.nd.array(rng.uniform(-1, 1, (2, 3, 6, 6)))

    def unfolded() -> np.ndarray:
        with monkeypatch.context() as m:
            m.setenv("MXLITE_INFERENCE_FOLD", "0")
            ref = sym.simple_bind(mx.cpu(), data=(2, 3, 6, 6), grad_req="null")
            ref.copy_params_from(
                {k: v for k, v in ref_args.items() if k in ref.arg_dict},
                {k: v for k, v in ref_args.items() if k in ref.aux_dict},
            )
            return ref.forward(data=data)[0].asnumpy()

    got = exe.forward(data=data)[0].asnumpy()
    np.testing.assert_allclose(got, unfolded(), rtol=1e-5, atol=1e-5)
    ref_args["w"] = mx.nd.array(rng.uniform(-1, 1, exe.arg_dict["w"].shape))
    exe.arg_dict["w"][:] = ref_args["w"]
    got = exe.forward(data=data)[0].asnumpy()
    np.testing.assert_allclose(got, unfolded(), rtol=1e-5, atol=1e-5)


def test_module_inference_recomputes_after_set_params(probe: Any) -> None:
    mod = mx.mod.Module(_net(probe), data_names=["data"], label_names=None)
    mod.bind([("data", (2, 4))], for_training=False)
    w = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    mod.set_params({"w": mx.nd.array(w)}, {})
    x = np.ones((2, 4), np.float32)
    for _ in range(3):
        mod.forward(mx.io.DataBatch([mx.nd.array(x)]), is_train=False)
        np.testing.assert_allclose(mod.get_outputs()[0].asnumpy(), _want(w, x), rtol=1e-6)
    assert _calls[0] == 1
    mod.set_params({"w": mx.nd.array(-w)}, {})
    mod.forward(mx.io.DataBatch([mx.nd.array(x)]), is_train=False)
    np.testing.assert_allclose(mod.get_outputs()[0].asnumpy(), _want(-w, x), rtol=1e-6)
    assert _calls[0] == 2
    x = np.ones((3, 4), np.float32)  # a reshaped executor knows the parameters too
    for _ in range(2):
        mod.forward(mx.io.DataBatch([mx.nd.array(x)]), is_train=False)
        np.testing.assert_allclose(mod.get_outputs()[0].asnumpy(), _want(-w, x), rtol=1e-6)
    assert _calls[0] == 3


def test_hybridized_gluon_block_recomputes_after_set_data(probe: Any) -> None:
    class Net(mx.gluon.HybridBlock):
        def __init__(self) -> None:
            super().__init__()
            with self.name_scope():
                self.w = self.params.get("w", shape=(3, 4))

        def hybrid_forward(self, F: Any, x: Any, w: Any) -> Any:
            name = _PROBE
            return F.dot(x, getattr(F._internal, name)(F.transpose(w) * 0.5))

    net = Net()
    net.initialize()
    net.hybridize()
    w = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    net.w.set_data(mx.nd.array(w))
    x = np.ones((2, 4), np.float32)
    for _ in range(3):
        np.testing.assert_allclose(net(mx.nd.array(x)).asnumpy(), x @ w.T, rtol=1e-6)
    assert _calls[0] == 1
    net.w.set_data(mx.nd.array(2 * w))
    np.testing.assert_allclose(net(mx.nd.array(x)).asnumpy(), x @ (2 * w).T, rtol=1e-6)
    np.testing.assert_array_equal(net.w.data().asnumpy(), 2 * w)
    assert _calls[0] == 2
    with mx.autograd.record():  # recorded: a training graph, computed every call
        net(mx.nd.array(x)).wait_to_read()
    assert _calls[0] == 3


def test_a_step_planned_in_place_over_a_constant_writes_its_output(probe: Any) -> None:
    """``amp_multicast`` to the same dtype in place writes nothing; over a constant moved to
    the executor's own array it must write."""
    x, w = mx.sym.var("data"), mx.sym.var("w", shape=(3, 4), dtype="float32")
    kept, x2 = mx.sym.amp_multicast(probe(w) + 1, x, num_outputs=2)  # data: not folded
    exe = _bind(mx.sym.Group([mx.sym.broadcast_mul(x2.reshape((2, 1, 4)), kept), x * 1]))
    w_np = exe.arg_dict["w"].asnumpy()
    out = exe.forward(data=mx.nd.ones((2, 4)))[0].asnumpy()
    np.testing.assert_allclose(out, np.broadcast_to(2 * w_np + 1, (2, 3, 4)), rtol=1e-6)
    assert _calls[0] == 1
