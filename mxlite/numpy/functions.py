"""``mx.np`` reductions, shape functions and products: ``sum`` ... ``argmin``, ``reshape``,
``transpose``, ``concatenate``, ``stack``, ``split``, ``tile``, ``repeat``, ``flip``, ``take``,
``dot``, ``matmul``, ``tensordot`` and their relatives. Each runs one registered operator
(or a few) through :func:`~mxlite.numpy.multiarray.call`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .creation import array, full
from .multiarray import NUMERIC, _axes, _dt, call, ndarray
from .ufuncs import clip as clip

__all__ = [
    "sum", "prod", "product", "mean", "max", "min", "amax", "amin", "std", "var", "argmax",
    "argmin", "all", "any", "cumsum", "dot", "matmul", "tensordot", "inner", "outer", "reshape",
    "ravel", "transpose", "swapaxes", "moveaxis", "expand_dims", "squeeze", "concatenate",
    "stack", "vstack", "hstack", "split", "array_split", "tile", "repeat", "flip", "take",
    "broadcast_to", "copy", "sort", "argsort", "around", "round", "clip", "nonzero", "ndim",
    "shape", "size",
]  # fmt: skip


def sum(a: ndarray, axis: Any = None, dtype: Any = None, out: Any = None,  # noqa: A001
        keepdims: bool = False, initial: Any = None) -> ndarray:  # fmt: skip
    """Sum of the elements over ``axis`` (all when None): zero-dim for a full reduction."""
    return call("_np_sum", a, out=out, axis=_axes(axis), dtype=_dt(dtype), keepdims=keepdims,
                initial=initial)  # fmt: skip


def prod(a: ndarray, axis: Any = None, dtype: Any = None, out: Any = None,
         keepdims: bool = False, initial: Any = None) -> ndarray:  # fmt: skip
    """Product of the elements over ``axis``."""
    return call("_np_prod", a, out=out, axis=_axes(axis), dtype=_dt(dtype), keepdims=keepdims,
                initial=initial)  # fmt: skip


product = prod


def mean(a: ndarray, axis: Any = None, dtype: Any = None, out: Any = None,
         keepdims: bool = False) -> ndarray:  # fmt: skip
    """Arithmetic mean over ``axis`` (float32 for integer input)."""
    return call("_npi_mean", a, out=out, axis=_axes(axis), dtype=_dt(dtype), keepdims=keepdims)


def max(a: ndarray, axis: Any = None, out: Any = None, keepdims: bool = False) -> ndarray:  # noqa: A001
    """Maximum over ``axis``."""
    return call("_np_max", a, out=out, axis=_axes(axis), keepdims=keepdims)


def min(a: ndarray, axis: Any = None, out: Any = None, keepdims: bool = False) -> ndarray:  # noqa: A001
    """Minimum over ``axis``."""
    return call("_np_min", a, out=out, axis=_axes(axis), keepdims=keepdims)


amax = max
amin = min


def std(a: ndarray, axis: Any = None, dtype: Any = None, out: Any = None, ddof: int = 0,
        keepdims: bool = False) -> ndarray:  # fmt: skip
    """Standard deviation over ``axis`` (divisor N - ddof)."""
    return call("_npi_std", a, out=out, axis=_axes(axis), dtype=_dt(dtype), ddof=ddof,
                keepdims=keepdims)  # fmt: skip


def var(a: ndarray, axis: Any = None, dtype: Any = None, out: Any = None, ddof: int = 0,
        keepdims: bool = False) -> ndarray:  # fmt: skip
    """Variance over ``axis`` (divisor N - ddof)."""
    return call("_npi_var", a, out=out, axis=_axes(axis), dtype=_dt(dtype), ddof=ddof,
                keepdims=keepdims)  # fmt: skip


def argmax(a: ndarray, axis: int | None = None, out: Any = None) -> ndarray:
    """Index (int64) of the maximum along ``axis`` (of the flattened array when None)."""
    return call("_npi_argmax", a, out=out, axis=axis)


def argmin(a: ndarray, axis: int | None = None, out: Any = None) -> ndarray:
    """Index (int64) of the minimum along ``axis`` (of the flattened array when None)."""
    return call("_npi_argmin", a, out=out, axis=axis)


def all(a: ndarray, axis: Any = None, out: Any = None, keepdims: bool = False) -> ndarray:  # noqa: A001
    """Whether every element along ``axis`` is true (bool)."""
    return call("_np_all", a, out=out, axis=_axes(axis), keepdims=keepdims)


def any(a: ndarray, axis: Any = None, out: Any = None, keepdims: bool = False) -> ndarray:  # noqa: A001
    """Whether any element along ``axis`` is true (bool)."""
    return call("_np_any", a, out=out, axis=_axes(axis), keepdims=keepdims)


def sometrue(a: ndarray, axis: Any = None, out: Any = None, keepdims: bool = False) -> ndarray:
    """Whether any element along ``axis`` is true (bool): MXNet's ``_np_sometrue``."""
    return call("_np_sometrue", a, out=out, axis=_axes(axis), keepdims=keepdims)


__all__.append("sometrue")


def cumsum(a: ndarray, axis: int | None = None, dtype: Any = None, out: Any = None) -> ndarray:
    """Cumulative sum along ``axis`` (of the flattened array when None)."""
    return call("_np_cumsum", a, out=out, axis=axis, dtype=_dt(dtype))


# ---- products ----------------------------------------------------------------------------


def dot(a: ndarray, b: ndarray, out: Any = None) -> ndarray:
    """NumPy's dot: the inner product of two vectors (zero-dim), matrix products, and sums
    over the last axis of ``a`` and the second-to-last of ``b``."""
    return call("_np_dot", a, b, out=out)


def matmul(a: ndarray, b: ndarray, out: Any = None) -> ndarray:
    """Matrix product over the last two axes, batch axes broadcast (``a @ b``)."""
    return call("_npi_matmul", a, b, out=out)


def tensordot(a: ndarray, b: ndarray, axes: Any = 2) -> ndarray:
    """Sum of products over the last ``axes`` axes of ``a`` and the first of ``b``, or over the
    axis lists ``axes = (a_axes, b_axes)``."""
    if isinstance(axes, (int, np.integer)):
        return call("_npi_tensordot_int_axes", a, b, axes=int(axes))
    a_axes, b_axes = axes
    a_axes = (a_axes,) if isinstance(a_axes, int) else tuple(a_axes)
    b_axes = (b_axes,) if isinstance(b_axes, int) else tuple(b_axes)
    return call("_npi_tensordot", a, b, a_axes_summed=a_axes, b_axes_summed=b_axes)


def inner(a: ndarray, b: ndarray) -> ndarray:
    """Inner product over the last axes of ``a`` and ``b``."""
    return tensordot(a, b, ([-1], [-1]))


def outer(a: ndarray, b: ndarray) -> ndarray:
    """Outer product of the flattened ``a`` and ``b``."""
    return tensordot(a.reshape(-1), b.reshape(-1), 0)


# ---- shapes ------------------------------------------------------------------------------


def reshape(a: ndarray, newshape: Any, order: str = "C") -> ndarray:
    """``a`` with a new shape (one dimension may be -1)."""
    return a.reshape(newshape, order=order)


def ravel(x: ndarray, order: str = "C") -> ndarray:
    """``x`` flattened to one dimension."""
    return x.reshape(-1)


def transpose(a: ndarray, axes: Any = None) -> ndarray:
    """``a`` with its axes permuted (reversed by default)."""
    return call("_np_transpose", a, axes=None if axes is None else tuple(axes))


def swapaxes(a: ndarray, axis1: int, axis2: int) -> ndarray:
    """``a`` with two axes interchanged."""
    return call("_npi_swapaxes", a, dim1=axis1, dim2=axis2)


def moveaxis(a: ndarray, source: Any, destination: Any) -> ndarray:
    """``a`` with axes moved to new positions."""
    return call("_np_moveaxis", a, source=_axes(source), destination=_axes(destination))


def expand_dims(a: ndarray, axis: int) -> ndarray:
    """``a`` with a new axis of size one at ``axis``."""
    return call("_npi_expand_dims", a, axis=axis)


def squeeze(x: ndarray, axis: Any = None) -> ndarray:
    """``x`` without its axes of size one (all, or those in ``axis``)."""
    return call("_np_squeeze", x, axis=_axes(axis))


def broadcast_to(array: ndarray, shape: Any) -> ndarray:  # noqa: A002
    """``array`` broadcast to ``shape`` (a tuple, or an int for 1-D); a scalar gives
    ``full(shape, array)``."""
    shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(shape)
    if isinstance(array, NUMERIC):
        return full(shape, array)
    return call("_npi_broadcast_to", array, shape=shape)


def concatenate(seq: Sequence[ndarray], axis: int | None = 0, out: Any = None) -> ndarray:
    """Join arrays along an existing axis (flattened first when ``axis`` is None)."""
    seq = list(seq)
    return call("_npi_concatenate", *seq, out=out, num_args=len(seq), axis=axis)


def stack(arrays: Sequence[ndarray], axis: int = 0, out: Any = None) -> ndarray:
    """Join arrays of one shape along a new axis."""
    arrays = list(arrays)
    return call("_npi_stack", *arrays, out=out, num_args=len(arrays), axis=axis)


def vstack(arrays: Sequence[ndarray], out: Any = None) -> ndarray:
    """Stack arrays row-wise (1-D arrays become rows)."""
    arrays = list(arrays)
    return call("_npi_vstack", *arrays, out=out, num_args=len(arrays))


def hstack(arrays: Sequence[ndarray]) -> ndarray:
    """Stack arrays column-wise (along axis 1; axis 0 for 1-D arrays)."""
    arrays = list(arrays)
    return call("_npi_hstack", *arrays, num_args=len(arrays))


def split(ary: ndarray, indices_or_sections: Any, axis: int = 0) -> list[ndarray]:
    """Split into equal sections (an int, which must divide the axis) or at the given
    indices; always a list."""
    if isinstance(indices_or_sections, (int, np.integer)) and not isinstance(ary, ndarray):
        res = call("_npi_split", ary, indices=(), axis=axis, squeeze_axis=False,
                   sections=int(indices_or_sections))  # fmt: skip
        return list(res) if isinstance(res, (list, tuple)) else [res]
    if isinstance(indices_or_sections, (int, np.integer)):
        n = ary.shape[axis]
        sections = int(indices_or_sections)
        if sections <= 0 or n % sections:
            raise ValueError(f"split: array split does not result in an equal division "
                             f"({n} into {sections}).")  # fmt: skip
        cuts = [i * (n // sections) for i in range(sections)]
    else:
        cuts = [0, *(int(i) for i in indices_or_sections)]
    return _split_at(ary, cuts, axis)


def array_split(ary: ndarray, indices_or_sections: Any, axis: int = 0) -> list[ndarray]:
    """As :func:`split`, but the sections may differ in size by one (the first ones longer)."""
    if isinstance(indices_or_sections, (int, np.integer)):
        res = call("_npi_split", ary, indices=(), axis=axis, squeeze_axis=False,
                   sections=int(indices_or_sections))  # fmt: skip
        return list(res) if isinstance(res, (list, tuple)) else [res]
    return _split_at(ary, [0, *(int(i) for i in indices_or_sections)], axis)


def _split_at(ary: ndarray, cuts: list[int], axis: int) -> list[ndarray]:
    res = call("_npi_split", ary, indices=tuple(cuts), axis=axis, squeeze_axis=False,
               sections=0)  # fmt: skip
    return list(res) if isinstance(res, (list, tuple)) else [res]


def tile(A: ndarray, reps: Any) -> ndarray:  # noqa: N803
    """``A`` repeated ``reps`` times along each axis."""
    reps = (reps,) if isinstance(reps, (int, np.integer)) else tuple(reps)
    return call("_npi_tile", A, reps=reps)


def repeat(a: ndarray, repeats: int, axis: int | None = None) -> ndarray:
    """Each element of ``a`` repeated ``repeats`` times (flattened first when ``axis`` is
    None)."""
    return call("_np_repeat", a, repeats=repeats, axis=axis)


def flip(m: ndarray, axis: Any = None, out: Any = None) -> ndarray:
    """``m`` with the order of elements reversed along ``axis`` (all axes when None)."""
    return call("_npi_flip", m, out=out, axis=_axes(axis))


def take(a: ndarray, indices: Any, axis: int | None = None, mode: str = "raise",
         out: Any = None) -> ndarray:  # fmt: skip
    """Elements of ``a`` at ``indices`` along ``axis`` (of the flattened array when None);
    ``a`` and ``indices`` may be symbols (a hybridized block's ``F.np.take``)."""
    if mode not in ("wrap", "clip", "raise"):
        raise NotImplementedError(f"take: argument 'mode' must be 'wrap', 'clip' or 'raise', "
                                  f"got {mode!r}.")  # fmt: skip
    if isinstance(a, ndarray) and not isinstance(indices, ndarray):
        indices = array(indices, dtype=np.int64, ctx=a.context)
    src = a.reshape(-1) if axis is None else a
    return call("_npi_take", src, indices, out=out, axis=0 if axis is None else axis, mode=mode)


def sort(a: ndarray, axis: int | None = -1, kind: Any = None, order: Any = None) -> ndarray:
    """``a`` sorted along ``axis`` (the flattened array when None)."""
    if order is not None:
        raise NotImplementedError("sort: argument 'order' is not supported.")
    return call("_npi_sort", a.reshape(-1) if axis is None else a, axis=-1 if axis is None
                else axis)  # fmt: skip


def argsort(a: ndarray, axis: int | None = -1, kind: Any = None, order: Any = None) -> ndarray:
    """The int64 indices that sort ``a`` along ``axis`` (the flattened array when None)."""
    if order is not None:
        raise NotImplementedError("argsort: argument 'order' is not supported.")
    src = a.reshape(-1) if axis is None else a
    return call("_npi_argsort", src, axis=-1 if axis is None else axis, dtype="int64")


def copy(a: ndarray) -> ndarray:
    """A copy of ``a``."""
    return a.copy()


def around(x: ndarray, decimals: int = 0, out: Any = None) -> ndarray:
    """``x`` rounded to ``decimals`` places (halves to even)."""
    return call("_npi_around", x, out=out, decimals=decimals)


round = around  # noqa: A001


def nonzero(a: ndarray) -> tuple[ndarray, ...]:
    """The indices of the non-zero elements, one int64 array per axis."""
    return a.nonzero()


def ndim(a: Any) -> int:
    """The number of dimensions of ``a``."""
    return a.ndim if isinstance(a, ndarray) else np.ndim(a)


def shape(a: Any) -> tuple[int, ...]:
    """The shape of ``a``."""
    return a.shape if isinstance(a, ndarray) else np.shape(a)


def size(a: Any, axis: int | None = None) -> int:
    """The number of elements of ``a`` (along ``axis``)."""
    if axis is not None:
        return shape(a)[axis]
    return a.size if isinstance(a, ndarray) else np.size(a)
