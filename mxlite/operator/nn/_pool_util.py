"""Pooling kernels on the phase grid (see ``_phase_grid``): max, sum/avg and Lp windows.

Design note
-----------
Rows (batch * channels) are processed in cache-sized blocks (``PhaseGrid.blocks``) with their
buffers allocated once per call. MXNet's rules: max pooling ignores padding (padding cells hold
``-inf``; the result is floored at the lowest finite value, which a window lying wholly in
padding gives) and routes each output gradient to the first window position, in row-major
order, equal to the output; a position never matches a NaN output. The sums behind avg, sum
and lp pooling accumulate float16 in float32.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._phase_grid import PhaseGrid

__all__ = ["PhaseGrid", "max_forward", "max_backward", "sum_forward", "sum_backward", "lp_backward"]


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
