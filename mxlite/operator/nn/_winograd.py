"""Winograd convolution F(m x m, 3 x 3): 3x3, stride 1, undilated 2-D convolutions with fewer
multiplies than im2col, for the forward pass and both gradients.

Design note
-----------
The output is cut into ``m x m`` tiles; tile ``(p, q)`` needs the ``n x n`` input patch
(``n = m + 2``) starting at ``(p*m, q*m)`` of the padded input. With the Toom-Cook matrices of
:func:`transform` (``BT (n, n)``, ``G (n, 3)``, ``AT (m, n)``)::

    V = BT d B           per input patch d and channel               (n x n)
    U = G g G^T          per filter and channel of the kernel g      (n x n)
    M[i, j] = U[i, j] @ V[i, j]       over channels: one product per tile position (i, j)
    y = AT M A           per output tile                             (m x m)

so the contraction over channels, the heavy part, is a batch of ``n*n`` GEMMs
``(F, C) @ (C, tiles)`` (``np.matmul`` on ``(n*n, G, Fg, Cg)`` and ``(n*n, G, Cg, tiles)``,
contiguous) with ``n*n / m*m`` multiplies per output instead of 9: 4 for F(2x2,3x3), 2.25 for
F(4x4,3x3). The transforms are linear maps of each patch. The input's is separable: ``BT`` along
the patch rows, then along the columns, each a strided gather (tiles last) and one BLAS product
with the ``(n, n)`` matrix; the kernel's and the output's are one BLAS product each with a
Kronecker matrix (``kron(G, G)``, ``kron(AT, AT)``); the output tiles are scattered back with at
most four strided copies (the full tiles and the ragged edges), the bias added on the way. The
weight gradient stays in the transformed domain: ``dU[i, j] = E[i, j] @ V[i, j].T`` over the
tiles, ``E = A dY AT`` of the zero-padded output-gradient tiles, and ``dg = G^T dU G``. The data
gradient is the forward convolution of ``dy`` with the flipped, channel-swapped kernel (padding
``2 - pad``), see ``_conv_util``.

Float32 error: F(2x2,3x3) takes the points ``0, 1, -1`` and infinity, F(4x4,3x3) ``0, 1, -1,
1/2, -2`` and infinity: at ResNet's widths (up to 512 channels) its outputs and weight
gradients stay within 3-5e-6 of the output scale, where the usual ``±2`` gave up to 1.8e-5 and
``±1/2`` 1.3e-5 (the tolerance is 1e-5).
Blocks of images keep the gathered patches near 4 MiB (with at least 256 tiles for the
products), spread over the kernel threads as the im2col kernels are.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction
from math import lcm
from typing import Any

import numpy as np

from ...base import Shape
from ..parallel import matmul, over_rows, relu_into
from ._conv_util import _batch_parallel

__all__ = ["Transform", "transform", "kernel_transform", "forward", "weight_grad"]

# gathered patches per block of images (4 MiB of float32): smaller blocks stay in cache
# between the gather and the products (64 channels on 56x56: 36 ms against 44 ms per 16 images
# with 8 MiB) ...
_BLOCK_ELEMENTS = 1 << 20
# ... but a block has at least this many tiles, or the products get too thin for BLAS (256
# channels on 14x14, one image a block: 16 tiles, 2.5x slower)
_MIN_TILES = 256

# finite interpolation points per output tile size (infinity is the last point)
_POINTS = {
    2: (Fraction(0), Fraction(1), Fraction(-1)),
    4: (Fraction(0), Fraction(1), Fraction(-1), Fraction(1, 2), Fraction(-2)),
}


def _blocks(n: int, per_image: int, tiles: int) -> list[tuple[int, int]]:
    step = max(1, _BLOCK_ELEMENTS // per_image, -(-_MIN_TILES // tiles))
    return [(lo, min(n, lo + step)) for lo in range(0, n, step)]


@dataclass(frozen=True)
class Transform:
    """The matrices of F(m x m, 3 x 3), float32: ``bt`` (n, n), which :class:`_Patches`
    applies to each axis of an input patch in turn (giving ``V``); as Kronecker products,
    ``kernel`` (n*n, 9) maps a 3x3 kernel to ``U`` and ``out`` (m*m, n*n) ``M`` to an output
    tile (its transpose maps an output-gradient tile to ``E``)."""

    m: int
    kernel: np.ndarray
    out: np.ndarray
    bt: np.ndarray

    @property
    def n(self) -> int:
        return self.m + 2


def _matrices(m: int) -> tuple[list[list[Fraction]], ...]:
    """Exact ``BT, G, AT`` of F(m, 3) from its points: ``y = AT diag(G g) BT d`` for the 1-D
    correlation ``y[i] = sum_j d[i + j] g[j]``; rows of ``BT`` scaled to integers (``G``
    absorbs the scale)."""
    pts = _POINTS[m]
    n = m + 2

    def powers(p: Fraction | None, k: int) -> list[Fraction]:
        if p is None:  # infinity: the leading coefficient
            return [Fraction(int(i == k - 1)) for i in range(k)]
        return [p**i for i in range(k)]

    every = [*pts, None]
    ev_g = [powers(p, 3) for p in every]
    ev_h = [powers(p, m) for p in every]
    vand = [powers(p, n) for p in every]
    inv = _inverse(vand)
    bt = [[inv[j][i] for j in range(n)] for i in range(n)]  # inverse transposed
    for i, row in enumerate(bt):
        scale = lcm(*(v.denominator for v in row))
        bt[i] = [v * scale for v in row]
        ev_g[i] = [v / scale for v in ev_g[i]]
    at = [[ev_h[k][i] for k in range(n)] for i in range(m)]
    return bt, ev_g, at


def _inverse(a: list[list[Fraction]]) -> list[list[Fraction]]:
    """Exact Gauss-Jordan inverse of a small matrix of Fractions."""
    n = len(a)
    rows = [list(r) + [Fraction(int(i == j)) for j in range(n)] for i, r in enumerate(a)]
    for col in range(n):
        pivot = next(r for r in range(col, n) if rows[r][col] != 0)
        rows[col], rows[pivot] = rows[pivot], rows[col]
        head = rows[col][col]
        rows[col] = [v / head for v in rows[col]]
        for r in range(n):
            if r != col and rows[r][col] != 0:
                k = rows[r][col]
                rows[r] = [v - k * w for v, w in zip(rows[r], rows[col])]
    return [r[n:] for r in rows]


@functools.lru_cache(maxsize=4)
def transform(m: int) -> Transform:
    bt, g, at = (np.array(a, dtype=np.float64) for a in _matrices(m))
    f32 = np.float32
    return Transform(
        m,
        np.kron(g, g).astype(f32),
        np.kron(at, at).astype(f32),
        bt.astype(f32),
    )


def _tile_regions(size: Shape, tiles: Shape, m: int) -> list[tuple[slice, slice, slice, slice]]:
    """The full tiles and the ragged last row/column of tiles of an ``size`` (h, w) output, as
    slices ``(tile rows, rows in tile, tile cols, cols in tile)``."""
    axes = []
    for o, t in zip(size, tiles):
        full, rest = divmod(o, m)
        parts = [(slice(0, full), slice(None))] if full else []
        if rest:
            parts.append((slice(full, t), slice(0, rest)))
        axes.append(parts)
    return [(a, b, c, d) for a, b in axes[0] for c, d in axes[1]]


def _tiled(xp: Any, a: Any, m: int, tiles: Shape) -> Any:
    """``a (b, f, h, w)`` (C-contiguous rows) as ``(b, f, th, m, tw, m)`` of its tiles; only
    the parts that :func:`_tile_regions` names lie inside ``a``."""
    s = a.strides
    shape = (*a.shape[:2], tiles[0], m, tiles[1], m)
    strides = (s[0], s[1], m * s[2], s[2], m * s[3], s[3])
    return xp.lib.stride_tricks.as_strided(a, shape, strides)


class _Patches:
    """The transformed input patches ``V (n*n, G, Cg, b*th*tw)`` of blocks of ``b`` images:
    a zero-padded copy, then ``BT`` applied along the rows of the patches and along their
    columns, each a strided gather (1.5x, then 2.25x the input) and one BLAS product with the
    ``(n, n)`` matrix: 12 multiply-adds per transformed value where the ``kron(BT, BT)``
    product of whole patches takes 36 (64 channels on 28x28, batch 8: 1.4 ms against 2.3 ms
    with F(4x4), 2.2 against 4.1 with F(2x2), one thread)."""

    def __init__(
        self, xp: Any, t: Transform, b: int, c: int, spatial: Shape, pad: Shape, tiles: Shape
    ) -> None:
        self.xp, self.t, self.b, self.pad, self.spatial = xp, t, b, pad, spatial
        n, m = t.n, t.m
        th, tw = tiles
        # the padding stays 0: each block rewrites only the input cells
        self.padded = xp.zeros((b, c, th * m + 2, tw * m + 2), np.float32)
        s = self.padded.strides
        width = self.padded.shape[3]
        # rows k of every tile row p: padded[b, c, p*m + k, :] as (k, c, b, p, column)
        self.row_view = xp.lib.stride_tricks.as_strided(
            self.padded, (n, c, b, th, width), (s[2], s[1], s[0], m * s[2], s[3])
        )
        self.rows = xp.empty(self.row_view.shape, np.float32)
        self.half = xp.empty((n, c * b * th * width), np.float32)  # BT along the rows: (i, ...)
        h = self.half.reshape(n, c, b, th, width).strides
        # columns j of every tile column q, as (i, j, c, b, p, q)
        self.col_view = xp.lib.stride_tricks.as_strided(
            self.half, (n, n, c, b, th, tw), (h[0], h[4], h[1], h[2], h[3], m * h[4])
        )
        self.cols = xp.empty(self.col_view.shape, np.float32)

    def __call__(self, x: Any) -> Any:
        xp, n = self.xp, self.t.n
        (ph, pw), (h, w) = self.pad, self.spatial
        self.padded[:, :, ph : ph + h, pw : pw + w] = x
        self.rows[...] = self.row_view
        matmul(xp, self.t.bt, self.rows.reshape(n, -1), out=self.half)
        self.cols[...] = self.col_view
        cols = self.cols.reshape(n, n, -1)
        v = xp.empty(cols.shape, np.float32)  # (i, j, c*b*p*q): position i*n + j, as kron

        def along_columns(c: Any, v: Any) -> None:
            xp.matmul(self.t.bt, c, out=v)

        over_rows(along_columns, n, cols.size, cols, v)
        return v.reshape(n * n, -1)


def kernel_transform(xp: Any, t: Transform, w: Any, groups: int) -> Any:
    """``U (n*n, G, Fg, Cg)`` of ``w (F, Cg, 3, 3)``."""
    f, cg = w.shape[:2]
    u = matmul(xp, xp.asarray(t.kernel), w.reshape(f * cg, 9).T)
    return u.reshape(t.n**2, groups, f // groups, cg)


def _products(xp: Any, u: Any, v: Any) -> Any:
    """``M = U @ V`` per tile position (the positions split over the kernel threads when the
    images are not); a product over one channel (depthwise) is an outer product."""
    nn, groups, fg, cg = u.shape
    p = v.shape[-1]
    if cg == 1:
        return u * v
    m = xp.empty((nn, groups, fg, p), np.float32)

    def run(u: Any, v: Any, m: Any) -> None:
        xp.matmul(u, v, out=m)

    over_rows(run, nn, u.size * p // 8, u, v, m)
    return m


def forward(
    xp: Any,
    x: Any,
    w: Any,
    pad: Shape,
    m: int,
    out: Any,
    bias: Any = None,
    add: bool = False,
    kernel: Any = None,
    residual: Any = None,
    relu: bool = False,
) -> Any:
    """``out (N, F, oh, ow)`` of the 3x3 stride-1 convolution of ``x (N, C, h, w)`` (float32)
    with ``w (F, Cg, 3, 3)`` padded by ``pad``, by F(m x m, 3 x 3); ``add``: added to ``out``;
    ``bias (F,)`` added when given; ``kernel``: ``w``'s :func:`kernel_transform` when the
    caller has it already; ``residual`` and ``relu``: the epilogue of
    :func:`_conv_util.conv_forward` (not with ``add``)."""
    n_img, c = x.shape[:2]
    f, cg = w.shape[:2]
    groups = c // cg
    t = transform(m)
    size = out.shape[2:]
    tiles = (-(-size[0] // m), -(-size[1] // m))
    u = kernel_transform(xp, t, w, groups) if kernel is None else kernel
    nn, per_image = t.n**2, c * t.n**2 * tiles[0] * tiles[1]
    regions = _tile_regions(size, tiles, m)
    b6 = None if bias is None else bias.reshape(1, f, 1, 1, 1, 1)

    def run(x: Any, out: Any, *res: Any) -> None:
        patches = None
        for lo, hi in _blocks(x.shape[0], per_image, tiles[0] * tiles[1]):
            b = hi - lo
            if patches is None or patches.b != b:
                patches = _Patches(xp, t, b, c, x.shape[2:], pad, tiles)
            v = patches(x[lo:hi]).reshape(nn, groups, cg, -1)
            prod = _products(xp, u, v).reshape(nn, -1)
            y = matmul(xp, prod.T, xp.asarray(t.out.T))  # (F*b*th*tw, m*m)
            y = y.reshape(f, b, tiles[0], tiles[1], m, m).transpose(1, 0, 2, 4, 3, 5)
            dst = _tiled(xp, out[lo:hi], m, tiles)
            if res or relu:  # element by element, so the residual may be out itself
                if b6 is not None:
                    y += b6
                src = _tiled(xp, res[0][lo:hi], m, tiles) if res else None
            for r in regions:
                cell = (slice(None), slice(None), *r)
                if add:
                    dst[cell] += y[cell]
                elif res:
                    xp.add(y[cell], src[cell], out=dst[cell])
                elif relu:
                    relu_into(xp, y[cell], dst[cell])  # the copy out and the relu
                elif b6 is None:
                    dst[cell] = y[cell]
                else:
                    xp.add(y[cell], b6, out=dst[cell])
            if relu and res:
                relu_into(xp, out[lo:hi], out[lo:hi])

    extra = () if residual is None else (residual,)
    _batch_parallel(xp, run, n_img, x.size * nn, x, out, *extra)
    return out


def weight_grad(
    xp: Any, x: Any, dy: Any, pad: Shape, m: int, w_shape: Shape, bias_grad: bool = False
) -> Any:
    """``dw (F, Cg, 3, 3)`` of the convolution of :func:`forward` from ``x`` and ``dy (N, F,
    oh, ow)``, in the transformed domain; with ``bias_grad`` the pair ``(dw, db)``."""
    n_img, c = x.shape[:2]
    f, cg = w_shape[:2]
    groups = c // cg
    t = transform(m)
    size = dy.shape[2:]
    tiles = (-(-size[0] // m), -(-size[1] // m))
    nn, per_image = t.n**2, c * t.n**2 * tiles[0] * tiles[1]
    regions = _tile_regions(size, tiles, m)

    def run(x: Any, dy: Any) -> Any:
        patches, total = None, None
        for lo, hi in _blocks(x.shape[0], per_image, tiles[0] * tiles[1]):
            b = hi - lo
            if patches is None or patches.b != b:
                patches = _Patches(xp, t, b, c, x.shape[2:], pad, tiles)
                # the output-gradient tiles, tiles last; cells past the output stay 0
                grad_tiles = xp.zeros((f, b, tiles[0], tiles[1], m, m), np.float32)
                dst = grad_tiles.transpose(1, 0, 2, 4, 3, 5)
            v = patches(x[lo:hi]).reshape(nn, groups, cg, -1)
            src = _tiled(xp, dy[lo:hi], m, tiles)
            for r in regions:
                cell = (slice(None), slice(None), *r)
                dst[cell] = src[cell]
            e = matmul(xp, xp.asarray(t.out.T), grad_tiles.reshape(-1, m * m).T)
            e = e.reshape(nn, groups, f // groups, -1)
            if cg == 1:
                part = xp.einsum("kgfp,kgcp->kgfc", e, v)
            else:
                part = xp.matmul(e, v.swapaxes(-1, -2))
            if total is None:
                total = part
            else:
                total += part
        return total

    partial = _batch_parallel(xp, run, n_img, x.size * nn, x, dy)
    du = partial[0]
    for part in partial[1:]:
        du += part
    dw = (du.reshape(nn, -1).T @ xp.asarray(t.kernel)).reshape(w_shape)
    if bias_grad:
        return dw, dy.sum(axis=(0, 2, 3))
    return dw
