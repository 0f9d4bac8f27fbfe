"""The inference passes of ``executor/fuse.py``: BatchNorm folded into the convolution before
it, and the residual add and ReLU after it run in its output pass, in inference-only
executors; outputs equal the unfused graph's within float32 rounding, the
user's parameters are never written, writes to them between calls are seen, and
``MXLITE_INFERENCE_FOLD=0``, training executors and graphs that need the convolution's own
output keep every step."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from mxlite.executor import fuse

TOL = 1e-5  # of the output scale: float32 rounding of two orders of the same arithmetic


@pytest.fixture
def folded(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Grows by the number of steps each plan's pass removed."""
    counts: list[int] = []
    real = fuse.fuse_steps

    def counting(exe, steps, *rest):
        out = real(exe, steps, *rest)
        counts.append(len(steps) - len(out))
        return out

    monkeypatch.setattr(fuse, "fuse_steps", counting)
    return counts


def _net(no_bias: bool = False, fix_gamma: bool = False, expose: bool = False) -> mx.sym.Symbol:
    x = mx.sym.var("data")
    c1 = mx.sym.Convolution(x, kernel=(3, 3), pad=(1, 1), num_filter=6, name="c1")
    b1 = mx.sym.BatchNorm(c1, fix_gamma=fix_gamma, eps=1e-3, name="bn1")
    r = mx.sym.Activation(b1, act_type="relu")
    c2 = mx.sym.Convolution(r, kernel=(1, 1), num_filter=4, no_bias=no_bias, name="c2")
    b2 = mx.sym.BatchNorm(c2, fix_gamma=fix_gamma, name="bn2")
    return mx.sym.Group([b2, c2]) if expose else b2


def _bind(
    sym: mx.sym.Symbol, seed: int = 0, grad_req: str = "null", shape: tuple = (2, 3, 9, 9)
) -> mx.executor.Executor:
    rng = np.random.default_rng(seed)
    exe = sym.simple_bind(mx.cpu(), data=shape, grad_req=grad_req)
    for arrays in (exe.arg_dict, exe.aux_dict):
        for name, a in arrays.items():
            low = 0.5 if "var" in name or "gamma" in name else -1.0
            a[:] = mx.nd.array(rng.uniform(low, 1.5, a.shape))
    return exe


def _unfused(exe: mx.executor.Executor, monkeypatch: pytest.MonkeyPatch, sym) -> np.ndarray:
    monkeypatch.setenv("MXLITE_INFERENCE_FOLD", "0")
    shapes = {k: v.shape for k, v in exe.arg_dict.items()}
    ref = sym.simple_bind(mx.cpu(), grad_req="null", **shapes)
    ref.copy_params_from(exe.arg_dict, exe.aux_dict)
    for name, a in exe.arg_dict.items():
        ref.arg_dict[name][:] = a
    out = ref.forward(is_train=False)[0].asnumpy()
    monkeypatch.delenv("MXLITE_INFERENCE_FOLD")
    return out


def _close(got: np.ndarray, want: np.ndarray) -> None:
    assert np.abs(got - want).max() <= TOL * np.abs(want).max()


@pytest.mark.parametrize("no_bias", [False, True])
@pytest.mark.parametrize("fix_gamma", [False, True])
def test_folded_output_matches_and_parameters_stay(
    no_bias: bool, fix_gamma: bool, folded: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    sym = _net(no_bias, fix_gamma)
    exe = _bind(sym)
    before = {k: v.asnumpy().copy() for k, v in {**exe.arg_dict, **exe.aux_dict}.items()}
    got = exe.forward(is_train=False)[0].asnumpy()
    assert folded == [3]  # bn1 and the relu join c1, bn2 joins c2
    _close(got, _unfused(exe, monkeypatch, sym))
    for k, v in {**exe.arg_dict, **exe.aux_dict}.items():
        np.testing.assert_array_equal(v.asnumpy(), before[k], err_msg=k)


def test_writes_to_parameters_between_calls_are_seen(
    folded: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    sym = _net()
    exe = _bind(sym)
    exe.forward(is_train=False)[0].wait_to_read()
    rng = np.random.default_rng(5)
    for name in ("c1_weight", "c2_bias", "bn1_gamma", "bn2_beta"):
        a = exe.arg_dict[name]
        a[:] = mx.nd.array(rng.uniform(0.5, 1.5, a.shape))
        _close(exe.forward(is_train=False)[0].asnumpy(), _unfused(exe, monkeypatch, sym))
    exe.aux_dict["bn1_moving_var"][:] = 3.0
    mx.nd.array(rng.uniform(-1, 1, (6,))).copyto(exe.aux_dict["bn1_moving_mean"])
    _close(exe.forward(is_train=False)[0].asnumpy(), _unfused(exe, monkeypatch, sym))
    assert folded == [3]  # one plan, refolded in place


def test_hybridized_gluon_inference_folds(folded: list[int]) -> None:
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Conv2D(4, 3, padding=1), mx.gluon.nn.BatchNorm())
    net.initialize()
    x = mx.nd.ones((1, 2, 5, 5))
    net.hybridize()
    net(x).wait_to_read()
    assert folded == [1]
    with mx.autograd.record():
        net(x).wait_to_read()
    assert folded == [1]  # recorded calls bind with gradients: no pass


def test_off_training_and_needed_outputs_keep_every_step(
    folded: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MXLITE_INFERENCE_FOLD", "0")
    _bind(_net()).forward(is_train=False)
    monkeypatch.delenv("MXLITE_INFERENCE_FOLD")
    _bind(_net()).forward(is_train=True)
    _bind(_net(), grad_req="write").forward(is_train=False)
    assert folded == []
    _bind(_net(expose=True)).forward(is_train=False)  # c2's output is a graph output
    assert folded == [2]  # bn1 and the relu still join c1


def _residual_block(projection: bool) -> mx.sym.Symbol:
    """A ResNet v1 basic block: body conv-BN-relu-conv-BN, shortcut the data or a 1x1
    conv-BN projection, then relu of their sum."""
    x = mx.sym.var("data")
    body = mx.sym.Convolution(x, kernel=(3, 3), pad=(1, 1), num_filter=8, name="c1")
    body = mx.sym.Activation(mx.sym.BatchNorm(body, name="bn1"), act_type="relu")
    body = mx.sym.Convolution(body, kernel=(3, 3), pad=(1, 1), num_filter=8, name="c2")
    body = mx.sym.BatchNorm(body, name="bn2")
    shortcut = x
    if projection:
        shortcut = mx.sym.Convolution(x, kernel=(1, 1), num_filter=8, no_bias=True, name="cs")
        shortcut = mx.sym.BatchNorm(shortcut, name="bns")
    return mx.sym.Activation(body + shortcut, act_type="relu")


@pytest.mark.parametrize("algo", ["im2col", "winograd2", "winograd4", "onnxruntime"])
@pytest.mark.parametrize("projection", [False, True])
def test_residual_block_adds_and_relus_in_the_convolution(
    projection: bool, algo: str, folded: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    if algo == "onnxruntime":
        pytest.importorskip("onnxruntime")
    monkeypatch.setenv("MXLITE_CONV_ALGO", algo)
    sym = _residual_block(projection)
    shape = (2, 3 if projection else 8, 9, 9)
    exe = _bind(sym, shape=shape)
    before = {k: v.asnumpy().copy() for k, v in {**exe.arg_dict, **exe.aux_dict}.items()}
    got = exe.forward(is_train=False)[0].asnumpy()
    # identity: bn1+relu join c1, bn2+add+relu join c2; projection: bn2 joins c2 and the
    # shortcut's cs absorbs bns, the add of the body's output and the relu
    assert folded == [5 if not projection else 6]
    assert got.min() == 0.0
    _close(got, _unfused(exe, monkeypatch, sym))
    for k, v in {**exe.arg_dict, **exe.aux_dict}.items():
        np.testing.assert_array_equal(v.asnumpy(), before[k], err_msg=k)


def test_relu_and_add_without_batch_norm(
    folded: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    x, r = mx.sym.var("data"), mx.sym.var("r")
    c = mx.sym.Convolution(x, kernel=(3, 3), num_filter=4, name="c")
    sym = mx.sym.relu(mx.sym.broadcast_add(r, c))  # the residual first, an argument
    exe = sym.simple_bind(mx.cpu(), data=(2, 3, 9, 9), r=(2, 4, 7, 7), grad_req="null")
    for a in exe.arg_dict.values():
        a[:] = mx.nd.random.uniform(-1, 1, a.shape)
    _close(exe.forward(is_train=False)[0].asnumpy(), _unfused(exe, monkeypatch, sym))
    assert folded == [2]
    # broadcasting a (1, 4, 1, 1) residual is no epilogue; relu alone still joins
    c2 = mx.sym.Convolution(x, kernel=(3, 3), num_filter=4, name="c2")
    sym = mx.sym.broadcast_add(mx.sym.Activation(c2, act_type="relu"), r)
    exe = sym.simple_bind(mx.cpu(), data=(2, 3, 9, 9), r=(1, 4, 1, 1), grad_req="null")
    for a in exe.arg_dict.values():
        a[:] = mx.nd.random.uniform(-1, 1, a.shape)
    _close(exe.forward(is_train=False)[0].asnumpy(), _unfused(exe, monkeypatch, sym))
    assert folded == [2, 1]


# the smallest inputs their fixed final poolings take (7x7 DenseNet, 13x13 SqueezeNet, 8x8
# Inception); 32 px for the rest
_ZOO_SIZE = {"alexnet": 64, "inceptionv3": 299, "squeezenet1.0": 224, "squeezenet1.1": 224}
_ZOO_SIZE.update({f"densenet{d}": 224 for d in (121, 161, 169, 201)})


@pytest.mark.parametrize("name", sorted(__import__("mxlite").gluon.model_zoo.vision._MODELS))
def test_model_zoo_networks_fuse_within_rounding(name: str, folded: list[int]) -> None:
    from mxlite.gluon.model_zoo import vision

    mx.random.seed(0)
    net = vision.get_model(name, pretrained=False, classes=10)
    net.initialize(mx.init.Xavier())
    size = _ZOO_SIZE.get(name, 32)
    x = mx.nd.random.uniform(shape=(1, 3, size, size))
    net(x)
    rng = np.random.default_rng(1)
    for p in net.collect_params().values():
        if p.name.endswith(("gamma", "beta", "running_mean", "running_var")):
            p.set_data(mx.nd.array(rng.uniform(0.5, 1.5, p.shape)))
    want = net(x).asnumpy()  # imperative: no pass
    before = {k: p.data().asnumpy().copy() for k, p in net.collect_params().items()}
    net.hybridize()
    _close(net(x).asnumpy(), want)
    _close(net(x).asnumpy(), want)  # the second call: what the plan keeps between calls
    assert folded and folded[0] > 0
    for k, p in net.collect_params().items():
        np.testing.assert_array_equal(p.data().asnumpy(), before[k], err_msg=k)
