"""Sparse gradients in the backward pass: which gradients are row-sparse and which rows.

Design note
-----------
A recorded ``dot`` with a CSR operand and an ``Embedding`` with a row-sparse weight gradient
run sparse backward kernels (their ``sparse_backward``, :func:`sparse_backward`): the
CSR operand is never densified and the embedding's gradient is a segment sum of the output
gradient's rows. Every other node runs its dense backward (``backprop.py``); where MXNet
1.9.1's backward storage inference still gives an input a row-sparse gradient (the
operator's ``grad_stypes``), :func:`sparse_input_grads` turns the dense gradient into a
:class:`RowSparseNDArray` holding the rows MXNet holds (its ``grad_rows_from``: the
indices looked up, or the columns a CSR operand stores, even where the values are zero), in
one engine function after the backward, so it stays asynchronous. Sums of gradients (several
uses, ``grad_req='add'``, the variables' buffers) keep row-sparse parts row-sparse (the union
of their rows); a sparse gradient that reaches a dense consumer is densified there.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ndarray.ndarray import NDArray, _new
from ..ndarray.sparse_array import empty_sparse, push_kernel
from ..operator.registry import OperatorProperty
from ..operator.sparse.forms_tensor import grad_rows
from ..operator.sparse.storage import RowSparse, to_dense, to_stype

__all__ = [
    "may_give_sparse_grads",
    "sparse_backward",
    "sparse_input_grads",
    "densify",
    "sum_grads_into",
    "sum_grads",
]


def may_give_sparse_grads(prop: OperatorProperty) -> bool:
    """Whether ``prop`` declares storage types for its gradients (``grad_stypes``): those
    that do not always have dense ones."""
    return type(prop).grad_stypes is not OperatorProperty.grad_stypes


def sparse_backward(node: Any, out_grads: list) -> list | None:
    """Push ``node``'s sparse backward kernel (its operator's ``sparse_backward``) when it has
    one for these inputs; returns one gradient per input (None where not needed), or None."""
    prop = node.prop
    entry = prop.sparse_backward
    if entry is None:
        return None
    src = node.sparse_in
    in_st = [x.stype for x in src] if src is not None else ["default"] * len(node.inputs)
    needs = [e is not None for e in node.inputs]
    applies, kernel = entry
    if not applies(prop, in_st, needs) or any(x is None for x in node.in_data[:1]):
        return None
    grads: list = [None] * len(needs)
    for i, st in enumerate(prop.grad_stypes(in_st)):
        if needs[i]:
            shape, dtype = node.in_meta[i]
            grads[i] = (
                _new(shape, dtype, node.ctx)
                if st == "default"
                else empty_sparse(st, shape, dtype, node.ctx)
            )
    n_og = len(out_grads)
    ins = [x for x in node.in_data if x is not None]
    where = [i for i, x in enumerate(node.in_data) if x is not None]

    def run(values: list) -> list:
        in_values: list = [None] * len(needs)
        for i, v in zip(where, values[n_og:]):
            in_values[i] = v
        res = kernel(prop, values[:n_og], in_values)
        return [r for r, g in zip(res, grads) if g is not None]

    outs = [g for g in grads if g is not None]
    push_kernel(run, [*out_grads, *ins], outs, (), f"_backward_{prop.op_name}")
    return grads


def sparse_input_grads(node: Any, in_grads: list) -> list:
    """``in_grads`` of ``node`` with the gradients MXNet makes row-sparse made row-sparse."""
    prop = node.prop
    if not may_give_sparse_grads(prop):
        return in_grads
    src = node.sparse_in
    in_st = [x.stype for x in src] if src is not None else ["default"] * len(in_grads)
    for i, st in enumerate(prop.grad_stypes(in_st)):
        g = in_grads[i]
        if st == "row_sparse" and g is not None and g.__class__ is NDArray:
            in_grads[i] = _to_row_sparse(node, g)
    return in_grads


def _to_row_sparse(node: Any, g: NDArray) -> NDArray:
    rows_from = node.prop.grad_rows_from
    key = None
    if rows_from == "indices":  # Embedding: the indices looked up
        key = node.sparse_in[0] if node.sparse_in is not None else node.in_data[0]
    elif rows_from == "csr_columns":
        key = node.sparse_in[0]  # the CSR operand of dot: its stored columns are the rows

    def kernel(values: list) -> list:
        dense = values[0]
        rows = grad_rows(rows_from, values[1] if key is not None else None, dense)
        return [RowSparse(np.array(dense[rows]), rows, dense.shape)]

    out = empty_sparse("row_sparse", g.shape, g._data.dtype, g.context)
    push_kernel(kernel, [g] if key is None else [g, key], [out], (), "_grad_to_row_sparse")
    return out


def densify(g: NDArray) -> NDArray:
    """``g`` as a dense array (itself when dense), converted by an engine function."""
    if g.__class__ is NDArray:
        return g
    out = _new(g.shape, g._data.dtype, g.context)
    push_kernel(lambda v: [to_dense(v[0])], [g], [out], (), "_grad_densify")
    return out


def _sum_values(values: list, stype: str, shape: tuple, dtype: Any) -> Any:
    """The sum of gradient values; row-sparse keeps the union of the parts' rows (and the
    non-zero rows of dense parts), as MXNet's sparse ``add_n`` does."""
    if stype == "row_sparse":
        sparse = [v for v in values if isinstance(v, RowSparse)]
        dense = [np.asarray(to_dense(v)) for v in values if not isinstance(v, RowSparse)]
        idx = [v.indices for v in sparse]
        if dense:
            total = np.sum(dense, axis=0)
            idx.append(np.flatnonzero(total.reshape(shape[0], -1).any(axis=1)))
        rows = np.unique(np.concatenate(idx)) if idx else np.zeros(0, np.int64)
        rows = rows.astype(np.int64, copy=False)
        acc = np.zeros((len(rows), *shape[1:]), dtype)
        for v in sparse:
            acc[np.searchsorted(rows, v.indices)] += v.data
        if dense:
            acc += total[rows]
        return RowSparse(acc, rows, shape)
    total = np.zeros(shape, dtype)
    for v in values:
        if isinstance(v, RowSparse):
            total[v.indices] += v.data
        else:
            total += to_dense(v)
    return to_stype(total, stype)


def sum_grads_into(target: NDArray, parts: list, add: bool) -> None:
    """Write (or with ``add``, add) the sum of ``parts`` into the sparse buffer ``target``,
    keeping its storage type, as one engine function."""
    st, shape, dtype = target.stype, target.shape, target._data.dtype
    reads = [*parts, target] if add else list(parts)
    push_kernel(lambda v: [_sum_values(v, st, shape, dtype)], reads, [target], (), "_grad_sum")


def sum_grads(parts: list) -> NDArray:
    """A new array with the sum of ``parts``: row-sparse when they all are, else dense."""
    first = parts[0]
    st = "row_sparse" if all(p.stype == "row_sparse" for p in parts) else "default"
    shape, dtype = first.shape, first._data.dtype
    if st == "default":
        out = _new(shape, dtype, first.context)
    else:
        out = empty_sparse(st, shape, dtype, first.context)
    push_kernel(lambda v: [_sum_values(v, st, shape, dtype)], list(parts), [out], (), "_grad_sum")
    return out
