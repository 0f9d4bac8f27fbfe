"""DLPack exchange: ``mx.nd.to_dlpack_for_read`` / ``to_dlpack_for_write`` hand an NDArray's
memory to another framework as a DLPack capsule (NumPy's ``__dlpack__``: no copy), and
``mx.nd.from_dlpack`` makes an NDArray from a capsule or any object with ``__dlpack__``.

The engine owns an NDArray's memory, so the capsule is made after the pending writes (for
reading) or every pending operation (for writing) have run. ``from_dlpack`` copies into a new
NDArray, which then lives in engine-managed storage like any other.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base import MXNetError
from ..context import cpu
from .ndarray import NDArray, array_from_numpy, extend

__all__ = ["to_dlpack_for_read", "to_dlpack_for_write", "from_dlpack"]


def _host_array(data: NDArray, where: str) -> np.ndarray:
    if not isinstance(data, NDArray):
        raise MXNetError(f"{where}: argument 'data' must be an NDArray, got {type(data).__name__}.")
    if data.context.device_typeid == 2:
        raise MXNetError(f"{where}: only CPU arrays can be exported through NumPy's DLPack.")
    return data._data


# The rest of both to_dlpack_* docstrings
_TO_DLPACK_DOC = """

    Parameters
    ----------
    data: NDArray
        input data.

    Returns
    -------
    PyCapsule (the pointer of DLManagedTensor)
        a reference view of NDArray that represents as DLManagedTensor.
    """


def to_dlpack_for_read(data: NDArray) -> Any:
    host = _host_array(data, "to_dlpack_for_read")
    data.wait_to_read()
    return host.__dlpack__()


to_dlpack_for_read.__doc__ = (
    "Returns a reference view of NDArray that represents as DLManagedTensor until all\n"
    "    previous write operations on the current array are finished." + _TO_DLPACK_DOC
)


def to_dlpack_for_write(data: NDArray) -> Any:
    from ..engine import get as _engine

    host = _host_array(data, "to_dlpack_for_write")
    _engine().wait_for_all()
    return host.__dlpack__()


to_dlpack_for_write.__doc__ = (
    "Returns a reference view of NDArray that represents as DLManagedTensor until all\n"
    "    previous read/write operations on the current array are finished." + _TO_DLPACK_DOC
)


class _Capsule:
    """Adapts a bare DLPack capsule to NumPy's ``from_dlpack`` protocol."""

    def __init__(self, capsule: Any) -> None:
        self.capsule = capsule

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self.capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)  # kDLCPU


def from_dlpack(dlpack: Any) -> NDArray:
    """Returns a NDArray backed by a dlpack tensor.

    Parameters
    ----------
    dlpack: PyCapsule (the pointer of DLManagedTensor)
        input data (or any object with ``__dlpack__``)

    Returns
    -------
    NDArray
        an NDArray holding the data of the dlpack tensor.
    """
    src = dlpack if hasattr(dlpack, "__dlpack__") else _Capsule(dlpack)
    try:
        host = np.from_dlpack(src)
    except (TypeError, ValueError, BufferError, RuntimeError) as exc:
        raise MXNetError(f"from_dlpack: cannot read the DLPack tensor ({exc}).") from None
    return array_from_numpy(np.ascontiguousarray(host), cpu())


def _to_dlpack_for_read(self: NDArray) -> Any:
    """Returns a reference view of NDArray that represents as DLManagedTensor until all
    previous write operations on the current array are finished."""
    return to_dlpack_for_read(self)


def _to_dlpack_for_write(self: NDArray) -> Any:
    """Returns a reference view of NDArray that represents as DLManagedTensor until all
    previous read/write operations on the current array are finished."""
    return to_dlpack_for_write(self)


extend(
    __name__,
    {"to_dlpack_for_read": _to_dlpack_for_read, "to_dlpack_for_write": _to_dlpack_for_write},
)
