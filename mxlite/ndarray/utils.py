"""``mx.nd.save``, ``mx.nd.load`` and ``mx.nd.load_frombuffer``: MXNet's binary format; and
NDArray pickling, which holds the same bytes for one array.

The byte format lives in serialization.py; here arrays are waited for before they are
written, and loaded arrays become NDArrays on the CPU (MXNet loads onto the context recorded
in the file; mxlite loads onto cpu(0) unless that context exists, as GPU arrays need CuPy).
"""

from __future__ import annotations

import os
from typing import Any

from ..base import MXNetError
from ..base import absent_names as _absent_names
from ..context import Context, cpu, current_context
from ..fileio import allow
from ..util import is_np_shape
from . import serialization
from .ndarray import NDArray, array_from_numpy, extend

__all__ = ["save", "load", "load_frombuffer"]


def _stored(v: NDArray) -> Any:
    """What the file holds for ``v``: its NumPy copy, or a sparse array's parts."""
    if v.stype != "default":
        from .sparse import sparse_parts

        return sparse_parts(v)
    return v.asnumpy()


def _numpy_of(where: str, data: Any) -> list | dict:
    if isinstance(data, NDArray):
        return [_stored(data)]
    if isinstance(data, dict):
        out = {}
        for k, v in data.items():
            if not isinstance(k, str) or not isinstance(v, NDArray):
                raise MXNetError(
                    f"{where}: argument 'data' must map str keys to NDArrays, got "
                    f"{type(k).__name__} -> {type(v).__name__}."
                )
            out[k] = _stored(v)
        return out
    if isinstance(data, (list, tuple)):
        for i, v in enumerate(data):
            if not isinstance(v, NDArray):
                raise MXNetError(
                    f"{where}: argument 'data' must hold NDArrays; item {i} is {type(v).__name__}."
                )
        return [_stored(v) for v in data]
    raise MXNetError(
        f"{where}: argument 'data' must be an NDArray, a list of NDArrays or a "
        f"dict of str to NDArray, got {type(data).__name__}."
    )


def save(fname: str | os.PathLike, data: Any) -> None:
    """Save an NDArray, a list of NDArrays or a dict of str to NDArray to ``fname`` in
    MXNet's format (readable by ``mxnet.nd.load``). The file is replaced atomically."""
    if not isinstance(fname, (str, os.PathLike)):
        raise MXNetError(f"save: argument 'fname' must be a path, got {type(fname).__name__}.")
    arrays = _numpy_of("save", data)
    values = (
        [data]
        if isinstance(data, NDArray)
        else (list(data.values()) if isinstance(data, dict) else list(data))
    )
    contexts = [(v.context.device_typeid, v.context.device_id) for v in values]
    serialization.save(fname, arrays, contexts, np_shape=is_np_shape())


def _to_nd(loaded: Any, where: str) -> list[NDArray] | dict[str, NDArray]:
    np_mode = is_np_shape()

    def one(saved: Any) -> NDArray:
        if saved.np_shape != np_mode:  # MXNet 1.9.1 refuses the other layout in each mode
            raise MXNetError(
                f"{where}: the file holds arrays saved with NumPy shape semantics "
                f"{'on' if saved.np_shape else 'off'}, and they are "
                f"{'on' if np_mode else 'off'} now; load it inside "
                f"mx.np_shape({saved.np_shape})."
            )
        ctx = cpu(0) if saved.dev_type != 1 else Context("cpu", saved.dev_id)
        if saved.sparse is not None:
            from .sparse import from_saved

            return from_saved(saved, ctx)
        return array_from_numpy(saved.data, ctx)

    if isinstance(loaded, dict):
        return {k: one(v) for k, v in loaded.items()}
    return [one(v) for v in loaded]


def load(fname: str | os.PathLike) -> list[NDArray] | dict[str, NDArray]:
    """Load what ``save`` (here or in MXNet) wrote: a list, or a dict when names were saved."""
    if not isinstance(fname, (str, os.PathLike)):
        raise MXNetError(f"load: argument 'fname' must be a path, got {type(fname).__name__}.")
    return _to_nd(serialization.load(fname), "load")


def load_frombuffer(buf: bytes | bytearray | memoryview) -> list[NDArray] | dict[str, NDArray]:
    """Load arrays from the bytes of a file written by ``save``."""
    if not isinstance(buf, (bytes, bytearray, memoryview)):
        raise MXNetError(
            f"load_frombuffer: argument 'buf' must be bytes, got {type(buf).__name__}."
        )
    return _to_nd(serialization.loads(buf), "load_frombuffer")


# ---- pickling: an NDArray pickles as MXNet's raw bytes of one array ----------------------


def _reduce(self: NDArray) -> tuple:
    # MXNet's layout: NDArray(None), then __setstate__({'handle': bytearray}); MXNet's
    # __setstate__ needs a writable buffer, hence the bytearray
    return (NDArray, (None,), self.__getstate__())


def _getstate(self: NDArray) -> dict[str, Any]:
    return {"handle": bytearray(serialization.dumps_array(self.asnumpy()))}


def _setstate(self: NDArray, state: dict[str, Any]) -> None:
    saved = serialization.loads_array(bytes(state["handle"]))
    arr = array_from_numpy(saved.data, current_context())
    self._chunk, self._data = arr._chunk, arr._data
    self.writable = True
    self._grad = None
    self._grad_req = "null"
    self._ag = None
    self._fresh_grad = False


extend(__name__, {"__reduce__": _reduce, "__getstate__": _getstate, "__setstate__": _setstate})

# Pickles that hold arrays (optimizer states) may name NDArray under mxlite's path or MXNet's.
allow(NDArray, "mxnet.ndarray.ndarray.NDArray", "mxnet.ndarray.NDArray")


# MXNet's utils.py also defines these; here they live in the package (mx.nd)
__getattr__ = _absent_names(
    "mxnet.ndarray.utils", {}, moved=("array", "empty", "zeros"), home="mxlite.ndarray"
)
