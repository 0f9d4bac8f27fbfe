"""Helpers of the in-memory iterators: naming the input arrays and reordering them.

MXNet exports these from ``mx.io`` under the same private names, and some user iterators
built on ``NDArrayIter`` call them, so they keep MXNet's names and results.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base import DTypeError, MXNetError

try:  # NDArrayIter reads h5py datasets when h5py is installed (MXNet's name for the module)
    import h5py
except ImportError:
    h5py = None
from ..ndarray import NDArray
from ..ndarray import array as nd_array

__all__ = ["_init_data", "_has_instance", "_getdata_by_idx"]


def _init_data(data: Any, allow_empty: bool, default_name: str) -> list[tuple[str, NDArray]]:
    """``data`` as a list of ``(name, NDArray)`` pairs sorted by name.

    One array is named ``default_name``; a list of several is named ``_0_<default_name>``,
    ``_1_<default_name>``, ...; a dict keeps its keys. Arrays that are not NDArrays are
    copied into new ones (float32, as ``mx.nd.array`` makes them).
    """
    if data is None:
        if not allow_empty:
            raise MXNetError(f"NDArrayIter: argument '{default_name}' must be given, got None.")
        data = []
    if isinstance(data, np.ndarray | NDArray):
        data = [data]
    if isinstance(data, list | tuple):
        if not data and not allow_empty:
            raise MXNetError(
                f"NDArrayIter: argument '{default_name}' must hold at least one array, got []."
            )
        if len(data) == 1:
            data = {default_name: data[0]}
        else:
            data = {f"_{i}_{default_name}": d for i, d in enumerate(data)}
    if not isinstance(data, dict):
        raise DTypeError(
            f"NDArrayIter: argument '{default_name}' must be an NDArray, a numpy.ndarray, a list "
            f"of them or a dict with them as values, got {type(data).__name__}."
        )
    named = []
    for key, value in data.items():
        if not isinstance(value, NDArray):
            try:
                value = nd_array(value)
            except MXNetError as exc:
                raise DTypeError(
                    f"NDArrayIter: entry {key!r} of argument '{default_name}' has type "
                    f"{type(value).__name__}; it must be an NDArray or a numpy.ndarray ({exc})."
                ) from None
        named.append((key, value))
    return sorted(named, key=lambda pair: pair[0])


def _has_instance(data: list[tuple[str, Any]], dtype: type) -> bool:
    """Whether any array of ``data`` (``(name, array)`` pairs) is a ``dtype``."""
    return any(isinstance(arr, dtype) for _, arr in data)


def _getdata_by_idx(data: list[tuple[str, NDArray]], idx: np.ndarray) -> list[tuple[str, NDArray]]:
    """``data`` with the examples of every array in the order ``idx``.

    As in MXNet the arrays go through NumPy and come back float32 (``mx.nd.array``'s default);
    a CSR array goes through SciPy and stays CSR.
    """
    out = []
    for name, arr in data:
        if arr.stype == "csr":
            out.append((name, nd_array(arr.asscipy()[idx], arr.context)))
        else:
            out.append((name, nd_array(arr.asnumpy()[idx], arr.context)))
    return out
