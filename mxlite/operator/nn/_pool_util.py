"""Pooling kernels on a *phase grid*: every window offset becomes one long contiguous slice.

Design note
-----------
Walking a strided window by kernel offset (one strided slice per offset) gives NumPy inner
loops as short as an output row, with stride-2 reads: most of the time goes into loop overhead
and unvectorised access. Here the padded input is first split into its ``prod(stride)`` *phases*
(phase ``a`` of an axis holds padded positions ``a, a + s, a + 2s, ...``), each a C-contiguous
``(N*C, *R)`` array with ``R = out + (kernel - 1) // stride`` per axis. Window offset ``j`` of
output ``o`` is padded position ``o*s + j``, i.e. row ``o + j // s`` of phase ``j % s``; in the
flattened phase that is the output's flat grid index plus the constant shift
``sum(j_d // s_d * G_d)`` (``G`` the grid strides of ``R``). So each kernel offset is a single 1-D
contiguous slice of length ``L = N*C*prod(R) - max shift`` of one phase, and every operation is
one vectorised NumPy call over the whole batch. Grid cells past the output (``o_d <= i < R_d``)
compute values that are thrown away; they read real or padding cells, never past the buffer.

Only the split into phases (and the merge of the gradient phases back into the input layout)
is strided; with stride 1 it is a plain padded copy. Work is split by rows of ``N*C`` over
``cpu_parallel``'s threads (NumPy releases the GIL in these loops).

MXNet's rules: max pooling ignores padding (padding cells hold ``-inf``; the result is floored at
the lowest finite value, which a window lying wholly in padding gives) and routes each output
gradient to the first window position, in row-major order, equal to the output; a position
never matches a NaN output. The sums behind avg, sum and lp pooling accumulate float16 in
float32.
"""

from __future__ import annotations

import itertools
from math import prod
from typing import Any

import numpy as np

from ...base import Shape

__all__ = ["PhaseGrid"]

_CACHE_ELEMENTS = 1 << 17  # phase cells per block: a few hundred KiB, within a core's L2


class PhaseGrid:
    """The phase split of one pooling geometry for one channels-first input shape."""

    def __init__(
        self, spatial: Shape, kernel: Shape, stride: Shape, pad: Shape, out: Shape
    ) -> None:
        self.spatial, self.kernel, self.stride, self.pad, self.out = (
            spatial,
            kernel,
            stride,
            pad,
            out,
        )
        self.rows = tuple(o + (k - 1) // s for o, k, s in zip(out, kernel, stride))
        self.phases = list(itertools.product(*(range(min(s, k)) for s, k in zip(stride, kernel))))
        self.index = {ph: i for i, ph in enumerate(self.phases)}
        grid = [prod(self.rows[d + 1 :]) for d in range(len(spatial))]
        self.cell = prod(self.rows)
        # per kernel offset (row-major): (phase index, flat shift)
        self.offsets = [
            (
                self.index[tuple(j % s for j, s in zip(jj, stride))],
                sum(j // s * g for j, s, g in zip(jj, stride, grid)),
            )
            for jj in itertools.product(*map(range, kernel))
        ]
        self.max_shift = max(sh for _, sh in self.offsets)
        # per phase: (grid slices, input slices, whether the phase is all input) or None
        self.copies = [self._copy(ph) for ph in self.phases]
        # input positions in no window (stride > kernel, or past the last window) get no
        # gradient, and no phase cell: the merge must clear them
        self.gaps = any(
            s > k or r * s - p < n  # the phase cells reach padded position r * s - 1 (s <= k)
            for s, k, p, r, n in zip(stride, kernel, pad, self.rows, spatial)
        )
        self._out = (Ellipsis, *(slice(0, o) for o in out))
        # shift of each phase's first offset in row-major order
        self.first: dict[int, int] = {}
        for i, sh in self.offsets:
            self.first.setdefault(i, sh)

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

    def length(self, rows: int) -> int:
        """Grid cells computed for ``rows`` rows of ``N*C``."""
        return rows * self.cell - self.max_shift

    def step(self) -> int:
        """Rows per block: a block's phases and buffers stay in a core's cache."""
        return max(1, _CACHE_ELEMENTS // (len(self.phases) * self.cell))

    def blocks(self, rows: int) -> list[tuple[int, int]]:
        step = self.step()
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
        """Write (``add``: add) gradient phases ``buf`` back onto ``dx`` ``(rows, *S)``."""
        rows = dx.shape[0]
        if self.gaps and not add:
            dx.fill(0)
        for i, cp in enumerate(self.copies):
            if cp is None:
                continue
            src = buf[i, : rows * self.cell].reshape(rows, *self.rows)[cp[0]]
            if add:
                dx[cp[1]] += src
            else:
                dx[cp[1]] = src

    def grid_buffer(self, xp: Any, rows: int, fill: float, dtype: Any) -> Any:
        """A flat ``(rows * prod(R),)`` grid buffer filled with ``fill``."""
        return xp.full(rows * self.cell, fill, dtype)

    def put(self, a: Any, buf: Any) -> None:
        """Place ``a`` ``(rows, *out)`` on the output cells of the flat grid ``buf``."""
        buf[: a.shape[0] * self.cell].reshape(a.shape[0], *self.rows)[self._out] = a

    def real(self, flat: Any, rows: int) -> Any:
        """The output cells ``(rows, *out)`` of a flat grid array."""
        return flat[: rows * self.cell].reshape(rows, *self.rows)[self._out]


def max_forward(xp: Any, g: PhaseGrid, x: Any, out: Any) -> None:
    """``out (rows, *out) = max`` over each window of ``x (rows, *S)``."""
    lowest = np.finfo(x.dtype).min
    step = min(g.step(), x.shape[0])
    ph = g.phase_buffer(xp, step, -np.inf, x.dtype)
    acc = xp.empty(step * g.cell, x.dtype)
    for lo, hi in g.blocks(x.shape[0]):
        g.split(x[lo:hi], ph)
        n = g.length(hi - lo)
        head = acc[:n]
        for t, (i, sh) in enumerate(g.offsets):
            if t == 0:
                xp.copyto(head, ph[i, sh : sh + n])
            else:
                xp.maximum(head, ph[i, sh : sh + n], out=head)
        xp.maximum(g.real(acc, hi - lo), lowest, out=out[lo:hi])


def max_backward(xp: Any, g: PhaseGrid, x: Any, y: Any, dy: Any, dx: Any, add: bool) -> None:
    """Route each output gradient to the first window position equal to the output."""
    step = min(g.step(), x.shape[0])
    ph = g.phase_buffer(xp, step, -np.inf, x.dtype)
    grad = xp.empty_like(ph)
    yg = g.grid_buffer(xp, step, np.nan, x.dtype)  # NaN: no match outside the output
    dyg = g.grid_buffer(xp, step, 0, dy.dtype)
    eq = xp.empty(step * g.cell, bool)
    part = xp.empty(step * g.cell, dy.dtype)
    lowest = np.finfo(x.dtype).min
    for lo, hi in g.blocks(x.shape[0]):
        rows = hi - lo
        n = g.length(rows)
        g.split(x[lo:hi], ph)
        g.put(y[lo:hi], yg)
        g.put(dy[lo:hi], dyg)
        args = (ph, grad, yg[:n], dyg[:n], eq[:n], part[:n])
        # the fast pass assumes that no output has two equal positions and checks it by
        # counting matches: only a tie (or an output without a match) costs the careful pass
        ybl = y[lo:hi]
        if _route(xp, g, *args, careful=False) or not ybl.min() > lowest:
            _route(xp, g, *args, careful=True)
        g.merge(grad, dx[lo:hi], add)


def _route(xp, g, ph, grad, yg, dyg, eq, part, careful: bool) -> bool:
    """One routing pass; returns whether some output matched more than once (a tie)."""
    n = yg.shape[0]
    rem = dyg.copy() if careful else dyg
    count = None if careful else xp.zeros(n, np.uint8)
    for i, sh in g.offsets:
        xp.equal(ph[i, sh : sh + n], yg, out=eq)
        if count is not None:
            count += eq.view(np.uint8)
        if g.first[i] == sh:  # the phase's first offset: write, and clear the cells around
            xp.multiply(rem, eq, out=grad[i, sh : sh + n])
            grad[i, :sh] = 0
            grad[i, sh + n :] = 0
            if careful:
                rem -= grad[i, sh : sh + n]
            continue
        xp.multiply(rem, eq, out=part)
        grad[i, sh : sh + n] += part
        if careful:
            rem -= part
    return count is not None and int(count.max()) > 1


def sum_forward(xp: Any, g: PhaseGrid, x: Any, power: int, acc_dtype: Any, out: Any, post) -> None:
    """``out (rows, *out) = post(sums)`` of ``x ** power`` over each window, where ``post``
    maps an ``(rows, *out)`` block of sums (float16 summed in float32) to the result."""
    step = min(g.step(), x.shape[0])
    ph = g.phase_buffer(xp, step, 0, acc_dtype)
    acc = xp.empty(step * g.cell, acc_dtype)
    for lo, hi in g.blocks(x.shape[0]):
        g.split(x[lo:hi], ph)
        if power == 2:
            ph *= ph
        elif power == 3:
            ph *= ph * ph
        n = g.length(hi - lo)
        head = acc[:n]
        for t, (i, sh) in enumerate(g.offsets):
            if t == 0:
                xp.copyto(head, ph[i, sh : sh + n])
            else:
                head += ph[i, sh : sh + n]
        out[lo:hi] = post(g.real(acc, hi - lo))


def sum_backward(xp: Any, g: PhaseGrid, d: Any, dx: Any, add: bool) -> None:
    """Spread ``d (rows, *out)`` evenly back over each window (the gradient of a sum)."""
    step = min(g.step(), d.shape[0])
    grad = xp.empty((len(g.phases), step * g.cell), d.dtype)
    dg = g.grid_buffer(xp, step, 0, d.dtype)
    for lo, hi in g.blocks(d.shape[0]):
        n = g.length(hi - lo)
        g.put(d[lo:hi], dg)
        grad.fill(0)
        for i, sh in g.offsets:
            grad[i, sh : sh + n] += dg[:n]
        g.merge(grad, dx[lo:hi], add)


def lp_backward(xp: Any, g: PhaseGrid, x: Any, y: Any, d: Any, p: int, dx: Any, add: bool) -> None:
    """Gradient of ``(sum x**p) ** (1/p)``: ``d * (x / y) ** (p - 1)``; 0 where ``y`` is 0."""
    step = min(g.step(), x.shape[0])
    ph = g.phase_buffer(xp, step, 0, d.dtype)
    grad = xp.empty_like(ph)
    yg = g.grid_buffer(xp, step, 1, d.dtype)
    dg = g.grid_buffer(xp, step, 0, d.dtype)
    part = xp.empty(step * g.cell, d.dtype)
    zero = y == 0
    y = xp.where(zero, 1, y)
    d = xp.where(zero, 0, d)
    for lo, hi in g.blocks(x.shape[0]):
        n = g.length(hi - lo)
        g.split(x[lo:hi], ph)
        g.put(y[lo:hi], yg)
        g.put(d[lo:hi], dg)
        grad.fill(0)
        for i, sh in g.offsets:
            xp.divide(ph[i, sh : sh + n], yg[:n], out=part[:n])
            if p == 3:
                part[:n] *= part[:n]
            part[:n] *= dg[:n]
            grad[i, sh : sh + n] += part[:n]
        g.merge(grad, dx[lo:hi], add)
