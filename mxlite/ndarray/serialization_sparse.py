"""Sparse arrays in MXNet's NDArray format (V2): read and written for serialization.py.

After the storage type (1 row_sparse, 2 csr) come the storage shape (the shape of the stored
values; readers size the values from the aux arrays, as MXNet does), the shape, the context,
the type flag, then the type and shape of each aux array (csr: indptr, indices; row_sparse:
indices), the values, and each aux array's elements. Every size is checked against the bytes
left before anything is allocated (serialization_io).
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

from ..base import MXNetError
from . import serialization_io as _s

__all__ = ["SparseParts", "read_sparse", "sparse_chunks"]


class SparseParts:
    """A sparse array as stored: ``stype`` ('row_sparse' or 'csr'), the full ``shape``, the
    stored values ``data`` and the ``aux`` arrays in MXNet's order (csr: indptr, indices;
    row_sparse: indices). ``save`` takes it in place of a NumPy array."""

    __slots__ = ("stype", "shape", "data", "aux")

    def __init__(self, stype: str, shape: tuple[int, ...], data: np.ndarray, aux: list) -> None:
        self.stype = stype
        self.shape = tuple(shape)
        self.data = data
        self.aux = list(aux)


_STYPE_IDS = {"row_sparse": 1, "csr": 2}
_NUM_AUX = {"row_sparse": 1, "csr": 2}


def read_sparse(src: Any, label: str, stype: str) -> tuple[Any, int, int, SparseParts]:
    """(values, dev_type, dev_id, parts) of a sparse array whose storage type was just read."""
    sshape = _s._read_shape(src, label, "<i", "q")
    shape = _s._read_shape(src, label, "<i", "q")
    if any(d < 0 for d in sshape + shape) or not shape:
        raise src.error(f"{label}: bad {stype} shapes: storage {sshape}, shape {shape}")
    dev_type, dev_id = _s._read_context(src, label)
    if dev_type not in _s._DEV_TYPES:
        raise src.error(f"{label} has device type {dev_type}")
    native = _s._read_flag(src, label)
    aux_meta = []
    for i in range(_NUM_AUX[stype]):
        aux_dtype = _s._read_flag(src, f"{label} aux {i}")
        aux_meta.append((aux_dtype, _s._read_shape(src, f"{label} aux {i}", "<i", "q")))
    # The stored values follow the aux arrays (the indices), as MXNet's loader sizes them: the
    # storage-shape field can be stale in bytes MXNet wrote (its pickles of row_sparse arrays).
    nnz = aux_meta[-1][1][0] if aux_meta[-1][1] else 0
    vshape = (nnz,) if stype == "csr" else (nnz, *shape[1:])
    if len(sshape) != len(vshape):
        raise src.error(f"{label}: storage shape {sshape} does not fit a {stype} of {shape}")
    data = _s._read_elements(src, native, vshape, f"the values of {label} {vshape}")
    aux = [
        _s._read_elements(src, t, s, f"aux array {i} of {label} {s}").astype(np.int64, copy=False)
        for i, (t, s) in enumerate(aux_meta)
    ]
    _check_sparse(src, label, stype, shape, data, aux)
    return data, dev_type, dev_id, SparseParts(stype, shape, data, aux)


def _check_sparse(src: Any, label: str, stype: str, shape: tuple, data: Any, aux: list):
    if stype == "csr":
        indptr, indices = aux
        ok = len(shape) == 2 and indptr.shape == (shape[0] + 1,) and len(indices) == len(data)
    else:
        (indices,) = aux
        ok = len(indices) == len(data) and data.shape[1:] == tuple(shape[1:])
    if not ok:
        raise src.error(f"{label}: inconsistent {stype} parts for shape {shape}")


def _shape_bytes(shape: tuple) -> bytes:
    return struct.pack(f"<i{len(shape)}q", len(shape), *shape)


def sparse_chunks(
    func: str, label: str, sp: SparseParts, context: tuple[int, int], np_shape: bool
) -> list[bytes | memoryview]:
    if np_shape:
        raise MXNetError(f"{func}: {label} is sparse; MXNet saves sparse arrays only without "
                         "NumPy shape semantics")  # fmt: skip
    dev_type, dev_id = _s._check_context(func, label, context)
    data = np.asarray(sp.data)
    aux = [np.asarray(a, np.int64) for a in sp.aux]
    out: list[bytes | memoryview] = [
        struct.pack("<Ii", _s.NDARRAY_V2_MAGIC, _STYPE_IDS[sp.stype]),
        _shape_bytes(data.shape),
        _shape_bytes(sp.shape),
        struct.pack("<iii", dev_type, dev_id, _s._flag_of(func, label, data)),
    ]
    for a in aux:
        out += [struct.pack("<i", _s._flag_of(func, label, a)), _shape_bytes(a.shape)]
    out.append(_s._raw(data))
    out += [_s._raw(a) for a in aux]
    return out
