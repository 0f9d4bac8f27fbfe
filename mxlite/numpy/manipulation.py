"""More of MXNet 1.9.1's ``mx.np`` (``multiarray.py``): triangles, diagonals, differences,
rolls and rotations, polynomials and NaN replacement on their ``_np*`` operators
(``operator/numpy/matrix_more.py``); the stacking and splitting variants, ``append``,
``vdot``, ``atleast_*d`` and the memory-overlap tests composed from the existing functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..base import MXNetError
from .functions import concatenate, flip, split
from .functions import round as _round
from .multiarray import call, is_tensor, ndarray
from .ufuncs import unary_function

__all__ = [
    "tril", "diff", "roll", "rot90", "diag", "diagonal", "diagflat", "trace", "polyval",
    "nan_to_num", "column_stack", "row_stack", "dstack", "hsplit", "vsplit", "dsplit",
    "flipud", "fliplr", "append", "vdot", "round_", "fabs", "atleast_1d", "atleast_2d",
    "atleast_3d", "shares_memory", "may_share_memory", "percentile", "quantile", "average",
    "bincount", "einsum",
]  # fmt: skip


def tril(m: ndarray, k: int = 0) -> ndarray:
    """The lower triangle of ``m`` (elements above the k-th diagonal zeroed)."""
    return call("_npi_tril", m, k=k)


def diff(a: ndarray, n: int = 1, axis: int = -1, prepend: Any = None,
         append: Any = None) -> ndarray:  # fmt: skip
    """The n-th discrete difference along ``axis``."""
    if prepend is not None or append is not None:
        raise MXNetError("diff: arguments 'prepend' and 'append' are not supported (as in MXNet).")
    return call("_npi_diff", a, n=n, axis=axis)


def roll(a: ndarray, shift: Any, axis: Any = None) -> ndarray:
    """Elements rolled by ``shift`` places along ``axis`` (the flattened array when None)."""
    shifts = (int(shift),) if isinstance(shift, (int, np.integer)) else tuple(shift)
    axes = None if axis is None else (
        (int(axis),) if isinstance(axis, (int, np.integer)) else tuple(axis))  # fmt: skip
    return call("_np_roll", a, shift=shifts, axis=axes)


def rot90(m: ndarray, k: int = 1, axes: Sequence[int] = (0, 1)) -> ndarray:
    """``m`` rotated by 90 degrees ``k`` times in the plane of ``axes``."""
    return call("_npi_rot90", m, k=k, axes=tuple(axes))


def diag(v: ndarray, k: int = 0) -> ndarray:
    """The k-th diagonal of a 2-D array, or a 2-D array with 1-D ``v`` on it."""
    return call("_np_diag", v, k=k)


def diagonal(a: ndarray, offset: int = 0, axis1: int = 0, axis2: int = 1) -> ndarray:
    """The diagonals of ``a``'s 2-D sub-arrays on ``axis1`` and ``axis2``."""
    return call("_np_diagonal", a, offset=offset, axis1=axis1, axis2=axis2)


def diagflat(v: ndarray, k: int = 0) -> ndarray:
    """A 2-D array with the flattened ``v`` on the k-th diagonal."""
    return call("_np_diagflat", v, k=k)


def trace(a: ndarray, offset: int = 0, axis1: int = 0, axis2: int = 1, out: Any = None) -> ndarray:
    """Sums along the diagonals of ``a``'s 2-D sub-arrays."""
    return call("_np_trace", a, out=out, offset=offset, axis1=axis1, axis2=axis2)


def polyval(p: ndarray, x: ndarray) -> ndarray:
    """The polynomial with coefficients ``p`` (highest power first) evaluated at ``x``."""
    if not is_tensor(p) or not is_tensor(x):
        raise MXNetError(
            f"polyval: arguments 'p' and 'x' must be mx.np arrays, got {type(p).__name__} "
            f"and {type(x).__name__}."
        )
    return call("_npi_polyval", p, x)


def nan_to_num(x: ndarray, copy: bool = True, nan: float = 0.0, posinf: float | None = None,
               neginf: float | None = None) -> ndarray:  # fmt: skip
    """``x`` with NaN replaced by ``nan`` and infinities by ``posinf``/``neginf`` (the largest
    and lowest finite values by default); integer arrays are returned unchanged."""
    if isinstance(x, ndarray) and x.dtype.kind != "f":
        return x
    out = None if copy else x
    return call("_npi_nan_to_num", x, out=out, copy=copy, nan=nan, posinf=posinf, neginf=neginf)


def _at_least(arrays: tuple, ndim: int) -> Any:
    out = call(f"_np_atleast_{ndim}d", *arrays, num_args=len(arrays))
    return out[0] if isinstance(out, list) and len(out) == 1 else out


def atleast_1d(*arys: ndarray) -> Any:
    """The inputs viewed with at least one dimension (a list for several)."""
    return _at_least(arys, 1)


def atleast_2d(*arys: ndarray) -> Any:
    """The inputs viewed with at least two dimensions (1-D ones as rows)."""
    return _at_least(arys, 2)


def atleast_3d(*arys: ndarray) -> Any:
    """The inputs viewed with at least three dimensions (N -> 1xNx1, MxN -> MxNx1)."""
    return _at_least(arys, 3)


def column_stack(tup: Sequence[ndarray]) -> ndarray:
    """1-D arrays as columns of a 2-D array (2-D arrays as they are), side by side."""
    return call("_npi_column_stack", *tup, num_args=len(tup))


def row_stack(arrays: Sequence[ndarray]) -> ndarray:
    """Stack arrays row-wise (``vstack``)."""
    return call("_npi_vstack", *arrays, num_args=len(arrays))


def dstack(arrays: Sequence[ndarray]) -> ndarray:
    """Stack arrays along the third axis."""
    return call("_npi_dstack", *arrays, num_args=len(arrays))


def _split_on(op: str, ary: ndarray, indices_or_sections: Any, axis: int) -> list[ndarray]:
    """``op`` (an ``_npi_*split`` operator that knows its axis) on an array or a symbol; an
    array's ``axis`` must divide into equal sections, as NumPy requires."""
    if isinstance(indices_or_sections, (int, np.integer)):
        k = int(indices_or_sections)
        if isinstance(ary, ndarray) and (k <= 0 or ary.shape[axis] % k):
            raise ValueError(f"{op.removeprefix('_npi_')}: array split does not result in an "
                             f"equal division ({ary.shape[axis]} into {k}).")  # fmt: skip
        params = {"indices": (), "sections": k}
    else:
        params = {"indices": (0, *(int(i) for i in indices_or_sections)), "sections": 0}
    res = call(op, ary, axis=axis, squeeze_axis=False, **params)
    return list(res) if isinstance(res, (list, tuple)) else [res]


def hsplit(ary: ndarray, indices_or_sections: Any) -> list[ndarray]:
    """Split along the second axis (the first for 1-D arrays)."""
    if isinstance(ary, ndarray) and ary.ndim == 0:
        raise ValueError("hsplit: argument 'ary' must have at least one dimension.")
    axis = 1 if not isinstance(ary, ndarray) or ary.ndim > 1 else 0
    return _split_on("_npi_hsplit", ary, indices_or_sections, axis)


def vsplit(ary: ndarray, indices_or_sections: Any) -> list[ndarray]:
    """Split along the first axis (arrays of two or more dimensions)."""
    if isinstance(ary, ndarray) and ary.ndim < 2:
        raise ValueError("vsplit: argument 'ary' must have at least 2 dimensions.")
    return split(ary, indices_or_sections, axis=0)


def dsplit(ary: ndarray, indices_or_sections: Any) -> list[ndarray]:
    """Split along the third axis (arrays of three or more dimensions)."""
    if isinstance(ary, ndarray) and ary.ndim < 3:
        raise ValueError("dsplit: argument 'ary' must have at least 3 dimensions.")
    return _split_on("_npi_dsplit", ary, indices_or_sections, 2)


def flipud(m: ndarray) -> ndarray:
    """``m`` with the order of rows reversed."""
    return flip(m, 0)


def fliplr(m: ndarray) -> ndarray:
    """``m`` with the order of columns reversed."""
    return flip(m, 1)


def append(arr: ndarray, values: ndarray, axis: int | None = None) -> ndarray:
    """``values`` appended to ``arr`` (both flattened when ``axis`` is None)."""
    return concatenate([arr, values], axis=axis)


def vdot(a: ndarray, b: ndarray) -> ndarray:
    """The dot product of the flattened arrays."""
    return call("_np_dot", a.reshape(-1), b.reshape(-1))


round_ = _round
fabs = unary_function("fabs", "_npi_absolute")


def shares_memory(a: ndarray, b: ndarray, max_work: Any = None) -> bool:
    """Whether ``a`` and ``b`` share memory (views on one chunk whose elements overlap)."""
    if a._chunk is not b._chunk:
        return False
    return bool(np.shares_memory(a._data, b._data))


def may_share_memory(a: ndarray, b: ndarray, max_work: Any = None) -> bool:
    """Whether ``a`` and ``b`` might share memory (their byte ranges overlap)."""
    if a._chunk is not b._chunk:
        return False
    return bool(np.may_share_memory(a._data, b._data))


def percentile(a: ndarray, q: Any, axis: Any = None, out: Any = None,
               overwrite_input: Any = None, interpolation: str = "linear",
               keepdims: bool = False) -> ndarray:  # fmt: skip
    """The q-th percentile(s) of ``a`` along ``axis`` (q in [0, 100])."""
    if overwrite_input is not None:
        raise NotImplementedError("percentile: argument 'overwrite_input' is not supported.")
    axes = None if axis is None else tuple(np.atleast_1d(axis).tolist())
    if is_tensor(q):  # an array, or a symbol in a hybridized block
        return call("_npi_percentile", a, q, out=out, axis=axes, interpolation=interpolation,
                    keepdims=keepdims, q_scalar=None)  # fmt: skip
    return call("_npi_percentile", a, out=out, axis=axes, interpolation=interpolation,
                keepdims=keepdims, q_scalar=float(q))  # fmt: skip


def quantile(a: ndarray, q: Any, axis: Any = None, out: Any = None,
             overwrite_input: Any = None, interpolation: str = "linear",
             keepdims: bool = False) -> ndarray:  # fmt: skip
    """The q-th quantile(s) of ``a`` along ``axis`` (q in [0, 1])."""
    return percentile(a, q * 100, axis, out, overwrite_input, interpolation, keepdims)


def average(a: ndarray, axis: Any = None, weights: ndarray | None = None,
            returned: bool = False, out: Any = None) -> Any:  # fmt: skip
    """The weighted average along ``axis``; with ``returned``, also the sum of the weights."""
    axes = None if axis is None else tuple(np.atleast_1d(axis).tolist())
    if weights is None:
        return call("_npi_average", a, out=out, axis=axes, returned=returned, weighted=False)
    return call("_npi_average", a, weights, out=out, axis=axes, returned=returned,
                weighted=True)  # fmt: skip


def bincount(x: ndarray, weights: ndarray | None = None, minlength: int = 0) -> ndarray:
    """Occurrences of each value in the 1-D array of non-negative ints ``x``."""
    if not is_tensor(x):
        raise TypeError(f"bincount: argument 'x' must be an mx.np array, got {type(x).__name__}.")
    if minlength < 0:
        raise ValueError(f"bincount: argument 'minlength' must be >= 0, got {minlength}.")
    if weights is None:
        return call("_npi_bincount", x, minlength=minlength, has_weights=False)
    return call("_npi_bincount", x, weights, minlength=minlength, has_weights=True)


def einsum(*operands: Any, **kwargs: Any) -> ndarray:
    """Einstein summation: ``einsum(subscripts, *arrays, out=None, optimize=False)``."""
    subscripts, arrays = operands[0], operands[1:]
    out, optimize = kwargs.pop("out", None), kwargs.pop("optimize", False)
    if kwargs:
        raise TypeError(f"einsum: unexpected arguments {sorted(kwargs)}.")
    return call("_npi_einsum", *arrays, out=out, num_args=len(arrays), subscripts=subscripts,
                optimize=int(bool(optimize)))  # fmt: skip
