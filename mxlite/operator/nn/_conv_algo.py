"""Which algorithm computes each convolution: im2col (``_conv_util``) or Winograd F(2x2,3x3) /
F(4x4,3x3) (``_winograd``), chosen once per shape by timing them, as MXNet's
``cudnn_tune='fastest'`` does on GPU.

Design note
-----------
Convolution and Deconvolution call the three kernels here (same signatures as ``_conv_util``'s).
Winograd applies to 2-D 3x3 kernels at stride 1 without dilation, float32 on NumPy (any padding,
groups other than depthwise, and batch; the data gradient, a convolution padded by 2 - pad,
needs ``pad <= 2``); float64 stays on im2col, whose error is the direct sum's. Which one
runs is decided by ``MXLITE_CONV_ALGO`` (``auto``, the default; ``im2col``, ``winograd2``,
``winograd4`` force one, where it applies, else im2col). Under ``auto`` the first call of a
(kernel, shapes, geometry) runs every candidate twice (interleaved) on fresh outputs, times it,
keeps the fastest in :data:`_chosen` for the rest of the process and hands its result on; later
calls run only that one. Measured on a 2-core VM (forward and both gradients, batch 32,
``benchmarks/conv_layers.py``), Winograd ran ResNet's 3x3 layers 1.4-2.1x faster than im2col (64
to 512 channels on 56 to 7 px) and DenseNet's 128->32 1.4x, while im2col stayed ahead for
128-512 channels at batch 1 (ResNet-50 inference: the transformed kernel, 4x the weights, is
made on each call and costs more than the multiplies it saves), for tiny images, for depthwise
layers, and for what Winograd does not cover (1x1, strided, dilated); no fixed rule of shapes
captured that boundary, so it is measured. The choice does not change results beyond float32
rounding (outputs and gradients within 1e-5 of the output scale, see ``_winograd``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ...base import Shape, env_str
from . import _conv_util as cu
from . import _winograd as wg

__all__ = ["ALGORITHMS", "conv_forward", "conv_data_grad", "conv_weight_grad"]

ALGORITHMS = ("auto", "im2col", "winograd2", "winograd4")
_TILE = {"winograd2": 2, "winograd4": 4}
# (kernel, geometry, shapes) -> the fastest algorithm measured. Written by whichever engine
# worker first runs a shape (a dict store is atomic; two workers tuning the same shape at once
# only both measure it)
_chosen: dict[tuple, str] = {}

# runs of each candidate, interleaved, whose fastest counts: on a machine shared with other
# work one run each let a burst of load decide (it sent ResNet's 64-channel data gradient to
# im2col, which took 1.2x Winograd's time when measured again)
_TIMINGS = 2

# a candidate: fn(out, add) -> the result (written into out, or added to it, when given)
Run = Callable[[Any, bool], Any]


def _applies(
    xp: Any, geom: cu.Geometry, dtype: Any, w_shape: Shape, n: int, spatial: Shape, out: Shape
) -> bool:
    """Whether Winograd may compute this convolution: ``spatial`` its input size, ``out`` its
    output size (``spatial + 2*pad - 2``, not a cropped one). Not depthwise (one channel per
    group): its im2col kernel is a multiply-add per kernel offset, which ran 2-5x faster than
    either tile size in each direction (MobileNet's 64 channels on 56x56, batch 32)."""
    return (
        xp is np
        and (w_shape[1] > 1 or geom.groups == 1)
        and dtype == np.float32
        and geom.kernel == (3, 3)
        and geom.stride == (1, 1)
        and geom.dilate == (1, 1)
        and n > 0
        and all(o == s + 2 * p - 2 for o, s, p in zip(out, spatial, geom.pad))
    )


def _setting() -> str:
    """``MXLITE_CONV_ALGO``, read at every convolution (a bad value fails at the first)."""
    return env_str("MXLITE_CONV_ALGO", "auto", ALGORITHMS)


def _run(setting: str, key: tuple, runs: dict[str, Run], out: Any, add: bool) -> Any:
    if setting != "auto":
        return runs.get(setting, runs["im2col"])(out, add)
    algo = _chosen.get(key)
    if algo is not None:
        return runs[algo](out, add)
    results: dict[str, Any] = {}
    times: dict[str, float] = {}
    for _ in range(_TIMINGS):
        for name, fn in runs.items():
            start = time.perf_counter()
            results[name] = fn(None, False)
            spent = time.perf_counter() - start
            times[name] = min(times.get(name, spent), spent)
    best = min(times, key=times.__getitem__)
    _chosen[key] = best
    if out is None:
        return results[best]
    if add:
        out += results[best]
    else:
        out[...] = results[best]
    return out


def conv_forward(
    xp: Any,
    x: Any,
    w: Any,
    geom: cu.Geometry,
    out_spatial: Shape,
    out: Any = None,
    bias: Any = None,
) -> Any:
    """:func:`_conv_util.conv_forward` by the algorithm chosen for its shape."""

    def im2col(out: Any, add: bool) -> Any:
        return cu.conv_forward(xp, x, w, geom, out_spatial, out=out, bias=bias)

    setting = _setting()
    if not _applies(xp, geom, x.dtype, w.shape, x.shape[0], x.shape[2:], tuple(out_spatial)):
        return im2col(out, False)
    runs: dict[str, Run] = {"im2col": im2col}
    for name, m in _TILE.items():

        def winograd(out: Any, add: bool, m: int = m) -> Any:
            if out is None:
                out = xp.empty((x.shape[0], w.shape[0], *out_spatial), x.dtype)
            return wg.forward(xp, x, w, geom.pad, m, out, bias)

        runs[name] = winograd
    key = ("forward", geom, x.shape, w.shape, bias is None)
    return _run(setting, key, runs, out, False)


def conv_data_grad(
    xp: Any,
    dy: Any,
    w: Any,
    geom: cu.Geometry,
    in_spatial: Shape,
    out: Any = None,
    add: bool = False,
) -> Any:
    """:func:`_conv_util.conv_data_grad` by the algorithm chosen for its shape: Winograd runs
    the forward convolution of ``dy`` with the flipped kernel."""

    def im2col(out: Any, add: bool) -> Any:
        return cu.conv_data_grad(xp, dy, w, geom, in_spatial, out=out, add=add)

    setting = _setting()
    if max(geom.pad) > 2 or not _applies(
        xp, geom, dy.dtype, w.shape, dy.shape[0], in_spatial, dy.shape[2:]
    ):
        return im2col(out, add)
    pad = tuple(2 - p for p in geom.pad)
    runs: dict[str, Run] = {"im2col": im2col}
    for name, m in _TILE.items():

        def winograd(out: Any, add: bool, m: int = m) -> Any:
            if out is None:
                out, add = (
                    xp.empty((dy.shape[0], w.shape[1] * geom.groups, *in_spatial), dy.dtype),
                    False,
                )
            wt = cu.flipped_weight(xp, w, geom)
            return wg.forward(xp, dy, wt, pad, m, out, add=add)

        runs[name] = winograd
    key = ("data", geom, dy.shape, w.shape, tuple(in_spatial))
    return _run(setting, key, runs, out, add)


def conv_weight_grad(
    xp: Any, x: Any, dy: Any, geom: cu.Geometry, w_shape: Shape, bias_grad: bool = False
) -> Any:
    """:func:`_conv_util.conv_weight_grad` by the algorithm chosen for its shape."""

    def im2col(out: Any, add: bool) -> Any:
        return cu.conv_weight_grad(xp, x, dy, geom, w_shape, bias_grad=bias_grad)

    setting = _setting()
    if not _applies(xp, geom, x.dtype, w_shape, x.shape[0], x.shape[2:], dy.shape[2:]):
        return im2col(None, False)
    runs: dict[str, Run] = {"im2col": im2col}
    for name, m in _TILE.items():

        def winograd(out: Any, add: bool, m: int = m) -> Any:
            return wg.weight_grad(xp, x, dy, geom.pad, m, w_shape, bias_grad)

        runs[name] = winograd
    key = ("weight", geom, x.shape, dy.shape, bias_grad)
    return _run(setting, key, runs, None, False)
