"""The sparse NDArray classes, ``CSRNDArray`` and ``RowSparseNDArray`` (public in sparse.py).

Design note
-----------
A sparse NDArray is an :class:`NDArray` whose ``_data`` holds the stored values and whose
``_aux`` holds the index arrays (MXNet's aux data): ``(indptr, indices)`` for CSR, ``(indices,)``
for row-sparse, int64 as in MXNet; ``_sshape`` is the full shape. All of them are NumPy arrays
on one chunk, so the engine orders every access through the chunk's var. Operators on sparse
arrays (sparse_dispatch.py) are engine functions (:func:`push_kernel`) computing with SciPy;
an output's sizes (the number of stored values) are known only after computing, so the
function replaces the output's parts, and every reader of the parts waits for the var first.
``.data``, ``.indices`` and ``.indptr`` are dense NDArrays sharing that memory. Writing into
a sparse array (``out=``, ``copyto``, ``x[:] = ...``, ``+=``) replaces its parts.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base import MXNetError, numeric_types
from ..context import Context, current_context
from ..engine import get as _engine
from ..engine import small_enough_inline
from ..operator.sparse.forms_tensor import check_stype
from ..operator.sparse.storage import (
    RowSparse,
    csr_from_parts,
    rsp_from_parts,
    scipy_sparse,
    stype_of,
    to_dense,
    to_stype,
)
from . import arith as _arith
from . import invoke as _invoke
from .ndarray import NDArray, _Chunk, _wrap, extend

__all__ = [
    "BaseSparseNDArray",
    "CSRNDArray",
    "RowSparseNDArray",
    "from_value",
    "empty_sparse",
    "push_kernel",
    "write_value",
    "sparse_parts",
    "from_saved",
    "cast_storage",
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

    def _stored(self, aux: int | None = None) -> NDArray:
        """The stored values (or the ``aux``-th index array) as a dense NDArray, read once
        pending writes ran (a write may replace them)."""
        _engine().wait_for_var(self._chunk.var)
        return _wrap(self._chunk, self._data if aux is None else self._aux[aux])

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
        return cast_storage(self, stype)

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

    def _write_from(self, src: NDArray) -> None:
        """``src.copyto(self)`` for a dense ``src`` (NDArray.copyto calls it)."""
        write_value(self, _kernel_input(src))

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
            _engine().wait_for_var(handle._chunk.var)  # once a pending kernel has set them
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

        return {"handle": bytearray(dumps_array(sparse_parts(self)))}  # MXNet writes into it

    def __setstate__(self, state: dict[str, Any]) -> None:
        from .serialization import loads_array

        arr = from_saved(loads_array(bytes(state["handle"])), current_context())
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

    # MXNet routes +, - and * of a sparse array through mx.nd.sparse.add/subtract/multiply
    # (elemwise_* for operands of one shape, keeping sparsity); / stays NDArray's (broadcast_div:
    # MXNet's sparse arrays override only Python 2's __div__), and so do the reflected forms:
    # overriding those in a subclass would make Python try them first, so that dense * sparse
    # became elemwise_mul, where MXNet takes broadcast_mul
    def __add__(self, other: Any) -> NDArray:
        return add(self, other)

    def __sub__(self, other: Any) -> NDArray:
        return subtract(self, other)

    def __mul__(self, other: Any) -> NDArray:
        return multiply(self, other)

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
        return self._stored(1)

    @property
    def indptr(self) -> NDArray:
        """Row pointers: row i's values are ``data[indptr[i]:indptr[i+1]]`` (int64)."""
        return self._stored(0)

    @property
    def data(self) -> NDArray:
        """The stored values."""
        return self._stored()

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
        return self._stored(0)

    @property
    def data(self) -> NDArray:
        """The stored rows."""
        return self._stored()

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
    _invoke.sparse_array_made()
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


def empty_sparse(stype: str, shape: tuple, dtype: Any, ctx: Context) -> NDArray:
    """A sparse array of ``shape`` storing nothing yet: the output of a pushed sparse kernel
    (:func:`push_kernel`), whose parts the engine function sets."""
    dt = np.dtype(dtype)
    if stype == "row_sparse":
        value: Any = RowSparse(np.zeros((0, *shape[1:]), dt), np.zeros(0, _IDX), shape)
    else:
        value = csr_from_parts(
            np.zeros(0, dt), np.zeros(0, _IDX), np.zeros(shape[0] + 1, _IDX), shape
        )
    return from_value(value, ctx)


def _peek(x: NDArray) -> Any:
    """The kernel value of ``x`` inside an engine function (the engine ordered the access)."""
    if x.__class__ is NDArray:
        return x._data
    return x._kernel_value()


def _store(dst: NDArray, value: Any) -> None:
    if dst.__class__ is NDArray:
        dst._data[...] = to_dense(value)
    else:
        dst._set_parts(to_stype(value, dst._stype), dst._data.dtype)


def push_kernel(
    fn: Any,
    reads: list,
    outs: list,
    mutates: tuple = (),
    name: str = "_sparse",
    resources: tuple = (),
) -> None:
    """Push ``fn(values) -> results`` as one engine function: it reads the kernel values of
    ``reads`` (NDArrays of any storage type; those at positions ``mutates`` are written in
    place by ``fn``) and stores ``results`` into ``outs`` (their parts replaced for sparse
    ones, their values written for dense ones). Like every operator, it runs after the
    pending writes of what it reads and before later accesses to what it writes; it holds
    the ``resources`` (mxlite.resource.Resource) that ``fn`` uses as it would write them."""

    def run(rctx: Any) -> None:
        results = fn([_peek(x) for x in reads])
        for o, r in zip(outs, results):
            _store(o, r)

    mutate = []
    held = [r.var for r in resources]
    for v in [o._chunk.var for o in outs] + [reads[i]._chunk.var for i in mutates] + held:
        if v not in mutate:
            mutate.append(v)
    const = []
    for x in reads:
        v = x._chunk.var
        if v not in mutate and v not in const:
            const.append(v)
    ctx = (outs or reads)[0]._chunk.ctx
    # small arrays may run on the caller once their vars are free, as dense operators do
    inline = small_enough_inline(
        ctx,
        [x._data for x in reads],
        [a for x in reads if x.__class__ is not NDArray for a in x._aux],
        [o._data for o in outs if o.__class__ is NDArray],
    )
    _engine().push_sync(run, ctx, const, mutate, 0, name, inline=inline)


def _copy_value(v: Any) -> Any:
    if isinstance(v, RowSparse):
        return RowSparse(v.data.copy(), v.indices.copy(), v.shape)
    return csr_from_parts(v.data.copy(), v.indices.copy(), v.indptr.copy(), v.shape)


def _dense_numpy(x: NDArray) -> np.ndarray:
    return x.asnumpy()


def _same_shape_elemwise(op_name: str, dense_fn: Any, doc: str) -> Any:
    def fn(lhs: Any, rhs: Any) -> NDArray:
        from . import op

        if isinstance(lhs, NDArray) and isinstance(rhs, NDArray) and lhs.shape == rhs.shape:
            return getattr(op, op_name)(lhs, rhs)
        return dense_fn(lhs, rhs)  # broadcast_* for arrays, the scalar operators for numbers

    fn.__name__ = op_name.replace("elemwise_", "")
    fn.__doc__ = doc
    return fn


add = _same_shape_elemwise(
    "elemwise_add",
    _arith.add,
    """lhs + rhs (``mx.nd.sparse.add``): ``elemwise_add`` when both are arrays of one shape (a
    sparse result for sparse operands), else ``broadcast_add`` or ``_plus_scalar``.

    Parameters
    ----------
    lhs : scalar or NDArray
        First operand.
    rhs : scalar or NDArray
        Second operand; its shape must equal or broadcast with lhs's.
    """,
)
subtract = _same_shape_elemwise(
    "elemwise_sub",
    _arith.subtract,
    """lhs - rhs (``mx.nd.sparse.subtract``): ``elemwise_sub`` for arrays of one shape, else
    ``broadcast_sub`` or the scalar operators. Parameters as :func:`add`.""",
)
multiply = _same_shape_elemwise(
    "elemwise_mul",
    _arith.multiply,
    """lhs * rhs (``mx.nd.sparse.multiply``): ``elemwise_mul`` for arrays of one shape, else
    ``broadcast_mul`` or ``_mul_scalar``. Parameters as :func:`add`.""",
)
divide = _same_shape_elemwise(
    "elemwise_div",
    _arith.divide,
    """lhs / rhs (``mx.nd.sparse.divide``): ``elemwise_div`` for arrays of one shape, else
    ``broadcast_div`` or the scalar operators. Parameters as :func:`add`.""",
)


def write_value(dst: NDArray, value: Any) -> None:
    """Write kernel value ``value`` into ``dst`` (any storage type), casting storage and dtype."""
    if isinstance(dst, BaseSparseNDArray):
        dst._set_value(value)
        return
    dense = to_dense(value)
    _engine().wait_for_var(dst._chunk.var)
    np.copyto(dst._data, dense, casting="unsafe")


def _inplace(self: BaseSparseNDArray, other: Any, kind: str) -> NDArray:
    from . import op

    fn = {"add": op.elemwise_add, "sub": op.elemwise_sub, "mul": op.elemwise_mul,
          "div": op.elemwise_div}[kind]  # fmt: skip
    if isinstance(other, NDArray) and other.shape == self.shape:
        res = fn(self, other)
    elif isinstance(other, (NDArray, *numeric_types)):
        # MXNet computes ``self op other`` (broadcasting, a dense fallback when no sparse
        # kernel fits) and copies it back into self's storage type
        res = {"add": self.__add__, "sub": self.__sub__, "mul": self.__mul__,
               "div": self.__truediv__}[kind](other)  # fmt: skip
    else:
        raise TypeError(f"type {type(other).__name__} not supported")
    write_value(self, res._value() if isinstance(res, BaseSparseNDArray) else res.asnumpy())
    return self


def sparse_parts(x: BaseSparseNDArray) -> Any:
    """The parts of ``x`` as the file format stores them (serialization.SparseParts)."""
    from .serialization_sparse import SparseParts

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
    _engine().wait_for_var(x._chunk.var)
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


def _kernel_input(x: NDArray) -> Any:
    if x.__class__ is not NDArray:
        return x._value()
    _engine().wait_for_var(x._chunk.var)
    data = x._data
    return data if isinstance(data, np.ndarray) else x.asnumpy()


def _record_densify(prop: Any, data: NDArray) -> NDArray:
    """The dense copy of a recorded sparse array, recorded as ``cast_storage`` so that the
    gradient reaches the sparse array's variable (as a dense gradient of its full shape)."""
    dense = _wrap(_Chunk(data.context), np.array(to_dense(data._value()), copy=True))
    proxy = _wrap(_Chunk(data.context), dense._data)  # the input as autograd sees it
    proxy._ag = data._ag
    if _invoke._record_hook is not None:
        _invoke._record_hook(prop, [proxy], [dense], [], False)
    return dense


def cast_storage(data: NDArray, stype: str, out: Any = None, name: str | None = None) -> NDArray:
    """Cast ``data`` to storage type ``stype`` ('default', 'row_sparse' or 'csr')."""
    check_stype("cast_storage", stype)
    if not isinstance(data, NDArray):
        raise MXNetError(
            f"cast_storage: argument 'data' must be an NDArray, got {type(data).__name__}."
        )
    if stype == "csr" and data.ndim != 2:
        raise ValueError(f"cast_storage: csr storage needs a 2-D array, got shape {data.shape}.")
    if _invoke._state[0] and data._ag is not None and stype == "default":
        from ..operator import registry

        prop = registry.get("cast_storage").get_prop({"stype": stype})
        if data.__class__ is NDArray:
            return _invoke.invoke(prop, [data])
        return _record_densify(prop, data)
    value = to_stype(_kernel_input(data), stype)
    if stype == "default" and data.__class__ is NDArray:
        value = np.array(value, copy=True)
    if out is not None:
        write_value(out, value)
        return out
    if stype == "default":
        return _wrap(_Chunk(data.context), np.asarray(to_dense(value)))
    return from_value(value, data.context)


def _tostype(self: NDArray, stype: str) -> NDArray:
    """A copy with storage type ``stype`` ('default', 'row_sparse' or 'csr')."""
    return cast_storage(self, stype)


extend(__name__, {"tostype": _tostype})
