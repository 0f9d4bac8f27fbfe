"""``NDArray.__getitem__`` / ``__setitem__`` as MXNet 1.9.1 does them.

* An int, or a slice with step 1, on the first axis gives a *view* that shares memory (and the
  engine var) with the array; indexing a 1-D array with an int gives shape ``(1,)``.
* Any other basic key (steps, tuples, Ellipsis, None) gives a *copy*; a result that lost every
  axis has shape ``(1,)``, as MXNet's legacy arrays have no 0-d form.
* Keys holding NDArrays, NumPy arrays or lists index advanced-style (a gather), copies too.

A basic NumPy view is pure metadata, so it is computed on the calling thread without waiting
for pending writes; the data is read only by the engine function that makes a copy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base import MXNetError, ShapeError, numeric_types
from ..engine import get as _engine
from ..engine import small_enough_inline
from . import invoke as _invoke
from .ndarray import NDArray, _new, _wrap, array_from_numpy

__all__ = ["getitem", "setitem"]

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


def _recording(x: NDArray) -> bool:
    return _invoke._state[0] and x._ag is not None


def _recorded_getitem(x: NDArray, key: Any) -> NDArray:
    """Indexing while autograd records ``x``: through operators, so gradients flow (MXNet's
    SliceWithRecord / AtWithRecord)."""
    from . import op

    if _is_advanced(key):
        if isinstance(key, tuple) and len(key) != 1:
            raise MXNetError(
                "NDArray indexing with several index arrays is not supported "
                "while recording; use mx.nd.gather_nd."
            )
        idx = key[0] if isinstance(key, tuple) else key
        if not isinstance(idx, NDArray):
            idx = array_from_numpy(np.asarray(idx, dtype=np.float32), x.context)
        return op.take(x, idx, axis=0)
    items = key if isinstance(key, tuple) else (key,)
    if any(k is None or k is Ellipsis for k in items) or len(items) > x.ndim:
        raise MXNetError(f"NDArray indexing with {key!r} is not supported while recording.")
    begin, end, step, dropped = [], [], [], []
    for axis, k in enumerate(items):
        if isinstance(k, _INT) and not isinstance(k, bool):
            n = x.shape[axis]
            if not -n <= k < n:
                raise IndexError(f"index {int(k)} is out of bounds for axis {axis} with size {n}")
            k = int(k) % n
            begin.append(k)
            end.append(k + 1)
            step.append(1)
            dropped.append(axis)
        elif isinstance(k, slice):
            b, e, st = k.indices(x.shape[axis])
            begin.append(b)
            end.append(e)
            step.append(st)
        else:
            raise IndexError(f"NDArray: unsupported index {k!r}")
    out = op.slice(x, begin=tuple(begin), end=tuple(end), step=tuple(step))
    if dropped:
        shape = tuple(n for i, n in enumerate(out.shape) if i not in dropped) or (1,)
        out = op.Reshape(out, shape=shape)
    return out


def getitem(x: NDArray, key: Any) -> NDArray:
    if _recording(x):
        return _recorded_getitem(x, key)
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
        return _wrap(x._chunk, x._data[key], x.writable)
    if _is_advanced(key):
        return _gather(x, _index_values(key))
    try:
        view = x._data[key]
    except (IndexError, TypeError) as exc:
        raise IndexError(f"NDArray: cannot index shape {x.shape} with {key!r}: {exc}") from None
    out = _new(view.shape if view.ndim else (1,), x._data.dtype, x.context)
    dst = out._data if view.ndim else out._data.reshape(())

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


def setitem(x: NDArray, key: Any, value: Any) -> None:
    if not x.writable:
        raise ValueError("NDArray.__setitem__: this array is not writable.")
    if _recording(x):
        raise MXNetError(
            "NDArray.__setitem__: Inplace operations (+=, -=, x[:]=, etc) are not supported "
            "when recording with autograd: the array is part of the recorded graph."
        )
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
        try:
            arr = np.array(value, dtype=data.dtype)  # a copy: later changes by the caller
        except (TypeError, ValueError) as exc:
            raise MXNetError(
                f"NDArray.__setitem__: cannot assign {type(value).__name__}: {exc}"
            ) from None
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
