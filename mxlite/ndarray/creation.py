"""Creating NDArrays: ``array``, ``empty``, ``zeros``, ``ones``, ``full``, ``arange``, ...

A new array has no pending functions, so filling it from host data is done at once on the
calling thread; fills of a constant are pushed like any other write.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..base import DTypeError, MXNetError, ParamError, ShapeError, storage_dtype
from ..context import Context, current_context
from ..engine import get as _engine
from ..engine import small_enough_inline
from ..operator import registry
from ..util import is_np_shape
from .invoke import invoke
from .ndarray import NDArray, _Chunk, _new, _wrap, array_from_numpy

__all__ = [
    "array",
    "empty",
    "zeros",
    "ones",
    "full",
    "arange",
    "linspace",
    "eye",
    "from_numpy",
    "moveaxis",
]

_DEFAULT_DTYPE = np.dtype(np.float32)


def _shape(where: str, shape: Any) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    try:
        out = tuple(int(n) for n in shape)
    except (TypeError, ValueError):
        raise MXNetError(
            f"{where}: argument 'shape' must be an int or a tuple of ints, got {shape!r}."
        ) from None
    if any(n < 0 for n in out):
        raise MXNetError(f"{where}: argument 'shape' must not be negative, got {out}.")
    return out


def _dtype(where: str, dtype: Any) -> np.dtype:
    if dtype is None:
        return _DEFAULT_DTYPE
    try:
        return storage_dtype(dtype)
    except TypeError:
        raise MXNetError(f"{where}: argument 'dtype' is not a dtype: {dtype!r}.") from None


def _fill(arr: NDArray, value: Any, op_name: str = "_full") -> NDArray:
    """Push the fill of ``arr`` with ``value``, named as MXNet's operator (profiler names)."""
    data = arr._data

    def run(rctx: Any) -> None:
        data.fill(value)

    inline = small_enough_inline(arr.context, (data,))
    _engine().push_sync(run, arr.context, (), (arr._chunk.var,), 0, op_name, inline=inline)
    return arr


def empty(
    shape: Any, ctx: Context | None = None, dtype: Any = None, stype: str | None = None
) -> NDArray:
    """A new array with undefined contents. ``dtype`` defaults to float32; ``stype``
    'row_sparse' or 'csr' makes a sparse array with no stored values."""
    if stype not in (None, "default"):
        from .sparse import empty as sparse_empty

        return sparse_empty(stype, shape, ctx=ctx, dtype=dtype)
    return _new(_shape("empty", shape), _dtype("empty", dtype), ctx or current_context())


def _legacy_shape_check(where: str, shape: tuple[int, ...]) -> None:
    """Without NumPy shape semantics MXNet's creation operators read a 0 dimension, and the
    shape (), as "unknown", and their shape inference fails; ``empty`` and ``array`` are no
    operators and make such arrays all the same."""
    if (not shape or 0 in shape) and not is_np_shape():
        raise ShapeError(
            f"{where}: argument 'shape' is {shape}; without NumPy shape semantics a 0 "
            "dimension or the shape () means 'unknown', so the shape cannot be inferred. "
            "Create zero-size and 0-d arrays inside mx.np_shape(True)."
        )


def _create(
    where: str, value: int, shape: Any, ctx: Context | None, dtype: Any, kwargs: dict
) -> NDArray:
    out = kwargs.pop("out", None)
    kwargs.pop("name", None)  # the operator's name= only labels the call in MXNet
    for key in [k for k in kwargs if k.startswith("__") and k.endswith("__")]:
        del kwargs[key]  # attributes such as __layout__ (Gluon's state_info) label it too
    if kwargs:
        raise ParamError(
            f"{where}: unknown argument {next(iter(kwargs))!r}; {where} takes shape, ctx, "
            "dtype, stype and out."
        )
    shp, dt = _shape(where, shape), _dtype(where, dtype)
    _legacy_shape_check(where, shp)
    if out is None:
        return _fill(_new(shp, dt, ctx or current_context()), value, f"_{where}")
    if not isinstance(out, NDArray):
        raise MXNetError(f"{where}: argument 'out' must be an NDArray, got {type(out).__name__}.")
    if out.shape != shp:
        raise ShapeError(f"{where}: argument 'out' has shape {out.shape}; expected {shp}.")
    if out._data.dtype != dt:
        raise DTypeError(
            f"{where}: argument 'out' has dtype {out._data.dtype.name}; expected "
            f"{dt.name} (pass dtype= to match)."
        )
    return _fill(out, value, f"_{where}")


def zeros(
    shape: Any, ctx: Context | None = None, dtype: Any = None, stype: Any = None, **kwargs: Any
) -> NDArray:
    """A new array of zeros (``mx.nd.zeros``), or ``out=`` filled with zeros; ``dtype``
    defaults to float32. ``stype`` 'row_sparse' or 'csr' makes a sparse array."""
    if stype not in (None, "default"):
        from .sparse import zeros as sparse_zeros

        return sparse_zeros(stype, shape, ctx=ctx, dtype=dtype, **kwargs)
    return _create("zeros", 0, shape, ctx, dtype, kwargs)


def ones(
    shape: Any, ctx: Context | None = None, dtype: Any = None, stype: Any = None, **kwargs: Any
) -> NDArray:
    """A new array of ones (``mx.nd.ones``), or ``out=`` filled with ones; ``dtype`` defaults
    to float32. ``stype`` is accepted for MXNet's signature; arrays are dense."""
    return _create("ones", 1, shape, ctx, dtype, kwargs)


def full(
    shape: Any, val: Any, ctx: Context | None = None, dtype: Any = None, out: NDArray | None = None
) -> NDArray:
    """A new array (or ``out``, whatever ``shape`` says) filled with ``val``."""
    if out is None:
        shp = _shape("full", shape)
        if not shp:  # MXNet skips the fill of a zero-size array, but fills a 0-d one
            _legacy_shape_check("full", shp)
        out = _new(shp, _dtype("full", dtype), ctx or current_context())
    return _fill(out, val)


def array(source_array: Any, ctx: Context | None = None, dtype: Any = None) -> NDArray:
    """An NDArray holding a copy of ``source_array`` (a list, NumPy array or NDArray).

    ``dtype`` defaults to the source's dtype for an NDArray and to float32 otherwise, as in
    MXNet (a NumPy int64 array becomes float32 unless ``dtype`` says otherwise).
    """
    if (isinstance(source_array, NDArray) and source_array.stype != "default") or (
        hasattr(source_array, "tocsr") and not isinstance(source_array, NDArray)
    ):
        from .sparse import array as sparse_array

        return sparse_array(source_array, ctx=ctx, dtype=dtype)
    ctx = ctx or current_context()
    if isinstance(source_array, NDArray):
        dt = source_array._data.dtype if dtype is None else storage_dtype(dtype)
        return source_array.copyto(_new(source_array.shape, dt, ctx))
    try:
        src = np.asarray(source_array)
    except (TypeError, ValueError) as exc:
        raise MXNetError(f"array: argument 'source_array' is not array-like: {exc}") from None
    if src.dtype == object:
        raise MXNetError(
            "array: argument 'source_array' must be numeric; got ragged or object data."
        )
    return array_from_numpy(src, ctx, _dtype("array", dtype))


class _WritableLoan:
    """The memory of a (read-only) NumPy array, exposed writable: MXNet's DLPack import
    writes where NumPy may not, and a NumPy view of a read-only array (one passed to
    ``from_numpy`` before) cannot be made writable. Holds the array, so the memory lives as
    long as the NDArray does."""

    def __init__(self, owner: np.ndarray) -> None:
        self.owner = owner
        iface = dict(owner.__array_interface__)
        iface["data"] = (iface["data"][0], False)  # (address, read-only flag)
        self.__array_interface__ = iface


def from_numpy(ndarray: np.ndarray, zero_copy: bool = True) -> NDArray:
    """An NDArray with the contents of a NumPy array, keeping its dtype.

    With ``zero_copy`` (a C-contiguous array) the NDArray shares the memory and, as in MXNet,
    the NumPy array is made read-only so that only the NDArray writes it.
    """
    if not isinstance(ndarray, np.ndarray):
        raise MXNetError(
            f"from_numpy: argument 'ndarray' must be a numpy.ndarray, got {type(ndarray).__name__}."
        )
    if not zero_copy:
        return array_from_numpy(ndarray, current_context())
    if not ndarray.flags.c_contiguous:
        raise ParamError(
            "from_numpy: zero_copy needs a C-contiguous array; pass "
            "numpy.ascontiguousarray(a) or zero_copy=False."
        )
    ndarray.flags.writeable = False
    return _wrap(_Chunk(current_context()), np.asarray(_WritableLoan(ndarray)))


def arange(
    start: float,
    stop: float | None = None,
    step: float = 1.0,
    repeat: int = 1,
    infer_range: bool | None = None,
    ctx: Context | None = None,
    dtype: Any = None,
) -> NDArray:
    """Evenly spaced values in [start, stop), each repeated ``repeat`` times (float32 unless
    ``dtype``); computed by the ``_arange`` operator, as MXNet does, so integer dtypes take
    MXNet's values (the start and step cast first)."""
    if step == 0:
        raise MXNetError("arange: argument 'step' must not be 0.")
    params: dict[str, Any] = {"start": start, "step": step, "repeat": repeat}
    if stop is not None:
        params["stop"] = stop
    if infer_range is not None:
        params["infer_range"] = infer_range
    if dtype is not None:
        params["dtype"] = np.dtype(_dtype("arange", dtype)).name
    prop = registry.get("_arange").get_prop(params, "arange")
    return invoke(prop, [], ctx=ctx or current_context())


def linspace(
    start: float,
    stop: float,
    num: int,
    endpoint: bool = True,
    ctx: Context | None = None,
    dtype: Any = None,
) -> NDArray:
    """``num`` evenly spaced values from start to stop."""
    vals = np.linspace(start, stop, int(num), endpoint=endpoint)
    return array_from_numpy(vals.astype(_dtype("linspace", dtype)), ctx or current_context())


def eye(N: int, M: int = 0, k: int = 0, ctx: Context | None = None, dtype: Any = None) -> NDArray:
    """A 2-D array with ones on the k-th diagonal (``M=0`` means ``M=N``)."""
    vals = np.eye(int(N), int(M) or None, int(k))
    return array_from_numpy(vals.astype(_dtype("eye", dtype)), ctx or current_context())


def moveaxis(
    tensor: NDArray, source: int | Sequence[int], destination: int | Sequence[int]
) -> NDArray:
    """Move axes of ``tensor`` to new positions (a transpose)."""
    nd = tensor.ndim

    def axes_of(arg: Any, what: str) -> list[int]:
        items = [arg] if isinstance(arg, (int, np.integer)) else list(arg)
        for a in items:
            if not -nd <= a < nd:
                raise ParamError(f"moveaxis: {what} axis {a} is out of range for a {nd}-D array.")
        return [int(a) % nd for a in items]

    src, dst = axes_of(source, "source"), axes_of(destination, "destination")
    if len(src) != len(dst) or len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ParamError(
            f"moveaxis: 'source' {source} and 'destination' {destination} must name the same "
            "number of distinct axes."
        )
    placed = dict(zip(dst, src))
    rest = iter(a for a in range(nd) if a not in src)
    axes = tuple(placed[i] if i in placed else next(rest) for i in range(nd))
    return tensor.transpose(axes=axes)


def concatenate(arrays: list[NDArray], axis: int = 0, always_copy: bool = True) -> NDArray:
    """Join arrays of equal shape (but along ``axis``) and dtype; with ``always_copy=False`` a
    single array is returned as it is."""
    if (
        not isinstance(arrays, (list, tuple))
        or not arrays
        or not all(isinstance(a, NDArray) for a in arrays)
    ):
        raise MXNetError("concatenate: argument 'arrays' must be a non-empty list of NDArrays.")
    if not always_copy and len(arrays) == 1:
        return arrays[0]
    first = arrays[0]
    for i, a in enumerate(arrays[1:], 1):
        if (
            a.shape[:axis] != first.shape[:axis]
            or a.shape[axis + 1 :] != first.shape[axis + 1 :]
            or a.dtype != first.dtype
        ):
            raise MXNetError(
                f"concatenate: array {i} has shape {a.shape} and dtype "
                f"{np.dtype(a.dtype).name}; array 0 has {first.shape} and "
                f"{np.dtype(first.dtype).name} (only axis {axis} may differ)."
            )
    from . import op

    return op.Concat(*arrays, dim=axis)
