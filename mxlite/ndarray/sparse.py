"""Sparse NDArrays (``mx.nd.sparse``): ``CSRNDArray`` and ``RowSparseNDArray``.

Design note
-----------
A sparse NDArray is an :class:`NDArray` whose ``_data`` holds the stored values and whose
``_aux`` holds the index arrays (MXNet's aux data): ``(indptr, indices)`` for CSR, ``(indices,)``
for row-sparse, int64 as in MXNet; ``_sshape`` is the full shape. All of them are NumPy arrays
on one chunk, so the engine orders every access through the chunk's var. Operators on sparse
arrays (sparse_dispatch.py) wait for their inputs and compute on the calling thread with
SciPy: their outputs' sizes (the number of stored values) are known only after computing.
``.data``, ``.indices`` and ``.indptr`` are dense NDArrays sharing that memory. Writing into
a sparse array (``out=``, ``copyto``, ``x[:] = ...``, ``+=``) replaces its parts.

>>> import mxlite as mx
>>> a = mx.nd.sparse.csr_matrix(([1.0, 2.0], [1, 0], [0, 1, 2]), shape=(2, 3))
>>> a.stype, a.indptr.asnumpy().tolist(), a.asnumpy().tolist()
('csr', [0, 1, 2], [[0.0, 1.0, 0.0], [2.0, 0.0, 0.0]])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base import MXNetError, numeric_types
from ..context import Context, current_context
from ..engine import get as _engine
from ..operator.sparse.storage import (
    RowSparse,
    csr_from_parts,
    rsp_from_parts,
    scipy_sparse,
    stype_of,
    to_dense,
    to_stype,
)
from . import sparse_dispatch as _dispatch
from .ndarray import NDArray, _Chunk, _wrap

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
]

_IDX = np.int64


class BaseSparseNDArray(NDArray):
    """The base class of sparse arrays (``mx.nd.sparse.BaseSparseNDArray``)."""

    __slots__ = ("_aux", "_sshape")
    _stype = ""

    # ---- shape and storage ------------------------------------------------------------

    @property
    def shape(self) -> tuple[int, ...]:
        return self._sshape

    @property
    def size(self) -> int:
        return int(np.prod(self._sshape))

    @property
    def ndim(self) -> int:
        return len(self._sshape)

    @property
    def stype(self) -> str:
        """Storage type: 'csr' or 'row_sparse'."""
        return self._stype

    @property
    def _num_aux(self) -> int:
        return len(self._aux)

    @property
    def _aux_types(self) -> list[type]:
        return [a.dtype.type for a in self._aux]

    def _value(self) -> Any:
        """The kernel value (SciPy CSR or RowSparse) after pending writes."""
        _engine().wait_for_var(self._chunk.var)
        return self._kernel_value()

    def _set_value(self, value: Any) -> None:
        """Replace the contents with ``value`` (any storage), cast to this array's stype/dtype."""
        v = to_stype(value, self._stype)
        _engine().wait_for_var(self._chunk.var)
        self._set_parts(v, self._data.dtype)

    # ---- conversions ------------------------------------------------------------------------

    def asnumpy(self) -> np.ndarray:
        """A dense NumPy copy."""
        return np.array(to_dense(self._value()), copy=True)

    def tostype(self, stype: str) -> NDArray:
        """A copy with storage type ``stype``."""
        return _dispatch.cast_storage(self, stype)

    def astype(self, dtype: Any, copy: bool = True) -> NDArray:
        """A copy with element type ``dtype``; ``self`` when ``copy`` is False and it matches."""
        dt = np.dtype(dtype)
        if not copy and dt == self._data.dtype:
            return self
        v = self._value()
        if isinstance(v, RowSparse):
            v = RowSparse(v.data.astype(dt), v.indices.copy(), v.shape)
        else:
            v = csr_from_parts(v.data.astype(dt), v.indices.copy(), v.indptr.copy(), v.shape)
        return from_value(v, self.context)

    def copy(self) -> NDArray:
        return self.copyto(self.context)

    def copyto(self, other: Any) -> NDArray:
        """Copy into ``other`` (an NDArray of any storage type and the same shape) or onto a
        new array of this storage type on a Context."""
        if isinstance(other, Context):
            return from_value(_copy_value(self._value()), other)
        if isinstance(other, NDArray):
            if other is self:
                return other
            if other.shape != self.shape:
                raise MXNetError(
                    f"{type(self).__name__}.copyto: argument 'other' has shape {other.shape}; "
                    f"the source has shape {self.shape}."
                )
            write_value(other, self._value())
            return other
        raise MXNetError(
            f"{type(self).__name__}.copyto: argument 'other' must be an NDArray or a Context, "
            f"got {type(other).__name__}."
        )

    def as_in_context(self, context: Context) -> NDArray:
        return self if self.context == context else self.copyto(context)

    def check_format(self, full_check: bool = True) -> None:
        """Check that the indices describe a valid array; raise MXNetError if not."""
        _check_format(self, full_check)

    # ---- unsupported dense-only features ---------------------------------------------------

    def _slice(self, start: Any, stop: Any) -> NDArray:
        raise MXNetError(f"{type(self).__name__}: _slice is not supported for sparse arrays.")

    def _at(self, idx: Any) -> NDArray:
        raise MXNetError(f"{type(self).__name__}: _at is not supported for sparse arrays.")

    def reshape(self, *shape: Any, **kwargs: Any) -> NDArray:
        raise MXNetError(f"{type(self).__name__}: reshape is not supported for sparse arrays.")

    # ---- Python protocol ---------------------------------------------------------------------

    def __repr__(self) -> str:
        shape = "x".join(str(n) for n in self.shape)
        return f"\n<{type(self).__name__} {shape} @{self.context}>"

    def __init__(self, handle: Any = None, writable: bool = True) -> None:
        if handle is not None:  # another sparse array's handle: share its parts
            self._chunk, self._data = handle._chunk, handle._data
            self._aux, self._sshape = handle._aux, handle._sshape
        else:  # what unpickling makes before __setstate__ fills it
            self._chunk, self._data, self._aux, self._sshape = None, None, (), ()
        self.writable = writable
        self._grad = None
        self._grad_req = "null"
        self._ag = None
        self._fresh_grad = False

    def __reduce__(self) -> tuple:
        # MXNet's layout: the class, (None,), and {'handle': the array's bytes as nd.save}
        return (type(self), (None,), self.__getstate__())

    def __getstate__(self) -> dict[str, Any]:
        from .serialization import dumps_array

        return {"handle": dumps_array(sparse_parts(self))}

    def __setstate__(self, state: dict[str, Any]) -> None:
        from .serialization import loads_array

        arr = from_saved(loads_array(state["handle"]), current_context())
        self.__init__(arr)

    def __setitem__(self, key: Any, value: Any) -> None:
        if not (isinstance(key, slice) and key == slice(None)):
            raise MXNetError(
                f"{type(self).__name__}: only x[:] = value is supported for sparse arrays, "
                f"got key {key!r}."
            )
        if isinstance(value, NDArray):
            if value is not self:
                write_value(self, value._value() if isinstance(value, BaseSparseNDArray) else
                            _dense_numpy(value))  # fmt: skip
        elif isinstance(value, numeric_types):
            if self._stype == "csr":
                raise MXNetError("CSRNDArray: assigning a scalar to a CSRNDArray is not supported.")
            self._set_value(np.full(self.shape, value, self._data.dtype))
        elif isinstance(value, np.ndarray | list | tuple):
            arr = np.asarray(value, self._data.dtype)
            self._set_value(np.broadcast_to(arr, self.shape))
        else:
            raise MXNetError(f"{type(self).__name__}: cannot assign a {type(value).__name__}.")

    def __iadd__(self, other: Any) -> NDArray:
        return _inplace(self, other, "add")

    def __isub__(self, other: Any) -> NDArray:
        return _inplace(self, other, "sub")

    def __imul__(self, other: Any) -> NDArray:
        return _inplace(self, other, "mul")

    def __itruediv__(self, other: Any) -> NDArray:
        return _inplace(self, other, "div")

    __idiv__ = __itruediv__


class CSRNDArray(BaseSparseNDArray):
    """A 2-D array in compressed sparse row format (``mx.nd.sparse.CSRNDArray``)."""

    __slots__ = ()
    _stype = "csr"

    def _kernel_value(self) -> Any:
        indptr, indices = self._aux
        return csr_from_parts(self._data, indices, indptr, self._sshape)

    def _set_parts(self, v: Any, dtype: np.dtype) -> None:
        self._data = np.ascontiguousarray(v.data, dtype=dtype)
        self._aux = (np.asarray(v.indptr, _IDX), np.asarray(v.indices, _IDX))

    def _parts(self) -> tuple:
        return (self._data, self._aux[1], self._aux[0])

    @property
    def indices(self) -> NDArray:
        """Column indices of the stored values (int64)."""
        return _wrap(self._chunk, self._aux[1])

    @property
    def indptr(self) -> NDArray:
        """Row pointers: row i's values are ``data[indptr[i]:indptr[i+1]]`` (int64)."""
        return _wrap(self._chunk, self._aux[0])

    @property
    def data(self) -> NDArray:
        """The stored values."""
        return _wrap(self._chunk, self._data)

    def asscipy(self) -> Any:
        """A ``scipy.sparse.csr_matrix`` copy."""
        v = self._value()
        sp = scipy_sparse()
        return sp.csr_matrix((v.data.copy(), v.indices.copy(), v.indptr.copy()), shape=v.shape)

    def __getitem__(self, key: Any) -> NDArray:
        if isinstance(key, (int, np.integer)):
            n = self.shape[0]
            if not -n <= key < n:
                raise IndexError(f"CSRNDArray: index {key} is out of bounds for {n} rows.")
            key = slice(int(key) % n, int(key) % n + 1)
        if isinstance(key, slice):
            if key.step not in (None, 1):
                raise MXNetError("CSRNDArray: slicing with a step is not supported.")
            start, stop, _ = key.indices(self.shape[0])
            return from_value(to_stype(self._value()[start:max(start, stop)], "csr"),
                              self.context)  # fmt: skip
        raise MXNetError(f"CSRNDArray: only int and slice keys are supported, got {key!r}.")


class RowSparseNDArray(BaseSparseNDArray):
    """An array whose stored rows are listed in ``indices`` (``mx.nd.sparse.RowSparseNDArray``)."""

    __slots__ = ()
    _stype = "row_sparse"

    def _kernel_value(self) -> Any:
        return RowSparse(self._data, self._aux[0], self._sshape)

    def _set_parts(self, v: Any, dtype: np.dtype) -> None:
        self._data = np.ascontiguousarray(v.data, dtype=dtype)
        self._aux = (np.asarray(v.indices, _IDX),)

    def _parts(self) -> tuple:
        return (self._data, self._aux[0])

    @property
    def indices(self) -> NDArray:
        """The indices of the stored rows (int64, ascending)."""
        return _wrap(self._chunk, self._aux[0])

    @property
    def data(self) -> NDArray:
        """The stored rows."""
        return _wrap(self._chunk, self._data)

    def __getitem__(self, key: Any) -> NDArray:
        if isinstance(key, slice) and key == slice(None):
            return self
        raise MXNetError("RowSparseNDArray: only x[:] is supported for reading.")

    def retain(self, *args: Any, **kwargs: Any) -> NDArray:
        """Keep only the rows in ``indices`` (``mx.nd.sparse.retain``)."""
        from . import _internal

        return _internal._sparse_retain(self, *args, **kwargs)


# ---- making arrays from kernel values ------------------------------------------

_CLASSES = {"csr": CSRNDArray, "row_sparse": RowSparseNDArray}


def from_value(value: Any, ctx: Context | None = None, dtype: Any = None) -> NDArray:
    """An NDArray owning the kernel value ``value`` (dense values become dense NDArrays)."""
    ctx = ctx or current_context()
    st = stype_of(value)
    if st == "default":
        arr = np.asarray(value)
        if dtype is not None and arr.dtype != np.dtype(dtype):
            arr = arr.astype(dtype)
        return _wrap(_Chunk(ctx), arr)
    _dispatch.activate()
    cls = _CLASSES[st]
    out = cls.__new__(cls)
    out._chunk = _Chunk(ctx)
    out.writable = True
    out._grad = None
    out._grad_req = "null"
    out._ag = None
    out._fresh_grad = False
    out._sshape = tuple(int(n) for n in value.shape)
    out._set_parts(value, np.dtype(dtype) if dtype is not None else value.dtype)
    return out


def _copy_value(v: Any) -> Any:
    if isinstance(v, RowSparse):
        return RowSparse(v.data.copy(), v.indices.copy(), v.shape)
    return csr_from_parts(v.data.copy(), v.indices.copy(), v.indptr.copy(), v.shape)


def _dense_numpy(x: NDArray) -> np.ndarray:
    return x.asnumpy()


def write_value(dst: NDArray, value: Any) -> None:
    """Write kernel value ``value`` into ``dst`` (any storage type), casting storage and dtype."""
    if isinstance(dst, BaseSparseNDArray):
        dst._set_value(value)
        return
    dense = to_dense(value)
    _engine().wait_for_var(dst._chunk.var)
    np.copyto(dst._data, dense, casting="unsafe")


def write_grad(target: BaseSparseNDArray, parts: list[NDArray], add: bool) -> None:
    """Write (or with ``add``, add) the sum of the gradients ``parts`` into the sparse
    gradient buffer ``target``, keeping its storage type (autograd's sparse ``attach_grad``)."""
    total = np.zeros(target.shape, target._data.dtype)
    for p in parts:
        total += p.asnumpy() if p.__class__ is NDArray else to_dense(p._value())
    if add:
        total += to_dense(target._value())
    write_value(target, to_stype(total, target.stype))


def _inplace(self: BaseSparseNDArray, other: Any, kind: str) -> NDArray:
    from . import op

    fn = {"add": op.elemwise_add, "sub": op.elemwise_sub, "mul": op.elemwise_mul,
          "div": op.elemwise_div}[kind]  # fmt: skip
    if isinstance(other, NDArray):
        res = fn(self, other)
    elif isinstance(other, numeric_types):
        res = {"add": self.__add__, "sub": self.__sub__, "mul": self.__mul__,
               "div": self.__truediv__}[kind](other)  # fmt: skip
    else:
        raise TypeError(f"type {type(other).__name__} not supported")
    write_value(self, res._value() if isinstance(res, BaseSparseNDArray) else res.asnumpy())
    return self


def sparse_parts(x: BaseSparseNDArray) -> Any:
    """The parts of ``x`` as the file format stores them (serialization.SparseParts)."""
    from .serialization import SparseParts

    _engine().wait_for_var(x._chunk.var)
    return SparseParts(x._stype, x.shape, x._data, list(x._aux))


def from_saved(saved: Any, ctx: Context) -> NDArray:
    """A sparse NDArray from a SavedArray read from a file."""
    sp = saved.sparse
    if sp.stype == "csr":
        indptr, indices = sp.aux
        return from_value(csr_from_parts(sp.data, indices, indptr, sp.shape), ctx)
    return from_value(rsp_from_parts(sp.data, sp.aux[0], sp.shape), ctx)


def _check_format(x: BaseSparseNDArray, full_check: bool) -> None:
    where = f"{type(x).__name__}.check_format"
    if isinstance(x, CSRNDArray):
        indptr, indices = x._aux
        n, m = x.shape
        if (
            len(indptr) != n + 1
            or indptr[0] != 0
            or indptr[-1] != len(indices)
            or len(indices) != len(x._data)
        ):
            raise MXNetError(f"{where}: indptr must have {n + 1} entries from 0 to nnz.")
        if not full_check:
            return
        if np.any(np.diff(indptr) < 0) or np.any(indptr < 0):
            raise MXNetError(f"{where}: indptr must be non-negative and non-decreasing.")
        if len(indices) and (indices.min() < 0 or indices.max() >= m):
            raise MXNetError(f"{where}: column indices must be in [0, {m}).")
        for i in range(n):
            row = indices[indptr[i] : indptr[i + 1]]
            if np.any(np.diff(row) <= 0):
                raise MXNetError(f"{where}: column indices of row {i} must be ascending.")
        return
    (indices,) = x._aux
    if len(indices) != len(x._data):
        raise MXNetError(f"{where}: indices and data have different lengths.")
    if not full_check:
        return
    if len(indices) and (indices.min() < 0 or indices.max() >= x.shape[0]):
        raise MXNetError(f"{where}: row indices must be in [0, {x.shape[0]}).")
    if np.any(np.diff(indices) <= 0):
        raise MXNetError(f"{where}: row indices must be ascending and unique.")


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


def csr_matrix(arg1: Any, shape: Any = None, ctx: Context | None = None, dtype: Any = None):
    """Create a :class:`CSRNDArray` (MXNet's ``mx.nd.sparse.csr_matrix``).

    ``arg1`` is one of: a shape ``(M, N)`` (an all-zero matrix); ``(data, indices, indptr)``;
    ``(data, (row, col))`` (COO); a dense ``NDArray``, NumPy array or nested list; a
    ``CSRNDArray``; a ``scipy.sparse`` matrix.

    Parameters
    ----------
    shape : tuple of int, optional
        The matrix shape; inferred from ``arg1`` when left out.
    ctx : Context, optional
        Device context (default is the current default context).
    dtype : str or numpy.dtype, optional
        The data type (default: the source's dtype, float32 for lists).
    """
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
    if isinstance(arg1, CSRNDArray):
        v = _copy_value(arg1._value())
        _check_shape(shape, v.shape)
        return from_value(v, ctx, dtype or arg1.dtype)
    if isinstance(arg1, RowSparseNDArray):
        raise ValueError("csr_matrix: unexpected RowSparseNDArray; use tostype('csr').")
    if scipy_issparse(arg1):
        dt = _src_dtype(arg1, dtype)
        m = arg1.tocsr().copy()
        m.sum_duplicates()
        m.sort_indices()
        _check_shape(shape, m.shape)
        return from_value(csr_from_parts(m.data.astype(dt), m.indices, m.indptr, m.shape), ctx)
    dense = _np_of(arg1, _src_dtype(arg1, dtype))
    _check_shape(shape, dense.shape)
    return from_value(to_stype(dense, "csr"), ctx)


def row_sparse_array(arg1: Any, shape: Any = None, ctx: Context | None = None, dtype: Any = None):
    """Create a :class:`RowSparseNDArray` (MXNet's ``mx.nd.sparse.row_sparse_array``).

    ``arg1`` is one of: a shape (all zeros); ``(data, indices)``; a dense ``NDArray``, NumPy
    array or nested list; a ``RowSparseNDArray``.

    Parameters
    ----------
    shape : tuple of int, optional
        The array shape; inferred from ``arg1`` when left out.
    ctx : Context, optional
        Device context (default is the current default context).
    dtype : str or numpy.dtype, optional
        The data type (default: the source's dtype, float32 for lists).
    """
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
    if isinstance(arg1, RowSparseNDArray):
        v = _copy_value(arg1._value())
        _check_shape(shape, v.shape)
        return from_value(v, ctx, dtype or arg1.dtype)
    if isinstance(arg1, CSRNDArray):
        raise ValueError("row_sparse_array: unexpected CSRNDArray; use tostype('row_sparse').")
    dense = _np_of(arg1, _src_dtype(arg1, dtype))
    _check_shape(shape, dense.shape)
    return from_value(to_stype(dense, "row_sparse"), ctx)


def _check_shape(want: Any, have: tuple) -> None:
    if want is not None and tuple(want) != tuple(have):
        raise ValueError(f"shape mismatch: expected {tuple(want)}, got {tuple(have)}.")


def zeros(stype: str, shape: Any, ctx: Context | None = None, dtype: Any = None, **kwargs: Any):
    """An all-zero array of storage type ``stype`` ('default', 'row_sparse' or 'csr')."""
    from .creation import zeros as _dense_zeros

    if stype == "default":
        return _dense_zeros(shape, ctx=ctx, dtype=dtype, **kwargs)
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


def _binary(op_name: str, bcast: str, py: Any) -> Any:
    def fn(lhs: Any, rhs: Any) -> Any:
        from . import op

        if isinstance(lhs, NDArray) and isinstance(rhs, NDArray) and lhs.shape == rhs.shape:
            return getattr(op, op_name)(lhs, rhs)
        if isinstance(lhs, NDArray) and isinstance(rhs, NDArray):
            return getattr(op, bcast)(lhs, rhs)
        return py(lhs, rhs)

    fn.__name__ = op_name.replace("elemwise_", "")
    fn.__doc__ = f"``{op_name}`` for equal shapes, ``{bcast}`` otherwise, keeping sparsity."
    return fn


add = _binary("elemwise_add", "broadcast_add", lambda a, b: a + b)
subtract = _binary("elemwise_sub", "broadcast_sub", lambda a, b: a - b)
multiply = _binary("elemwise_mul", "broadcast_mul", lambda a, b: a * b)
divide = _binary("elemwise_div", "broadcast_div", lambda a, b: a / b)


def __getattr__(name: str) -> Any:
    """Every operator, as in MXNet's ``mx.nd.sparse`` (``_sparse_X`` is ``X`` here)."""
    from . import _internal, op

    for mod, key in ((_internal, "_sparse_" + name), (op, name), (_internal, name)):
        try:
            return getattr(mod, key)
        except AttributeError:
            continue
    if name in ("SparseEmbedding", "getnnz"):
        from . import contrib

        return getattr(contrib, name)
    raise AttributeError(f"module 'mxlite.ndarray.sparse' has no attribute {name!r}")
