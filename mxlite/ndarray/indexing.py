"""``NDArray.__getitem__`` / ``__setitem__`` as MXNet 1.9.1 does them.

* A basic key (ints, slices, Ellipsis, None) whose elements are contiguous in memory gives a
  *view* that shares memory (and the engine var) with the array, as MXNet's flat slice does;
  any other basic key gives a *copy*. A result that lost every axis has shape ``(1,)``, as
  MXNet's legacy arrays have no 0-d form; ``x[()]`` and ``x[:]`` are ``x`` itself.
* Keys holding NDArrays, NumPy arrays or lists index advanced-style (a gather), copies too.
* Under ``autograd.record()`` an assignment that reads or writes a recorded array is refused,
  as in MXNet, except a whole-array overwrite by a recorded value, recorded as a copy.

A basic NumPy view is pure metadata, so it is computed on the calling thread without waiting
for pending writes; the data is read only by the engine function that makes a copy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base import BFLOAT16, MX_BFLOAT16, MXNetError, ShapeError, numeric_types
from ..engine import get as _engine
from ..engine import small_enough_inline
from ..util import is_np_array
from . import invoke as _invoke
from .ndarray import NDArray, _new, _wrap, array_from_numpy, extend

__all__ = [
    "getitem", "setitem", "check_boolean_array_dimension", "get_indexing_dispatch_code",
    "get_oshape_of_gather_nd_op", "indexing_key_expand_implicit_axes",
]  # fmt: skip

_INT = (int, np.integer)


def _is_advanced(key: Any) -> bool:
    items = key if isinstance(key, tuple) else (key,)
    return any(isinstance(k, (NDArray, np.ndarray, list, range)) for k in items)


def _index_values(key: Any) -> Any:
    """Turn NDArray / list index entries into NumPy integer arrays (waiting for NDArrays)."""

    def conv(k: Any) -> Any:
        if isinstance(k, NDArray):
            k = k.asnumpy()
        if isinstance(k, (list, range, np.ndarray)):
            arr = np.asarray(k)
            if arr.dtype == bool:
                return arr
            return arr.astype(np.int64, copy=False)
        return k

    if isinstance(key, tuple):
        return tuple(conv(k) for k in key)
    return conv(key)


def _result_shape(shape: tuple[int, ...], key: Any) -> tuple[int, ...]:
    """The shape ``x[key]`` has, found on a zero-stride stand-in so that no data is read."""
    dummy = np.lib.stride_tricks.as_strided(np.zeros(1, np.uint8), shape, (0,) * len(shape))
    try:
        return dummy[key].shape
    except IndexError as exc:
        raise IndexError(
            f"NDArray index {key!r} is out of range for shape {shape}: {exc}"
        ) from None


def _slice_len(slc: slice, n: int) -> int:
    return len(range(*slc.indices(n)))


def slice_is_contiguous(slc_key: tuple, shape: tuple[int, ...]) -> bool:
    """Whether indexing an array of ``shape`` with ``slc_key`` (one slice per axis) selects
    elements that are contiguous in row-major order (MXNet's
    ``NDArray._basic_indexing_slice_is_contiguous``). From the last axis to the first: once an
    axis is cut to a proper subset, every axis before it may keep at most one element."""
    if len(slc_key) != len(shape):
        raise MXNetError(
            f"NDArray._basic_indexing_slice_is_contiguous: argument 'slc_key' has "
            f"{len(slc_key)} entries; the shape {shape} needs one slice per axis."
        )
    counts = [_slice_len(slc, n) for slc, n in zip(slc_key, shape)]
    if 0 in counts or np.prod(counts) == 1:
        return True
    is_subset = False
    for slc, n, count in zip(reversed(slc_key), reversed(shape), reversed(counts)):
        step = slc.indices(n)[2]
        if count > 1 and step != 1:  # a gap between elements, or reversed order
            return False
        if is_subset and count > 1:
            return False
        is_subset = is_subset or count < n
    return True


def _basic_slices(key: Any, shape: tuple[int, ...]) -> tuple | None:
    """``key`` as one slice per axis (ints become one-element slices; None is dropped;
    Ellipsis is filled in), or None when ``key`` is not such a basic key. Bounds are checked
    by the caller (``_result_shape``)."""
    items = key if isinstance(key, tuple) else (key,)
    if any(
        isinstance(k, bool) or not (k is None or k is Ellipsis or isinstance(k, (slice, *_INT)))
        for k in items
    ):
        return None
    if sum(k is Ellipsis for k in items) > 1:
        return None
    axes = [k for k in items if k is not None]
    if Ellipsis in axes:
        at = axes.index(Ellipsis)
        fill = [slice(None)] * (len(shape) - len(axes) + 1)
        axes = axes[:at] + fill + axes[at + 1 :]
    axes += [slice(None)] * (len(shape) - len(axes))
    out = []
    for k, n in zip(axes, shape):
        if isinstance(k, slice):
            out.append(k)
        else:
            i = int(k) % n if n else int(k)
            out.append(slice(i, i + 1))
    return tuple(out)


def _recording(x: NDArray) -> bool:
    return _invoke._state[0] and x._ag is not None


def _recorded_reshape(x: NDArray, shape: tuple[int, ...]) -> NDArray:
    """``x`` reshaped to ``shape`` as a recorded operator; a 0 in ``shape`` is an empty axis
    (``_np_reshape``), not Reshape's "copy this dimension"."""
    from . import _internal, op

    if 0 in shape:
        return _internal._np_reshape(x, newshape=shape)
    return op.Reshape(x, shape=shape)


def _recorded_getitem(x: NDArray, key: Any) -> NDArray:
    """Indexing while autograd records ``x``: through operators, so gradients flow (MXNet's
    SliceWithRecord / AtWithRecord; advanced keys gather, as MXNet's gather_nd does)."""
    from . import op

    if _is_advanced(key):
        key = _index_values(key)
        # the flat position of every element picked: one take on the flattened array covers
        # any mix of index arrays, ints, slices and None, and its gradient scatter-adds
        picked = np.arange(x.size, dtype=np.int64).reshape(x.shape)[key]
        idx = array_from_numpy(picked.reshape(-1), x.context)
        flat = op.take(op.Reshape(x, shape=(-1,)), idx, axis=0)
        return _recorded_reshape(flat, picked.shape or (1,))
    final = _result_shape(x.shape, key) or (1,)  # raises IndexError for a bad key
    slices = _basic_slices(key, x.shape)
    if slices is None:
        raise IndexError(f"NDArray: cannot index shape {x.shape} with {key!r}.")
    begin, end, step = [], [], []
    for slc, n in zip(slices, x.shape):
        b, e, st = slc.indices(n)
        begin.append(b)
        end.append(None if e < 0 else e)  # -1 (before index 0, for a negative step)
        step.append(st)
    out = op.slice(x, begin=tuple(begin), end=tuple(end), step=tuple(step))
    return out if out.shape == final else _recorded_reshape(out, final)


def getitem(x: NDArray, key: Any) -> NDArray:
    if _recording(x):
        return _recorded_getitem(x, key)
    if isinstance(key, tuple) and not key:
        return x
    if isinstance(key, _INT) and not isinstance(key, bool):
        n = x.shape[0] if x.shape else 0
        if not -n <= key < n:
            raise IndexError(f"index {int(key)} is out of bounds for axis 0 with size {n}")
        k = int(key) % n
        # a slice keeps a view even on 1-D arrays (x._data[k] would copy the scalar at once,
        # before a pending write to it has run); MXNet gives shape (1,) there anyway
        view = x._data[k : k + 1] if x.ndim == 1 else x._data[k]
        return _wrap(x._chunk, view, x.writable)
    if isinstance(key, slice) and key.step in (None, 1):
        if key.start is None and key.stop is None:
            return x
        return _wrap(x._chunk, x._data[key], x.writable)
    if _is_advanced(key):
        return _gather(x, _index_values(key))
    final = _result_shape(x.shape, key) or (1,)  # raises IndexError for a bad key
    slices = _basic_slices(key, x.shape)
    if slices is not None and slice_is_contiguous(slices, x.shape):
        # every int became a one-element slice, so NumPy gives a view (never a scalar read
        # now, before pending writes ran); it is contiguous, so the reshape is a view too
        return _wrap(x._chunk, x._data[slices].reshape(final), x.writable)
    try:
        view = x._data[key]
    except (IndexError, TypeError) as exc:
        raise IndexError(f"NDArray: cannot index shape {x.shape} with {key!r}: {exc}") from None
    out = _new(final, x._data.dtype, x.context)
    dst = out._data.reshape(view.shape)

    def run(rctx: Any) -> None:
        np.copyto(dst, view)

    inline = small_enough_inline(x.context, (view, dst))
    _engine().push_sync(
        run, x.context, (x._chunk.var,), (out._chunk.var,), 0, "slice", inline=inline
    )
    return out


def _gather(x: NDArray, key: Any) -> NDArray:
    shape = _result_shape(x.shape, key)
    out = _new(shape if shape else (1,), x._data.dtype, x.context)
    src, dst = x._data, out._data

    def run(rctx: Any) -> None:
        dst[...] = src[key]

    inline = small_enough_inline(x.context, (src, dst))
    _engine().push_sync(
        run, x.context, (x._chunk.var,), (out._chunk.var,), 0, "gather_nd", inline=inline
    )
    return out


def _covers_all(key: Any, shape: tuple[int, ...]) -> bool:
    """Whether the basic ``key`` selects every element of ``shape`` in order (MXNet then
    overwrites the whole array with a copy rather than a slice assignment)."""
    slices = _basic_slices(key, shape)
    return slices is not None and all(
        slc.indices(n)[2] > 0 and _slice_len(slc, n) == n for slc, n in zip(slices, shape)
    )


def _recorded_overwrite(x: NDArray, value: NDArray, region: tuple[int, ...]) -> None:
    """``x[key] = value`` under record(), ``value`` recorded and ``key`` selecting all of
    ``x`` as ``region`` (x's shape, with a 1 for each None of the key): a recorded copy (a
    cast, a broadcast and a reshape first where they differ), so gradients reach ``value``."""
    from . import _internal, op

    if value.dtype != x.dtype:
        value = op.Cast(value, dtype=x._data.dtype.name)
    if value.shape != region:
        trimmed = _check_broadcast(value.shape, region, slice(None))
        if value.ndim < len(region) or trimmed != value.shape:  # same number of axes
            value = _recorded_reshape(value, (1,) * (len(region) - len(trimmed)) + trimmed)
        if value.shape != region:
            if 0 in region:  # a literal 0, not broadcast_to's "keep this dimension"
                value = _internal._npi_broadcast_to(value, shape=region)
            else:
                value = op.broadcast_to(value, shape=region)
    if region != x.shape:
        value = _recorded_reshape(value, x.shape)
    op.identity(value, out=x)


_WHOLE = slice(None)


def setitem(x: NDArray, key: Any, value: Any) -> None:
    if not x.writable:
        raise ValueError("NDArray.__setitem__: this array is not writable.")
    value_recorded = _invoke._state[0] and isinstance(value, NDArray) and value._ag is not None
    if value_recorded and not _recording(x) and _covers_all(key, x.shape):
        # MXNet records a whole-array overwrite as a copy
        _recorded_overwrite(x, value, _result_shape(x.shape, key))
        return
    if _recording(x) or value_recorded:
        raise MXNetError(
            "NDArray.__setitem__: Inplace operations (+=, -=, x[:]=, etc) are not supported "
            "when recording with autograd: the array, or the value assigned, is part of the "
            "recorded graph."
        )
    if type(key) is slice and key == _WHOLE:  # x[:] = v, the common case: no stand-in
        target = x.shape if x.ndim else _result_shape(x.shape, key)
    else:
        if _is_advanced(key):
            key = _index_values(key)
        target = _result_shape(x.shape, key)
    data = x._data
    if isinstance(value, NDArray):
        src = value._data.reshape(_check_broadcast(value.shape, target, key))
        const = () if value._chunk is x._chunk else (value._chunk.var,)
        if value._chunk is x._chunk:  # the value may overlap the region: copy it first

            def run(rctx: Any) -> None:
                data[key] = src.copy()

        else:

            def run(rctx: Any) -> None:
                data[key] = src

    elif isinstance(value, numeric_types):
        const = ()

        def run(rctx: Any) -> None:
            data[key] = value

    else:
        if isinstance(value, np.ndarray) and value.dtype == MX_BFLOAT16:
            value = value.view(BFLOAT16)  # bfloat16 as asnumpy() gives it: raw bits
        try:
            arr = np.array(value, dtype=data.dtype)  # a copy: later changes by the caller
        except (TypeError, ValueError) as exc:
            raise MXNetError(
                f"NDArray.__setitem__: cannot assign {type(value).__name__}: {exc}"
            ) from None
        if arr.shape != target:
            arr = arr.reshape(_check_broadcast(arr.shape, target, key))
        const = ()

        def run(rctx: Any) -> None:
            data[key] = arr

    inline = small_enough_inline(x.context, (data,))  # the value is at most as big
    _engine().push_sync(run, x.context, const, (x._chunk.var,), 0, "_slice_assign", inline=inline)


def _check_broadcast(src: tuple[int, ...], dst: tuple[int, ...], key: Any) -> tuple[int, ...]:
    """Raise at the call when a value of shape ``src`` cannot fill a region of shape ``dst``
    (NumPy's assignment rule: broadcasting, after dropping leading 1-dims of the value)."""
    trimmed = src
    while len(trimmed) > len(dst) and trimmed[0] == 1:
        trimmed = trimmed[1:]
    try:
        if np.broadcast_shapes(trimmed, dst) == tuple(dst):
            return trimmed  # the value's shape without the leading 1-dims numpy would reject
    except ValueError:
        pass
    raise ShapeError(
        f"NDArray.__setitem__: cannot assign a value of shape {src} to the region {key!r} of "
        f"shape {dst}."
    )


extend(
    __name__,
    {
        "__getitem__": getitem,
        "__setitem__": setitem,
        # MXNet's name and arguments: whether x[slc_key] (one slice per axis) is contiguous
        "_basic_indexing_slice_is_contiguous": staticmethod(slice_is_contiguous),
    },
)


# ---- MXNet's indexing-key helpers (public in mx.nd; libraries call them) ---------------------

# what get_indexing_dispatch_code returns
_NDARRAY_UNSUPPORTED_INDEXING = -1
_NDARRAY_BASIC_INDEXING = 0
_NDARRAY_ADVANCED_INDEXING = 1
_NDARRAY_EMPTY_TUPLE_INDEXING = 2
# the second result of indexing_key_expand_implicit_axes: the 0-d boolean index in the key
_NDARRAY_NO_ZERO_DIM_BOOL_ARRAY = -1
_NDARRAY_ZERO_DIM_BOOL_ARRAY_FALSE = 0
_NDARRAY_ZERO_DIM_BOOL_ARRAY_TRUE = 1


def check_boolean_array_dimension(
    array_shape: tuple[int, ...], axis: int, bool_shape: tuple[int, ...]
) -> None:
    """Raise IndexError unless a boolean index of ``bool_shape`` fits ``array_shape`` from
    ``axis`` on (advanced boolean indexing goes through ``nonzero``, which needs it)."""
    for i, val in enumerate(bool_shape):
        if array_shape[axis + i] != val:
            raise IndexError(
                f"boolean index did not match indexed array along axis {axis + i}; size is "
                f"{array_shape[axis + i]} but corresponding boolean size is {val}"
            )


def indexing_key_expand_implicit_axes(key: Any, shape: tuple[int, ...]) -> tuple[tuple, int]:
    """Make implicit axes explicit by adding ``slice(None)`` and convert boolean arrays to
    integer arrays through ``nonzero`` (NumPy semantics only).

    Returns the expanded key and what a 0-d boolean index asks for: -1 (none), 0 (False: an
    axis of length 0) or 1 (True: a new axis).

    >>> indexing_key_expand_implicit_axes(np.s_[:2, None, 0, ...], (3, 4, 5))
    ((slice(None, 2, None), None, 0, slice(None, None, None)), -1)
    """
    key = key if isinstance(key, tuple) else (key,)
    ell_idx = None
    num_none = 0
    nonell_key: list[Any] = []
    prepend = _NDARRAY_NO_ZERO_DIM_BOOL_ARRAY
    axis = 0
    for i, idx in enumerate(key):
        if idx is Ellipsis:
            if ell_idx is not None:
                raise IndexError("Cannot use more than one ellipsis (`...`) for indexing")
            ell_idx = i
            continue
        if isinstance(idx, bool):  # as MXNet: a Python bool is a 0-d boolean array
            prepend = _NDARRAY_ZERO_DIM_BOOL_ARRAY_TRUE if idx else (
                _NDARRAY_ZERO_DIM_BOOL_ARRAY_FALSE)  # fmt: skip
            continue
        if idx is None:
            num_none += 1
        if isinstance(idx, NDArray) and idx.ndim == 0:
            if idx.dtype == np.bool_:
                prepend = _NDARRAY_ZERO_DIM_BOOL_ARRAY_TRUE if idx.asnumpy() else (
                    _NDARRAY_ZERO_DIM_BOOL_ARRAY_FALSE)  # fmt: skip
            else:  # an index held in a 0-d array (a float one is truncated)
                nonell_key.append(int(idx.asnumpy().item()))
                axis += 1
        elif isinstance(idx, NDArray) and idx.dtype == np.bool_:
            check_boolean_array_dimension(shape, axis, idx.shape)
            if not is_np_array():
                raise ValueError(
                    "Cannot perform boolean indexing in legacy mode. Please activate numpy "
                    "semantics by calling `npx.set_np()` in the global scope before calling "
                    "this function."
                )
            nonell_key.extend(idx.nonzero())
            axis += idx.ndim
        else:
            nonell_key.append(idx)
            axis += 1
    if ell_idx is None:  # too few indices: the ellipsis is implicitly at the end
        ell_idx = len(nonell_key)
    ell_ndim = len(shape) + num_none - len(nonell_key)
    expanded = tuple(nonell_key[:ell_idx]) + (slice(None),) * ell_ndim + tuple(
        nonell_key[ell_idx:])  # fmt: skip
    return expanded, prepend


def get_indexing_dispatch_code(key: tuple) -> int:
    """Returns a dispatch code for calling basic or advanced indexing functions: 0 basic
    (ints, slices, None), 1 advanced (an array, list, tuple or range in the key), 2 an empty
    tuple in the key."""
    if not isinstance(key, tuple):
        raise MXNetError(
            f"get_indexing_dispatch_code: argument 'key' must be a tuple, got {type(key).__name__}."
        )
    for idx in key:
        if isinstance(idx, (NDArray, np.ndarray, list, tuple, range)):
            if isinstance(idx, tuple) and len(idx) == 0:
                return _NDARRAY_EMPTY_TUPLE_INDEXING
            return _NDARRAY_ADVANCED_INDEXING
        if not (isinstance(idx, (slice, *_INT)) or idx is None):
            raise ValueError(
                f"NDArray does not support slicing with key {idx} of type {type(idx)}."
            )
    return _NDARRAY_BASIC_INDEXING


def get_oshape_of_gather_nd_op(dshape: tuple[int, ...], ishape: tuple[int, ...]) -> tuple:
    """Given data and index shapes, get the output `NDArray` shape (the shape rule of
    ``gather_nd``)."""
    if len(dshape) == 0 or len(ishape) == 0:
        raise ShapeError(
            f"get_oshape_of_gather_nd_op: data shape {dshape} and index shape {ishape} must "
            "both have at least one axis."
        )
    oshape = list(ishape[1:])
    if ishape[0] < len(dshape):
        oshape.extend(dshape[ishape[0] :])
    return tuple(oshape)
