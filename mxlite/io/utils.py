"""Helpers of the in-memory iterators: naming the input arrays and reordering them.

MXNet exports these from ``mx.io`` under the same private names, and some user iterators
built on ``NDArrayIter`` call them, so they keep MXNet's names and results. The file-reading
iterators (CSVIter, LibSVMIter) share the rest: their files, their batch size check and the
order in which they batch their examples (:class:`RoundBatchCursor`).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..base import DTypeError, MXNetError, ParamError

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


def data_files(path: str, where: str) -> list[str]:
    """The file at ``path``, or every file in the folder ``path`` (sorted by name), as MXNet's
    text iterators read them; ``where`` begins the error for a missing path."""
    if os.path.isdir(path):
        return sorted(
            os.path.join(path, f) for f in os.listdir(path) if os.path.isfile(os.path.join(path, f))
        )
    if not os.path.isfile(path):
        raise MXNetError(f"{where}: file {path!r} does not exist.")
    return [path]


def checked_batch_size(where: str, batch_size: Any) -> int:
    """``batch_size`` as an int, which must be > 0."""
    if not isinstance(batch_size, int | np.integer) or batch_size <= 0:
        raise ParamError(f"{where}: argument 'batch_size' must be an int > 0, got {batch_size!r}.")
    return int(batch_size)


class RoundBatchCursor:
    """Which examples each batch of an iterator over ``num`` in-memory examples holds, as
    MXNet's batch loader (CSVIter, LibSVMIter) walks them: ``batch_size`` at a time, in order.
    A short last batch is completed with the first examples when ``round_batch``, and the
    epoch then ends; the ``reset`` that follows does not rewind, so the next epoch starts after
    the examples borrowed (the loader's "overflow"). Without ``round_batch`` the short batch
    stays short. ``pad`` is the number of rows of the last batch that only fill it up.
    """

    def __init__(self, num: int, batch_size: int, round_batch: bool = True) -> None:
        self.num = num
        self.batch_size = batch_size
        self.round_batch = round_batch
        self.pos = 0  # the next example to read
        self.overflow = 0  # examples borrowed from the start by the last round batch
        self.pad = 0

    def reset(self) -> None:
        if not self.round_batch or self.overflow == 0:
            self.pos = 0
        self.overflow = 0

    def next_rows(self) -> np.ndarray | None:
        """The indices of the next batch's examples, or None at the end of the epoch."""
        if self.overflow or self.pos >= self.num:
            return None
        take = min(self.batch_size, self.num - self.pos)
        rows = np.arange(self.pos, self.pos + take)
        self.pos += take
        self.pad = 0
        if take < self.batch_size:
            rest = self.batch_size - take
            if self.round_batch:
                rows = np.concatenate([rows, np.arange(rest)])
                self.pos = self.overflow = rest
            self.pad = rest
        return rows
