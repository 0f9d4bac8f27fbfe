"""Depthwise convolution in blocks of channels (mxlite/operator/nn/_depthwise.py): forward and
weight gradient against tap-by-tap references (with bias, residual and ReLU), at MobileNet's
strides and paddings and at edges, and against MXNet's golden values with blocks as small as
one channel on threads."""

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
