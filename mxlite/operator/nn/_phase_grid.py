"""The *phase grid*: every window offset of a strided, padded, dilated window as one long
contiguous slice, for the pooling and convolution kernels.

Design note
-----------
Walking a strided window by kernel offset (one strided slice per offset) gives NumPy inner
loops as short as an output row, with stride-2 reads: most of the time goes into loop overhead
and unvectorised access. Here the padded input is first split into its *phases* per axis
(phase ``a`` holds padded positions ``a, a + s, a + 2s, ...``), each a C-contiguous
``(rows, *R)`` array with ``R = out + (kernel - 1) * dilate // stride`` per axis. Window offset
``j`` of output ``o`` is padded position ``o*s + j*d``, i.e. row ``o + j*d // s`` of phase
``j*d % s``; in the flattened phase that is the output's flat grid index plus a constant shift
``sum(j_d*d_d // s_d * G_d)`` (``G`` the grid strides of ``R``). So each kernel offset is one
1-D contiguous slice of one phase, and every operation is a single vectorised NumPy call (or
the operand of one BLAS product) over a whole block. Grid cells past the output
(``o_d <= i < R_d``) compute values that are thrown away; they read real or padding cells.

Only the split into phases and the merge of gradient phases back into the input layout are
strided copies; with stride 1 the split is a plain padded copy.
"""

from __future__ import annotations

import itertools
from math import prod
from typing import Any

from ...base import Shape

__all__ = ["PhaseGrid"]

_CACHE_ELEMENTS = 1 << 18  # phase cells per block (1 MiB of float32)


class PhaseGrid:
    """The phase split of one window geometry (kernel, stride, pad, dilate, output size) for
    one input spatial shape; arrays are ``(rows, *spatial)`` blocks (rows = batch * channels)."""

    def __init__(
        self,
        spatial: Shape,
        kernel: Shape,
        stride: Shape,
        pad: Shape,
        out: Shape,
        dilate: Shape | None = None,
    ) -> None:
        self.spatial, self.kernel, self.stride, self.pad, self.out = (
            spatial,
            kernel,
            stride,
            pad,
            out,
        )
        dilate = dilate or (1,) * len(kernel)
        self.rows = self.grid_rows(kernel, stride, out, dilate)
        self.dilate = dilate
        self.grid = [prod(self.rows[d + 1 :]) for d in range(len(spatial))]
        terms = [self.axis_terms(axis) for axis in range(len(kernel))]
        residues = [sorted({r for r, _ in axis_terms}) for axis_terms in terms]
        self.residues = residues
        self.phases = list(itertools.product(*residues))
        self.index = {ph: i for i, ph in enumerate(self.phases)}
        self.cell = prod(self.rows)
        # per kernel offset (row-major): (phase index, flat shift)
        self.offsets = [
            (self.index[tuple(r for r, _ in per_axis)], sum(sh for _, sh in per_axis))
            for per_axis in itertools.product(*terms)
        ]
        self.max_shift = max(sh for _, sh in self.offsets)
        # per phase: (grid slices, input slices, whether the phase is all input) or None
        self.copies = [self._copy(ph) for ph in self.phases]
        # input positions in no window (stride > kernel, or past the last window) get no
        # gradient, and no phase cell: the merge must clear them
        self.gaps = any(
            len(res) < s or (r - 1) * s + res[-1] - p < n - 1
            for res, s, p, r, n in zip(residues, stride, pad, self.rows, spatial)
        )
        self.out_cells = (Ellipsis, *(slice(0, o) for o in out))
        # whether max pooling's backward met a tie on this geometry (see _pool_util)
        self.ties = False
        # shift of each phase's first offset in row-major order
        self.first: dict[int, int] = {}
        for i, sh in self.offsets:
            self.first.setdefault(i, sh)

    @staticmethod
    def grid_rows(kernel: Shape, stride: Shape, out: Shape, dilate: Shape | None = None) -> Shape:
        """The grid's cells per spatial axis, ``R = out + (kernel - 1) * dilate // stride``:
        window offset ``j`` of output ``o`` is padded position ``o * s + j * d``, phase
        ``(j * d) % s``, row ``o + (j * d) // s``."""
        dilate = dilate or (1,) * len(kernel)
        return tuple(o + (k - 1) * d // s for o, k, s, d in zip(out, kernel, stride, dilate))

    def _copy(self, ph: tuple[int, ...]) -> tuple[tuple, tuple, bool] | None:
        dst, src, whole = [], [], True
        for a, n, s, p, r in zip(ph, self.spatial, self.stride, self.pad, self.rows):
            lo = max(0, -((a - p) // s))
            hi = min(r - 1, (n - 1 + p - a) // s)
            if hi < lo:
                return None
            whole = whole and lo == 0 and hi == r - 1
            start = lo * s + a - p
            dst.append(slice(lo, hi + 1))
            src.append(slice(start, start + (hi - lo) * s + 1, s))
        return (Ellipsis, *dst), (Ellipsis, *src), whole

    def axis_terms(self, axis: int) -> list[tuple[int, int]]:
        """Per window offset ``j`` along ``axis``, in order: the residue of its phase and its
        shift in grid cells (``j * dilate`` is padded position residue + stride * row)."""
        s, d, step = self.stride[axis], self.dilate[axis], self.grid[axis]
        return [(j * d % s, j * d // s * step) for j in range(self.kernel[axis])]

    def length(self, rows: int) -> int:
        """Grid cells computed for ``rows`` rows of ``N*C``."""
        return rows * self.cell - self.max_shift

    def step(self, cells: int = _CACHE_ELEMENTS) -> int:
        """Rows per block of about ``cells`` phase cells: a block's phases and buffers stay
        near a core's cache, and each NumPy call is long enough that the kernel threads do not
        spend their time handing the GIL to each other."""
        return max(1, cells // (len(self.phases) * self.cell))

    def blocks(self, rows: int, cells: int = _CACHE_ELEMENTS) -> list[tuple[int, int]]:
        step = self.step(cells)
        return [(lo, min(rows, lo + step)) for lo in range(0, rows, step)]

    def phase_buffer(self, xp: Any, rows: int, fill: float, dtype: Any) -> Any:
        """A ``(P, rows * prod(R))`` buffer whose padding cells hold ``fill``; :meth:`split`
        then only writes the input cells, block after block."""
        buf = xp.empty((len(self.phases), rows, *self.rows), dtype)
        for i, cp in enumerate(self.copies):
            if cp is None or not cp[2]:
                buf[i].fill(fill)
        return buf.reshape(len(self.phases), -1)

    def split(self, x: Any, buf: Any) -> None:
        """Copy ``x`` ``(rows, *S)`` into the input cells of its phases in ``buf``."""
        rows = x.shape[0]
        for i, cp in enumerate(self.copies):
            if cp is not None:
                buf[i, : rows * self.cell].reshape(rows, *self.rows)[cp[0]] = x[cp[1]]

    def merge(self, buf: Any, dx: Any, add: bool) -> None:
        """Write (``add``: add) gradient phases ``buf`` (one flat array per phase) back onto
        ``dx`` ``(rows, *S)``."""
        rows = dx.shape[0]
        if self.gaps and not add:
            dx.fill(0)
        for i, cp in enumerate(self.copies):
            if cp is None:
                continue
            src = buf[i][: rows * self.cell].reshape(rows, *self.rows)[cp[0]]
            if add:
                dx[cp[1]] += src
            else:
                dx[cp[1]] = src

    def grid_buffer(self, xp: Any, rows: int, fill: float, dtype: Any) -> Any:
        """A flat ``(rows * prod(R),)`` grid buffer filled with ``fill``."""
        return xp.full(rows * self.cell, fill, dtype)

    def put(self, a: Any, buf: Any) -> None:
        """Place ``a`` ``(rows, *out)`` on the output cells of the flat grid ``buf``."""
        buf[: a.shape[0] * self.cell].reshape(a.shape[0], *self.rows)[self.out_cells] = a

    def real(self, flat: Any, rows: int) -> Any:
        """The output cells ``(rows, *out)`` of a flat grid array."""
        return flat[: rows * self.cell].reshape(rows, *self.rows)[self.out_cells]
