"""Depthwise convolution (one input channel per group, one filter per channel) in blocks of
channels, for ``_conv_util``'s forward (and so the data gradient at stride 1, which is a
forward convolution of the output gradient) and weight gradient.

Design note
-----------
The im2col of a depthwise convolution is ``prod(kernel)`` times its input; ``_conv_util``
builds it for whole images, so that one image of MobileNet's wide layers (144 channels of
56x56 with a 3x3 kernel: 17 MiB) leaves the caches between its copy and its product. Where
one image's ``cols`` passes :data:`_ELEMENTS`, this builds it for a block of one image's
channels instead, with the products ``(m, 1, K) @ (m, K, cell)`` (forward) and ``(m, 1,
cell) @ (m, cell, K)`` (weight gradient, summed over the images in order) per block, and
spreads the channels over the kernel threads (so a batch of one runs on all of them; each
thread owns its channels' weight gradient, so the sums do not depend on the threads). Same
products, same values. Measured on one thread (CPU time, busy machine), 3x3 pad 1, forward /
weight gradient: (1, 192, 56, 56) 3.3 / 3.9 -> 1.3 / 1.3 ms, (16, 144, 56, 56) 35 / 41 ->
16 / 16.5 ms, (16, 96, 112, 112) stride 2 33 / 34 -> 21 / 23 ms, (32, 64, 56, 56) 15.6 /
19.3 -> 14.7 / 15.0 ms.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..parallel import over_rows
from ._phase_grid import PhaseGrid

if TYPE_CHECKING:  # _conv_util calls this module and hands it its im2col class (``cols``)
    from ._conv_util import Geometry

__all__ = ["splits", "forward", "weight_grad"]

# im2col entries of one image from which its channels go in blocks (4 MiB of float32):
# against 1, 2 and 8 MiB (and whole images) measured best or near it on MobileNet's shapes,
# batch 1 and 16, strides 1 and 2 (a stride-2 block of 2 MiB ran 20% slower than whole images)
_ELEMENTS = 1 << 20
# im2col entries per block of channels (2 MiB of float32): forward and both gradients under
# mx.autograd, one thread, CPU time, medians of 5 alternating rounds (busy machine), against
# 4 MiB blocks: (32, 64, 56, 56) 45.1 -> 40.5 ms and 42.9 -> 39.8 ms, (16, 144, 56, 56) 48.1 ->
# 42.8 and 43.9 -> 43.4, (1, 192, 56, 56) 4.1 -> 3.9, (16, 96, 56, 56) and (8, 32, 112, 112)
# alike; stride 2: (1, 96, 112, 112) 7.5 -> 6.6, (16, 96, 112, 112) and (16, 144, 56, 56) alike;
# 1 MiB blocks were no better
_BLOCK = 1 << 19


def splits(geom: Geometry, w_shape: tuple, channels: int, grid: Any) -> bool:
    """Whether this convolution is depthwise with one filter per channel and one image's
    im2col passes the block size."""
    return (
        isinstance(grid, PhaseGrid)
        and w_shape[1] == 1
        and w_shape[0] == channels == geom.groups
        and channels * len(grid.offsets) * grid.span > _ELEMENTS
    )


def forward(
    xp: Any,
    x: Any,
    w: Any,
    grid: PhaseGrid,
    out: Any,
    bias: Any = None,
    residual: Any = None,
    relu: bool = False,
    *,
    cols: Any,
) -> Any:
    """``out (N, C, *O)`` of the depthwise convolution of ``x (N, C, *S)`` with ``w (C, 1,
    *K)``, plus ``bias``, ``residual`` (which may be ``out`` itself) and ReLU as in
    ``_conv_util.conv_forward``; ``cols``: its im2col class, ``_Cols``."""
    n, c = x.shape[:2]
    nk = len(grid.offsets)
    step = max(1, _BLOCK // (nk * grid.span))
    crop = (slice(None), *grid.out_cells[1:])
    wk = w.reshape(c, 1, nk)
    b = None if bias is None else bias.reshape(c, *(1,) * (out.ndim - 2))
    # channel-major views, so that the kernel threads split the channels
    arrays = [x.swapaxes(0, 1), out.swapaxes(0, 1), wk]
    if b is not None:
        arrays.append(b)
    if residual is not None:
        arrays.append(residual.swapaxes(0, 1))

    def run(xc: Any, oc: Any, wc: Any, *extra: Any) -> None:
        bc = extra[0] if b is not None else None
        rc = extra[-1] if residual is not None else None
        work = None
        for lo in range(0, xc.shape[0], step):
            hi = min(xc.shape[0], lo + step)
            if work is None or work.c != hi - lo:
                work = cols(xp, grid, 1, hi - lo, x.dtype)
            for img in range(n):
                block = work.fill(xc[lo:hi, img][None])
                y = xp.matmul(wc[lo:hi], block.reshape(hi - lo, nk, grid.span))
                y = y.reshape(hi - lo, *grid.span_rows)[crop]
                dst = oc[lo:hi, img]
                if rc is not None:
                    xp.add(y, rc[lo:hi, img], out=dst)
                else:
                    dst[...] = y
                if bc is not None:
                    dst += bc[lo:hi]
                if relu:
                    xp.maximum(dst, 0, out=dst)

    over_rows(run, c, x.size * nk, *arrays)
    return out


def weight_grad(
    xp: Any, x: Any, dy: Any, grid: PhaseGrid, w_shape: tuple, bias_grad: bool, cols: Any
) -> Any:
    """``dw (C, 1, *K)`` of the depthwise convolution from ``x (N, C, *S)`` and ``dy (N, C,
    *O)``, block of channels by block: per image ``dy @ cols.T`` on the grid (``dy`` 0 off the
    output cells), summed over the images in order; with ``bias_grad`` the pair ``(dw, db)``;
    ``cols``: the im2col class, as for :func:`forward`."""
    n, c = x.shape[:2]
    nk = len(grid.offsets)
    step = max(1, _BLOCK // (nk * grid.span))
    crop = (slice(None), *grid.out_cells[1:])
    dw = xp.empty((c, 1, nk), dy.dtype)

    def run(xc: Any, dyc: Any, dwc: Any) -> None:
        work = None
        for lo in range(0, xc.shape[0], step):
            hi = min(xc.shape[0], lo + step)
            m = hi - lo
            if work is None or work.c != m:
                work = cols(xp, grid, 1, m, x.dtype)
                dyg = xp.zeros((m, 1, grid.span), dy.dtype)
            for img in range(n):
                block = work.fill(xc[lo:hi, img][None]).reshape(m, nk, grid.span)
                dyg.reshape(m, *grid.span_rows)[crop] = dyc[lo:hi, img]
                part = xp.matmul(dyg, block.swapaxes(-1, -2))
                if img == 0:
                    dwc[lo:hi] = part
                else:
                    dwc[lo:hi] += part

    over_rows(run, c, x.size * nk, x.swapaxes(0, 1), dy.swapaxes(0, 1), dw)
    dw = dw.reshape(w_shape)
    if not bias_grad:
        return dw
    return dw, dy.sum(axis=(0, *range(2, dy.ndim)))
