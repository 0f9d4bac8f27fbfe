"""What an algorithm derives from a weight, kept across inference forwards
(``_conv_algo._kernels``): Winograd's transformed kernel and onnxruntime's session are made
once while the weight is unchanged, made again after every kind of write to the weight, never
kept in training, gone with the weight; results equal im2col's within 1e-5 of the output
scale."""

from __future__ import annotations

import gc
import os

import numpy as np
import pytest

import mxlite as mx
from mxlite import autograd, gluon
from mxlite.operator.nn import _conv_algo, _winograd
from mxlite.operator.nn import _onnxruntime as _ort

TOL = 1e-5


@pytest.fixture(params=["winograd4", "onnxruntime"])
def transforms(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """An algorithm that derives from the weight forced, the cache empty, and a list that grows
    by one per derivation (kernel transform or session)."""
    algo = request.param
    if algo == "onnxruntime":
        pytest.importorskip("onnxruntime")
    monkeypatch.setenv("MXLITE_CONV_ALGO", algo)
    monkeypatch.setattr(_conv_algo, "_kernels", type(_conv_algo._kernels)())
    made: list[int] = []
    owner, name = (_winograd, "kernel_transform") if algo == "winograd4" else (_ort, "ConvSession")
    real = getattr(owner, name)

    def counting(*args, **kwargs):
        made.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counting)
    return made


def _direct(x: mx.nd.NDArray, w: mx.nd.NDArray, b: mx.nd.NDArray, mp: pytest.MonkeyPatch):
    algo = os.environ["MXLITE_CONV_ALGO"]
    mp.setenv("MXLITE_CONV_ALGO", "im2col")
    y = mx.nd.Convolution(x, w, b, kernel=(3, 3), pad=(1, 1), num_filter=w.shape[0]).asnumpy()
    mp.setenv("MXLITE_CONV_ALGO", algo)
    return y


def _close(got: np.ndarray, want: np.ndarray) -> None:
    assert np.abs(got - want).max() <= TOL * np.abs(want).max()


def _net(ctx_channels: int = 8) -> gluon.nn.HybridSequential:
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Conv2D(16, 3, padding=1, in_channels=ctx_channels))
    net.initialize(mx.init.Normal(0.5))
    net.hybridize()
    return net


def test_hybridized_inference_reuses_the_kernel_until_the_weight_changes(
    transforms: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(0)
    x = mx.nd.array(rng.standard_normal((1, 8, 10, 10)))
    net = _net()
    conv = net[0]
    outs = [net(x).asnumpy() for _ in range(3)]
    assert len(transforms) == 1
    want = _direct(x, conv.weight.data(), conv.bias.data(), monkeypatch)
    for y in outs:
        _close(y, want)

    writes = [
        lambda w: conv.weight.set_data(mx.nd.array(rng.standard_normal(w.shape))),
        lambda w: w.__setitem__(slice(None), mx.nd.array(rng.standard_normal(w.shape))),
        lambda w: mx.nd.array(rng.standard_normal(w.shape)).copyto(w),
    ]
    # onnxruntime packs a written weight at its second inference call, not its first (a
    # weight written between calls, as in inference between training steps, is never packed)
    late = os.environ["MXLITE_CONV_ALGO"] == "onnxruntime"
    for write in writes:
        before = len(transforms)
        write(conv.weight.data())
        got = net(x).asnumpy()
        assert len(transforms) == before + (not late)
        _close(got, _direct(x, conv.weight.data(), conv.bias.data(), monkeypatch))
        _close(net(x).asnumpy(), got)
        net(x).wait_to_read()
        assert len(transforms) == before + 1


def test_an_optimizer_update_is_seen(
    transforms: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    x = mx.nd.array(np.random.default_rng(1).standard_normal((2, 8, 6, 6)))
    net = _net()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.5})
    net(x).wait_to_read()
    with autograd.record():
        loss = (net(x) ** 2).sum()
    loss.backward()
    trainer.step(1)
    conv = net[0]
    _close(net(x).asnumpy(), _direct(x, conv.weight.data(), conv.bias.data(), monkeypatch))


def test_imperative_calls_cache_and_training_does_not(transforms: list[int]) -> None:
    rng = np.random.default_rng(2)
    x = mx.nd.array(rng.standard_normal((1, 4, 6, 6)))
    w = mx.nd.array(rng.standard_normal((5, 4, 3, 3)))
    kw = dict(kernel=(3, 3), pad=(1, 1), num_filter=5, no_bias=True)
    for _ in range(2):
        mx.nd.Convolution(x, w, **kw).wait_to_read()
    assert len(transforms) == 1
    w.attach_grad()
    for _ in range(2):
        with autograd.record():
            mx.nd.Convolution(x, w, **kw).wait_to_read()
    # training transforms on every call (Winograd) or leaves onnxruntime (inference only)
    assert len(transforms) == (3 if os.environ["MXLITE_CONV_ALGO"] == "winograd4" else 1)
    assert w._chunk.var in _conv_algo._kernels
    del w
    gc.collect()
    mx.nd.waitall()
    assert len(_conv_algo._kernels) == 0


def test_auto_tunes_cached_calls_apart_and_keeps_one_tile(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("MXLITE_CONV_ALGO", raising=False)
    monkeypatch.setattr(_conv_algo, "_chosen", {})
    monkeypatch.setattr(_conv_algo, "_kernels", type(_conv_algo._kernels)())
    rng = np.random.default_rng(3)
    x = mx.nd.array(rng.standard_normal((1, 8, 8, 8)))
    w = mx.nd.array(rng.standard_normal((8, 8, 3, 3)))
    kw = dict(kernel=(3, 3), pad=(1, 1), num_filter=8, no_bias=True)
    mx.nd.Convolution(x, w, **kw).wait_to_read()
    with autograd.record():
        mx.nd.Convolution(x, w, **kw).wait_to_read()
    assert sorted(k[-1] for k in _conv_algo._chosen) == [False, True]
    chosen = next(a for k, a in _conv_algo._chosen.items() if k[-1])
    kept = {k[0][0] for k in _conv_algo._kernels.get(w._chunk.var, {})}
    assert kept == (set() if chosen == "im2col" else {chosen})
