"""Shared machinery of Convolution and Deconvolution: parameter checks, layouts, and the three
N-D convolution kernels (forward, data gradient, weight gradient) built on im2col.

Design note
-----------
Every kernel works in the channels-first layout ``(N, C, *S)``; channels-last layouts are
transposed at the operator's boundary. The im2col matrix is built on the *phase grid* of
``_phase_grid`` (the padded input split by stride phase, output positions on a grid of
``R = O + (K - 1) * dilate // stride`` cells per axis): the row of channel ``c`` and kernel
offset ``k`` is one contiguous slice of one phase, so building ``cols`` of shape
``(C*prod(K), B*cell)`` for a block of ``B`` images is one strided copy per phase (its kernel
offsets form a strided block of ``cols``), never a loop over pixels. Its contraction axis
``(Cg, *K)`` has the order of MXNet's weight ``(F, Cg, *K)``, so the weight needs no
reordering; with ``G`` groups::

    y[g]      = W[g] @ cols[g]                  (Fg x CgK) @ (CgK x B*cell), one BLAS call
    dW[g]    += dy[g] @ cols[g].T               dy placed on the grid (0 off the output)
    dcols[g]  = W[g].T @ dy[g]                  then col2im: one add per kernel offset into
                                                the gradient phases, merged onto dx

At stride 1 the data gradient is instead the forward convolution of ``dy`` with the kernel
flipped (channel axes swapped, padding ``dilate*(K-1) - pad``) where that im2col is no larger
than col2im's, else (no groups) a col2im whose product sums the last kernel axis (``_conv_rows``).

Blocks of images keep ``cols`` near 2 MiB (one image for ResNet's large layers, ~18 of LeNet's
28x28) so it stays in a core's cache between its copy and its product (8 MiB cost LeNet 1.4x).
A 1x1 convolution without stride or padding is a plain product. The products skip the grid
rows of the first axis past the output and drop the other cells past it (LeNet's 5x5 on 14x14:
140 cells for 100 outputs); where the grid has over twice the output cells, ``cols`` is built
on the output cells (``_Windows``). Depthwise ones go to ``_depthwise`` in blocks of channels.
``xp``'s ``matmul`` runs the products (NumPy's BLAS, one thread per call, blocks spread over
the kernel threads, see ``engine.openmp``; CuPy on GPU). Deconvolution is the transpose: its
forward is a convolution's data gradient, its backward a convolution and a weight gradient.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from math import prod
from typing import Any

import numpy as np

from ...base import DTypeError, ParamError, Shape
from ...engine.openmp import blas_is_single
from ..parallel import matmul, over_rows, relu_into
from . import _conv_rows, _depthwise, _pointwise
from ._phase_grid import PhaseGrid
from .im2col import add_windows, windows

__all__ = [
    "Geometry",
    "check_geometry",
    "to_channels_first",
    "to_channels_last",
    "layout_perm",
    "conv_forward",
    "conv_data_grad",
    "conv_weight_grad",
    "check_dtype",
    "flipped_weight",
    "FLOATS",
]

FLOATS = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))
_F32, _F64 = FLOATS[1], FLOATS[2]
_CHANNELS_FIRST = {1: "NCW", 2: "NCHW", 3: "NCDHW"}
_CHANNELS_LAST = {2: "NHWC", 3: "NDHWC"}


@dataclass(frozen=True)
class Geometry:
    """The spatial geometry of one (de)convolution, with MXNet's defaults filled in."""

    kernel: Shape
    stride: Shape
    dilate: Shape
    pad: Shape
    groups: int
    channels_last: bool

    @property
    def nd(self) -> int:
        return len(self.kernel)

    def dilated(self) -> Shape:
        return tuple((k - 1) * d + 1 for k, d in zip(self.kernel, self.dilate))


def _where(op: str, name: str | None) -> str:
    return f"{op}(name={name!r})" if name else op


def check_geometry(op: str, name: str | None, param: Any, extra: tuple[str, ...] = ()) -> Geometry:
    """Validate kernel/stride/dilate/pad (and ``extra`` tuple fields such as ``adj``) the way
    MXNet's parser does, fill the defaults, and return the geometry; raise ParamError naming
    the operator and the argument."""
    where = _where(op, name)
    kernel = param.kernel
    nd = len(kernel)
    if nd not in (1, 2, 3):
        raise ParamError(
            f"{where}: argument 'kernel' expects 1, 2 or 3 dimensions ((w,), (h, w) or "
            f"(d, h, w)), got {kernel}."
        )
    if min(kernel) < 1:
        raise ParamError(f"{where}: argument 'kernel' expects sizes >= 1, got {kernel}.")
    fields = {"stride": 1, "dilate": 1, "pad": 0, **{e: 0 for e in extra}}
    values: dict[str, Shape] = {}
    for key, default in fields.items():
        value = getattr(param, key)
        if len(value) == 0:
            value = (default,) * nd
        if len(value) != nd:
            raise ParamError(
                f"{where}: argument {key!r} must have as many dimensions as kernel {kernel}, "
                f"got {value}."
            )
        if min(value) < (1 if default == 1 else 0):
            low = ">= 1" if default == 1 else ">= 0"
            raise ParamError(f"{where}: argument {key!r} expects values {low}, got {value}.")
        values[key] = value
    groups = param.num_group
    if param.num_filter % groups:
        raise ParamError(
            f"{where}: argument 'num_filter' ({param.num_filter}) must be a multiple of "
            f"num_group ({groups})."
        )
    layout = param.layout
    channels_last = False
    if layout is not None:
        if layout == _CHANNELS_LAST.get(nd):
            channels_last = True
        elif layout != _CHANNELS_FIRST[nd]:
            allowed = [_CHANNELS_FIRST[nd], *([_CHANNELS_LAST[nd]] if nd in _CHANNELS_LAST else [])]
            raise ParamError(
                f"{where}: argument 'layout' {layout!r} does not fit a {nd}-D kernel; "
                f"expected one of {allowed}."
            )
    return Geometry(
        kernel, values["stride"], values["dilate"], values["pad"], groups, channels_last
    )


def layout_perm(nd: int) -> tuple[int, ...]:
    """Axes that take a channels-last array ``(N, *S, C)`` to channels-first ``(N, C, *S)``."""
    return (0, nd + 1, *range(1, nd + 1))


def to_channels_first(shape_or_array: Any, geom: Geometry) -> Any:
    """A shape tuple or array in the operator's layout, in channels-first order."""
    if not geom.channels_last:
        return shape_or_array
    perm = layout_perm(geom.nd)
    if isinstance(shape_or_array, tuple):
        return tuple(shape_or_array[i] for i in perm)
    return shape_or_array.transpose(perm)


def to_channels_last(shape_or_array: Any, geom: Geometry) -> Any:
    """The inverse of :func:`to_channels_first`."""
    if not geom.channels_last:
        return shape_or_array
    inv = tuple(int(i) for i in np.argsort(layout_perm(geom.nd)))
    if isinstance(shape_or_array, tuple):
        return tuple(shape_or_array[i] for i in inv)
    return shape_or_array.transpose(inv)


def check_dtype(op: str, xp: Any, dtype: Any) -> None:
    """MXNet computes these on CPU in float32 and float64 only (float16 on GPU)."""
    if dtype is _F32 or dtype is _F64:  # the common case, without converting anything
        return
    if np.dtype(dtype) not in FLOATS:
        raise DTypeError(
            f"{op}: argument 'data' has dtype {np.dtype(dtype).name}; {op} accepts float32 "
            "and float64 (and float16 on GPU)."
        )
    if xp is np and np.dtype(dtype) == np.float16:
        raise DTypeError(
            f"{op}: float16 inputs need a GPU context; on CPU {op} supports float32 and "
            "float64, as in MXNet."
        )


# ---- the three kernels on the phase grid -----------------------------------------------------

_COLS_ELEMENTS = 1 << 19  # im2col entries per block of images (2 MiB of float32)
# few filters do few multiply-adds per cols entry, bound by reading cols: a quarter of the
# block stays in a core's L2 (LeNet's 6: 1.2-1.6x faster; its 16 gain nothing)
_FEW_FILTERS = 8
# grid cells R = O + (K - 1) * dilate // stride per axis, for O outputs: past twice the output
# cells (a kernel as large as its input) the output-cell im2col does less work
_GRID_WASTE = 2


@dataclass(frozen=True)
class _OutputCells:
    """im2col on the output cells themselves: the layout of :class:`_Windows`, with the
    attributes of a :class:`PhaseGrid` that the kernels read."""

    geom: Geometry
    spatial: Shape
    rows: Shape  # the output shape: every cell is an output

    cell = span = property(lambda self: prod(self.rows))
    span_rows = property(lambda self: self.rows)

    @property
    def out_cells(self) -> tuple:
        return (Ellipsis, *(slice(None) for _ in self.rows))


class _ConvGrid(PhaseGrid):
    """A phase grid and the ``span`` of its cells per image that the products compute."""

    def __init__(self, geom: Geometry, in_spatial: Shape, out_spatial: Shape) -> None:
        super().__init__(in_spatial, geom.kernel, geom.stride, geom.pad, out_spatial, geom.dilate)
        self.span_rows = (out_spatial[0], *self.rows[1:])
        self.span = prod(self.span_rows)


@functools.lru_cache(maxsize=256)
def _phase_grid(geom: Geometry, in_spatial: Shape, out_spatial: Shape) -> _ConvGrid:
    return _ConvGrid(geom, in_spatial, out_spatial)


def _grid(geom: Geometry, in_spatial: Shape, out_spatial: Shape) -> PhaseGrid | _OutputCells:
    """The phase grid, or the output cells where the grid has ``_GRID_WASTE`` times more."""
    axes = zip(out_spatial, geom.kernel, geom.stride, geom.dilate)
    rows = [o + (k - 1) * d // s for o, k, s, d in axes]
    if prod(rows) > _GRID_WASTE * prod(out_spatial):
        return _OutputCells(geom, tuple(in_spatial), tuple(out_spatial))
    return _phase_grid(geom, tuple(in_spatial), tuple(out_spatial))


def _blocks(n: int, per_image: int, filters: int) -> list[tuple[int, int]]:
    """Blocks of images of ``per_image`` cols entries, ``filters`` the rows of W (0: groups)."""
    budget = _COLS_ELEMENTS >> 2 if 0 < filters <= _FEW_FILTERS else _COLS_ELEMENTS
    step = max(1, budget // max(1, per_image))
    return [(lo, min(n, lo + step)) for lo in range(0, n, step)]


@functools.lru_cache(maxsize=256)
def _phase_blocks(g: PhaseGrid) -> list[tuple[int, tuple[tuple[slice, ...], int, tuple, tuple]]]:
    """Per phase of ``g``: its kernel offsets as slices of the kernel axes (an arithmetic
    progression per axis), the grid shift of the first, the count per axis and the shift
    between neighbours per axis, in grid cells."""
    terms = [g.axis_terms(axis) for axis in range(len(g.kernel))]
    res = []
    for i, ph in enumerate(g.phases):
        target, counts, steps, shift = [], [], [], 0
        for r, axis_terms in zip(ph, terms):
            js = [j for j, (res_j, _) in enumerate(axis_terms) if res_j == r]
            period = js[1] - js[0] if len(js) > 1 else 1
            target.append(slice(js[0], js[-1] + 1, period))
            counts.append(len(js))
            first = axis_terms[js[0]][1]
            steps.append(axis_terms[js[1]][1] - first if len(js) > 1 else 0)
            shift += first
        res.append((i, (tuple(target), shift, tuple(counts), tuple(steps))))
    return res


class _Cols:
    """im2col on the phase grid for blocks of ``b`` images of ``c`` channels: ``cols`` is
    ``(c, prod(K), b, span)``, row ``(c, k)`` the grid slice of kernel offset ``k``; with
    ``ones``, ``with_ones`` is ``cols`` and a last row of ones (a bias column, or its gradient)."""

    def __init__(
        self, xp: Any, grid: PhaseGrid, b: int, c: int, dtype: Any, ones: bool = False
    ) -> None:
        self.xp, self.grid, self.b, self.c = xp, grid, b, c
        size = b * c * grid.cell + grid.max_shift
        # zeros: the padding cells stay 0 while each block rewrites only the input cells
        self.phases = xp.zeros((len(grid.phases), size), dtype)
        rows = c * len(grid.offsets)
        self.with_ones = xp.empty((rows + ones, b * grid.span), dtype)
        if ones:
            self.with_ones[rows] = 1
        self.cols = self.with_ones[:rows].reshape(c, len(grid.offsets), b, grid.span)
        self.views: list | None = None
        self.copies: list | None = None

    def fill(self, x: Any) -> Any:
        """``cols`` of the images ``x (b, c, *S)``: one copy per phase, whose kernel offsets
        form a strided block of ``cols`` and a strided view of the phase (one NumPy call
        per kernel offset left the kernel threads waiting on each other for the GIL)."""
        g = self.grid
        g.split(x.reshape(self.b * self.c, *g.spatial), self.phases)
        if self.copies is None:  # (target, source) views, made once for every block
            cols = self.cols.reshape(self.c, *g.kernel, self.b, g.span)
            item, strided, self.copies = self.phases.itemsize, self.xp.lib.stride_tricks, []
            for i, (target, shift, counts, steps) in _phase_blocks(g):
                shape = (self.c, *counts, self.b, g.span)
                st = (g.cell * item, *(s * item for s in steps), self.c * g.cell * item, item)
                src = strided.as_strided(self.phases[i][shift:], shape, st)
                self.copies.append((cols[(slice(None), *target)], src))
        for dst, src in self.copies:
            dst[...] = src
        return self.cols

    def scatter(self, row: Callable[[int], Any], dx: Any, add: bool) -> None:
        """col2im: sum the rows ``row(k)`` ``(c, b, span)`` of each kernel offset ``k`` back
        onto ``dx (b, c, *S)``."""
        g = self.grid
        self.phases.fill(0)
        if self.views is None:  # (c, b, span) views of the phases, made once for every block
            item, strided = self.phases.itemsize, self.xp.lib.stride_tricks.as_strided
            shape, strides = (self.c, self.b, g.span), (g.cell * item, self.c * g.cell * item, item)
            self.views = [strided(self.phases[i][sh:], shape, strides) for i, sh in g.offsets]
        for k, view in enumerate(self.views):
            view += row(k)
        g.merge(self.phases, dx.reshape(self.b * self.c, *g.spatial), add)

    def scatter_cols(self, dcols: Any, dx: Any, add: bool) -> None:
        """col2im of ``dcols (c, prod(K), b, span)`` onto ``dx (b, c, *S)``."""
        self.scatter(lambda k: dcols[:, k], dx, add)


class _Windows:
    """im2col on the output cells for blocks of ``b`` images of ``c`` channels: ``cols`` is
    ``(c, prod(K), b, prod(O))``, one strided copy; col2im adds per kernel offset or per
    output cell, whichever are fewer."""

    def __init__(self, xp: Any, grid: _OutputCells, b: int, c: int, dtype: Any) -> None:
        self.xp, self.grid, self.b, self.c = xp, grid, b, c
        self.cols = xp.empty((c, *grid.geom.kernel, b, *grid.rows), dtype)

    def fill(self, x: Any) -> Any:
        g, nd = self.grid.geom, self.grid.geom.nd
        win = windows(self.xp, x, g.kernel, g.stride, g.dilate, g.pad, self.grid.rows)
        self.cols[...] = win.transpose(1, *range(2 + nd, 2 + 2 * nd), 0, *range(2, 2 + nd))
        return self.cols.reshape(self.c, prod(g.kernel), self.b, -1)

    def scatter_cols(self, dcols: Any, dx: Any, add: bool) -> None:
        g, nd = self.grid.geom, self.grid.geom.nd
        cols = dcols.reshape(self.c, *g.kernel, self.b, *self.grid.rows)
        cols = cols.transpose(nd + 1, 0, *range(nd + 2, 2 * nd + 2), *range(1, nd + 1))
        padded = tuple(n + 2 * p for n, p in zip(self.grid.spatial, g.pad))
        img = self.xp.zeros((self.b, self.c, *padded), dcols.dtype)
        add_windows(cols, img, g.stride, g.dilate)
        crop = img[
            (slice(None), slice(None), *(slice(p, p + n) for p, n in zip(g.pad, self.grid.spatial)))
        ]
        if add:
            dx += crop
        else:
            dx[...] = crop


def _work(
    xp: Any, grid: PhaseGrid | _OutputCells, b: int, c: int, dtype: Any, ones: bool = False
) -> Any:
    if isinstance(grid, PhaseGrid):
        return _Cols(xp, grid, b, c, dtype, ones)
    return _Windows(xp, grid, b, c, dtype)


def _on_grid(xp: Any, grid: PhaseGrid, a: Any, buf: Any) -> Any:
    """``a (b, f, *O)`` as ``(f, b, span)`` on the output cells of ``buf`` (others 0)."""
    f, b = buf.shape[:2]
    cells = (slice(None), slice(None), *grid.out_cells[1:])
    buf.reshape(f, b, *grid.span_rows)[cells] = a.swapaxes(0, 1)
    return buf


def _grouped_weight(w: Any, groups: int) -> Any:
    """``(F, Cg, *K)`` as ``(G, Fg, Cg*prod(K))`` (a view)."""
    return w.reshape(groups, w.shape[0] // groups, -1)


def conv_forward(
    xp: Any,
    x: Any,
    w: Any,
    geom: Geometry,
    out_spatial: Shape,
    out: Any = None,
    bias: Any = None,
    residual: Any = None,
    relu: bool = False,
) -> Any:
    """``y (N, F, *O)`` of a convolution of ``x (N, C, *S)`` with ``w (F, Cg, *K)`` (plus
    ``bias (F,)`` when given); computed straight into ``out`` (a C-contiguous array of that
    shape) when one is given. ``residual`` (C-contiguous, of ``y``'s shape; it may be ``out``
    itself) is added and ``relu`` takes ``max(y, 0)`` in the same pass over each block of
    images: the epilogue an inference pass fuses into the convolution (``executor/fuse.py``)."""
    n, c = x.shape[:2]
    f, groups = w.shape[0], geom.groups
    if out is None:
        out = xp.empty((n, f, *out_spatial), x.dtype)
    wg = _grouped_weight(w, groups)
    b = None if bias is None else bias.reshape((1, -1) + (1,) * geom.nd)
    extra = () if residual is None else (residual,)
    if _pointwise.applies(geom):
        run = _pointwise.forward_kernel(xp, wg, b, relu)
        _batch_parallel(xp, run, n, x.size * f // groups, x, out, *extra)
        return out
    grid = _grid(geom, x.shape[2:], tuple(out_spatial))
    nk = prod(geom.kernel)
    if _depthwise.splits(geom, w.shape, c, grid):
        return _depthwise.forward(xp, x, w, grid, out, bias, residual, relu, cols=_Cols)
    # without groups the bias is a last column of the weight against a row of ones in cols:
    # the product adds it, not a pass over the output
    fold = b is not None and groups == 1 and isinstance(grid, PhaseGrid)
    if fold:
        wb = xp.concatenate([wg[0], bias.reshape(-1, 1).astype(wg.dtype, copy=False)], axis=1)

    def run(x: Any, out: Any, *res: Any) -> None:
        work: _Cols | _Windows | None = None
        for lo, hi in _blocks(x.shape[0], c * nk * grid.span, f if groups == 1 else 0):
            if work is None or work.b != hi - lo:
                work = _work(xp, grid, hi - lo, c, x.dtype, fold)
            cols = work.fill(x[lo:hi]).reshape(groups, -1, (hi - lo) * grid.span)
            if fold:
                y = matmul(xp, wb, work.with_ones).reshape(f, hi - lo, *grid.span_rows)
            elif groups == 1:  # split over the kernel threads when no split by images ran
                y = matmul(xp, wg[0], cols[0]).reshape(f, hi - lo, *grid.span_rows)
            else:
                y = xp.matmul(wg, cols).reshape(f, hi - lo, *grid.span_rows)
            y = y[(slice(None), slice(None), *grid.out_cells[1:])].swapaxes(0, 1)
            dst = out[lo:hi]
            if relu and not res and (b is None or fold):
                relu_into(xp, y, dst)  # the copy out and the relu in one pass
                continue
            if res:  # element by element, so the residual may be out itself
                xp.add(y, res[0][lo:hi], out=dst)
            else:
                dst[...] = y
            if b is not None and not fold:
                dst += b
            if relu:
                relu_into(xp, dst, dst)

    _batch_parallel(xp, run, n, x.size * nk, x, out, *extra, depthwise=w.shape[1] == 1)
    return out


def _batch_parallel(
    xp: Any, run: Callable[..., Any], n: int, work: int, *arrays: Any, depthwise: bool = False
) -> list:
    """Spread blocks of images over the kernel threads when NumPy's BLAS runs one thread per
    call (mxlite's default, see ``engine.openmp``) or the products are small (depthwise); with
    a threaded BLAS, or CuPy, the products stay whole. ``run``'s results, in row order."""
    if xp.__name__ == "numpy" and (depthwise or blas_is_single()):
        return over_rows(run, n, work, *arrays)
    return [run(*arrays)]


def conv_data_grad(
    xp: Any, dy: Any, w: Any, geom: Geometry, in_spatial: Shape, out: Any = None, add: bool = False
) -> Any:
    """``dx (N, C, *S)`` from ``dy (N, F, *O)`` and ``w (F, Cg, *K)``; written (``add``: added)
    into ``out`` when one is given."""
    n, f = dy.shape[:2]
    groups = geom.groups
    c = w.shape[1] * groups
    if out is None:
        out, add = xp.empty((n, c, *in_spatial), dy.dtype), False
    wt = _grouped_weight(w, groups).swapaxes(-1, -2)
    if _pointwise.applies(geom):
        run_pointwise = _pointwise.data_grad_kernel(xp, wt, add)
        _batch_parallel(xp, run_pointwise, n, dy.size * c // groups, dy, out)
        return out
    grid = _grid(geom, tuple(in_spatial), dy.shape[2:])
    flipped = _flipped(geom)
    if flipped is not None:
        flip_grid = _grid(flipped, dy.shape[2:], tuple(in_spatial))
        # where its im2col is no larger than col2im's: grid no larger (padding "same", not
        # LeNet's unpadded 5x5), not many more filters than channels, not the output cells
        if isinstance(flip_grid, PhaseGrid) and flip_grid.cell <= grid.cell and w.shape[0] <= 2 * c:
            return _data_grad_by_forward(xp, dy, w, geom, flipped, tuple(in_spatial), out, add)
    if w.shape[:2] == (c, 1):
        return _depthwise.data_grad(xp, dy, w, geom, out, add)
    nk = prod(geom.kernel)
    rows = xp is np and isinstance(grid, PhaseGrid) and _conv_rows.applies(geom, f, c)

    def run(dy: Any, out: Any) -> None:
        work: _Cols | _Windows | None = None
        blocks = _blocks(dy.shape[0], c * nk * grid.span, f if groups == 1 else 0)
        if rows:
            return _conv_rows.data_grad(xp, dy, w, grid, out, add, blocks)
        for lo, hi in blocks:
            b = hi - lo
            if work is None or work.b != b:
                work = _work(xp, grid, b, c, dy.dtype)
                dyg = xp.zeros((f, b, grid.span), dy.dtype)
            _on_grid(xp, grid, dy[lo:hi], dyg)
            dcols = work.cols.reshape(groups, -1, b * grid.span)  # cols unused here
            xp.matmul(wt, dyg.reshape(groups, f // groups, -1), out=dcols)
            work.scatter_cols(dcols.reshape(c, nk, b, -1), out[lo:hi], add)

    _batch_parallel(xp, run, n, out.size * nk, dy, out, depthwise=w.shape[1] == 1)
    return out


def _flipped(geom: Geometry) -> Geometry | None:
    """At stride 1 the data gradient is itself a convolution: of ``dy`` with the kernel
    flipped in space and its channel axes swapped, padded by ``dilate*(kernel-1) - pad``; the
    geometry of that convolution, or None where it does not apply."""
    if max(geom.stride) != 1:
        return None
    pad = tuple((k - 1) * d - p for k, d, p in zip(geom.kernel, geom.dilate, geom.pad))
    if min(pad) < 0:
        return None
    return Geometry(geom.kernel, geom.stride, geom.dilate, pad, geom.groups, False)


def flipped_weight(xp: Any, w: Any, geom: Geometry) -> Any:
    """The kernel of :func:`_flipped`'s convolution: ``w (F, Cg, *K)`` flipped in space with
    its channel axes swapped within each group, ``(G*Cg, F/G, *K)``."""
    groups, f, cg = geom.groups, w.shape[0], w.shape[1]
    flip = (slice(None),) * 3 + (slice(None, None, -1),) * geom.nd
    wt = w.reshape(groups, f // groups, cg, *geom.kernel)[flip].swapaxes(1, 2)
    return xp.ascontiguousarray(wt).reshape(groups * cg, f // groups, *geom.kernel)


def _data_grad_by_forward(
    xp: Any,
    dy: Any,
    w: Any,
    geom: Geometry,
    flipped: Geometry,
    in_spatial: Shape,
    out: Any,
    add: bool,
) -> Any:
    """The data gradient as the forward convolution of :func:`_flipped`: im2col and a
    product, no col2im (whose overlapping adds run one NumPy call per kernel offset)."""
    wt = flipped_weight(xp, w, geom)
    if not add and out.flags.c_contiguous:
        return conv_forward(xp, dy, wt, flipped, in_spatial, out=out)
    dx = conv_forward(xp, dy, wt, flipped, in_spatial)
    if add:
        out += dx
    else:
        out[...] = dx
    return out


def conv_weight_grad(
    xp: Any, x: Any, dy: Any, geom: Geometry, w_shape: Shape, bias_grad: bool = False
) -> Any:
    """``dw (F, Cg, *K)`` from ``x (N, C, *S)`` and ``dy (N, F, *O)``; with ``bias_grad``, the
    pair ``(dw, db)`` where ``db (F,)`` sums ``dy`` over the batch and space."""
    n, c = x.shape[:2]
    f, groups = dy.shape[1], geom.groups
    sum_axes = (0, *range(2, dy.ndim))
    if n == 0:
        dw = xp.zeros(w_shape, dy.dtype)
        return (dw, xp.zeros((f,), dy.dtype)) if bias_grad else dw
    # each thread's first product is its sum so far: no zeroed (F, Cg*K) array
    if _pointwise.applies(geom):
        run = _pointwise.weight_grad_kernel(xp, groups, bias_grad)
        partial = _batch_parallel(xp, run, n, x.size * f // groups, x, dy)
    else:
        grid = _grid(geom, x.shape[2:], dy.shape[2:])
        if _depthwise.applies(geom, w_shape, c, grid):
            return _depthwise.weight_grad(xp, x, dy, grid, w_shape, bias_grad)
        nk = prod(geom.kernel)
        # few im2col rows (a first layer): OpenBLAS runs cols @ dy.T ~20% faster than dy @ cols.T;
        # many (2304 by 512 filters): the transposed result costs more to sum and copy
        transposed = c // groups * nk <= 256
        # without groups, a row of ones under cols makes the bias gradient the product's last
        # column (dy is 0 off the output cells), not a separate pass over dy
        fold = bias_grad and groups == 1 and isinstance(grid, PhaseGrid)

        def run(x: Any, dy: Any) -> tuple[Any, Any]:
            work: _Cols | _Windows | None = None
            part = None
            for lo, hi in _blocks(x.shape[0], c * nk * grid.span, f if groups == 1 else 0):
                b = hi - lo
                if work is None or work.b != b:
                    work = _work(xp, grid, b, c, x.dtype, fold)
                    dyg = xp.zeros((f, b, grid.span), dy.dtype)
                cols = work.fill(x[lo:hi]).reshape(groups, -1, b * grid.span)
                if fold:
                    cols = work.with_ones[None]
                _on_grid(xp, grid, dy[lo:hi], dyg)
                dyf = dyg.reshape(groups, f // groups, -1)
                if transposed:
                    block = xp.matmul(cols, dyf.swapaxes(-1, -2))
                else:
                    block = xp.matmul(dyf, cols.swapaxes(-1, -2))
                if part is None:
                    part = block
                else:
                    part += block
            if transposed:
                part = part.swapaxes(-1, -2)
            if fold:  # (1, F, K + 1): the weight gradient, then the bias gradient
                return part[..., :-1], part[0, :, -1]
            return part, dy.sum(axis=sum_axes) if bias_grad else None

        partial = _batch_parallel(xp, run, n, x.size * nk, x, dy, depthwise=c // groups == 1)
    dw, db = partial[0]
    for part, part_db in partial[1:]:
        dw += part
        if bias_grad:
            db += part_db
    dw = xp.ascontiguousarray(dw).reshape(w_shape)
    return (dw, db) if bias_grad else dw
