"""Depthwise convolution in blocks of channels (mxlite/operator/nn/_depthwise.py): forward,
weight gradient and data gradient against tap-by-tap references (with bias, residual and ReLU;
gradients written and added), at MobileNet's strides and paddings and at edges (odd sizes,
batch 1, one channel, dilation, a stride past the kernel, 1-D and 3-D), and against MXNet's
golden values with blocks as small as one channel on threads."""

from __future__ import annotations

import numpy as np
import pytest

from mxlite.operator import parallel as _parallel
from mxlite.operator.nn import _conv_util, _depthwise
from mxlite.operator.nn._conv_util import Geometry

from . import test_nn_conv


def _reference(x: np.ndarray, w: np.ndarray, stride: int, pad: int) -> np.ndarray:
    """Tap by tap, in float64."""
    n, c, h, wd = x.shape
    k = w.shape[-1]
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - k) // stride + 1, (wd + 2 * pad - k) // stride + 1
    out = np.zeros((n, c, oh, ow))
    for i in range(k):
        for j in range(k):
            win = xp[:, :, i : i + stride * oh : stride, j : j + stride * ow : stride]
            out += win * w[None, :, 0, i, j, None, None]
    return out


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch):
    """Blocks of two channels, spread over three threads for any size of work."""
    monkeypatch.setattr(_depthwise, "_ELEMENTS", 1)
    monkeypatch.setattr(_depthwise, "_BLOCK", 1)
    monkeypatch.setattr(_depthwise, "_DOT_CELLS", 1)
    monkeypatch.setattr(_depthwise, "_PHASE_CELLS", 1)
    monkeypatch.setattr(_parallel, "_MIN_ELEMENTS", 1)
    monkeypatch.setattr(_parallel, "num_threads", lambda: 3)


CASES = [
    # (data shape, kernel, stride, pad)
    ((1, 5, 9, 9), 3, 1, 1),
    ((2, 4, 8, 7), 3, 2, 1),
    ((1, 3, 6, 6), 3, 1, 0),
    ((2, 3, 7, 7), 3, 1, 2),
    ((1, 7, 5, 5), 5, 2, 2),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("alias", [False, True])
@pytest.mark.parametrize("shape,k,stride,pad", CASES)
def test_channel_blocks_equal_the_reference(
    shape, k, stride, pad, alias: bool, dtype, small_blocks
) -> None:
    rng = np.random.default_rng(2)
    c = shape[1]
    x = rng.uniform(-1, 1, shape).astype(dtype)
    w = rng.uniform(-1, 1, (c, 1, k, k)).astype(dtype)
    b = rng.uniform(-1, 1, c).astype(dtype)
    geom = Geometry((k, k), (stride, stride), (1, 1), (pad, pad), c, False)
    want = _reference(x, w, stride, pad)
    spatial = want.shape[2:]
    y = _conv_util.conv_forward(np, x, w, geom, spatial)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    assert y.dtype == dtype
    np.testing.assert_allclose(y, want, rtol=tol, atol=tol)
    residual = rng.uniform(-1, 1, want.shape).astype(dtype)
    out = residual.copy() if alias else np.empty_like(y)
    got = _conv_util.conv_forward(
        np, x, w, geom, spatial, out=out, bias=b, residual=out if alias else residual, relu=True
    )
    assert got is out
    full = np.maximum(want + b[None, :, None, None] + residual, 0)
    np.testing.assert_allclose(got, full, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,k,stride,pad", CASES)
def test_weight_gradient_in_channel_blocks(shape, k, stride, pad, dtype, small_blocks) -> None:
    rng = np.random.default_rng(4)
    c = shape[1]
    x = rng.uniform(-1, 1, shape).astype(dtype)
    geom = Geometry((k, k), (stride, stride), (1, 1), (pad, pad), c, False)
    out = _reference(x, np.ones((c, 1, k, k)), stride, pad).shape
    dy = rng.uniform(-1, 1, out).astype(dtype)
    xpad = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    want = np.zeros((c, 1, k, k))
    for i in range(k):
        for j in range(k):
            win = xpad[:, :, i : i + stride * out[2] : stride, j : j + stride * out[3] : stride]
            want[:, 0, i, j] = (win * dy).sum(axis=(0, 2, 3))
    dw, db = _conv_util.conv_weight_grad(np, x, dy, geom, (c, 1, k, k), bias_grad=True)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    assert dw.dtype == dtype and dw.shape == (c, 1, k, k)
    np.testing.assert_allclose(dw, want, rtol=tol, atol=tol)
    np.testing.assert_allclose(db, dy.astype(np.float64).sum(axis=(0, 2, 3)), rtol=tol, atol=tol)
    only = _conv_util.conv_weight_grad(np, x, dy, geom, (c, 1, k, k))
    np.testing.assert_array_equal(only, dw)


def test_blocks_of_one_channel_match_mxnet(small_blocks) -> None:
    """Every golden convolution (depthwise ones in blocks of a channel, and their stride-1
    data gradients, which are forward convolutions of the output gradient)."""
    for case in test_nn_conv.TABLE:
        if case["op"] != "FullyConnected":
            test_nn_conv.test_forward_backward_match_mxnet(case, test_nn_conv.GOLD)


def test_splits_only_depthwise_past_the_block() -> None:
    g = Geometry((3, 3), (1, 1), (1, 1), (1, 1), 64, False)
    grid = _conv_util._grid(g, (56, 56), (56, 56))
    assert _depthwise.splits(g, (64, 1, 3, 3), 64, grid)
    assert not _depthwise.splits(g, (128, 1, 3, 3), 64, grid)  # two filters per channel
    small = _conv_util._grid(g, (7, 7), (7, 7))
    assert not _depthwise.splits(g, (64, 1, 3, 3), 64, small)  # one image fits a block


def _windows(shape: tuple, k: tuple, stride: tuple, pad: tuple, dilate: tuple, out=None):
    """Per kernel offset: the offset and the slices of the padded input it reads (all outputs),
    and the output shape (``out``: fewer outputs, as a Deconvolution with ``adj`` has)."""
    import itertools

    out = out or tuple(
        (n + 2 * p - d * (kk - 1) - 1) // s + 1
        for n, kk, s, p, d in zip(shape[2:], k, stride, pad, dilate)
    )
    taps = []
    for off in itertools.product(*[range(kk) for kk in k]):
        win = tuple(
            slice(j * d, j * d + s * (o - 1) + 1, s) for j, d, s, o in zip(off, dilate, stride, out)
        )
        taps.append((off, (slice(None), slice(None), *win)))
    return taps, out


def _grads(x, w, dy, k, stride, pad, dilate):
    """The data and weight gradients of a depthwise convolution, tap by tap, in float64."""
    taps, _ = _windows(x.shape, k, stride, pad, dilate, dy.shape[2:])
    padding = ((0, 0), (0, 0), *((p, p) for p in pad))
    xpad = np.pad(x.astype(np.float64), padding)
    dxpad = np.zeros_like(xpad)
    dw = np.zeros(w.shape)
    for off, win in taps:
        dxpad[win] += dy * w[(slice(None), 0, *off)].reshape(-1, *(1,) * len(k))
        dw[(slice(None), 0, *off)] = (xpad[win] * dy).sum(axis=(0, *range(2, dy.ndim)))
    crop = (slice(None), slice(None), *(slice(p, p + n) for p, n in zip(pad, x.shape[2:])))
    return dxpad[crop], dw


GRAD_CASES = [
    # (data shape, kernel, stride, pad, dilate)
    ((2, 4, 8, 8), (3, 3), (2, 2), (1, 1), (1, 1)),  # MobileNet's strided layers
    ((1, 3, 7, 9), (3, 3), (2, 2), (1, 1), (1, 1)),  # odd sizes, batch 1
    ((2, 1, 9, 9), (3, 3), (2, 2), (1, 1), (1, 1)),  # one channel
    ((2, 5, 6, 6), (3, 3), (1, 1), (1, 1), (1, 1)),  # stride 1
    ((1, 3, 5, 5), (3, 3), (1, 1), (3, 3), (1, 1)),  # padding past the kernel
    ((2, 3, 11, 10), (5, 5), (2, 2), (2, 2), (1, 1)),
    ((2, 3, 9, 9), (3, 3), (2, 2), (2, 2), (2, 2)),  # dilated
    ((2, 3, 10, 9), (2, 2), (3, 3), (0, 0), (1, 1)),  # stride past the kernel: no gradient
    ((1, 2, 8, 7), (3, 2), (2, 3), (1, 0), (1, 1)),  # unequal axes
    ((2, 3, 13), (3,), (2,), (1,), (1,)),  # 1-D
    ((1, 2, 5, 6, 7), (3, 3, 3), (2, 1, 2), (1, 1, 1), (1, 1, 1)),  # 3-D
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("add", [False, True])
@pytest.mark.parametrize("shape,k,stride,pad,dilate", GRAD_CASES)
def test_gradients_equal_the_reference(shape, k, stride, pad, dilate, add, dtype, small_blocks):
    """By phase of the input (data) and by dot products per kernel offset (weight), in blocks
    of one channel on three threads; the data gradient written or added into an array, and
    through the dispatch of ``conv_data_grad`` (stride 1 runs the flipped forward there)."""
    rng = np.random.default_rng(7)
    c = shape[1]
    x = rng.uniform(-1, 1, shape).astype(dtype)
    w = rng.uniform(-1, 1, (c, 1, *k)).astype(dtype)
    _, out = _windows(shape, k, stride, pad, dilate)
    dy = rng.uniform(-1, 1, (shape[0], c, *out)).astype(dtype)
    geom = Geometry(k, stride, dilate, pad, c, False)
    want_dx, want_dw = _grads(x, w, dy, k, stride, pad, dilate)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    base = rng.uniform(-1, 1, shape).astype(dtype) if add else np.full(shape, np.nan, dtype)
    got = _depthwise.data_grad(np, dy, w, geom, base.copy(), add)
    assert got.dtype == dtype
    np.testing.assert_allclose(got, want_dx + (base if add else 0), rtol=tol, atol=tol)
    via = _conv_util.conv_data_grad(np, dy, w, geom, shape[2:], out=base.copy(), add=add)
    np.testing.assert_allclose(via, want_dx + (base if add else 0), rtol=tol, atol=tol)
    dw, db = _conv_util.conv_weight_grad(np, x, dy, geom, w.shape, bias_grad=True)
    assert dw.dtype == dtype and dw.shape == w.shape
    np.testing.assert_allclose(dw, want_dw, rtol=tol, atol=tol)
    np.testing.assert_allclose(db, dy.sum(axis=(0, *range(2, dy.ndim))), rtol=tol, atol=tol)


def test_gradients_at_mobilenet_shapes_equal_float64() -> None:
    """Default blocks at scaled-down MobileNet layers (batch 2): float32 gradients within 1e-5
    of the output scale of the float64 computation."""
    rng = np.random.default_rng(11)
    for c, size, stride in [(32, 56, 1), (64, 56, 2), (128, 28, 2), (256, 14, 1), (512, 7, 2)]:
        x = rng.uniform(-1, 1, (2, c, size, size)).astype(np.float32)
        w = rng.uniform(-1, 1, (c, 1, 3, 3)).astype(np.float32)
        geom = Geometry((3, 3), (stride, stride), (1, 1), (1, 1), c, False)
        _, out = _windows(x.shape, (3, 3), geom.stride, geom.pad, geom.dilate)
        dy = rng.uniform(-1, 1, (2, c, *out)).astype(np.float32)
        want_dx, want_dw = _grads(x, w, dy, (3, 3), geom.stride, geom.pad, geom.dilate)
        dx = _conv_util.conv_data_grad(np, dy, w, geom, (size, size))
        dw = _conv_util.conv_weight_grad(np, x, dy, geom, w.shape)
        assert np.abs(dx - want_dx).max() <= 1e-5 * np.abs(want_dx).max()
        assert np.abs(dw - want_dw).max() <= 1e-5 * np.abs(want_dw).max()


def test_data_gradient_past_the_last_window() -> None:
    """Input positions past every window (a Deconvolution's ``adj``: its output is this data
    gradient) get none, written or added."""
    rng = np.random.default_rng(5)
    x = np.zeros((2, 3, 10, 9))
    w = rng.uniform(-1, 1, (3, 1, 3, 3))
    dy = rng.uniform(-1, 1, (2, 3, 4, 3))  # the windows of a (2, 3, 8, 6) input
    geom = Geometry((3, 3), (2, 2), (1, 1), (1, 1), 3, False)
    want, _ = _grads(x, w, dy, (3, 3), (2, 2), (1, 1), (1, 1))
    assert not want[:, :, 8:].any() and not want[:, :, :, 7:].any()
    got = _depthwise.data_grad(np, dy, w, geom, np.full(x.shape, np.nan), False)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    base = rng.uniform(-1, 1, x.shape)
    got = _depthwise.data_grad(np, dy, w, geom, base.copy(), True)
    np.testing.assert_allclose(got, want + base, rtol=1e-12, atol=1e-12)
