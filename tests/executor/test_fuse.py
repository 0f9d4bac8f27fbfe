"""The inference pass of ``executor/fuse.py``: BatchNorm folded into the convolution before it
in inference-only executors; outputs equal the unfused graph's within float32 rounding, the
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
    real = fuse.fold_batch_norm

    def counting(exe, steps):
        out = real(exe, steps)
        counts.append(len(steps) - len(out))
        return out

    monkeypatch.setattr(fuse, "fold_batch_norm", counting)
    return counts


def _net(no_bias: bool = False, fix_gamma: bool = False, expose: bool = False) -> mx.sym.Symbol:
    x = mx.sym.var("data")
    c1 = mx.sym.Convolution(x, kernel=(3, 3), pad=(1, 1), num_filter=6, name="c1")
    b1 = mx.sym.BatchNorm(c1, fix_gamma=fix_gamma, eps=1e-3, name="bn1")
    r = mx.sym.Activation(b1, act_type="relu")
    c2 = mx.sym.Convolution(r, kernel=(1, 1), num_filter=4, no_bias=no_bias, name="c2")
    b2 = mx.sym.BatchNorm(c2, fix_gamma=fix_gamma, name="bn2")
    return mx.sym.Group([b2, c2]) if expose else b2


def _bind(sym: mx.sym.Symbol, seed: int = 0, grad_req: str = "null") -> mx.executor.Executor:
    rng = np.random.default_rng(seed)
    exe = sym.simple_bind(mx.cpu(), data=(2, 3, 9, 9), grad_req=grad_req)
    for arrays in (exe.arg_dict, exe.aux_dict):
        for name, a in arrays.items():
            low = 0.5 if "var" in name or "gamma" in name else -1.0
            a[:] = mx.nd.array(rng.uniform(low, 1.5, a.shape))
    return exe


def _unfused(exe: mx.executor.Executor, monkeypatch: pytest.MonkeyPatch, sym) -> np.ndarray:
    monkeypatch.setenv("MXLITE_INFERENCE_FOLD", "0")
    ref = sym.simple_bind(mx.cpu(), data=(2, 3, 9, 9), grad_req="null")
    ref.copy_params_from(exe.arg_dict, exe.aux_dict)
    ref.arg_dict["data"][:] = exe.arg_dict["data"]
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
    assert folded == [2]
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
    assert folded == [2]  # one plan, refolded in place


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
    assert folded == [1]


def test_model_zoo_networks_fold_within_rounding() -> None:
    from mxlite.gluon.model_zoo import vision

    for name in ("resnet18_v1", "mobilenet0.25"):
        mx.random.seed(0)
        net = vision.get_model(name, pretrained=False, classes=10)
        net.initialize(mx.init.Xavier())
        x = mx.nd.random.uniform(shape=(1, 3, 32, 32))
        net(x)
        rng = np.random.default_rng(1)
        for p in net.collect_params().values():
            if p.name.endswith(("gamma", "beta", "running_mean", "running_var")):
                p.set_data(mx.nd.array(rng.uniform(0.5, 1.5, p.shape)))
        want = net(x).asnumpy()  # imperative: no pass
        net.hybridize()
        _close(net(x).asnumpy(), want)
