"""Depthwise convolution (one input channel per group, one filter per channel) in blocks of
channels, for ``_conv_util``'s forward (and so the data gradient at stride 1, which is a
forward convolution of the output gradient), weight gradient and strided data gradient.

Design note
-----------
The im2col of a depthwise convolution is ``prod(kernel)`` times its input; ``_conv_util``
builds it for whole images, so that one image of MobileNet's wide layers (144 channels of
56x56 with a 3x3 kernel: 17 MiB) leaves the caches between its copy and its product. Where
one image's ``cols`` passes :data:`_ELEMENTS`, the forward builds it for a block of one
image's channels instead, with the products ``(m, 1, K) @ (m, K, cell)`` per block, and
spreads the channels over the kernel threads (so a batch of one runs on all of them). Same
products, same values. Measured on one thread (CPU time, busy machine), 3x3 pad 1: (1, 192,
56, 56) 3.3 -> 1.3 ms, (16, 144, 56, 56) 35 -> 16 ms, (16, 96, 112, 112) stride 2 33 -> 21 ms.

The gradients need no im2col. The weight gradient of kernel offset ``k`` is, per channel, the
dot product of the input's phase shifted by ``k`` with the output gradient on the grid (0 off
the output cells), over all images at once: per block of channels the input is split into its
phases and the output gradient placed on the grid once, then each offset is one batched dot
product (BLAS ``sdot`` per channel), where im2col copied every offset's row and multiplied
it. The strided data gradient goes by phase of the input: input positions of residue ``a``
modulo the stride take only the kernel offsets of that residue, and each of those reads the
output gradient shifted by whole cells; so a block of channels pads the output gradient once,
each offset is a multiply-add over one contiguous shifted slice, and each phase is written
into ``dx`` once, where col2im zeroed, added into and merged the phases for every offset (at
stride 2 a 3x3 kernel puts 1, 2, 2 and 4 offsets on the four phases). Each thread owns its
channels, so sums do not depend on the threads. Measured (one thread, CPU time, medians of 3
alternating rounds, busy machine) on MobileNet v1's layers at batch 8, 224 px, against im2col:
weight gradient 32ch@112 6.6 -> 4.7 ms, 128@56 6.2 -> 5.4, 256@28 3.5 -> 2.8, 512@14 2.25 ->
1.74, 1024@7 2.1 -> 1.5, stride 2 64@112 6.4 -> 6.1, 128@56 3.3 -> 3.1, 512@14 1.54 -> 1.25;
data gradient at stride 2: 64@112 11.1 -> 10.9, 128@56 6.8 -> 4.9, 256@28 3.8 -> 3.2, 512@14
2.5 -> 2.2. The forward by offset (a multiply-add per offset over the phases, no im2col) ran
1.3-1.7x slower than im2col's product, and ``einsum`` over overlapping views 9x slower.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from math import prod
from typing import TYPE_CHECKING, Any

from ..parallel import over_rows
from ._phase_grid import PhaseGrid

if TYPE_CHECKING:  # _conv_util calls this module and hands it its im2col class (``cols``)
    from ._conv_util import Geometry

__all__ = ["splits", "applies", "forward", "weight_grad", "data_grad"]

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
# phase cells (all phases, all images) per block of channels of the weight gradient
_DOT_CELLS = 1 << 18
# input cells (all images) per block of channels of the data gradient: at stride 2 (one thread,
# CPU time, busy machine) 4 MiB blocks against 1 MiB ran 64@112 10.3 -> 9.7 ms, 128@56 5.3 ->
# 4.9, 256@28 3.5 -> 3.1, 512@14 2.1 -> 1.9 (MobileNet v1, batch 8); writing the phases into a
# block of its own first, then the block into dx, did not pay (+0-15%)
_PHASE_CELLS = 1 << 20


def splits(geom: Geometry, w_shape: tuple, channels: int, grid: Any) -> bool:
    """Whether this convolution is depthwise with one filter per channel and one image's
    im2col passes the block size."""
    return (
        applies(geom, w_shape, channels, grid)
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


def applies(geom: Geometry, w_shape: tuple, channels: int, grid: Any) -> bool:
    """Whether this convolution is depthwise with one filter per channel on a phase grid (its
    weight gradient runs here)."""
    return isinstance(grid, PhaseGrid) and w_shape[1] == 1 and w_shape[0] == channels == geom.groups


def _channel_blocks(rows: int, step: int) -> Iterator[tuple[int, int, bool]]:
    """Blocks ``[lo, hi)`` of ``step`` channels, and whether each is the first of its size (its
    buffers are made then)."""
    size = 0
    for lo in range(0, rows, step):
        hi = min(rows, lo + step)
        yield lo, hi, hi - lo != size
        size = hi - lo


def weight_grad(xp: Any, x: Any, dy: Any, grid: PhaseGrid, w_shape: tuple, bias_grad: bool) -> Any:
    """``dw (C, 1, *K)`` of the depthwise convolution from ``x (N, C, *S)`` and ``dy (N, C,
    *O)``: per block of channels (all images), the phases of ``x`` and ``dy`` on the grid (0
    off the output cells), then per kernel offset one dot product per channel of its shifted
    phase with ``dy``; with ``bias_grad`` the pair ``(dw, db)``."""
    n, c = x.shape[:2]
    nk, cells = len(grid.offsets), n * grid.cell
    step = max(1, _DOT_CELLS // (cells * len(grid.phases)))
    dw = xp.empty((nk, c), dy.dtype)  # each offset's dot products land contiguous
    item, strided = dy.itemsize, xp.lib.stride_tricks.as_strided

    def run(xc: Any, dyc: Any, dwc: Any) -> None:
        for lo, hi, fresh in _channel_blocks(xc.shape[0], step):
            m = hi - lo
            if fresh:
                # zeros: the padding cells stay 0 while each block rewrites the input cells
                phases = xp.zeros((len(grid.phases), m * cells + grid.max_shift), x.dtype)
                dyg = xp.zeros((m, cells, 1), dy.dtype)
                on_grid = dyg.reshape(m, n, *grid.rows)[grid.out_cells]
                taps = [
                    strided(phases[i][sh:], (m, 1, cells), (cells * item, 0, item))
                    for i, sh in grid.offsets
                ]
            for i, cp in enumerate(grid.copies):
                if cp is not None:
                    phases[i, : m * cells].reshape(m, n, *grid.rows)[cp[0]] = xc[lo:hi][cp[1]]
            on_grid[...] = dyc[lo:hi]
            for k, tap in enumerate(taps):
                xp.matmul(tap, dyg, out=dwc[lo:hi, k].reshape(m, 1, 1))

    over_rows(run, c, x.size * nk, x.swapaxes(0, 1), dy.swapaxes(0, 1), dw.T)
    dw = xp.ascontiguousarray(dw.T).reshape(w_shape)
    if not bias_grad:
        return dw
    return dw, dy.sum(axis=(0, *range(2, dy.ndim)))


def _axis_taps(size: int, out: int, k: int, s: int, p: int, d: int) -> tuple[list, int, int]:
    """Per residue ``a`` of one axis: (input positions ``s*i + a`` of that phase, its kernel
    taps ``(j, shift)`` with ``dx[s*i + a] += w[j] * dy[i - shift]``); and the padding of
    ``dy`` before and after that keeps every read inside it."""
    plan = []
    for a in range(s):
        taps = [(j, (j * d - p - a) // s) for j in range(k) if (j * d - p - a) % s == 0]
        plan.append((max(0, -(-(size - a) // s)), taps))
    shifts = [(rows, sh) for rows, taps in plan for _, sh in taps]
    before = max([sh for _, sh in shifts] + [0])
    after = max([rows - 1 - sh - (out - 1) for rows, sh in shifts] + [0])
    return plan, before, after


def data_grad(xp: Any, dy: Any, w: Any, geom: Geometry, out: Any, add: bool) -> Any:
    """``dx (N, C, *S)`` (``out``; ``add``: added to it) of the depthwise convolution from
    ``dy (N, C, *O)`` and ``w (C, 1, *K)``, phase by phase: the input positions of residue
    ``a`` (per axis, modulo the stride) take only the kernel taps of that residue, each the
    output gradient shifted by whole cells. Per block of channels ``dy`` is padded once, each
    tap is a multiply-add of one shifted slice over the phase's cells, and each phase is
    written once into ``dx``: no im2col, no col2im by kernel offset."""
    n, c = dy.shape[:2]
    spatial, osp = out.shape[2:], dy.shape[2:]
    axes = [
        _axis_taps(*a) for a in zip(spatial, osp, geom.kernel, geom.stride, geom.pad, geom.dilate)
    ]
    grid = tuple(o + b + e for o, (_, b, e) in zip(osp, axes))
    strides = [prod(grid[i + 1 :]) for i in range(len(grid))]
    cell = prod(grid)
    inner = (Ellipsis, *(slice(b, b + o) for o, (_, b, _) in zip(osp, axes)))
    phases = []  # (dx slices, cells computed, crop of the grid, [(kernel index, flat offset)])
    untouched = []  # dx slices under no tap (a stride past the kernel): no gradient
    for per_axis in itertools.product(*[enumerate(plan) for plan, _, _ in axes]):
        rows = [r for _, (r, _) in per_axis]
        taps = [
            (
                (slice(None), *(j for j, _ in t)),
                sum((b - sh) * st for (_, sh), (_, b, _), st in zip(t, axes, strides)),
            )
            for t in itertools.product(*[taps for _, (_, taps) in per_axis])
        ]
        dst = (Ellipsis, *(slice(a, None, s) for (a, _), s in zip(per_axis, geom.stride)))
        if min(rows) == 0 or not taps:
            untouched.append(dst)
            continue
        crop = (Ellipsis, *(slice(0, r) for r in rows[1:]))
        phases.append((dst, rows[0] * strides[0], (rows[0], *grid[1:]), crop, taps))
    reach = max([off for *_, taps in phases for _, off in taps] + [0])
    if not add:
        for dst in untouched:
            out[dst] = 0
    step = max(1, _PHASE_CELLS // max(1, n * prod(spatial)))
    wk = w.reshape(c, *geom.kernel)
    item, strided = dy.itemsize, xp.lib.stride_tricks.as_strided

    def run(dyc: Any, dxc: Any, wc: Any) -> None:
        for lo, hi, fresh in _channel_blocks(dyc.shape[0], step):
            m = hi - lo
            if fresh:
                pad = xp.zeros(m * n * cell + reach, dy.dtype)
                acc, scratch = xp.empty((2, m * n * cell), dy.dtype)
            pad[: m * n * cell].reshape(m, n, *grid)[inner] = dyc[lo:hi]
            for dst, size, rows, crop, taps in phases:
                total = acc[: m * n * size].reshape(m, n, size)
                term = scratch[: m * n * size].reshape(m, n, size)
                for t, (j, off) in enumerate(taps):
                    view = strided(pad[off:], (m, n, size), (n * cell * item, cell * item, item))
                    wj = wc[lo:hi][j].reshape(m, 1, 1)
                    if t == 0:
                        xp.multiply(view, wj, out=total)
                    else:
                        xp.multiply(view, wj, out=term)
                        total += term
                res = total.reshape(m, n, *rows)[crop]
                target = dxc[lo:hi][dst]
                if add:
                    target += res
                else:
                    target[...] = res

    over_rows(run, c, dy.size * prod(geom.kernel), dy.swapaxes(0, 1), out.swapaxes(0, 1), wk)
    return out
