"""``mx.np`` array creation: ``array``, ``asarray``, ``zeros``, ``ones``, ``full``, ``empty``,
``arange``, ``linspace``, ``eye``, ``identity`` and the ``*_like`` functions.

MXNet's defaults: Python numbers and lists become float32 (``array([1, 2])`` is float32), a
NumPy array or scalar keeps its dtype, ``zeros``/``ones``/``arange``/``eye`` give float32 and
``full`` with a bool value gives bool.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base import MXNetError
from ..context import Context, current_context
from ..ndarray import NDArray
from ..ndarray.ndarray import array_from_numpy
from ..operator.numpy.dtypes import FLOAT32
from ..operator.numpy.init import arange_bounds
from .multiarray import as_np, call, ndarray

__all__ = [
    "array",
    "asarray",
    "zeros",
    "ones",
    "full",
    "empty",
    "arange",
    "linspace",
    "eye",
    "identity",
    "zeros_like",
    "ones_like",
    "full_like",
    "empty_like",
]


def _shape(fn: str, shape: Any) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    try:
        return tuple(int(d) for d in shape)
    except (TypeError, ValueError):
        raise MXNetError(f"{fn}: argument 'shape' must be an int or a tuple of ints, "
                         f"got {shape!r}.") from None  # fmt: skip


def _dtype(dtype: Any, default: np.dtype = FLOAT32) -> np.dtype:
    return default if dtype is None else np.dtype(dtype)


def _ctx(ctx: Any) -> Context:
    if ctx is None:
        return current_context()
    if isinstance(ctx, str):
        name, _, rest = ctx.partition("(")
        return Context(name, int(rest.rstrip(")") or 0))
    return ctx


def _c_order(fn: str, order: str) -> None:
    if order != "C":
        raise NotImplementedError(f"{fn}: only order='C' is supported, got {order!r}.")


def array(object: Any, dtype: Any = None, ctx: Context | None = None) -> ndarray:  # noqa: A002
    """An ``mx.np`` array holding a copy of ``object``.

    Parameters
    ----------
    object : array_like
        An ``mx.np``/``mx.nd`` array, a NumPy array or scalar, or (nested) Python numbers.
    dtype : str or numpy.dtype, optional
        The element type. Default: the input's for arrays and NumPy scalars, else float32.
    ctx : Context, optional
        Device of the result. Default: the current context.
    """
    if isinstance(object, NDArray):
        dt = object._data.dtype if dtype is None else np.dtype(dtype)
        target = object.context if ctx is None else _ctx(ctx)
        out = as_np(NDArray.astype(object, dt, copy=True))
        return out if target == out.context else out.copyto(target)
    if isinstance(object, (np.ndarray, np.generic)):
        src = np.asarray(object)
        dt = src.dtype if dtype is None else np.dtype(dtype)
    else:
        dt = _dtype(dtype)
        try:
            src = np.array(object, dtype=dt)
        except OverflowError:  # NumPy 1.x (MXNet's) wrapped out-of-range Python ints around
            src = np.array(object).astype(dt)
        except (TypeError, ValueError) as exc:
            raise MXNetError(f"array: cannot make an array of {type(object).__name__}: "
                             f"{exc}") from None  # fmt: skip
    return as_np(array_from_numpy(src, _ctx(ctx), dt))


def asarray(a: Any, dtype: Any = None, ctx: Context | None = None) -> ndarray:
    """``a`` itself when it is an ``mx.np`` array of ``dtype`` (any, when None), else
    :func:`array` of it."""
    if isinstance(a, ndarray) and (dtype is None or np.dtype(dtype) == a.dtype):
        return a
    return array(a, dtype=dtype, ctx=ctx)


def zeros(shape: Any, dtype: Any = None, order: str = "C", ctx: Context | None = None) -> ndarray:
    """An array of zeros of ``shape`` (float32 by default)."""
    _c_order("zeros", order)
    return call("_npi_zeros", ctx=_ctx(ctx), shape=_shape("zeros", shape),
                dtype=_dtype(dtype).name)  # fmt: skip


def ones(shape: Any, dtype: Any = None, order: str = "C", ctx: Context | None = None) -> ndarray:
    """An array of ones of ``shape`` (float32 by default)."""
    _c_order("ones", order)
    return call("_npi_ones", ctx=_ctx(ctx), shape=_shape("ones", shape),
                dtype=_dtype(dtype).name)  # fmt: skip


def empty(shape: Any, dtype: Any = None, order: str = "C", ctx: Context | None = None) -> ndarray:
    """An array of ``shape`` whose values are not set (here: zeros)."""
    return zeros(shape, dtype, order, ctx)


def full(shape: Any, fill_value: Any, dtype: Any = None, order: str = "C",
         ctx: Context | None = None, out: Any = None) -> ndarray:  # fmt: skip
    """An array of ``shape`` filled with ``fill_value`` (float32 by default; bool for a bool
    value); an array ``fill_value`` is broadcast."""
    shape = _shape("full", shape)
    if isinstance(fill_value, NDArray):
        res = call("_npi_broadcast_to", fill_value, shape=shape)
        res = res if dtype is None else res.astype(dtype)
        if out is not None:
            out[...] = res
            return out
        return res
    default = np.dtype(bool) if isinstance(fill_value, (bool, np.bool_)) else FLOAT32
    return call("_npi_full", out=out, ctx=_ctx(ctx), shape=shape, value=float(fill_value),
                dtype=_dtype(dtype, default).name)  # fmt: skip


def arange(start: Any, stop: Any = None, step: Any = 1, dtype: Any = None,
           ctx: Context | None = None) -> ndarray:  # fmt: skip
    """Evenly spaced values in [start, stop) (float32 by default; a step of None is 1)."""
    start, stop, step = arange_bounds(start, stop, step)
    return call("_npi_arange", ctx=_ctx(ctx), start=start, stop=stop, step=step,
                dtype=_dtype(dtype).name)  # fmt: skip


def linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, retstep: bool = False,
             dtype: Any = None, axis: int = 0, ctx: Context | None = None) -> Any:  # fmt: skip
    """``num`` evenly spaced values from ``start`` to ``stop``; with ``retstep`` also the step."""
    if axis != 0:
        raise MXNetError(f"linspace: argument 'axis' must be 0, got {axis}.")
    res = call("_npi_linspace", ctx=_ctx(ctx), start=float(start), stop=float(stop), num=num,
               endpoint=endpoint, dtype=_dtype(dtype).name)  # fmt: skip
    if retstep:
        div = (num - 1) if endpoint else num
        return res, (float(stop) - float(start)) / div if div > 0 else float("nan")
    return res


def eye(N: int, M: int | None = None, k: int = 0, dtype: Any = None,  # noqa: N803
        ctx: Context | None = None) -> ndarray:  # fmt: skip
    """A 2-D array with ones on the k-th diagonal (float32 by default)."""
    return call("_npi_eye", ctx=_ctx(ctx), N=N, M=M, k=k, dtype=_dtype(dtype).name)


def identity(n: int, dtype: Any = None, ctx: Context | None = None) -> ndarray:
    """The n x n identity matrix (float32 by default)."""
    return call("_npi_identity", ctx=_ctx(ctx), shape=(n, n), dtype=_dtype(dtype).name)


def full_like(a: ndarray, fill_value: Any, dtype: Any = None, order: str = "C",
              ctx: Context | None = None, out: Any = None) -> ndarray:  # fmt: skip
    """An array shaped like ``a`` filled with ``fill_value`` (``a``'s dtype by default)."""
    return call("_npi_full_like", a, out=out, fill_value=float(fill_value),
                dtype=None if dtype is None else np.dtype(dtype).name)  # fmt: skip


def zeros_like(a: ndarray, dtype: Any = None, order: str = "C", ctx: Context | None = None,
               out: Any = None) -> ndarray:  # fmt: skip
    """An array of zeros shaped like ``a``."""
    return full_like(a, 0, dtype, order, ctx, out)


def ones_like(a: ndarray, dtype: Any = None, order: str = "C", ctx: Context | None = None,
              out: Any = None) -> ndarray:  # fmt: skip
    """An array of ones shaped like ``a``."""
    return full_like(a, 1, dtype, order, ctx, out)


def empty_like(prototype: ndarray, dtype: Any = None, order: str = "C", subok: bool = False,
               shape: Any = None) -> ndarray:  # fmt: skip
    """An array shaped like ``prototype`` whose values are not set (here: zeros)."""
    if shape is not None:
        return zeros(shape, dtype if dtype is not None else prototype.dtype, ctx=prototype.ctx)
    return full_like(prototype, 0, dtype)
