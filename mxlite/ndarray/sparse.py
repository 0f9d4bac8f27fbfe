"""Sparse NDArrays (``mx.nd.sparse``): ``CSRNDArray`` and ``RowSparseNDArray``, their
constructors, and every operator under the name MXNet gives it here (``retain``, ``dot``, ...).
The classes and their storage are in sparse_array.py; the storage-type dispatch of operators in
sparse_dispatch.py.

>>> import mxlite as mx
>>> a = mx.nd.sparse.csr_matrix(([1.0, 2.0], [1, 0], [0, 1, 2]), shape=(2, 3))
>>> a.stype, a.indptr.asnumpy().tolist(), a.asnumpy().tolist()
('csr', [0, 1, 2], [[0.0, 1.0, 0.0], [2.0, 0.0, 0.0]])
"""

from __future__ import annotations

from array import array as native_array  # noqa: F401  (MXNet's module carries these names)
from builtins import slice as py_slice  # noqa: F401
from builtins import sum as py_sum  # noqa: F401
from typing import Any

import numpy as np
from numpy import float32 as mx_real_t  # noqa: F401

from ..base import NO_C_LIBRARY, absent_names
from ..base import NDArrayHandle as NDArrayHandle  # MXNet's module imports these three
from ..base import NotSupportedForSparseNDArray as NotSupportedForSparseNDArray
from ..base import c_array_buf as c_array_buf
from ..base import check_call as check_call
from ..context import Context, current_context
from ..fileio import allow
from ..operator.sparse.storage import (
    RowSparse,
    csr_from_parts,
    rsp_from_parts,
    scipy_sparse,
    to_stype,
)
from . import sparse_dispatch as _sparse_dispatch  # noqa: F401  (installs the storage dispatch)
from .ndarray import NDArray, _new
from .sparse_array import (
    BaseSparseNDArray,
    CSRNDArray,
    RowSparseNDArray,
    _copy_value,
    add,
    divide,
    from_saved,
    from_value,
    multiply,
    sparse_parts,
    subtract,
    write_value,
)

__all__ = [
    "BaseSparseNDArray",
    "CSRNDArray",
    "RowSparseNDArray",
    "csr_matrix",
    "row_sparse_array",
    "zeros",
    "empty",
    "array",
    "add",
    "subtract",
    "multiply",
    "divide",
    "from_value",
    "write_value",
    "sparse_parts",
    "from_saved",
]

_IDX = np.int64
_CLASSES = {"csr": CSRNDArray, "row_sparse": RowSparseNDArray}
for _cls in (BaseSparseNDArray, CSRNDArray, RowSparseNDArray):
    _cls.__module__ = __name__  # pickles name mxlite.ndarray.sparse, as MXNet's name its own
allow(CSRNDArray, "mxnet.ndarray.sparse.CSRNDArray")  # the restricted unpickler admits them
allow(RowSparseNDArray, "mxnet.ndarray.sparse.RowSparseNDArray")


# ---- public constructors ------------------------------------------


def _np_of(x: Any, dtype: Any = None) -> np.ndarray:
    if isinstance(x, NDArray):
        x = x.asnumpy()
    return np.asarray(x, dtype=dtype)


def _shape_arg(where: str, shape: Any) -> tuple[int, ...] | None:
    if shape is None:
        return None
    return tuple(int(n) for n in shape)


def _is_shape(x: Any) -> bool:
    return isinstance(x, tuple) and all(isinstance(n, (int, np.integer)) for n in x)


def _src_dtype(x: Any, dtype: Any) -> Any:
    if dtype is not None:
        return np.dtype(dtype)
    if isinstance(x, (NDArray, np.ndarray)) or scipy_issparse(x):
        return np.dtype(x.dtype)
    return np.dtype(np.float32)


def scipy_issparse(x: Any) -> bool:
    if not hasattr(x, "tocsr") or isinstance(x, NDArray):
        return False
    return scipy_sparse().issparse(x)


# The Parameters section of csr_matrix and row_sparse_array, formatted with "matrix"/"array"
_CREATE_PARAMS_DOC = """

    Parameters
    ----------
    shape : tuple of int, optional
        The {} shape; inferred from ``arg1`` when left out.
    ctx : Context, optional
        Device context (default is the current default context).
    dtype : str or numpy.dtype, optional
        The data type (default: the source's dtype, float32 for lists).
    """


def _create_common(
    where: str, cls: type, other: type, arg1: Any, shape: Any, ctx: Context, dtype: Any
) -> Any:
    """What csr_matrix and row_sparse_array do alike with ``arg1``: a copy of an array of
    their own class ``cls``, an error for one of the ``other`` sparse class, the sparse form
    of anything else (dense)."""
    if isinstance(arg1, cls):
        v = _copy_value(arg1._value())
        _check_shape(shape, v.shape)
        return from_value(v, ctx, dtype or arg1.dtype)
    if isinstance(arg1, other):
        raise ValueError(f"{where}: unexpected {other.__name__}; use tostype({cls._stype!r}).")
    dense = _np_of(arg1, _src_dtype(arg1, dtype))
    _check_shape(shape, dense.shape)
    return from_value(to_stype(dense, cls._stype), ctx)


def csr_matrix(arg1: Any, shape: Any = None, ctx: Context | None = None, dtype: Any = None):
    """Create a :class:`CSRNDArray` (MXNet's ``mx.nd.sparse.csr_matrix``).

    ``arg1`` is one of: a shape ``(M, N)`` (an all-zero matrix); ``(data, indices, indptr)``;
    ``(data, (row, col))`` (COO); a dense ``NDArray``, NumPy array or nested list; a
    ``CSRNDArray``; a ``scipy.sparse`` matrix."""
    ctx = ctx or current_context()
    shape = _shape_arg("csr_matrix", shape)
    sp = scipy_sparse()
    if _is_shape(arg1) and len(arg1) == 2:
        if shape is not None and tuple(arg1) != shape:
            raise ValueError(f"csr_matrix: shape {shape} does not match {tuple(arg1)}.")
        return zeros("csr", tuple(int(n) for n in arg1), ctx=ctx, dtype=dtype)
    if isinstance(arg1, tuple) and len(arg1) == 3:
        data, indices, indptr = arg1
        dt = _src_dtype(data, dtype)
        data = _np_of(data, dt)
        indices, indptr = _np_of(indices, _IDX), _np_of(indptr, _IDX)
        if shape is None:
            if len(indices) == 0:
                raise ValueError("csr_matrix: cannot infer the shape from empty indices.")
            shape = (len(indptr) - 1, int(indices.max()) + 1)
        return from_value(csr_from_parts(data, indices, indptr, shape), ctx)
    if isinstance(arg1, tuple) and len(arg1) == 2:
        data, (row, col) = arg1
        # as MXNet: SciPy builds the matrix first, so a list keeps NumPy's dtype for it
        dt = np.dtype(dtype) if dtype is not None else _np_of(data).dtype
        m = sp.coo_matrix((_np_of(data, dt), (_np_of(row), _np_of(col))), shape=shape)
        return from_value(to_stype(m.tocsr(), "csr"), ctx, dt)
    if scipy_issparse(arg1):
        dt = _src_dtype(arg1, dtype)
        m = arg1.tocsr().copy()
        m.sum_duplicates()
        m.sort_indices()
        _check_shape(shape, m.shape)
        return from_value(csr_from_parts(m.data.astype(dt), m.indices, m.indptr, m.shape), ctx)
    return _create_common("csr_matrix", CSRNDArray, RowSparseNDArray, arg1, shape, ctx, dtype)


csr_matrix.__doc__ = (csr_matrix.__doc__ or "") + _CREATE_PARAMS_DOC.format("matrix")


def row_sparse_array(arg1: Any, shape: Any = None, ctx: Context | None = None, dtype: Any = None):
    """Create a :class:`RowSparseNDArray` (MXNet's ``mx.nd.sparse.row_sparse_array``).

    ``arg1`` is one of: a shape (all zeros); ``(data, indices)``; a dense ``NDArray``, NumPy
    array or nested list; a ``RowSparseNDArray``."""
    ctx = ctx or current_context()
    shape = _shape_arg("row_sparse_array", shape)
    if _is_shape(arg1):
        if shape is not None and tuple(arg1) != shape:
            raise ValueError(f"row_sparse_array: shape {shape} does not match {tuple(arg1)}.")
        return zeros("row_sparse", tuple(int(n) for n in arg1), ctx=ctx, dtype=dtype)
    if isinstance(arg1, tuple) and len(arg1) == 2:
        data, indices = arg1
        dt = _src_dtype(data, dtype)
        data, indices = _np_of(data, dt), _np_of(indices, _IDX).reshape(-1)
        if shape is None:
            if len(indices) == 0:
                raise ValueError("row_sparse_array: cannot infer the shape from empty indices.")
            shape = (int(indices.max()) + 1, *data.shape[1:])
        if data.ndim == 1 and len(shape) > 1:
            data = data.reshape((len(indices),) + tuple(shape[1:]))
        return from_value(rsp_from_parts(data, indices, shape), ctx)
    return _create_common("row_sparse_array", RowSparseNDArray, CSRNDArray, arg1, shape, ctx, dtype)


row_sparse_array.__doc__ = (row_sparse_array.__doc__ or "") + _CREATE_PARAMS_DOC.format("array")


def _check_shape(want: Any, have: tuple) -> None:
    if want is not None and tuple(want) != tuple(have):
        raise ValueError(f"shape mismatch: expected {tuple(want)}, got {tuple(have)}.")


def zeros(stype: str, shape: Any, ctx: Context | None = None, dtype: Any = None, **kwargs: Any):
    """An all-zero array of storage type ``stype`` ('default', 'row_sparse' or 'csr')."""
    if stype == "default":
        shp = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(shape)
        arr = _new(shp, np.dtype(dtype or np.float32), ctx or current_context())
        arr._data[...] = 0  # a fresh array: nothing is pending on it
        return arr
    if stype not in _CLASSES:
        raise ValueError(f"zeros: unknown storage type {stype!r}.")
    shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(n) for n in shape)
    dt = np.dtype(dtype) if dtype is not None else np.dtype(np.float32)
    if stype == "csr":
        if len(shape) != 2:
            raise ValueError(f"zeros: a csr array is 2-D, got shape {shape}.")
        value = csr_from_parts(np.zeros(0, dt), np.zeros(0, _IDX), np.zeros(shape[0] + 1, _IDX),
                               shape)  # fmt: skip
    else:
        value = RowSparse(np.zeros((0,) + shape[1:], dt), np.zeros(0, _IDX), shape)
    return from_value(value, ctx)


def empty(stype: str, shape: Any, ctx: Context | None = None, dtype: Any = None):
    """A new array of storage type ``stype`` with no stored values."""
    return zeros(stype, shape, ctx=ctx, dtype=dtype)


def array(source_array: Any, ctx: Context | None = None, dtype: Any = None) -> NDArray:
    """A sparse array from a sparse NDArray or a ``scipy.sparse`` matrix (a copy)."""
    if isinstance(source_array, CSRNDArray) or scipy_issparse(source_array):
        return csr_matrix(source_array, ctx=ctx, dtype=dtype)
    if isinstance(source_array, RowSparseNDArray):
        return row_sparse_array(source_array, ctx=ctx, dtype=dtype)
    raise ValueError(
        "sparse.array: argument 'source_array' must be a sparse NDArray or a scipy.sparse "
        f"matrix, got {type(source_array).__name__}."
    )


def gs_retain(*args: Any, **kwargs: Any) -> Any:
    """MXNet's second name for the generated ``retain`` (``_sparse_retain``)."""
    return retain(*args, **kwargs)  # noqa: F821  (placed in this module by the front end)


# the front end's __getattr__ answers operator names and hands the rest to this one
__getattr__ = absent_names(
    "mxnet.ndarray.sparse",
    {"_ndarray_cls": NO_C_LIBRARY},
)
