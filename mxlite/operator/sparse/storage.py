"""Kernel-side sparse values: CSR as ``scipy.sparse.csr_matrix``, row-sparse as :class:`RowSparse`.

Design note
-----------
Kernels of sparse operators take and return plain values, never NDArrays: a NumPy array
(``default`` storage), a SciPy CSR matrix (``csr``; int64 ``indices`` and ``indptr``, canonical:
sorted column indices, no duplicates) or a :class:`RowSparse` (``row_sparse``: the stored rows
``data`` of shape ``(k,) + shape[1:]`` and their sorted int64 row ``indices``). SciPy is the
``[sparse]`` extra: everything that needs it calls :func:`scipy_sparse`, which names the extra
when SciPy is missing.

>>> import numpy as np
>>> v = to_stype(np.array([[0.0, 1.0], [0.0, 0.0]]), "row_sparse")
>>> v.indices.tolist(), v.data.tolist()
([0], [[0.0, 1.0]])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import MXNetError

__all__ = [
    "STYPES",
    "RowSparse",
    "scipy_sparse",
    "stype_of",
    "to_dense",
    "to_stype",
    "csr_from_parts",
    "rsp_from_parts",
]

STYPES = ("default", "row_sparse", "csr")
_IDX = np.int64


def scipy_sparse() -> Any:
    """The ``scipy.sparse`` module; a clear error naming the extra when SciPy is missing."""
    try:
        import scipy.sparse as sp
    except ImportError as exc:
        raise MXNetError(
            "sparse storage (csr, row_sparse) needs SciPy; install it with "
            "`pip install mxlite[sparse]`."
        ) from exc
    return sp


class RowSparse:
    """Row-sparse value: rows ``indices`` of a ``shape`` array hold ``data``, others are 0."""

    __slots__ = ("data", "indices", "shape")

    def __init__(self, data: np.ndarray, indices: np.ndarray, shape: tuple[int, ...]) -> None:
        self.data = data
        self.indices = indices
        self.shape = tuple(shape)

    @property
    def dtype(self) -> np.dtype:
        return self.data.dtype

    def todense(self) -> np.ndarray:
        out = np.zeros(self.shape, self.data.dtype)
        if len(self.indices):
            out[self.indices] = self.data
        return out


def stype_of(value: Any) -> str:
    """The storage type of a kernel value."""
    if isinstance(value, np.ndarray):
        return "default"
    if isinstance(value, RowSparse):
        return "row_sparse"
    return "csr"


def to_dense(value: Any) -> np.ndarray:
    """A NumPy array of a kernel value (the value itself when dense)."""
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, RowSparse):
        return value.todense()
    return np.asarray(value.toarray())


def csr_from_parts(data: Any, indices: Any, indptr: Any, shape: tuple[int, int]) -> Any:
    """A SciPy CSR matrix on the given arrays (int64 indices), without copying them."""
    sp = scipy_sparse()
    m = sp.csr_matrix(shape, dtype=data.dtype)
    m.data, m.indices, m.indptr = (
        data,
        indices.astype(_IDX, copy=False),
        indptr.astype(_IDX, copy=False),
    )
    return m


def rsp_from_parts(data: Any, indices: Any, shape: tuple[int, ...]) -> RowSparse:
    return RowSparse(data, np.asarray(indices).astype(_IDX, copy=False), shape)


def _canonical_csr(m: Any) -> Any:
    m = m.tocsr()
    if not m.has_canonical_format:
        m = m.copy()
        m.sum_duplicates()
    m.indices = m.indices.astype(_IDX, copy=False)
    m.indptr = m.indptr.astype(_IDX, copy=False)
    return m


def to_stype(value: Any, stype: str) -> Any:
    """``value`` converted to storage type ``stype`` (MXNet's cast_storage: a dense row or
    element is stored when it holds any non-zero)."""
    have = stype_of(value)
    if have == stype:
        return _canonical_csr(value) if stype == "csr" else value
    if stype == "default":
        return to_dense(value)
    if stype == "row_sparse":
        if have == "csr":
            m = value.tocsr()
            rows = np.flatnonzero(np.diff(m.indptr)).astype(_IDX)
            dense = (
                np.asarray(m[rows].toarray()) if len(rows) else np.zeros((0, m.shape[1]), m.dtype)
            )
            return RowSparse(dense, rows, m.shape)
        dense = np.asarray(value)
        if dense.ndim == 0:
            raise MXNetError("cast_storage: a 0-d array cannot be row_sparse.")
        flat = dense.reshape(dense.shape[0], -1)
        rows = np.flatnonzero(flat.any(axis=1)).astype(_IDX)
        return RowSparse(dense[rows], rows, dense.shape)
    if stype == "csr":
        dense = to_dense(value)
        if dense.ndim != 2:
            raise ValueError(
                f"cast_storage: csr storage needs a 2-D array, got shape {dense.shape}."
            )
        return _canonical_csr(scipy_sparse().csr_matrix(dense))
    raise MXNetError(f"cast_storage: unknown storage type {stype!r}; expected one of {STYPES}.")
