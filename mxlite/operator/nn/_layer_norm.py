"""LayerNorm's kernels over the last axis of C-contiguous float32/float64 NumPy data (the
transformer's case), for ``normalization.LayerNormProp``; other axes and array modules take
its general whole-array expressions.

Design note
-----------
The data is seen as rows ``(R, n)``. Per row, the mean is a product with ones and the variance
the centred row's dot product with itself (BLAS, in the data's dtype: over contiguous rows its
sums lose no more than the float64 sums the other axes need). The normalisation and the data
gradient are element-wise passes against per-row columns with the ufunc buffer kept to one row
(``parallel.row_buffer``), in MXNet's order: ``(x - mean) / std * gamma + beta`` and
``(dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)) / std``. Rows go in blocks to the kernel
threads. gamma's and beta's gradients sum over the rows: in float32 over groups of
``_GROUP`` rows, then in float64 over the groups (plain float32 sums over 4096 rows drift by
~3e-4, MXNet's test_layer_norm checks 1e-4; groups of 64, 32, 16 rows: 3.4e-5, 1.7e-5,
1.3e-5 on its (4096, 64) case), each thread's groups apart and added in row order.
Measured on (4096, 768) float32: forward 11.3 -> 1.7 ms, forward+backward 29.0 -> 9.5 ms
(MXNet 1.9.1: 6.3 and 99.9).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import parallel
from ._batch_norm import vecdot

__all__ = ["applies", "forward", "backward"]

_GROUP = 16  # rows summed in float32 before the float64 sum of gamma's and beta's gradients


def applies(xp: Any, x: Any, axis: int) -> bool:
    """Whether these kernels serve LayerNorm of ``x`` over ``axis``."""
    return (
        xp is np
        and axis == x.ndim - 1
        and x.dtype in (np.float32, np.float64)
        and x.flags.c_contiguous
        and x.size > 0
    )


def forward(x: Any, gamma: Any, beta: Any, eps: float, out: Any) -> tuple[Any, Any, Any]:
    """The output (into ``out`` where it takes the data's dtype and layout, else a new array)
    and the rows' mean and std, ``(R,)``."""
    n = x.shape[-1]
    rows = x.reshape(-1, n)
    direct = out is not None and out.dtype == x.dtype and out.flags.c_contiguous
    dst = out.reshape(rows.shape) if direct else np.empty_like(rows)
    mean, std = np.empty(len(rows), x.dtype), np.empty(len(rows), x.dtype)
    g, b = (np.asarray(v, x.dtype).reshape(-1) for v in (gamma, beta))
    ones = np.ones(n, x.dtype)

    def part(xb: Any, ob: Any, mb: Any, sb: Any) -> None:
        np.matmul(xb, ones, out=mb)
        mb /= n
        with parallel.row_buffer(n):
            np.subtract(xb, mb[:, None], out=ob)
            vecdot(ob, ob, sb)
            sb /= n
            sb += x.dtype.type(eps)
            np.sqrt(sb, out=sb)
            ob /= sb[:, None]
            ob *= g
            ob += b

    parallel.over_rows(part, len(rows), 3 * x.size, rows, dst, mean, std)
    return (out if direct else dst.reshape(x.shape)), mean, std


def backward(
    x: Any, dy: Any, gamma: Any, mean: Any, std: Any, data_grad: bool
) -> tuple[Any, Any, Any]:
    """The gradients of the data (None unless ``data_grad``), gamma and beta from the data,
    the output gradient ``dy`` (the data's dtype and layout) and the forward's mean and std."""
    n = x.shape[-1]
    rows, grads = x.reshape(-1, n), dy.reshape(-1, n)
    mean = np.asarray(mean, x.dtype).reshape(-1, 1)
    inv = (1 / np.asarray(std, x.dtype)).reshape(-1, 1)
    g = np.asarray(gamma, x.dtype).reshape(-1)
    dx = np.empty_like(rows) if data_grad else None
    ones = np.ones(n, x.dtype)

    def part(xb: Any, gb: Any, mb: Any, ib: Any, *ob: Any) -> tuple[Any, Any]:
        xhat = np.subtract(xb, mb)
        with parallel.row_buffer(n):
            xhat *= ib
            prod = np.multiply(gb, xhat)
            sums = _group_sums(prod), _group_sums(gb)
            if ob:
                dxhat = np.multiply(gb, g)
                m1 = dxhat @ ones
                m1 /= n
                m2 = np.empty(len(xb), x.dtype)
                vecdot(dxhat, xhat, m2)
                m2 /= n
                dxhat -= m1[:, None]
                xhat *= m2[:, None]
                dxhat -= xhat
                np.multiply(dxhat, ib, out=ob[0])
        return sums

    arrays = [rows, grads, mean, inv] + ([dx] if data_grad else [])
    parts = parallel.over_rows(part, len(rows), 4 * x.size, *arrays)
    dgamma = np.add.reduce([p[0] for p in parts]).astype(x.dtype)
    dbeta = np.add.reduce([p[1] for p in parts]).astype(x.dtype)
    return (dx.reshape(x.shape) if data_grad else None), dgamma, dbeta


def _group_sums(a: Any) -> Any:
    """Column sums of ``a (rows, n)`` in float64, over float32 sums of ``_GROUP`` rows (a
    reshape: ``np.add.reduceat`` took 25x as long)."""
    full = len(a) // _GROUP * _GROUP
    total = np.add.reduce(a[full:], axis=0, dtype=np.float64)
    if full:
        groups = np.add.reduce(a[:full].reshape(-1, _GROUP, a.shape[1]), axis=1)
        total += np.add.reduce(groups, axis=0, dtype=np.float64)
    return total
