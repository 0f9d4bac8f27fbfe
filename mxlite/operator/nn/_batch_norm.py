"""BatchNorm's kernels: per-channel statistics in one pass over the data, the normalisation in
one pass into the output, the gradient sums in one pass and the data gradient in one more
(``normalization.BatchNormProp`` calls them).

Design note
-----------
Data of any shape is seen as ``(P, C, S)``: P = the axes before the channel axis, S = those
after (NCHW: P = N, S = H*W). Contiguous data reshapes to that for free.

* Sums go through BLAS, which reads memory at full speed: a row sum is a product with a vector
  of ones, a sum of products a ``vecdot`` of rows. For S >= ``_ROW_S`` they run per
  (sample, channel) row of the ``(P*C, S)`` view; for smaller S (the last stages of a CNN, or
  channels last with S = 1) per column of the ``(P, C*S)`` view, over blocks of rows. Either
  way each channel gets a few float32 partial sums (groups), combined in float64 by Chan's
  pairwise formula, so that only a group's own sums can lose digits.
* The variance comes from the same pass as the mean (sums of x and of x^2). Per group,
  ``sum(x^2) - sum(x)^2 / n`` cancels when the mean is large against the spread: a channel
  whose ``sum(x^2)`` is over ``_CANCEL[dtype]`` times its centred sum of squares ("far" from
  0) is recomputed exactly, in two float64 passes over its own slice. The gradient sum
  ``sum(dy * (x - mean))`` is ``sum(dy * x) - mean * sum(dy)`` under the same rule.
* Element-wise passes (output, data gradient) multiply rows of the ``(P, C*S)`` view by
  per-channel coefficients repeated S times (a contiguous row), in blocks of ``_CHUNK``
  elements; planes of ``_COL_S`` or more go as ``(P*C, S)`` rows against per-row columns,
  with the ufunc buffer kept to one row (``parallel.row_buffer``: NumPy otherwise copies the
  operands through it, which doubled every pass at S = 3136: affine 2.46 -> 1.15 ms, data
  gradient 4.0 -> 2.3 ms at (8, 128, 56, 56), one thread). They follow MXNet's formulas in
  MXNet's order,
  ``(x - mean) * scale + beta`` and ``((dy - mean(dy)) - (x - mean) * proj) * scale``: a pass
  more than ``x * scale + shift``, but networks with batch-1 BatchNorm on tiny maps (GluonCV's
  SSD, YOLOv3) amplify the other rounding into losses MXNet does not give, and one element per
  channel gives exact zeros only in this order.
* Blocks of rows (or, for one row, of columns) go to the kernel threads
  (``operator.parallel``).

Sums are in the data's dtype (float32 for float16 data, whose float32 copies are made first);
per-channel values are float64 until cast for the element-wise passes. Other array modules
(CuPy) take plain whole-array expressions.
"""

from __future__ import annotations

from collections.abc import Callable
from math import prod
from typing import Any

import numpy as np

from .. import parallel

__all__ = ["moments", "affine", "grad_sums", "data_grad", "is_numpy", "vecdot"]

# elements of one block of an element-wise pass: measured at (8|32, 64, 56, 56) float32,
# 2^18 beats 2^14-2^16 (fewer calls) and whole arrays (the block's arrays stay in L2/L3)
_CHUNK = 1 << 18
# from this S on, the element-wise passes run on (P*C, S) rows with per-channel columns: at
# (8, 64, 112, 112) the (P, C*S) rows' repeated values (3 MB each) no longer stay in the cache
# (affine 6.5 -> 2.9 ms); at S = 196 and 49 the short rows cost more calls; at S = 784 the two
# ran alike once the columns were no longer copied (row_buffer)
_COL_S = 2048
_ROW_S = 128  # from this S on, per-(sample, channel) rows: vecdot beats einsum over columns
_COL_ROWS = 4096  # rows of one column group: bounds the error of its float32 sums
# sum(x^2) over the centred sum of squares above which a channel's one-pass variance may
# have lost more than ~1e-5 (float32) or ~1e-9 (float64) of its value
_CANCEL = {np.dtype(np.float32): 8.0, np.dtype(np.float64): 1e6}


def is_numpy(xp: Any) -> bool:
    return xp.__name__ == "numpy"


def _red(ndim: int, axis: int) -> tuple[int, ...]:
    return tuple(i for i in range(ndim) if i != axis)


def _bcast(v: Any, ndim: int, axis: int) -> Any:
    shape = [1] * ndim
    shape[axis] = -1
    return v.reshape(shape)


def _pcs(shape: tuple[int, ...], axis: int) -> tuple[int, int, int]:
    return prod(shape[:axis]), shape[axis], prod(shape[axis + 1 :])


def _compute(x: Any, dtype: np.dtype) -> Any:
    """``x`` contiguous in ``dtype`` (a view when it already is)."""
    return np.ascontiguousarray(x, dtype=dtype)


def _far(mean: Any, var: Any, acc: np.dtype) -> Any:
    """Channels whose mean is large against their spread (module note)."""
    return ~(mean * mean + var <= _CANCEL[acc] * var)


def vecdot(a: Any, b: Any, out: Any) -> None:
    """``out[i] = a[i] . b[i]`` over the rows of 2-D ``a`` and ``b`` (BLAS where NumPy has
    ``vecdot``)."""
    if hasattr(np, "vecdot"):  # NumPy >= 2: a BLAS dot per row
        np.vecdot(a, b, out=out)
    else:
        np.einsum("rs,rs->r", a, b, out=out)


def _group_sums(a: Any, b: Any, p: int, c: int, s: int) -> tuple[Any, Any, Any]:
    """Partial sums of ``b`` and of ``a * b`` per channel, as float64 ``(G, C)`` arrays, and
    the number of elements in each group (a float, or a ``(G, 1)`` array)."""
    if s >= _ROW_S:
        a2, b2 = a.reshape(p * c, s), b.reshape(p * c, s)
        sb, sab = np.empty(p * c, a.dtype), np.empty(p * c, a.dtype)
        ones = np.ones(s, a.dtype)

        def rows(a2: Any, b2: Any, sb: Any, sab: Any) -> None:
            np.matmul(b2, ones, out=sb)
            vecdot(a2, b2, sab)

        parallel.over_rows(rows, p * c, 2 * a.size, a2, b2, sb, sab)
        return sb.reshape(p, c).astype(np.float64), sab.reshape(p, c).astype(np.float64), s
    a2, b2 = a.reshape(p, c * s), b.reshape(p, c * s)
    k = -(-p // _COL_ROWS)
    cuts = [p * i // k for i in range(k + 1)]
    sb, sab = np.empty((k, c * s), a.dtype), np.empty((k, c * s), a.dtype)

    def cols(ids: Any, sb: Any, sab: Any) -> None:
        for j, i in enumerate(ids):
            ab, bb = a2[cuts[i] : cuts[i + 1]], b2[cuts[i] : cuts[i + 1]]
            np.matmul(np.ones(len(bb), a.dtype), bb, out=sb[j])
            np.einsum("pk,pk->k", ab, bb, out=sab[j])

    parallel.over_rows(cols, k, 2 * a.size, np.arange(k), sb, sab)
    if s > 1:  # a group: a block of rows at all its positions (S < _ROW_S values added)
        ones = np.ones(s, a.dtype)
        sb, sab = sb.reshape(k, c, s) @ ones, sab.reshape(k, c, s) @ ones
    n = np.diff(np.array(cuts, dtype=np.float64)).reshape(-1, 1) * s if k > 1 else p * s
    return sb.astype(np.float64), sab.astype(np.float64), n


def moments(xp: Any, x: Any, axis: int, acc: np.dtype) -> tuple[Any, Any]:
    """Mean and biased variance per channel of ``x`` over every axis but ``axis``, in one pass
    (module note; float64 on NumPy); ``acc`` is the dtype summed in."""
    if not is_numpy(xp):
        mean = x.mean(axis=_red(x.ndim, axis), dtype=acc)
        centred = x - _bcast(mean, x.ndim, axis).astype(x.dtype)
        return mean, (centred * centred).mean(axis=_red(x.ndim, axis), dtype=acc)
    p, c, s = _pcs(x.shape, axis)
    x = _compute(x, acc)
    sx, sxx, n = _group_sums(x, x, p, c, s)
    total = p * s
    if len(sx) == 1:
        mean = sx[0] / total
        m2 = sxx[0] - sx[0] * mean
    else:
        mean = np.add.reduce(sx) / total
        gmean = sx / n
        m2 = np.add.reduce(sxx - sx * gmean) + np.add.reduce(n * (gmean - mean) ** 2)
    var = np.maximum(m2, 0.0) / max(total, 1)
    bad = np.flatnonzero(~(np.add.reduce(sxx) <= _CANCEL[acc] * m2))
    if len(bad):
        xs = x.reshape(p, c, s)[:, bad, :].astype(np.float64)
        mean[bad] = xs.mean(axis=(0, 2))
        xs -= mean[bad][:, None]
        var[bad] = np.einsum("pcs,pcs->c", xs, xs) / max(total, 1)
    return mean, var


def _expand(v: Any, s: int, dtype: np.dtype) -> Any:
    """Per-channel ``v`` as a row of the ``(P, C*S)`` view: each value repeated S times."""
    return np.repeat(np.asarray(v, dtype=dtype), s)


def _blocks(fn: Callable[..., None], full: list[Any], rows: list[Any], scratch: bool) -> None:
    """``fn(*blocks of full, *blocks of rows[, scratch])`` over blocks of about ``_CHUNK``
    elements of the 2-D arrays ``full`` (all ``(P, L)``) and the matching pieces of the 1-D
    ``rows`` (``(L,)``), spread over the kernel threads (by rows, or by columns when P is too
    small); ``scratch``: also a work array of the block's shape (one per thread, reused)."""
    p, length = full[0].shape
    nf = len(full)

    def chunks(*arrays: Any) -> None:
        fa, ra = arrays[:nf], arrays[nf:]
        pr, lr = fa[0].shape
        step = min(lr, _CHUNK)
        rstep = max(1, _CHUNK // step)
        work = [np.empty((min(rstep, pr), step), fa[0].dtype)] if scratch else []
        for j in range(0, lr, step):
            rj = [r[j : j + step] for r in ra]
            for i in range(0, pr, rstep):
                blocks = [a[i : i + rstep, j : j + step] for a in fa]
                tmp = [w[: blocks[0].shape[0], : blocks[0].shape[1]] for w in work]
                fn(*blocks, *rj, *tmp)

    work = nf * p * length
    if p >= parallel.num_threads():
        parallel.over_rows(lambda *fa: chunks(*fa, *rows), p, work, *full)
    else:  # few rows: split the columns (the transposes are views; chunks() undoes them)
        parallel.over_rows(
            lambda *b: chunks(*[a.T for a in b[:nf]], *b[nf:]),
            length,
            work,
            *[a.T for a in full],
            *rows,
        )


def _per_channel(
    fn: Callable[..., None], full: list[Any], values: list[Any], pcs: tuple[int, int, int],
    acc: np.dtype, scratch: bool,
) -> None:  # fmt: skip
    """``fn(*blocks of full, *values, [scratch])`` over blocks of the arrays ``full`` (each
    ``P x C x S`` elements), the per-channel ``values`` (length C) shaped to broadcast against
    the blocks. Large planes (``S >= _COL_S``) go as ``(P*C, S)`` rows, the values as columns;
    smaller ones as ``(P, C*S)`` rows, the values repeated S times (:func:`_blocks`)."""
    p, c, s = pcs
    if s < _COL_S:
        rows = [a.reshape(p, c * s) for a in full]
        _blocks(fn, rows, [_expand(v, s, acc) for v in values], scratch)
        return
    planes = [a.reshape(p * c, s) for a in full]
    cols = [np.tile(np.asarray(v, dtype=acc), p).reshape(-1, 1) for v in values]
    step = max(1, _CHUNK // s)

    def chunks(*arrays: Any) -> None:
        work = [np.empty((min(step, len(arrays[0])), s), acc)] if scratch else []
        with parallel.row_buffer(s):
            for i in range(0, len(arrays[0]), step):
                blocks = [a[i : i + step] for a in arrays]
                fn(*blocks, *[w[: len(blocks[0])] for w in work])

    parallel.over_rows(chunks, p * c, len(full) * p * c * s, *planes, *cols)


def _target(out: Any, dtype: np.dtype, add: bool) -> tuple[Any, bool]:
    """The buffer a kernel writes: ``out`` itself when it can, else a new one (then copied or
    added into ``out`` by :func:`_deliver`)."""
    if not add and out.dtype == dtype and out.flags.c_contiguous:
        return out, False
    return np.empty(out.shape, dtype), True


def _deliver(out: Any, buf: Any, add: bool) -> None:
    if add:
        out += buf.astype(out.dtype, copy=False)
    else:
        out[...] = buf


def affine(
    xp: Any, x: Any, axis: int, scale: Any, beta: Any, mean: Any, out: Any, add: bool,
    acc: np.dtype,
) -> None:  # fmt: skip
    """``out = (x - mean) * scale + beta`` (``+=`` when ``add``), all per channel along
    ``axis``: MXNet's formula, in its order. ``out`` may be ``x`` itself."""
    if not is_numpy(xp):
        y = x - _bcast(mean, x.ndim, axis).astype(x.dtype)
        y *= _bcast(scale, x.ndim, axis).astype(x.dtype)
        y += _bcast(beta, x.ndim, axis).astype(x.dtype)
        _deliver(out, y, add)
        return
    p, c, s = _pcs(x.shape, axis)
    x = _compute(x, acc)
    dst, copied = _target(out, acc, add)

    def kernel(xb: Any, ob: Any, mb: Any, ab: Any, bb: Any) -> None:
        np.subtract(xb, mb, out=ob)
        ob *= ab
        ob += bb

    _per_channel(kernel, [x, dst], [mean, scale, beta], (p, c, s), acc, False)
    if copied:
        _deliver(out, dst, add)


def grad_sums(
    xp: Any, x: Any, dy: Any, axis: int, mean: Any, var: Any, acc: np.dtype
) -> tuple[Any, Any]:
    """``sum(dy)`` and ``sum(dy * (x - mean))`` per channel in one pass (float64 on NumPy);
    ``var`` (x's spread about ``mean``) tells where the second needs two passes (module
    note)."""
    if not is_numpy(xp):
        red = _red(x.ndim, axis)
        centred = x - _bcast(mean, x.ndim, axis).astype(x.dtype)
        return dy.sum(axis=red, dtype=acc), (centred * dy).sum(axis=red, dtype=acc)
    p, c, s = _pcs(x.shape, axis)
    x, dy = _compute(x, acc), _compute(dy, acc)
    sg, sxg, _ = _group_sums(x, dy, p, c, s)
    sum_g = np.add.reduce(sg)
    dotp = np.add.reduce(sxg) - mean * sum_g
    bad = np.flatnonzero(_far(mean, var, acc))
    if len(bad):
        xs = x.reshape(p, c, s)[:, bad, :].astype(np.float64) - mean[bad][:, None]
        dotp[bad] = np.einsum("pcs,pcs->c", xs, dy.reshape(p, c, s)[:, bad, :])
    return sum_g, dotp


def data_grad(
    xp: Any, x: Any, dy: Any, axis: int, a: Any, b: Any, mean: Any, k: Any, out: Any,
    add: bool, acc: np.dtype,
) -> None:  # fmt: skip
    """``out = ((dy - k) - (x - mean) * b) * a`` (``+=`` when ``add``) with per-channel ``a``,
    ``b``, ``mean``, ``k`` (``b`` None: ``out = dy * a``): MXNet's formula, in its order."""
    if not is_numpy(xp):
        nd = x.ndim
        dx = dy.astype(x.dtype, copy=True)
        if b is not None:
            dx -= _bcast(k, nd, axis).astype(x.dtype)
            dx -= (x - _bcast(mean, nd, axis).astype(x.dtype)) * _bcast(b, nd, axis).astype(x.dtype)
        dx *= _bcast(a, nd, axis).astype(x.dtype)
        _deliver(out, dx, add)
        return
    p, c, s = _pcs(x.shape, axis)
    dy = _compute(dy, acc)
    dst, copied = _target(out, acc, add)
    if b is None:

        def scaled(gb: Any, ob: Any, ab: Any) -> None:
            np.multiply(gb, ab, out=ob)

        _per_channel(scaled, [dy, dst], [a], (p, c, s), acc, False)
    else:

        def kernel(gb: Any, ob: Any, xb: Any, ab: Any, bb: Any, mb: Any, kb: Any, t: Any):
            np.subtract(xb, mb, out=t)
            t *= bb
            np.subtract(gb, kb, out=ob)
            ob -= t
            ob *= ab

        full = [dy, dst, _compute(x, acc)]
        _per_channel(kernel, full, [a, b, mean, k], (p, c, s), acc, True)
    if copied:
        _deliver(out, dst, add)
