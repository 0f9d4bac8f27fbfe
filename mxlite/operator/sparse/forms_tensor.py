"""Sparse forms of the tensor operators: cast_storage, dot, reductions, slicing and indexing,
where, getnnz and the optimizer updates with ``lazy_update``; and the storage types of
gradients (see forms.py for the protocol)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import MXNetError
from ..registry import OperatorProperty
from .forms import Compute, SparseForm, _sparse_in, dense_forward
from .storage import RowSparse, stype_of, to_dense, to_stype

__all__ = [
    "check_stype",
    "grad_rows",
    "all_row_sparse",
    "first_row_sparse",
    "CAST_STORAGE",
    "DOT",
    "SUM",
    "MEAN",
    "NORM",
    "SQUARE_SUM",
    "SLICE",
    "SPARSE_RETAIN",
    "TAKE",
    "WHERE",
    "GETNNZ",
    "LAZY_UPDATE",
    "LAZY_UPDATE_RSP_WEIGHT",
    "BATCHNORM",
    "DOT_BACKWARD",
    "EMBEDDING_BACKWARD",
]


# ---- cast_storage, dot ------------------------------------------


def _cast_infer(prop, st):
    return [prop.param.stype]


CAST_STORAGE = SparseForm(_cast_infer, lambda prop, v, o: [to_stype(v[0], o[0])], from_dense=True)


def _dot_infer(prop, st):
    p = prop.param
    a, b = st
    fwd = p.forward_stype
    if a == "csr" and b in ("default", "row_sparse") and not p.transpose_b:
        natural = "row_sparse" if p.transpose_a else "default"
        if fwd is None or fwd == natural:
            return [natural]
        return [fwd]
    if a == "default" and b == "csr" and not p.transpose_a:
        return [fwd or "csr"]
    if fwd is not None and fwd != "default" and a == b == "default":
        return [fwd]
    return None


def _dot(prop, v, o):
    p = prop.param
    a, b = v
    if stype_of(a) == "csr" and stype_of(b) != "csr":
        lhs = a.T if p.transpose_a else a
        rhs = to_dense(b)
        res = np.asarray(lhs @ rhs)
        if o[0] == "row_sparse" and p.transpose_a:
            seen = np.zeros(a.shape[1], bool)
            seen[a.indices] = True  # the columns of lhs that hold a value: rows of the result
            rows = np.flatnonzero(seen)
            if isinstance(b, RowSparse):  # rows of lhs.T that meet a stored row of rhs
                return [to_stype(res, "row_sparse")]
            return [RowSparse(res[rows], rows, res.shape)]
        return [to_stype(res.astype(a.dtype, copy=False), o[0])]
    lhs = to_dense(a)
    lhs = lhs.T if p.transpose_a else lhs
    if stype_of(b) == "csr":
        rhs = b.T if p.transpose_b else b
        res = np.asarray((rhs.T @ lhs.T).T)
    else:
        rhs = to_dense(b)
        res = lhs @ (rhs.T if p.transpose_b else rhs)
    return [to_stype(np.asarray(res).astype(lhs.dtype, copy=False), o[0])]


DOT = SparseForm(_dot_infer, _dot)


# ---- reductions ------------------------------------------


def _reduce_infer(prop, st):
    p = prop.param
    if st[0] != "csr" or p.exclude or p.keepdims:
        return None
    axis = p.axis
    if axis is None or tuple(axis) in ((0,), (1,), (-1,), (-2,)):
        return ["default"]
    return None


def _reduce(mean: bool) -> Compute:
    def compute(prop, v, o):
        x = v[0]
        axis = prop.param.axis
        if axis is None:
            total = x.sum() / (x.shape[0] * x.shape[1] if mean else 1)
            return [np.asarray([total], x.dtype)]
        ax = axis[0] % 2
        res = np.asarray(x.mean(axis=ax) if mean else x.sum(axis=ax)).reshape(-1)
        return [res.astype(x.dtype, copy=False)]

    return compute


SUM = SparseForm(_reduce_infer, _reduce(False))
MEAN = SparseForm(_reduce_infer, _reduce(True))


def _norm_infer(prop, st):
    p = prop.param
    if st[0] in ("csr", "row_sparse") and p.ord == 2 and p.axis is None and not p.keepdims:
        return ["default"]
    return None


def _norm(prop, v, o):
    x = v[0]
    data = x.data
    return [np.asarray([np.sqrt(np.sum(np.square(data, dtype=np.float64)))], data.dtype)]


NORM = SparseForm(_norm_infer, _norm)


def _square_sum_infer(prop, st):
    p = prop.param
    if st[0] != "row_sparse" or p.exclude or p.axis is None or len(p.axis) != 1:
        return None
    ax = p.axis[0] % 2
    return ["row_sparse" if ax == 1 and p.keepdims else "default"]


def _square_sum(prop, v, o):
    x, p = v[0], prop.param
    ax = p.axis[0] % len(x.shape)
    if ax == 0:
        res = np.square(x.data).sum(axis=0, keepdims=p.keepdims)
        if res.ndim == 1 or p.keepdims:
            return [res.astype(x.dtype)]
    s = np.square(x.data).sum(axis=1, keepdims=p.keepdims)
    if o[0] == "row_sparse":
        return [RowSparse(s, x.indices.copy(), (x.shape[0], 1))]
    out = np.zeros((x.shape[0],) + ((1,) if p.keepdims else ()), x.dtype)
    out[x.indices] = s
    return [out]


SQUARE_SUM = SparseForm(_square_sum_infer, _square_sum)


# ---- slicing, retain, take, where, getnnz ------------------------------------------


def _slice_infer(prop, st):
    p = prop.param
    if st[0] != "csr":
        return None
    if p.step and any(s not in (None, 1) for s in p.step):
        return None
    return ["csr"]


def _slice(prop, v, o):
    x, p = v[0], prop.param
    begin = list(p.begin) + [None] * (2 - len(p.begin))
    end = list(p.end) + [None] * (2 - len(p.end))
    r = slice(begin[0], end[0])
    c = slice(begin[1], end[1])
    return [to_stype(x[r][:, c], "csr")]


SLICE = SparseForm(_slice_infer, _slice)


def _retain_infer(prop, st):
    return ["row_sparse"] if st[0] == "row_sparse" and st[1] == "default" else None


def _retain(prop, v, o):
    x, idx = v
    keep = np.isin(x.indices, idx.astype(np.int64))
    return [RowSparse(x.data[keep], x.indices[keep], x.shape)]


SPARSE_RETAIN = SparseForm(_retain_infer, _retain)


def _take_infer(prop, st):
    p = prop.param
    if st[0] == "csr" and st[1] == "default" and p.axis == 0 and p.mode in ("clip", "wrap"):
        return ["csr"]
    return None


def _take(prop, v, o):
    x, idx = v
    n = x.shape[0]
    i = idx.astype(np.int64)
    i = np.clip(i, 0, n - 1) if prop.param.mode == "clip" else np.mod(i, n)
    return [to_stype(x[i], "csr")]


TAKE = SparseForm(_take_infer, _take)


def _where_infer(prop, st):
    return ["default"] if st == ["csr", "default", "default"] else None


def _where(prop, v, o):
    cond, x, y = v
    out = y.copy()
    coo = cond.tocoo()
    hit = coo.data != 0
    r, c = coo.row[hit], coo.col[hit]
    out[r, c] = x[r, c]
    return [out]


WHERE = SparseForm(_where_infer, _where)


def _getnnz_infer(prop, st):
    return ["default"] if st[0] == "csr" else None


def _getnnz(prop, v, o):
    axis = prop.param.axis
    res = v[0].getnnz(axis=axis)
    return [np.asarray(res if axis is not None else [res], np.int64)]


GETNNZ = SparseForm(_getnnz_infer, _getnnz)


# ---- optimizer updates with lazy_update ------------------------------------------


def _update_infer(prop, st):
    p = prop.param
    if (
        st[1] == "row_sparse"
        and st[0] in ("default", "row_sparse")
        and all(s == "default" for s in st[2:])
        and getattr(p, "lazy_update", True)
    ):
        return [st[0]]
    return None


def _lazy_update(prop, v, o):
    """Apply the dense kernel to the rows the gradient holds; other rows stay as they are."""
    w, g = v[0], v[1]
    states = v[2:]
    dense_w = to_dense(w)
    rows = g.indices
    if len(rows):
        sub_states = [s[rows] for s in states]
        new_w = dense_forward(prop, [dense_w[rows], g.data, *sub_states])[0]
        for s, sub in zip(states, sub_states):
            s[rows] = sub
        dense_w = dense_w.copy() if dense_w is w else dense_w
        dense_w[rows] = new_w
    return [dense_w if o[0] == "default" else to_stype(dense_w, "row_sparse")]


def _update_rsp_weight_infer(prop, st):
    """FTRL's sparse kernel needs a row-sparse weight; a dense one gets the dense update."""
    return _update_infer(prop, st) if st[0] == "row_sparse" else None


# optimizer updates with lazy_update: only the rows a row-sparse gradient holds change
LAZY_UPDATE = SparseForm(_update_infer, _lazy_update)
# FTRL's: the same, for a row-sparse weight only
LAZY_UPDATE_RSP_WEIGHT = SparseForm(_update_rsp_weight_infer, _lazy_update)


def _batchnorm_infer(prop, st):
    """No sparse kernel (dense fallback), and MXNet 1.9.1 refuses fix_gamma with sparse inputs."""
    if prop.param.fix_gamma and _sparse_in(st):
        raise MXNetError(
            f"{prop.where()}: fix_gamma=True is not supported for sparse ndarrays; pass dense "
            "arrays or fix_gamma=False."
        )


BATCHNORM = SparseForm(_batchnorm_infer, lambda prop, v, o: [])


# ---- rows of row-sparse gradients ------------------------------------------


def grad_rows(rows_from: str, key: Any, grad: np.ndarray) -> np.ndarray:
    """The rows MXNet's row-sparse gradient holds (``OperatorProperty.grad_rows_from``), given
    the kernel value of the operand that decides them (``key``; None where unknown) and the
    dense gradient: "indices", the indices an Embedding looked up (clipped, as its forward
    clips); "csr_columns", the columns a CSR operand of dot stores (also where the gradient is
    zero); else ("nonzero", or no key) the rows that are not zero."""
    n = grad.shape[0]
    if key is None or rows_from == "nonzero":
        rows = np.flatnonzero(grad.reshape(n, -1).any(axis=1))
    elif rows_from == "csr_columns":
        rows = np.unique(np.asarray(key.indices))
    else:
        rows = np.unique(np.clip(np.asarray(to_dense(key)).reshape(-1).astype(np.int64), 0, n - 1))
    return rows.astype(np.int64, copy=False)


def all_row_sparse(prop: OperatorProperty, in_stypes: list[str]) -> list[str]:
    """``grad_stypes`` of the sums (elemwise_add/sub, add_n): row-sparse when every input is."""
    if all(s == "row_sparse" for s in in_stypes):
        return ["row_sparse"] * len(in_stypes)
    return ["default"] * len(in_stypes)


def first_row_sparse(prop: OperatorProperty, in_stypes: list[str]) -> list[str]:
    """``grad_stypes`` of _sparse_retain and _square_sum: the data's gradient is row-sparse
    when the data is."""
    out = ["default"] * len(in_stypes)
    if in_stypes[0] == "row_sparse":
        out[0] = "row_sparse"
    return out


# ---- sparse backward kernels (autograd on sparse inputs) ------------------------------
#
# An operator's ``sparse_backward``: (applies(prop, in_stypes, needs_grad), kernel(prop,
# out_grads, in_values)); the kernel returns one gradient value per input (None where none
# is needed), of the storage types its ``grad_stypes`` gives. Autograd uses it instead of the
# dense backward when ``applies``, so a CSR operand is never densified.


def _dot_bwd_applies(prop: OperatorProperty, st: list[str], needs: list[bool]) -> bool:
    return st[0] == "csr" and st[1] != "csr" and not prop.param.transpose_b and not needs[0]


def _dot_bwd(prop: OperatorProperty, ograds: list, ins: list) -> list:
    csr, og = ins[0], np.asarray(to_dense(ograds[0]))
    if prop.param.transpose_a:  # y = csr.T w: dw = csr dy
        return [None, np.asarray(csr @ og)]
    g = np.asarray(csr.T @ og)
    rows = grad_rows("csr_columns", csr, g)
    return [None, RowSparse(g[rows], rows, g.shape)]


def _embedding_bwd_applies(prop: OperatorProperty, st: list[str], needs: list[bool]) -> bool:
    return prop.grad_stypes(st)[1] == "row_sparse" and not needs[0]


def _embedding_bwd(prop: OperatorProperty, ograds: list, ins: list) -> list:
    p = prop.param
    idx = np.asarray(to_dense(ins[0])).reshape(-1).astype(np.int64)
    idx = np.clip(idx, 0, p.input_dim - 1)
    rows, inverse = np.unique(idx, return_inverse=True)
    og = np.asarray(to_dense(ograds[0])).reshape(len(idx), -1)
    order = np.argsort(inverse, kind="stable")
    starts = np.searchsorted(inverse[order], np.arange(len(rows)))
    acc = np.add.reduceat(og[order], starts, axis=0) if len(rows) else og[:0]
    shape = (p.input_dim, p.output_dim)
    return [None, RowSparse(acc.reshape(len(rows), shape[1]), rows.astype(np.int64), shape)]


DOT_BACKWARD = (_dot_bwd_applies, _dot_bwd)
EMBEDDING_BACKWARD = (_embedding_bwd_applies, _embedding_bwd)


def check_stype(where: str, stype: Any) -> str:
    if stype not in ("default", "row_sparse", "csr"):
        raise MXNetError(
            f"{where}: unknown storage type {stype!r}; expected 'default', 'row_sparse' or 'csr'."
        )
    return stype
