"""Sparse forms of the tensor operators: cast_storage, dot, reductions, slicing and indexing,
where, getnnz and the optimizer updates with ``lazy_update``; and the storage types of
gradients (see forms.py for the protocol)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import MXNetError
from ..registry import OperatorProperty
from .forms import Compute, _reg, _sparse_in, dense_forward
from .storage import RowSparse, stype_of, to_dense, to_stype

__all__ = ["backward_stypes", "check_stype", "grad_rows", "SPARSE_BACKWARD"]


# ---- cast_storage, dot ------------------------------------------


def _cast_infer(prop, st):
    return [prop.param.stype]


_reg("cast_storage", _cast_infer, lambda prop, v, o: [to_stype(v[0], o[0])])


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


_reg("dot", _dot_infer, _dot)


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


_reg("sum", _reduce_infer, _reduce(False))
_reg("mean", _reduce_infer, _reduce(True))


def _norm_infer(prop, st):
    p = prop.param
    if st[0] in ("csr", "row_sparse") and p.ord == 2 and p.axis is None and not p.keepdims:
        return ["default"]
    return None


def _norm(prop, v, o):
    x = v[0]
    data = x.data
    return [np.asarray([np.sqrt(np.sum(np.square(data, dtype=np.float64)))], data.dtype)]


_reg("norm", _norm_infer, _norm)


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


_reg("_square_sum", _square_sum_infer, _square_sum)


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


_reg("slice", _slice_infer, _slice)


def _retain_infer(prop, st):
    return ["row_sparse"] if st[0] == "row_sparse" and st[1] == "default" else None


def _retain(prop, v, o):
    x, idx = v
    keep = np.isin(x.indices, idx.astype(np.int64))
    return [RowSparse(x.data[keep], x.indices[keep], x.shape)]


_reg("_sparse_retain", _retain_infer, _retain)


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


_reg("take", _take_infer, _take)


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


_reg("where", _where_infer, _where)


def _getnnz_infer(prop, st):
    return ["default"] if st[0] == "csr" else None


def _getnnz(prop, v, o):
    axis = prop.param.axis
    res = v[0].getnnz(axis=axis)
    return [np.asarray(res if axis is not None else [res], np.int64)]


_reg("_contrib_getnnz", _getnnz_infer, _getnnz)


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


for _name in ("sgd_update", "sgd_mom_update", "adam_update", "_sparse_adagrad_update"):
    _reg(_name, _update_infer, _lazy_update)
_reg("ftrl_update", _update_rsp_weight_infer, _lazy_update)


def _batchnorm_infer(prop, st):
    """No sparse kernel (dense fallback), and MXNet 1.9.1 refuses fix_gamma with sparse inputs."""
    if prop.param.fix_gamma and _sparse_in(st):
        raise MXNetError(
            f"{prop.where()}: fix_gamma=True is not supported for sparse ndarrays; pass dense "
            "arrays or fix_gamma=False."
        )


_reg("BatchNorm", _batchnorm_infer, lambda prop, v, o: [])


# ---- storage of gradients ------------------------------------------


def backward_stypes(prop: OperatorProperty, in_stypes: list[str]) -> list[str]:
    """The storage type of each input's gradient (MXNet's backward FInferStorageType, for the
    operators whose gradients are sparse); 'default' for the rest."""
    name = prop.op_name
    out = ["default"] * len(in_stypes)
    if name in ("Embedding", "_contrib_SparseEmbedding") and (
        name != "Embedding" or prop.param.sparse_grad
    ):
        out[1] = "row_sparse"
    elif name == "take" and getattr(prop.param, "sparse_grad", False):
        out[0] = "row_sparse"
    elif (
        name == "dot"
        and in_stypes[0] == "csr"
        and not (prop.param.transpose_a or prop.param.transpose_b)
    ):  # dot(csr.T, dy) is row-sparse; dot(csr, dy) after transpose_a is dense
        out[1] = "row_sparse"
    elif name in ("_sparse_retain", "_square_sum") and in_stypes[0] == "row_sparse":
        out[0] = "row_sparse"
    elif name in ("elemwise_add", "elemwise_sub", "_grad_add", "add_n") and all(
        s == "row_sparse" for s in in_stypes
    ):
        out = ["row_sparse"] * len(in_stypes)
    return out


def grad_rows(op_name: str, key: Any, grad: np.ndarray) -> np.ndarray:
    """The rows MXNet's row-sparse gradient from ``op_name`` holds, given the kernel value of
    the operand that decides them (``key``; None where unknown) and the dense gradient: the
    indices an Embedding looked up (clipped, as its forward clips), the columns a CSR operand
    of dot stores (also where the gradient is zero), else the rows that are not zero."""
    n = grad.shape[0]
    if key is None:
        rows = np.flatnonzero(grad.reshape(n, -1).any(axis=1))
    elif op_name == "dot":
        rows = np.unique(np.asarray(key.indices))
    else:
        rows = np.unique(np.clip(np.asarray(to_dense(key)).reshape(-1).astype(np.int64), 0, n - 1))
    return rows.astype(np.int64, copy=False)


# ---- sparse backward kernels (autograd on sparse inputs) ------------------------------
#
# op name -> (applies(prop, in_stypes, needs_grad), kernel(prop, out_grads, in_values)):
# the kernel returns one gradient value per input (None where none is needed), of the storage
# types backward_stypes gives. Autograd uses them instead of the dense backward when
# ``applies``, so a CSR operand is never densified.


def _dot_bwd_applies(prop: OperatorProperty, st: list[str], needs: list[bool]) -> bool:
    return st[0] == "csr" and st[1] != "csr" and not prop.param.transpose_b and not needs[0]


def _dot_bwd(prop: OperatorProperty, ograds: list, ins: list) -> list:
    csr, og = ins[0], np.asarray(to_dense(ograds[0]))
    if prop.param.transpose_a:  # y = csr.T w: dw = csr dy
        return [None, np.asarray(csr @ og)]
    g = np.asarray(csr.T @ og)
    rows = grad_rows("dot", csr, g)
    return [None, RowSparse(g[rows], rows, g.shape)]


def _embedding_bwd_applies(prop: OperatorProperty, st: list[str], needs: list[bool]) -> bool:
    return backward_stypes(prop, st)[1] == "row_sparse" and not needs[0]


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


SPARSE_BACKWARD = {
    "dot": (_dot_bwd_applies, _dot_bwd),
    "Embedding": (_embedding_bwd_applies, _embedding_bwd),
    "_contrib_SparseEmbedding": (_embedding_bwd_applies, _embedding_bwd),
}


def check_stype(where: str, stype: Any) -> str:
    if stype not in ("default", "row_sparse", "csr"):
        raise MXNetError(
            f"{where}: unknown storage type {stype!r}; expected 'default', 'row_sparse' or 'csr'."
        )
    return stype
