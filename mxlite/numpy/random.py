"""``mx.np.random``: ``seed``, ``uniform``, ``normal``, ``randint``, ``choice``, ``shuffle``,
``rand``, ``randn``, with NumPy's ``size`` (None: one zero-dim sample).

Samples come from the registry's sampling operators and the context's seeded generator
(``seed`` is ``mx.random.seed``); array-valued ``low``/``high``/``loc``/``scale`` broadcast
against ``size``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import random as _mx_random
from ..base import MXNetError
from ..context import Context, current_context
from ..ndarray import NDArray
from .creation import array
from .multiarray import call, ndarray

__all__ = [
    "seed", "uniform", "normal", "randint", "choice", "shuffle", "rand", "randn", "multinomial"
]  # fmt: skip


def seed(seed: int, ctx: Any = "all") -> None:  # noqa: A001  (NumPy's name)
    """Seed the random number generators (of every context by default)."""
    _mx_random.seed(seed, ctx)


def _size(size: Any) -> tuple[int, ...]:
    if size is None:
        return ()
    return (int(size),) if isinstance(size, (int, np.integer)) else tuple(int(d) for d in size)


def _sample(op: str, size: tuple[int, ...], ctx: Context | None, dtype: Any,
            **params: Any) -> ndarray:  # fmt: skip
    shape = size if size and 0 not in size else (1,)
    res = call(op, ctx=ctx or current_context(), shape=shape, dtype=np.dtype(dtype).name,
               **params)  # fmt: skip
    if shape != size:  # zero-dim or zero-size: legacy samplers make no such shapes
        res = res.reshape(size) if 0 not in size else call(
            "_npi_zeros", ctx=res.context, shape=size, dtype=res.dtype.name
        )  # fmt: skip
    return res


def _batch_shape(size: tuple, *values: Any) -> tuple:
    shapes = [v.shape for v in values if isinstance(v, NDArray)]
    return size if size or not shapes else tuple(np.broadcast_shapes(*shapes))


def _location_scale(op: str, names: tuple[str, str], loc: Any, scale: Any, size: Any,
                    dtype: Any, ctx: Context | None, out: Any) -> ndarray:  # fmt: skip
    """Samples of a location-scale family; array parameters broadcast over a standard draw."""
    dtype = dtype or np.float32
    size = _batch_shape(_size(size), loc, scale)
    if isinstance(loc, NDArray) or isinstance(scale, NDArray):
        unit = {names[0]: 0.0, names[1]: 1.0}
        return _into(_sample(op, size, ctx, dtype, **unit) * scale + loc, out)
    params = {names[0]: float(loc), names[1]: float(scale)}
    return _into(_sample(op, size, ctx, dtype, **params), out)


def uniform(low: Any = 0.0, high: Any = 1.0, size: Any = None, dtype: Any = None,
            ctx: Context | None = None, out: Any = None) -> ndarray:  # fmt: skip
    """Samples from the uniform distribution on [low, high) (float32 by default)."""
    if isinstance(low, NDArray) or isinstance(high, NDArray):
        return _location_scale("_random_uniform", ("low", "high"), low, high - low, size, dtype,
                               ctx, out)  # fmt: skip
    return _location_scale("_random_uniform", ("low", "high"), low, high, size, dtype, ctx, out)


def normal(loc: Any = 0.0, scale: Any = 1.0, size: Any = None, dtype: Any = None,
           ctx: Context | None = None, out: Any = None) -> ndarray:  # fmt: skip
    """Samples from the normal distribution N(loc, scale**2) (float32 by default)."""
    return _location_scale("_random_normal", ("loc", "scale"), loc, scale, size, dtype, ctx, out)


def _into(res: ndarray, out: Any) -> ndarray:
    if out is None:
        return res
    out[...] = res
    return out


def randint(low: int, high: int | None = None, size: Any = None, dtype: Any = None,
            ctx: Context | None = None, out: Any = None) -> ndarray:  # fmt: skip
    """Random integers in [low, high) (int64 by default); ``randint(n)`` draws from [0, n)."""
    if high is None:
        low, high = 0, low
    if high <= low:
        raise MXNetError(f"randint: argument 'high' ({high}) must be > 'low' ({low}).")
    res = _sample("_random_randint", _size(size), ctx, dtype or np.int64, low=int(low),
                  high=int(high))  # fmt: skip
    return _into(res, out)


def rand(*size: int, **kwargs: Any) -> ndarray:
    """Uniform samples on [0, 1) of shape ``size``."""
    return uniform(size=size, **kwargs)


def randn(*size: int, **kwargs: Any) -> ndarray:
    """Standard normal samples of shape ``size``."""
    return normal(size=size, **kwargs)


def choice(a: Any, size: Any = None, replace: bool = True, p: Any = None,
           ctx: Context | None = None, out: Any = None) -> ndarray:  # fmt: skip
    """Samples from ``a`` (an int n: from arange(n)), with or without replacement, with
    probabilities ``p``."""
    ctx = ctx or current_context()
    n = int(a) if isinstance(a, (int, np.integer)) else len(a)
    shape = _size(size)
    count = int(np.prod(shape)) if shape else 1
    if not replace and count > n:
        raise MXNetError("choice: cannot take a larger sample than population when "
                         "'replace=False'.")  # fmt: skip
    probs = None if p is None else onp_probs(p)
    if probs is None:
        keys = uniform(size=(n,), ctx=ctx, dtype=np.float64).asnumpy()
        if replace:
            idx = np.floor(uniform(size=(count,), ctx=ctx, dtype=np.float64).asnumpy() * n)
        else:
            idx = np.argsort(keys)[:count]
    else:
        u = uniform(size=(count,), ctx=ctx, dtype=np.float64).asnumpy()
        idx = np.searchsorted(np.cumsum(probs / probs.sum()), u, side="right")
        if not replace:
            idx = np.argsort(-np.log(uniform(size=(n,), ctx=ctx, dtype=np.float64).asnumpy())
                             / np.maximum(probs, 1e-300))[:count]  # fmt: skip
    idx = np.minimum(idx.astype(np.int64), n - 1).reshape(shape)
    if isinstance(a, (int, np.integer)):
        return _into(array(idx, dtype=np.int64, ctx=ctx), out)
    src = a if isinstance(a, ndarray) else array(a, ctx=ctx)
    return _into(src.take(array(idx, dtype=np.int64, ctx=ctx), axis=0), out)


def multinomial(n: int, pvals: Any, size: Any = None) -> ndarray:
    """Counts of ``n`` experiments over ``len(pvals)`` outcomes, ``size`` times (int64)."""
    probs = onp_probs(pvals)
    shape = _size(size)
    count = int(np.prod(shape)) if shape else 1
    k = len(probs)
    if k == 0 or int(n) == 0:
        return array(np.zeros(shape + (k,), np.int64), dtype=np.int64)
    cdf = np.cumsum(probs / probs.sum())
    draws = uniform(size=(count, int(n)), dtype=np.float64).asnumpy()
    outcome = np.minimum(np.searchsorted(cdf, draws, side="right"), k - 1)
    counts = np.zeros((count, k), np.int64)
    np.add.at(counts, (np.repeat(np.arange(count), int(n)), outcome.reshape(-1)), 1)
    return array(counts.reshape(shape + (k,)), dtype=np.int64)


def onp_probs(pvals: Any) -> np.ndarray:
    """``pvals`` (an array or a sequence) as a float64 NumPy vector."""
    return np.asarray(pvals.asnumpy() if isinstance(pvals, NDArray) else pvals, np.float64)


def shuffle(x: ndarray) -> None:
    """Shuffle ``x`` along its first axis, in place."""
    call("_npi_shuffle", x, out=x)
