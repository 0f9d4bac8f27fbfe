"""More ``mx.np`` functions, each running its registered operator through
:func:`~mxlite.numpy.multiarray.call` (so it composes symbols too): ``insert``, ``delete``,
``unique``, ``diag_indices_from``, ``unravel_index``, ``ediff1d``, ``histogram``, ``pad``,
``resize``, ``sometrue``, and the creation functions ``indices``, ``logspace``, ``hanning``,
``hamming`` and ``blackman`` (:class:`Creation`, whose :data:`symbolic` instance gives
``mx.sym.np`` the same functions building symbols).
"""

from __future__ import annotations

from typing import Any

import numpy as onp

from ..operator.numpy.dtypes import FLOAT32
from ..symbol import Symbol
from .creation import _ctx, _dtype
from .functions import any as _any
from .multiarray import NUMERIC, call, is_tensor, ndarray
from .random import _compose

__all__ = [
    "insert", "delete", "unique", "diag_indices_from", "unravel_index", "ediff1d", "histogram",
    "pad", "resize", "sometrue", "indices", "logspace", "hanning", "hamming", "blackman",
]  # fmt: skip

_INTEGER = (int, onp.integer)


def _is_int(x: Any) -> bool:
    return isinstance(x, _INTEGER) and not isinstance(x, (bool, onp.bool_))


def _slice_params(obj: slice) -> dict[str, Any]:
    return {"start": obj.start, "stop": obj.stop, "step": 1 if obj.step is None else obj.step}


def insert(arr: ndarray, obj: Any, values: Any, axis: int | None = None) -> ndarray:
    """Insert ``values`` along ``axis`` before the positions ``obj`` (an int, a slice or an
    int64 array of indices); with ``axis`` None ``arr`` is flattened first. The result has
    ``arr``'s dtype. Not differentiable (MXNet has no gradient for it)."""
    if not is_tensor(arr):
        raise TypeError(f"insert: argument 'arr' must be an ndarray, got {type(arr).__name__}.")
    if isinstance(values, NUMERIC):
        inputs, params = (arr,), {"val": float(values)}
    elif is_tensor(values):
        inputs, params = (arr, values), {}
    else:
        raise TypeError(f"insert: argument 'values' must be a number or an ndarray, got "
                        f"{type(values).__name__}.")  # fmt: skip
    if isinstance(obj, slice):
        return call("_npi_insert_slice", *inputs, axis=axis, **params, **_slice_params(obj))
    if _is_int(obj):
        return call("_npi_insert_scalar", *inputs, int_ind=int(obj), axis=axis, **params)
    if is_tensor(obj):
        return call("_npi_insert_tensor", *inputs, obj, axis=axis, **params)
    raise TypeError(f"insert: argument 'obj' must be an int, a slice or an ndarray, got "
                    f"{type(obj).__name__}.")  # fmt: skip


def delete(arr: ndarray, obj: Any, axis: int | None = None) -> ndarray:
    """``arr`` without the sub-arrays along ``axis`` at ``obj`` (an int, a slice or an integer
    array, whose indices outside ``[0, N)`` are ignored, as in MXNet); with ``axis`` None
    ``arr`` is flattened first. Not differentiable (MXNet has no gradient for it)."""
    if not is_tensor(arr):
        raise TypeError(f"delete: argument 'arr' must be an ndarray, got {type(arr).__name__}.")
    if isinstance(obj, slice):
        return call("_npi_delete", arr, axis=axis, **_slice_params(obj))
    if _is_int(obj):
        return call("_npi_delete", arr, int_ind=int(obj), axis=axis)
    if is_tensor(obj):
        return call("_npi_delete", arr, obj, axis=axis)
    raise TypeError(f"delete: argument 'obj' must be an int, a slice or an ndarray, got "
                    f"{type(obj).__name__}.")  # fmt: skip


def unique(ar: ndarray, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: int | None = None) -> Any:  # fmt: skip
    """The sorted unique elements of ``ar`` (of the flattened array when ``axis`` is None, else
    the unique sub-arrays along ``axis``), and, as asked, the int64 indices of their first
    occurrences, the inverse indices that rebuild ``ar`` (of ``ar``'s shape under NumPy 2 when
    ``axis`` is None, as NumPy's) and their counts: one array, or a tuple of them."""
    res = call("_npi_unique", ar, return_index=return_index, return_inverse=return_inverse,
               return_counts=return_counts, axis=axis)  # fmt: skip
    if not isinstance(res, (list, tuple)):
        return res
    return tuple(res)


def diag_indices_from(arr: ndarray) -> Any:
    """The indices of the main diagonal of ``arr`` (all dimensions equal): a tuple of
    ``arr.ndim`` int64 arrays (on a symbol, one symbol of shape (ndim, n))."""
    res = call("_npi_diag_indices_from", arr)
    return res if isinstance(res, Symbol) else tuple(res[i] for i in range(arr.ndim))


def unravel_index(indices: Any, shape: Any, order: str = "C") -> Any:
    """Flat indices into an array of ``shape`` as a tuple of coordinate arrays (in the indices'
    dtype); a Python number gives NumPy's tuple of scalars. Only C order."""
    if order != "C":
        raise NotImplementedError("unravel_index: only order='C' is supported, got "
                                  f"{order!r}.")  # fmt: skip
    if isinstance(indices, NUMERIC):
        return onp.unravel_index(indices, shape)
    shape = (int(shape),) if _is_int(shape) else tuple(int(d) for d in shape)
    res = call("_npi_unravel_index_fallback", indices, shape=shape)
    return tuple(res[i] for i in range(len(shape)))


def ediff1d(ary: ndarray, to_end: Any = None, to_begin: Any = None) -> ndarray:
    """The differences between consecutive elements of the flattened ``ary``, with
    ``to_begin`` prepended and ``to_end`` appended (each an array of ``ary``'s dtype, a number
    or None)."""
    arrays = [ary]
    begin, end = is_tensor(to_begin), is_tensor(to_end)
    if begin:
        arrays.append(to_begin)
    if end:
        arrays.append(to_end)
    return call("_npi_ediff1d", *arrays, to_begin_arr_given=begin, to_end_arr_given=end,
                to_begin_scalar=None if begin or to_begin is None else float(to_begin),
                to_end_scalar=None if end or to_end is None else float(to_end))  # fmt: skip


def histogram(a: ndarray, bins: Any = 10, range: Any = None, normed: Any = None,  # noqa: A002
              weights: Any = None, density: Any = None) -> list:  # fmt: skip
    """The counts (int64) of ``a``'s values in ``bins`` equal bins over ``range`` (which must be
    given), or in the bins whose edges the array ``bins`` holds; and the bin edges."""
    for name, value in (("normed", normed is True), ("weights", weights is not None),
                        ("density", density is True)):  # fmt: skip
        if value:
            raise NotImplementedError(f"histogram: argument {name!r} is not supported.")
    if isinstance(bins, NUMERIC):
        if range is None:
            raise NotImplementedError("histogram: automatic range is not supported; give "
                                      "'range'.")  # fmt: skip
        return call("_npi_histogram", a, bin_cnt=int(bins), range=tuple(range))
    if is_tensor(bins):
        return call("_npi_histogram", a, bins)
    raise NotImplementedError(f"histogram: argument 'bins' of type {type(bins).__name__} is not "
                              "supported; give an int or an ndarray of edges.")  # fmt: skip


# np.pad's modes MXNet 1.9.1 runs, and the keyword each of them takes
_PAD_KWARGS = {"constant": ("constant_values",), "edge": (), "reflect": ("reflect_type",),
               "symmetric": ("reflect_type",), "maximum": ("stat_length",),
               "minimum": ("stat_length",)}  # fmt: skip


def pad(x: ndarray, pad_width: Any = None, mode: str = "constant", **kwargs: Any) -> ndarray:
    """``x`` padded at the edges of each axis by ``pad_width`` (a tuple: ``((before, after),
    ...)``, ``((before, after),)`` or ``(n,)``), in ``mode`` 'constant' (with
    ``constant_values``, a number; 0 by default), 'edge', 'reflect', 'symmetric' (with
    ``reflect_type`` 'even'), 'maximum' or 'minimum' (over the whole axis). Differentiable: the
    gradient is the head gradient's interior, in every mode, as MXNet's. (MXNet 1.9.1's
    front end drops ``constant_values`` and pads with 0; mxlite pads with it, as NumPy.)"""
    if onp.asarray(pad_width).dtype.kind not in "iu":
        raise TypeError("pad: argument 'pad_width' must be of integral type.")
    if not isinstance(pad_width, tuple):
        raise TypeError(f"pad: argument 'pad_width' must be a tuple, got "
                        f"{type(pad_width).__name__}.")  # fmt: skip
    if callable(mode) or mode not in _PAD_KWARGS:
        raise ValueError(f"pad: mode {mode!r} is not supported; use one of "
                         f"{', '.join(_PAD_KWARGS)}.")  # fmt: skip
    extra = set(kwargs) - set(_PAD_KWARGS[mode])
    if extra:
        raise ValueError(f"pad: unsupported keyword arguments for mode {mode!r}: "
                         f"{sorted(extra)}.")  # fmt: skip
    if mode == "constant":
        value = kwargs.get("constant_values", 0)
        if not isinstance(value, NUMERIC):
            raise TypeError(f"pad: argument 'constant_values' must be a number, got "
                            f"{type(value).__name__}.")  # fmt: skip
        return call("_npi_pad", x, pad_width=pad_width, mode=mode, constant_value=float(value))
    if kwargs.get("reflect_type", "even") not in ("even", None):
        raise ValueError(f"pad: reflect_type {kwargs['reflect_type']!r} is not supported.")
    if kwargs.get("stat_length") is not None:
        raise ValueError(f"pad: stat_length {kwargs['stat_length']!r} is not supported.")
    return call("_npi_pad", x, pad_width=pad_width, mode=mode)


def resize(a: ndarray, new_shape: Any) -> ndarray:
    """An array of ``new_shape`` filled with ``a``'s elements repeated in C order (zeros when
    ``a`` is empty), as NumPy's ``resize``."""
    shape = (int(new_shape),) if _is_int(new_shape) else tuple(int(d) for d in new_shape)
    return call("_npi_resize_fallback", a, new_shape=shape)


def sometrue(a: ndarray, axis: Any = None, out: Any = None, keepdims: bool = False) -> ndarray:
    """Whether any element along ``axis`` is true: :func:`any`."""
    return _any(a, axis=axis, out=out, keepdims=keepdims)


class Creation:
    """The creation functions with no array argument, run through ``call``: on arrays
    (:func:`.multiarray.call`) for ``mx.np``, composed into symbols for ``mx.sym.np``."""

    def __init__(self, call: Any) -> None:
        self._call = call

    def indices(self, dimensions: Any, dtype: Any = onp.int32, ctx: Any = None) -> ndarray:
        """An array of grid indices of shape ``(len(dimensions), *dimensions)``; ``out[i]``
        holds the index along axis ``i`` (int32 by default)."""
        if not isinstance(dimensions, (tuple, list)):
            raise ValueError(f"indices: argument 'dimensions' must be a sequence of ints, got "
                             f"{dimensions!r}.")  # fmt: skip
        return self._call("_npi_indices", ctx=_ctx(ctx), dimensions=tuple(dimensions),
                          dtype=_dtype(dtype, onp.dtype(onp.int32)).name)  # fmt: skip

    def logspace(self, start: float, stop: float, num: int = 50, endpoint: bool = True,
                 base: float = 10.0, dtype: Any = None, axis: int = 0,
                 ctx: Any = None) -> ndarray:  # fmt: skip
        """``num`` numbers from ``base ** start`` to ``base ** stop`` (the last left out when
        ``endpoint`` is False), evenly spaced in the exponent; float32 by default. ``start``
        and ``stop`` must be numbers and ``axis`` 0."""
        if not isinstance(start, NUMERIC) or not isinstance(stop, NUMERIC):
            raise NotImplementedError("logspace: 'start' and 'stop' must be numbers.")
        if axis != 0:
            raise NotImplementedError(f"logspace: only axis 0 is supported, got {axis}.")
        return self._call("_npi_logspace", ctx=_ctx(ctx), start=float(start), stop=float(stop),
                          num=int(num), endpoint=endpoint, base=float(base),
                          dtype=_dtype(dtype).name)  # fmt: skip

    def _window(self, op: str, M: int, dtype: Any, ctx: Any) -> ndarray:  # noqa: N803
        return self._call(op, ctx=_ctx(ctx), M=int(M), dtype=_dtype(dtype, FLOAT32).name)

    def hanning(self, M: int, dtype: Any = onp.float32, ctx: Any = None) -> ndarray:  # noqa: N803
        """The Hann window of ``M`` points (empty for ``M <= 0``); float32 by default."""
        return self._window("_npi_hanning", M, dtype, ctx)

    def hamming(self, M: int, dtype: Any = onp.float32, ctx: Any = None) -> ndarray:  # noqa: N803
        """The Hamming window of ``M`` points (empty for ``M <= 0``); float32 by default."""
        return self._window("_npi_hamming", M, dtype, ctx)

    def blackman(self, M: int, dtype: Any = onp.float32, ctx: Any = None) -> ndarray:  # noqa: N803
        """The Blackman window of ``M`` points (empty for ``M <= 0``); float32 by default."""
        return self._window("_npi_blackman", M, dtype, ctx)


_ARRAYS = Creation(call)
indices = _ARRAYS.indices
logspace = _ARRAYS.logspace
hanning = _ARRAYS.hanning
hamming = _ARRAYS.hamming
blackman = _ARRAYS.blackman

_SYMBOLS = Creation(_compose)  # mx.sym.np.random's composer
# mx.sym.np's creation functions of this module
symbolic = {name: getattr(_SYMBOLS, name) for name in
            ("indices", "logspace", "hanning", "hamming", "blackman")}  # fmt: skip
