"""Float32 inference convolutions on onnxruntime (``_onnxruntime.ConvSession``, chosen by
``_conv_algo``): equal to the direct sum (float64) within 1e-5 of the output scale at every
geometry Convolution takes (1-D to 3-D, stride, dilation, padding 0 to 2, groups, depthwise,
odd sizes, one channel, batch 1 and more), written into the given output; a weight is packed
at its second inference call of one version; training and float64 stay on NumPy; forcing it
without onnxruntime names the extra."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import mxlite as mx
from mxlite import autograd
from mxlite.operator.nn import _conv_algo
from mxlite.operator.nn import _onnxruntime as _ort

pytest.importorskip("onnxruntime")

TOL = 1e-5

# (data shape, num_filter, kernel, stride, dilate, pad, groups)
CASES = {
    "resnet_stem_7x7_s2": ((1, 3, 23, 23), 8, (7, 7), (2, 2), (1, 1), (3, 3), 1),
    "pointwise": ((1, 16, 7, 7), 24, (1, 1), (1, 1), (1, 1), (0, 0), 1),
    "pointwise_s2": ((2, 16, 9, 9), 8, (1, 1), (2, 2), (1, 1), (0, 0), 1),
    "3x3_pad1": ((1, 8, 14, 14), 8, (3, 3), (1, 1), (1, 1), (1, 1), 1),
    "3x3_pad0_odd": ((3, 5, 11, 9), 7, (3, 3), (1, 1), (1, 1), (0, 0), 1),
    "3x3_pad2_dilate2": ((1, 4, 10, 13), 6, (3, 3), (1, 1), (2, 2), (2, 2), 1),
    "3x3_s2": ((1, 8, 15, 15), 16, (3, 3), (2, 2), (1, 1), (1, 1), 1),
    "one_channel": ((1, 1, 8, 8), 1, (3, 3), (1, 1), (1, 1), (1, 1), 1),
    "groups": ((1, 8, 9, 9), 12, (3, 3), (1, 1), (1, 1), (1, 1), 4),
    "depthwise": ((1, 16, 12, 12), 16, (3, 3), (2, 2), (1, 1), (1, 1), 16),
    "asymmetric_5x3": ((2, 3, 12, 10), 4, (5, 3), (1, 2), (1, 1), (2, 1), 1),
    "1d": ((1, 6, 17), 5, (3,), (2,), (1,), (1,), 1),
    "3d": ((1, 3, 6, 7, 5), 4, (3, 3, 3), (1, 1, 1), (1, 1, 1), (1, 0, 1), 1),
}


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """onnxruntime forced, and a list that grows by one per session made."""
    monkeypatch.setenv("MXLITE_CONV_ALGO", "onnxruntime")
    sessions: list[int] = []
    real = _ort.ConvSession
    monkeypatch.setattr(_ort, "ConvSession", lambda *a: sessions.append(1) or real(*a))
    return sessions


def _direct(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, case: tuple) -> np.ndarray:
    """The convolution as its defining sum, in float64."""
    _, filters, kernel, stride, dilate, pad, groups = case
    nd = len(kernel)
    x = np.pad(x.astype(np.float64), [(0, 0), (0, 0), *[(p, p) for p in pad]])
    out_sp = [
        (s - d * (k - 1) - 1) // st + 1 for s, k, st, d in zip(x.shape[2:], kernel, stride, dilate)
    ]
    fg, cg = filters // groups, x.shape[1] // groups
    y = np.zeros((x.shape[0], filters, *out_sp))
    for g in range(groups):
        xs = x[:, g * cg : (g + 1) * cg]
        ws = w[g * fg : (g + 1) * fg].astype(np.float64)
        for offs in itertools.product(*[range(k) for k in kernel]):
            sl = tuple(
                slice(o * d, o * d + (n - 1) * st + 1, st)
                for o, d, n, st in zip(offs, dilate, out_sp, stride)
            )
            patch = xs[(slice(None), slice(None), *sl)]
            y[:, g * fg : (g + 1) * fg] += np.einsum(
                "nc...,fc->nf...", patch, ws[(slice(None), slice(None), *offs)]
            )
    if b is not None:
        y += b.reshape(-1, *[1] * nd)
    return y


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("case", sorted(CASES))
def test_forced_inference_equals_the_direct_sum(case: str, bias: bool, made: list[int]) -> None:
    shape, filters, kernel, stride, dilate, pad, groups = CASES[case]
    rng = np.random.default_rng(len(case))
    x = rng.uniform(-1, 1, shape).astype(np.float32)
    w = rng.uniform(-1, 1, (filters, shape[1] // groups, *kernel)).astype(np.float32)
    b = rng.uniform(-1, 1, filters).astype(np.float32) if bias else None
    args = [mx.nd.array(a) for a in (x, w, b) if a is not None]
    kw = dict(
        kernel=kernel,
        stride=stride,
        dilate=dilate,
        pad=pad,
        num_group=groups,
        num_filter=filters,
        no_bias=not bias,
    )
    want = _direct(x, w, b, CASES[case])
    for calls in (1, 2):  # the second call with the weight unchanged makes the session
        got = mx.nd.Convolution(*args, **kw).asnumpy()
        assert made == [1] * (calls - 1)
        assert got.dtype == np.float32 and got.shape == want.shape
        assert np.abs(got - want).max() <= TOL * np.abs(want).max()


def test_a_weight_written_between_inference_calls_is_never_packed(made: list[int]) -> None:
    rng = np.random.default_rng(1)
    x = mx.nd.array(rng.uniform(-1, 1, (1, 3, 6, 6)))
    w = mx.nd.array(rng.uniform(-1, 1, (4, 3, 3, 3)))
    kw = dict(kernel=(3, 3), num_filter=4, no_bias=True)
    for _ in range(3):  # inference, then an update, as between training steps
        got = mx.nd.Convolution(x, w, **kw).asnumpy()
        want = _direct(
            x.asnumpy(), w.asnumpy(), None, ((1, 3, 6, 6), 4, (3, 3), (1, 1), (1, 1), (0, 0), 1)
        )
        assert np.abs(got - want).max() <= TOL * np.abs(want).max()
        w += 0.5
    assert made == []
    mx.nd.Convolution(x, w, **kw).wait_to_read()
    mx.nd.Convolution(x, w, **kw).wait_to_read()
    assert made == [1]


def test_training_and_float64_stay_on_numpy(made: list[int]) -> None:
    rng = np.random.default_rng(0)
    x = mx.nd.array(rng.uniform(-1, 1, (1, 3, 6, 6)))
    w = mx.nd.array(rng.uniform(-1, 1, (4, 3, 3, 3)))
    kw = dict(kernel=(3, 3), num_filter=4, no_bias=True)
    w.attach_grad()
    with autograd.record():
        y = mx.nd.Convolution(x, w, **kw)
    y.backward()
    mx.nd.Convolution(x.astype("float64"), w.astype("float64"), **kw).wait_to_read()
    assert made == []


def test_forcing_it_without_onnxruntime_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MXLITE_CONV_ALGO", "onnxruntime")
    monkeypatch.setattr(_ort, "modules", lambda: None)
    x, w = mx.nd.ones((1, 2, 4, 4)), mx.nd.ones((3, 2, 1, 1))
    with pytest.raises((ImportError, mx.base.MXNetError), match=r"mxlite\[onnx\]"):
        mx.nd.Convolution(x, w, kernel=(1, 1), num_filter=3, no_bias=True).wait_to_read()


def test_auto_offers_it_below_the_thread_count_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MXLITE_CONV_ALGO", raising=False)
    monkeypatch.setattr(_conv_algo, "_chosen", {})
    monkeypatch.setattr(_conv_algo, "num_threads", lambda: 2)
    offered: list[set] = []
    real = _conv_algo._run
    monkeypatch.setattr(
        _conv_algo, "_run", lambda s, k, runs, *a: offered.append(set(runs)) or real(s, k, runs, *a)
    )
    w = mx.nd.ones((4, 3, 1, 1))
    for n in (1, 2):
        mx.nd.Convolution(mx.nd.ones((n, 3, 5, 5)), w, kernel=(1, 1), num_filter=4, no_bias=True)
    mx.nd.waitall()
    assert offered == [{"im2col", "onnxruntime"}]
