"""``mx.np.meshgrid``, ``mx.np.unique`` and ``mx.np.genfromtxt`` (MXNet 1.9.1's
``function_base.py``, ``unique`` and ``io.py``).

``meshgrid`` is built of reshapes and broadcasts, so autograd records it; ``unique`` has a
data-dependent shape and, as MXNet's ``_npi_unique``, no gradient; ``genfromtxt`` reads with
official NumPy and returns an ``mx.np`` array.
"""

from __future__ import annotations

from typing import Any

import numpy as onp

from .creation import array
from .functions import broadcast_to
from .multiarray import ndarray

__all__ = ["meshgrid", "unique", "genfromtxt"]


def meshgrid(*xi: ndarray, **kwargs: Any) -> list[ndarray]:
    """Coordinate matrices from coordinate vectors.

    Parameters (keyword only): ``indexing='xy'`` (Cartesian; ``'ij'`` for matrix indexing),
    ``sparse=False`` (True: keep the broadcast axes of length 1), ``copy=True`` (always a copy
    here).
    """
    indexing = kwargs.pop("indexing", "xy")
    sparse = bool(kwargs.pop("sparse", False))
    kwargs.pop("copy", True)
    if kwargs:
        raise TypeError(f"meshgrid() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: argument 'indexing' must be 'xy' or 'ij', got {indexing!r}")
    ndim = len(xi)
    grids = []
    for i, x in enumerate(xi):
        shape = [1] * ndim
        shape[i] = -1
        grids.append(x.reshape(tuple(shape)))
    if indexing == "xy" and ndim > 1:
        grids = [g.swapaxes(0, 1) for g in grids]
    if sparse:
        return grids
    full = tuple(max(g.shape[d] for g in grids) for d in range(ndim))
    return [broadcast_to(g, full) for g in grids]


def unique(ar: ndarray, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: int | None = None) -> Any:  # fmt: skip
    """The sorted unique elements of ``ar`` (flattened when ``axis`` is None), with the
    indices of their first occurrences, the inverse indices and the counts when asked
    (int64 arrays). Parameters as NumPy's, defaults False and ``axis=None``."""
    if not isinstance(ar, ndarray):
        raise TypeError(f"unique: argument 'ar' must be an mx.np.ndarray, got {type(ar).__name__}")
    res = onp.unique(ar.asnumpy(), return_index=return_index, return_inverse=return_inverse,
                     return_counts=return_counts, axis=axis)  # fmt: skip
    if not isinstance(res, tuple):
        return array(res, dtype=res.dtype, ctx=ar.context)
    out = [array(res[0], dtype=res[0].dtype, ctx=ar.context)]
    for extra in res[1:]:
        out.append(array(extra.reshape(-1).astype("int64"), dtype="int64", ctx=ar.context))
    return tuple(out)


def genfromtxt(*args: Any, **kwargs: Any) -> ndarray:
    """Official NumPy's ``genfromtxt`` (same parameters), returned as an ``mx.np`` array."""
    res = onp.genfromtxt(*args, **kwargs)
    return array(res, dtype=res.dtype)
