"""Sparse arrays at an executor's boundary.

Design note
-----------
The executor's steps run dense kernels on its planned memory. When a bound argument or
gradient is sparse, or an output's inferred storage type is (``mx.sym.var(stype=...)``,
``stype_dict``, ``Embedding(sparse_grad=True)``, ``dot(csr, ...)``), the executor keeps a
dense shadow array for it inside the graph, and :class:`StorageBoundary` converts at the
edges: each ``forward`` first writes the sparse arguments into their shadows, then casts the
outputs to their storage types; each ``backward`` casts the gradients into the user's sparse
gradient arrays (adding for ``grad_req='add'``). Users see MXNet's storage types on
``arg_dict``, ``grad_dict`` and ``outputs``; the arithmetic is that of the dense kernels (a
row of a row-sparse gradient that is all zeros is not stored).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ndarray.ndarray import NDArray, _new
from ..ndarray.sparse import from_value, write_value
from ..ndarray.sparse_array import _kernel_input
from ..operator.modes import STATE
from ..operator.sparse.forms_tensor import grad_rows
from ..operator.sparse.storage import RowSparse, to_stype
from ..symbol.graph import topo_order
from ..symbol.sparse import grad_storage, infer_storage

__all__ = ["StorageBoundary", "storage_plan"]


def _is_sparse(a: Any) -> bool:
    return a is not None and a.stype != "default"  # mx.np arrays are dense subclasses


def _shadow(a: NDArray) -> NDArray:
    arr = _new(a.shape, a._data.dtype, a.context)
    arr._data[...] = 0
    return arr


def storage_plan(outputs: list, arg_nodes: list, aux_nodes: list, given: dict[int, str]):
    """Storage types of the arguments, the outputs and the arguments' gradients, or None when
    everything is dense (the usual case: then the executor has no boundary)."""
    stypes = infer_storage(outputs, given)
    grads = grad_storage(outputs, stypes)
    args = [stypes[(id(n), 0)] for n in arg_nodes]
    outs = [stypes[(id(n), i)] for n, i in outputs]
    gst = [grads.get(id(n), "default") for n in arg_nodes]
    if all(s == "default" for s in args + outs + gst):
        return None
    return args, outs, gst


class StorageBoundary:
    """Conversions between the user's sparse arrays and the executor's dense shadows."""

    def __init__(self) -> None:
        self.imperative = False  # forward-only: run the operators' sparse kernels instead
        self.args: list[tuple[NDArray, NDArray]] = []
        self.grads: list[tuple[NDArray, NDArray, str]] = []
        self.outs: list[tuple[int, str]] = []
        self.sparse_outputs: list[NDArray] = []
        self.row_keys: dict[int, list] = {}  # grad_row_keys: which rows gradients hold
        self.user_args: list[NDArray] = []

    def run_imperative(self, exe: Any, is_train: bool) -> bool:
        """Forward through ``mx.nd`` node by node, so that every operator with a sparse
        kernel runs it (an executor without gradients needs no saved dense values)."""
        from ..ndarray import invoke as _invoke

        entries = exe._optimized
        values: dict[tuple[int, int], NDArray] = {}
        arg_dict, aux_dict = exe.arg_dict, exe.aux_dict
        was_train = STATE[1]
        STATE[1] = is_train
        try:
            for node in topo_order(entries):
                if node.op is None:
                    values[(id(node), 0)] = arg_dict.get(node.name, aux_dict.get(node.name))
                    continue
                res = _invoke.invoke(node.prop(), [values[(id(n), i)] for n, i in node.inputs])
                res = res if isinstance(res, list) else [res]
                for i, r in enumerate(res):
                    values[(id(node), i)] = r
        finally:
            STATE[1] = was_train
        if any(e not in values for e in ((id(n), i) for n, i in entries)):
            return False  # a hidden output is asked for: the dense plan computes it
        for dst, (node, i) in zip(exe.outputs, entries):
            src = values[(id(node), i)]
            write_value(dst, src._value() if src.__class__ is not NDArray else src.asnumpy())
        return True

    def before_forward(self) -> None:
        for user, shadow in self.args:
            user.copyto(shadow)

    def after_forward(self, outputs: list[NDArray]) -> list[NDArray]:
        for (i, st), dst in zip(self.outs, self.sparse_outputs):
            write_value(dst, to_stype(outputs[i].asnumpy(), st))
        return outputs

    def after_backward(self) -> None:
        for user, shadow, req, i in self.grads:
            value = shadow.asnumpy()
            if req == "add":  # the shadow holds this backward's gradient only
                shadow[:] = 0
                value = value + user.asnumpy()
            keys = self.row_keys.get(i)
            if user.stype == "row_sparse" and keys:
                rows = _mxnet_rows(keys, self.user_args, value)
                if req == "add":
                    rows = np.union1d(rows, user.indices.asnumpy()).astype(np.int64)
                write_value(user, RowSparse(value[rows], rows, value.shape))
            else:
                write_value(user, to_stype(value, user.stype))


def _mxnet_rows(keys: list, args: list, value: np.ndarray) -> np.ndarray:
    """The union of the rows each use of an argument gives its row-sparse gradient."""
    parts = []
    for rows_from, k in keys:
        key = None if k is None else _kernel_input(args[k])
        parts.append(grad_rows(rows_from, key, value))
    return np.unique(np.concatenate(parts)).astype(np.int64)


def grad_row_keys(outputs: list, arg_nodes: list, known: dict) -> dict[int, list]:
    """For each argument (by position) whose gradient may be row-sparse: one
    ``(kind, position of the argument that decides the rows, or None)`` per use."""
    stypes = infer_storage(outputs, known)
    pos = {id(n): i for i, n in enumerate(arg_nodes)}
    keys: dict[int, list] = {}
    for node in topo_order(outputs):
        if node.op is None:
            continue
        prop = node.prop()
        in_st = [stypes[(id(n), i)] for n, i in node.inputs]
        for (src, _), st in zip(node.inputs, prop.grad_stypes(in_st)):
            if src.op is not None or st != "row_sparse" or id(src) not in pos:
                continue
            key_node = node.inputs[0][0]  # the indices, or the CSR operand of dot
            decides = prop.grad_rows_from != "nonzero"
            k = pos.get(id(key_node)) if decides and key_node.op is None else None
            keys.setdefault(pos[id(src)], []).append((prop.grad_rows_from, k))
    return keys


def split_arrays(
    arg_arrays: list, grad_arrays: list, aux_arrays: list, plan: Any, reqs: dict, names: list
) -> tuple[StorageBoundary | None, list, list, list, list, list]:
    """Dense shadows for the sparse arrays given (and sparse arrays where ``plan`` asks for
    them); returns the boundary, the dense lists for the executor and the user's lists."""
    arg_st, _, grad_st = plan if plan is not None else ([], [], [])
    user_args, user_grads = list(arg_arrays), list(grad_arrays)
    if plan is not None:
        for i, st in enumerate(arg_st):
            if st != "default" and not _is_sparse(user_args[i]):
                user_args[i] = _to_sparse(user_args[i], st)
        for i, st in enumerate(grad_st):
            g = user_grads[i]
            if g is not None and st != "default" and not _is_sparse(g):
                user_grads[i] = _to_sparse(g, st)
    if not any(_is_sparse(a) for a in user_args + user_grads + list(aux_arrays)):
        return None, arg_arrays, grad_arrays, aux_arrays, user_args, user_grads
    b = StorageBoundary()
    dense_args = []
    for a in user_args:
        if _is_sparse(a):
            s = _shadow(a)
            b.args.append((a, s))
            dense_args.append(s)
        else:
            dense_args.append(a)
    dense_grads = []
    for i, (name, g) in enumerate(zip(names, user_grads)):
        if _is_sparse(g):
            s = _shadow(g)
            b.grads.append((g, s, reqs.get(name, "write"), i))
            dense_grads.append(s)
        else:
            dense_grads.append(g)
    dense_aux = [a if not _is_sparse(a) else a.tostype("default") for a in aux_arrays]
    return b, dense_args, dense_grads, dense_aux, user_args, user_grads


def _to_sparse(a: NDArray, stype: str) -> NDArray:
    return from_value(to_stype(np.zeros(a.shape, a._data.dtype), stype), a.context)


def attach_outputs(b: StorageBoundary, out_stypes: list[str], outputs: list[NDArray]) -> list:
    """Sparse output arrays where the inferred storage type is sparse."""
    user = list(outputs)
    for i, st in enumerate(out_stypes):
        if st != "default":
            arr = from_value(to_stype(np.zeros(outputs[i].shape, outputs[i]._data.dtype), st),
                             outputs[i].context)  # fmt: skip
            b.outs.append((i, st))
            b.sparse_outputs.append(arr)
            user[i] = arr
    return user
