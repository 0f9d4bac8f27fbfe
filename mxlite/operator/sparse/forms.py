"""Sparse forms of operators: MXNet 1.9.1's FInferStorageType and FComputeEx, on SciPy.

Design note
-----------
An operator declares its sparse form on its property (``sparse_form = KEEP_ZERO``, or
``simple_op(..., sparse_form=...)``); this module and forms_tensor.py hold the forms, named
for what they compute. A :class:`SparseForm`'s ``infer(prop, in_stypes)`` gives the
output storage types when the operator has a kernel for these inputs, or None (the caller
then falls back to the dense kernel: MXNet's storage fallback); ``compute(prop, values,
out_stypes)`` runs that kernel on kernel values (storage.py) and returns the outputs.
Optimizer updates write their states (NumPy arrays of dense NDArrays) in place. The
dispatcher (``mxlite.ndarray.sparse_dispatch``) asks for ``prop.sparse_form`` only when an
input or a requested output is sparse. The forms of the tensor operators (dot, reductions,
indexing, optimizer updates) and the sparse backward kernels are in forms_tensor.py.

Element-wise kernels reuse the dense operator on the stored values (``dense_forward``), so a
sparse ``sin`` computes exactly what the dense one does on every stored element.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..registry import OpContext, OperatorProperty
from ..req import OpReq
from .storage import RowSparse, csr_from_parts, scipy_sparse, stype_of, to_dense, to_stype

__all__ = [
    "SparseForm",
    "dense_forward",
    "KEEP_ZERO",
    "DENSE_RESULT",
    "ZEROS_LIKE",
    "SCALAR",
    "CLIP",
    "QUADRATIC",
    "SCATTER_SCALAR",
    "SCATTER_DIV",
    "ELEMWISE_ADD",
    "ELEMWISE_SUB",
    "ELEMWISE_MUL",
    "ELEMWISE_DIV",
    "MAXIMUM",
    "MINIMUM",
    "HYPOT",
    "BROADCAST_ADD",
    "BROADCAST_SUB",
    "BROADCAST_MUL",
    "BROADCAST_DIV",
    "ADD_N",
]

Infer = Callable[[OperatorProperty, list[str]], "list[str] | None"]
Compute = Callable[[OperatorProperty, list[Any], list[str]], list[Any]]


class SparseForm:
    """One operator's storage rule and sparse kernel. ``from_dense``: the rule may give sparse
    outputs for dense inputs (cast_storage), so it is asked even when no input is sparse."""

    __slots__ = ("infer", "compute", "from_dense")

    def __init__(self, infer: Infer, compute: Compute, from_dense: bool = False) -> None:
        self.infer = infer
        self.compute = compute
        self.from_dense = from_dense


def dense_forward(prop: OperatorProperty, arrays: list[np.ndarray], is_train: bool = False):
    """Run ``prop``'s dense kernel on NumPy arrays; returns its outputs (aux updated in place)."""
    n_aux = len(prop.list_auxiliary_states())
    args = arrays[: len(arrays) - n_aux] if n_aux else arrays
    aux = arrays[len(arrays) - n_aux :] if n_aux else []
    shapes, dtypes, _, _ = prop.infer_imperative(
        tuple(a.shape for a in args), tuple(a.dtype for a in args)
    )
    outs = [np.empty(s, t) for s, t in zip(shapes, dtypes)]
    op = prop.create_operator(_cpu())
    op.forward(
        OpContext(is_train, None, ()), list(args), [OpReq.WRITE] * len(outs), outs, list(aux)
    )
    return outs


def _cpu() -> Any:
    from ...context import cpu

    return cpu()


def _on_values(prop: OperatorProperty, value: Any) -> Any:
    """The zero-preserving unary ``prop`` applied to the stored values of ``value``."""
    if isinstance(value, RowSparse):
        data = dense_forward(prop, [value.data])[0] if value.data.size else value.data.copy()
        return RowSparse(data, value.indices.copy(), value.shape)
    data = dense_forward(prop, [value.data])[0] if value.data.size else value.data.copy()
    return csr_from_parts(data, value.indices.copy(), value.indptr.copy(), value.shape)


def _sparse_in(stypes: list[str]) -> bool:
    return any(s != "default" for s in stypes)


# ---- unary ------------------------------------------


def _infer_same(prop, st):
    return [st[0]] if st[0] in ("csr", "row_sparse") else None


def _infer_dense_result(prop, st):
    return ["default"] if st[0] in ("csr", "row_sparse") else None


# unary operators with f(0) == 0 (sin, relu, sqrt, ...): computed on the stored values only
KEEP_ZERO = SparseForm(_infer_same, lambda prop, v, o: [_on_values(prop, v[0])])
# unary operators with f(0) != 0 (cos, exp, ...): sparse in, dense out
DENSE_RESULT = SparseForm(
    _infer_dense_result, lambda prop, v, o: [dense_forward(prop, [to_dense(v[0])])[0]]
)


def _zeros_like(prop, v, o):
    x = v[0]
    if isinstance(x, RowSparse):
        return [RowSparse(x.data[:0].copy(), x.indices[:0].copy(), x.shape)]
    return [scipy_sparse().csr_matrix(x.shape, dtype=x.dtype)]


ZEROS_LIKE = SparseForm(_infer_same, _zeros_like)


# ---- scalar ops: the output stays sparse where f(0, scalar) == 0 ----------------------------


def _zero_kept(prop) -> bool:
    with np.errstate(all="ignore"):
        z = dense_forward(prop, [np.zeros(1, np.float64)])[0]
    return bool(z[0] == 0)


def _infer_scalar(prop, st):
    if st[0] not in ("csr", "row_sparse"):
        return None
    return [st[0] if _zero_kept(prop) else "default"]


def _scalar(prop, v, o):
    if o[0] == "default":
        return [dense_forward(prop, [to_dense(v[0])])[0]]
    out = _on_values(prop, v[0])
    return [out]


# array-scalar operators (``x * 2``, ``x > 0``): sparse where f(0, scalar) == 0
SCALAR = SparseForm(_infer_scalar, _scalar)


def _clip_infer(prop, st):
    if st[0] not in ("csr", "row_sparse"):
        return None
    p = prop.param
    return [st[0] if p.a_min <= 0 <= p.a_max else "default"]


CLIP = SparseForm(_clip_infer, _scalar)


def _quadratic_infer(prop, st):
    if st[0] not in ("csr", "row_sparse"):
        return None
    return [st[0] if prop.param.c == 0 else "default"]


QUADRATIC = SparseForm(_quadratic_infer, _scalar)
# _scatter_plus_scalar & co.: the scalar reaches the stored values only
SCATTER_SCALAR = SparseForm(_infer_same, lambda prop, v, o: [_on_values(prop, v[0])])


def _scatter_div_infer(prop, st):
    return ["row_sparse"] if st[0] == "row_sparse" else None


def _scatter_div(prop, v, o):
    x, y = v
    rows = to_dense(y)[x.indices]
    with np.errstate(all="ignore"):
        data = (x.data / rows).astype(x.dtype, copy=False)
    return [RowSparse(data, x.indices.copy(), x.shape)]


SCATTER_DIV = SparseForm(_scatter_div_infer, _scatter_div)


# ---- element-wise binary ---------------------------------------------------------------------


def _binary_infer(kind: str) -> Infer:
    def infer(prop, st):
        a, b = st
        if a == b == "default":
            return None
        if a == b:  # rsp,rsp or csr,csr
            return ["default"] if kind == "div" else [a]
        if kind in ("add", "sub"):
            if "default" in (a, b):
                return ["default"]
            return None
        if kind == "mul" and "default" in (a, b):
            return [a if b == "default" else b]
        return None

    return infer


def _binary(fn: Callable[[Any, Any], Any]) -> Compute:
    def compute(prop, v, o):
        a, b = v
        if o[0] == "default":
            return [np.asarray(fn(to_dense(a), to_dense(b)))]
        if o[0] == "row_sparse":
            return [_rsp_binary(fn, a, b)]
        sa, sb = stype_of(a), stype_of(b)
        if sa == sb == "csr":
            res = fn(a, b)
            return [to_stype(res if scipy_sparse().issparse(res) else np.asarray(res), "csr")]
        if sa == "csr":  # csr op dense keeps the csr's pattern (mul, div)
            return [_on_pattern(a, lambda d, r, c: fn(d, to_dense(b)[r, c]))]
        return [_on_pattern(b, lambda d, r, c: fn(to_dense(a)[r, c], d))]

    return compute


def _on_pattern(x: Any, fn: Callable[[Any, Any, Any], Any]) -> Any:
    """A CSR matrix with ``x``'s pattern whose values are ``fn(values, rows, cols)``."""
    rows = np.repeat(np.arange(x.shape[0]), np.diff(x.indptr))
    data = np.asarray(fn(x.data, rows, x.indices)).astype(x.dtype, copy=False)
    return csr_from_parts(data, x.indices.copy(), x.indptr.copy(), x.shape)


def _rsp_binary(fn, a, b):
    if isinstance(a, RowSparse) and isinstance(b, RowSparse):
        rows = np.union1d(a.indices, b.indices).astype(np.int64)
        da = _rows(a, rows)
        db = _rows(b, rows)
        return RowSparse(np.asarray(fn(da, db)).astype(a.dtype, copy=False), rows, a.shape)
    rsp, other, swap = (a, b, False) if isinstance(a, RowSparse) else (b, a, True)
    dense_rows = to_dense(other)[rsp.indices]
    res = fn(dense_rows, rsp.data) if swap else fn(rsp.data, dense_rows)
    return RowSparse(np.asarray(res).astype(rsp.dtype, copy=False), rsp.indices.copy(), rsp.shape)


def _rows(x: RowSparse, rows: np.ndarray) -> np.ndarray:
    out = np.zeros((len(rows),) + x.shape[1:], x.dtype)
    if len(x.indices):
        out[np.searchsorted(rows, x.indices)] = x.data
    return out


ELEMWISE_ADD = SparseForm(_binary_infer("add"), _binary(lambda x, y: x + y))
ELEMWISE_SUB = SparseForm(_binary_infer("sub"), _binary(lambda x, y: x - y))
ELEMWISE_MUL = SparseForm(
    _binary_infer("mul"),
    _binary(lambda x, y: x.multiply(y) if hasattr(x, "multiply") else x * y),
)
ELEMWISE_DIV = SparseForm(_binary_infer("div"), _binary(lambda x, y: x / y))


def _same_sparse_infer(prop, st):
    return [st[0]] if st[0] == st[1] and st[0] != "default" else None


def _same_sparse(fn: Callable[[Any, Any], Any]) -> Compute:
    """Zero-preserving binary operators (maximum, minimum, hypot) on two sparse operands."""

    def compute(prop, v, o):
        if o[0] == "row_sparse":
            return [_rsp_binary(fn, v[0], v[1])]
        return [to_stype(np.asarray(fn(to_dense(v[0]), to_dense(v[1]))), "csr")]

    return compute


MAXIMUM = SparseForm(_same_sparse_infer, _same_sparse(np.maximum))
MINIMUM = SparseForm(_same_sparse_infer, _same_sparse(np.minimum))
HYPOT = SparseForm(_same_sparse_infer, _same_sparse(np.hypot))


# ---- broadcast with csr ------------------------------------------


def _bcast_infer(keeps_csr: bool) -> Infer:
    def infer(prop, st):
        if st[0] == "csr" and st[1] == "default":
            return ["csr" if keeps_csr else "default"]
        return None

    return infer


def _bcast(fn, keeps_csr: bool) -> Compute:
    def compute(prop, v, o):
        x, y = v
        if not keeps_csr:
            return [np.asarray(fn(to_dense(x), y))]
        yb = np.broadcast_to(y, x.shape)
        return [_on_pattern(x, lambda d, r, c: fn(d, yb[r, c]))]

    return compute


BROADCAST_ADD = SparseForm(_bcast_infer(False), _bcast(lambda a, b: a + b, False))
BROADCAST_SUB = SparseForm(_bcast_infer(False), _bcast(lambda a, b: a - b, False))
BROADCAST_MUL = SparseForm(_bcast_infer(True), _bcast(lambda a, b: a * b, True))
BROADCAST_DIV = SparseForm(_bcast_infer(True), _bcast(lambda a, b: a / b, True))


# ---- add_n ------------------------------------------


def _add_n_infer(prop, st):
    if all(s == "row_sparse" for s in st):
        return ["row_sparse"]
    if all(s == "csr" for s in st):
        return ["csr"]
    if "default" in st and _sparse_in(st):
        return ["default"]
    return None


def _add_n(prop, v, o):
    if o[0] == "default":
        acc = to_dense(v[0]).copy()
        for x in v[1:]:
            if stype_of(x) == "csr":
                acc += x.toarray()
            elif isinstance(x, RowSparse):
                np.add.at(acc, x.indices, x.data)
            else:
                acc += x
        return [acc]
    if o[0] == "csr":
        acc = v[0]
        for x in v[1:]:
            acc = acc + x
        return [to_stype(acc, "csr")]
    rows = np.unique(np.concatenate([x.indices for x in v])).astype(np.int64)
    acc = np.zeros((len(rows),) + v[0].shape[1:], v[0].dtype)
    for x in v:
        acc[np.searchsorted(rows, x.indices)] += x.data
    return [RowSparse(acc, rows, v[0].shape)]


ADD_N = SparseForm(_add_n_infer, _add_n)
