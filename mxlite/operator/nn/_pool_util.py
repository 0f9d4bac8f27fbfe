"""Pooling kernels on the phase grid (see ``_phase_grid``): max, sum/avg and Lp windows.

Design note
-----------
Rows (batch * channels) are processed in cache-sized blocks (``PhaseGrid.blocks``) with their
buffers allocated once per call. Max pooling reduces one spatial axis at a time (last first),
as the sums do: ``kernel - 1`` in-place ``maximum`` passes per axis and phase, 4 for a 3x3
stride-2 window where walking its 9 offsets took 8. In training it also keeps each window's
argmax, composed axis by axis (a strict ``greater`` per pass and two or three uint8 passes),
by which its backward routes: per offset one uint8 comparison and one product, where
comparing the input with the output took a second split of the input and about twice the
passes. Sums (avg, sum, lp) reduce one spatial axis at a time, ``kernel - 1`` shifted
additions per axis, and their gradient is the transpose of that reduction; the roots and an
average's division by counts that differ run on the flat grid, a division by one count as the
sums are copied out of (or onto) the grid.

The argmax is kept where the kernels use it, on the grid (the workspace is laid out so), the
forward's last argmax pass writing straight into it.

Where the time goes (max 3x3/s2/p1 on (32, 64, 56, 56) float32, one thread, CPU time; MXNet
1.9.1 takes 10.4-12 ms forward and backward, on one thread): forward in training 7.7 ms (the
split into phases 3.1, 12 float and 10 uint8 passes on the grid 3.5, the maxima's copy out
0.5, the floor's check 0.2), backward 9.5 ms (the products by the 9 offsets' masks 4.1, a
float32 product by a bool mask costs twice a product of two float32 arrays, the cast
included; the merge of gradient phases 3.4; additions 1; placing dy on the grid 0.45). The
split and the merge are strided copies with inner loops of one output row, about 0.4 ns per
element against 0.1 for a contiguous copy. Tried and measured no faster: the phases laid out
as the output where each holds the output's count of cells (ResNet's stem pool of an even
size: no copy out, no placing of dy, flat shifts with the slab ``o = 0`` fixed up after;
bit-identical, forward 7.7 -> 7.7 ms, backward 9.5 -> 9.4: writing the output in place and
the strided fix-ups cost what the copy out of a cache-resident grid did); a backward by
axes (H, then W: the same 9 masked products, and its sums ``(A00 + A20) + (A02 + A22)``
round otherwise than the offsets' ``((A00 + A02) + A20) + A22`` where 3 or 4 windows route
to one input); masks made as float32 by ``equal(out=)``, a uint8 mask, or a bitwise AND
of uint32 views with sign-extended masks (each 4.1 ms for the 9 offsets, as the bool
product); ``np.where`` (4.5x) and ``copyto(where=)`` (8x a product by the mask); the column
split as a uint64 -> uint32 cast (long loops, 1.6 ms for both column phases, but the rows
then need their own split: 3.5 ms in all against 3.1); a column-only split with flat shifts
and fixed-up edge columns (10-13 ms), smaller or larger blocks (2^16 to 2^23 cells; 2^15 to
2^18 again, 9-100% slower, 2^20 within noise), splitting or merging in sub-blocks, routing
and merging one phase at a time (one gradient plane), the merge as uint64 pairs
(2.2x slower), ufuncs writing straight into the strided input layout (3.8x a contiguous
product), masked ufuncs and copies (``where=``, ``putmask``: 3-13x a product by the mask),
float16 or float32 masks (the cast moves, not vanishes), scatters (``add.at`` 6.5 ms, the
gather of target indices alone 6.5 ms), onnxruntime's Pad and Slice for the split (3x slower
per block). onnxruntime's MaxPool forward takes 1.9 ms but keeps no argmax.

MXNet's rules: max pooling ignores padding (padding cells hold ``-inf``; the result is floored
at the lowest finite value, which a window lying wholly in padding gives) and routes each
output gradient to the first window position, in row-major order, equal to the output; a
position never matches a NaN output. The sums behind avg, sum and lp pooling accumulate
float16 in float32.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._phase_grid import PhaseGrid

__all__ = [
    "PhaseGrid",
    "NO_ROUTE",
    "max_forward",
    "max_backward",
    "max_backward_routed",
    "sum_forward",
    "sum_backward",
    "lp_backward",
]

# argmax value of a window whose maximum routes no gradient (NaN, -inf, all padding); the
# argmax is kept for windows of at most this many positions
NO_ROUTE = 255


# max pooling's blocks: its offset-by-offset passes are many short NumPy calls, measured
# fastest on two kernel threads at twice the sums' block
_MAX_CELLS = 1 << 19


def max_forward(xp: Any, g: PhaseGrid, x: Any, out: Any, where: Any = None) -> None:
    """``out (rows, *out) = max`` over each window of ``x (rows, *S)``, one spatial axis at a
    time (:func:`_max_axes`). With ``where`` (uint8 ``(rows, cell)``, on the flat grid), also
    the argmax: on the output cells the row-major index of each window's first maximum, or
    :data:`NO_ROUTE` where the maximum is NaN or ``-inf`` (no position gets a gradient), for
    :func:`max_backward_routed`; the other cells are left unspecified (the backward places
    no gradient there). Kept on the grid, the argmax needs no copy out of it here and no
    placing on it in the backward."""
    lowest = np.finfo(x.dtype).min
    step = min(g.step(_MAX_CELLS), x.shape[0])
    ph = g.phase_buffer(xp, step, -np.inf, x.dtype)
    scratch: dict = {}
    gt = xp.empty(step * g.cell, bool) if where is not None else None
    for lo, hi in g.blocks(x.shape[0], _MAX_CELLS):
        g.split(x[lo:hi], ph)
        rows = hi - lo
        wg = where[lo:hi].reshape(-1) if where is not None else None
        acc, idx = _max_axes(xp, g, ph, rows, scratch, gt, wg)
        dst = out[lo:hi]
        dst[...] = g.real(acc, rows)
        if where is not None and idx is None:  # a window of one position
            wg.fill(0)
        elif where is not None and idx is not wg:  # (a kernel of 1 along the first axis)
            wg[...] = idx[: rows * g.cell]
        # the floor, and the argmax of NaN or -inf maxima, only where a block has one: a
        # window of padding or of -inf gives the lowest finite value and, as a NaN, routes
        # nothing. (Out of the grid into (2048, 28, 28) float32 outputs the strided
        # ``maximum`` took 0.94 ms, the copy and the ``min`` 0.43.)
        if dst.size and not dst.min() >= lowest:
            if where is not None:
                # 1 - 1 = 0 leaves the argmax, 0 - 1 = 255 (NO_ROUTE, all bits) replaces it
                routed = (dst > -np.inf).view(np.uint8)
                cells = g.real(where[lo:hi].reshape(-1), rows)
                xp.bitwise_or(cells, routed - np.uint8(1), out=cells)
            xp.maximum(dst, lowest, out=dst)


def _max_axes(
    xp: Any, g: PhaseGrid, ph: Any, rows: int, scratch: dict, gt: Any, last: Any = None
) -> tuple:
    """Window maxima on the flat grid from the phases ``ph``, one spatial axis at a time (last
    first), phases of an axis merging as it is reduced: ``kernel - 1`` maxima per axis, 4 for
    a 3x3 window where walking it offset by offset takes 8. With ``gt`` (a bool buffer), also
    each window's first maximum in row-major order: along each axis, the first offset whose
    maximum over the later axes is strictly the greatest, composed with the argmax that
    maximum came from (a later equal value never replaces an earlier one, so the first
    maximal row holds the first maximum at its own first maximal column). Returns the flat
    maxima and argmax (uint8, None without ``gt`` or for a window of one position), valid on
    the first :meth:`PhaseGrid.length` cells; the argmax is written into ``last`` (a flat
    uint8 buffer of the grid's cells) where given."""
    size = rows * g.cell
    # per key: (maxima, argmax or None, whether this pass may write the maxima): a phase
    # whose every cell the next split writes again may be, one with padding cells may not
    planes = {}
    for key in g.phases:
        cp = g.copies[g.index[key]]
        planes[key] = (ph[g.index[key], :size], None, cp is not None and cp[2])
    length = size
    for axis in reversed(range(len(g.kernel))):
        terms = g.axis_terms(axis)
        length -= max(sh for _, sh in terms)
        weight = math.prod(g.kernel[axis + 1 :])  # argmax steps of one offset on this axis
        merged = {}
        for prefix in sorted({k[:axis] for k in planes}):
            srcs = [(planes[prefix + (r,)], sh) for r, sh in terms]
            if len(srcs) == 1:
                merged[prefix] = srcs[0][0]
                continue
            (f1, a1, own), s1 = srcs[1]
            if own and not s1 and all(f is not f1 for (f, *_), _ in srcs[:1] + srcs[2:]):
                acc, idx = f1, a1  # the planes of offset 1, read only by its own update
            else:
                acc = _scratch(xp, scratch, ("max", axis, prefix), size, ph.dtype)
                idx = None
            if gt is not None and axis == 0 and last is not None:
                idx = last
            elif idx is None and gt is not None:
                idx = _scratch(xp, scratch, ("arg", axis, prefix), size, np.uint8)
            head = acc[:length]
            if gt is not None:
                cmp = gt[:length]
                val = _scratch(xp, scratch, "val", length, np.uint8)
            (f0, a0, _), s0 = srcs[0]
            for j, ((f, a, _), sh) in enumerate(srcs[1:], 1):
                src = f[sh : sh + length]
                prev = f0[s0 : s0 + length] if j == 1 else head
                if idx is not None:
                    # strictly greater: a later equal value leaves the first maximum. Later
                    # offsets take larger indices, so the argmax is the maximum of the
                    # indices of the offsets that raised the maximum
                    if a is None and j == 1:  # the last axis: offset 1 is index 1
                        xp.greater(src, prev, out=idx[:length].view(bool))
                        xp.maximum(prev, src, out=head)
                        continue
                    xp.greater(src, prev, out=cmp)
                    if a is None:  # the last axis: offset j is index j
                        xp.multiply(cmp.view(np.uint8), j, out=val)
                    else:
                        xp.add(a[sh : sh + length], j * weight, out=val)
                        xp.multiply(val, cmp.view(np.uint8), out=val)
                    base = idx[:length] if j > 1 else a0[s0 : s0 + length]
                    xp.maximum(base, val, out=idx[:length])
                xp.maximum(prev, src, out=head)
            merged[prefix] = (acc, idx, True)
        planes = merged
    acc, idx, _ = planes[()]
    return acc, idx


def max_backward_routed(xp: Any, g: PhaseGrid, where: Any, dy: Any, dx: Any, add: bool) -> None:
    """Max pooling's gradient from the argmax ``where`` (``(rows, cell)``, on the grid) of
    :func:`max_forward`: per window offset, one uint8 comparison and one masked product, with
    neither the input nor the output read again (the input's split into phases and the float
    comparisons are most of the work of :func:`max_backward`). The grid cells off the output
    hold a zero ``dy``, so whatever their argmax they route nothing."""
    step = min(g.step(_MAX_CELLS), dy.shape[0])
    grad = xp.empty((len(g.phases), step * g.cell), dy.dtype)
    dyg = g.grid_buffer(xp, step, 0, dy.dtype)
    hit = xp.empty(step * g.cell, bool)
    part = xp.empty(step * g.cell, dy.dtype)
    for lo, hi in g.blocks(dy.shape[0], _MAX_CELLS):
        n = g.length(hi - lo)
        g.put(dy[lo:hi], dyg)
        wg = where[lo:hi].reshape(-1)
        for t, (i, sh) in enumerate(g.offsets):
            xp.equal(wg[:n], t, out=hit[:n])
            if g.first[i] == sh:  # the phase's first offset: write, and clear around it
                xp.multiply(dyg[:n], hit[:n], out=grad[i, sh : sh + n])
                grad[i, :sh] = 0
                grad[i, sh + n :] = 0
                continue
            xp.multiply(dyg[:n], hit[:n], out=part[:n])
            grad[i, sh : sh + n] += part[:n]
        g.merge(grad, dx[lo:hi], add)


def max_backward(xp: Any, g: PhaseGrid, x: Any, y: Any, dy: Any, dx: Any, add: bool) -> None:
    """Route each output gradient to the first window position equal to the output."""
    step = min(g.step(_MAX_CELLS), x.shape[0])
    ph = g.phase_buffer(xp, step, -np.inf, x.dtype)
    grad = xp.empty_like(ph)
    yg = g.grid_buffer(xp, step, np.nan, x.dtype)  # NaN: no match outside the output
    dyg = g.grid_buffer(xp, step, 0, dy.dtype)
    eq = xp.empty(step * g.cell, bool)
    part = xp.empty(step * g.cell, dy.dtype)
    lowest = np.finfo(x.dtype).min
    for lo, hi in g.blocks(x.shape[0], _MAX_CELLS):
        rows = hi - lo
        n = g.length(rows)
        g.split(x[lo:hi], ph)
        g.put(y[lo:hi], yg)
        g.put(dy[lo:hi], dyg)
        args = (ph, grad, yg[:n], dyg[:n], eq[:n], part[:n])
        # the fast pass assumes that no output has two equal positions and checks it by
        # counting matches: a tie (or an output without a match) costs the careful pass. After
        # ReLU, windows of zeros tie in most blocks: once a block of this geometry had a tie,
        # later blocks go straight to the careful pass
        if g.ties:
            _route(xp, g, *args, careful=True)
        elif _route(xp, g, *args, careful=False) or not y[lo:hi].min() > lowest:
            g.ties = True
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


def _shifted_sum(xp: Any, srcs: list[tuple[Any, int]], length: int, out: Any) -> Any:
    """``out``, whose first ``length`` cells become the sum of the slices
    ``src[sh : sh + length]``, added in order."""
    head = out[:length]
    (a, sa), rest = srcs[0], srcs[1:]
    if rest:
        b, sb = rest[0]
        xp.add(a[sa : sa + length], b[sb : sb + length], out=head)
        rest = rest[1:]
    else:
        head[...] = a[sa : sa + length]
    for c, sc in rest:
        head += c[sc : sc + length]
    return out


def _scratch(xp: Any, scratch: dict, key: Any, size: int, dtype: Any) -> Any:
    """A ``size`` buffer kept in ``scratch`` under ``key`` from block to block."""
    buf = scratch.get(key)
    if buf is None or buf.shape[0] < size:
        buf = scratch[key] = xp.empty(size, dtype)
    return buf[:size]


def _window_sums(xp: Any, g: PhaseGrid, ph: Any, rows: int, scratch: dict) -> Any:
    """Window sums on the flat grid from the phases ``ph`` ``(P, >= rows * cell)``, one
    spatial axis at a time (last first): each axis costs ``kernel - 1`` additions of shifted
    slices, not the ``prod(kernel)`` of a window walked offset by offset. Phases of an axis
    merge as it is summed."""
    size = rows * g.cell
    bufs = {key: ph[g.index[key], :size] for key in g.phases}
    length = size
    for axis in reversed(range(len(g.kernel))):
        terms = g.axis_terms(axis)
        length -= max(sh for _, sh in terms)
        merged = {}
        for key in {k[:axis] + (0,) + k[axis + 1 :] for k in bufs}:
            srcs = [(bufs[key[:axis] + (r,) + key[axis + 1 :]], sh) for r, sh in terms]
            out = _scratch(xp, scratch, (axis, key), size, ph.dtype)
            merged[key] = _shifted_sum(xp, srcs, length, out)
        bufs = merged
    return next(iter(bufs.values()))


def _window_spread(xp: Any, g: PhaseGrid, dg: Any, rows: int, scratch: dict) -> list[Any]:
    """The transpose of :func:`_window_sums`: from ``dg`` (the output gradient on
    the flat grid after a zero prefix of ``max_shift`` cells), the gradient on each phase's
    cells."""
    size = rows * g.cell
    bufs = {(0,) * len(g.kernel): dg}
    for axis in range(len(g.kernel)):
        terms = g.axis_terms(axis)
        top = max(sh for _, sh in terms)
        out = {}
        for key, src in bufs.items():
            length = src.shape[0] - top
            for r in g.residues[axis]:
                srcs = [(src, top - sh) for rr, sh in terms if rr == r]
                new = key[:axis] + (r,) + key[axis + 1 :]
                buf = _scratch(xp, scratch, (axis, new), length, dg.dtype)
                out[new] = _shifted_sum(xp, srcs, length, buf)
        bufs = out
    return [bufs[key][:size] for key in g.phases]


def sum_forward(
    xp: Any,
    g: PhaseGrid,
    x: Any,
    power: int,
    acc_dtype: Any,
    out: Any,
    post,
    divisor: Any = None,
) -> None:
    """``out (rows, *out) = post(sums)`` of ``x ** power`` over each window, where
    ``post(sums)`` finishes a block of sums (float16 summed in float32) in place, on the flat
    grid ``(rows, cell)``: one contiguous pass, where one on the output cells ran 3x longer
    (an inner loop as short as an output row); the output cells are then copied out. With a
    scalar ``divisor`` (an average whose windows all count alike) instead of ``post``, the
    division and the copy out are one pass (72 us against 96 us per block of (291, 28, 28)
    float32 outputs: a scalar divisor is the one strided operand)."""
    step = min(g.step(), x.shape[0])
    ph = g.phase_buffer(xp, step, 0, acc_dtype)
    scratch: dict = {}
    for lo, hi in g.blocks(x.shape[0]):
        g.split(x[lo:hi], ph)
        if power == 2:
            ph *= ph
        elif power == 3:
            ph *= ph * ph
        rows = hi - lo
        sums = _window_sums(xp, g, ph, rows, scratch)
        if divisor is not None:
            xp.divide(g.real(sums, rows), divisor, out=out[lo:hi])
            continue
        sums[g.length(rows) : rows * g.cell] = 0  # cells past the sums: no stale values
        post(sums[: rows * g.cell].reshape(rows, g.cell))
        out[lo:hi] = g.real(sums, rows)


def sum_backward(
    xp: Any, g: PhaseGrid, d: Any, dx: Any, add: bool, dtype: Any, divisor: Any = None
) -> None:
    """Spread ``d (rows, *out)`` (divided by ``divisor`` when given: a scalar, or ``(cell,)``,
    the grid's cells, as :func:`sum_forward`'s) back over each window: the gradient of a sum
    (an average), taken in ``dtype``. A scalar divides as ``d`` is placed on the grid, in the
    same pass."""
    step = min(g.step(), d.shape[0])
    dg = xp.zeros(g.max_shift + step * g.cell, dtype)
    scratch: dict = {}
    scalar = divisor is not None and np.ndim(divisor) == 0
    for lo, hi in g.blocks(d.shape[0]):
        cells = g.real(dg[g.max_shift :], hi - lo)  # the output cells after the zero prefix
        if scalar:
            xp.divide(d[lo:hi], divisor, out=cells)
        else:
            cells[...] = d[lo:hi]
        if divisor is not None and not scalar:  # on the flat grid (0 stays 0 off the output)
            flat = dg[g.max_shift : g.max_shift + (hi - lo) * g.cell].reshape(hi - lo, -1)
            xp.divide(flat, divisor, out=flat)
        g.merge(_window_spread(xp, g, dg, hi - lo, scratch), dx[lo:hi], add)


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
