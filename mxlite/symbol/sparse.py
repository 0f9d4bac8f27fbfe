"""Storage types in graphs: ``Symbol.infer_storage_type`` and ``mx.sym.sparse``.

A variable's storage type comes from the caller, else from its ``__storage_type__`` attribute
(``mx.sym.var(..., stype='csr')``), else 'default'. An operator's outputs take the types its
sparse form infers (mxlite.operator.sparse.forms); an operator without one for its inputs
falls back to dense outputs, as MXNet dispatches FComputeFallback. Gradients are dense except
where an operator declares sparse ones (``Embedding(sparse_grad=True)``, ``dot`` with a CSR
left operand, ...): an argument's gradient is row-sparse when every use gives it that type.
"""

from __future__ import annotations

from typing import Any

from ..operator.sparse.forms_tensor import check_stype
from .graph import Entry, topo_order

__all__ = ["STYPE_NAMES", "infer_storage", "grad_storage", "variable_stype"]

# MXNet's NDArrayStorageType ids, as the ``__storage_type__`` attribute writes them
STYPE_NAMES = {0: "default", 1: "row_sparse", 2: "csr", -1: "default"}


def variable_stype(node: Any) -> str:
    """The storage type a variable node declares (its ``__storage_type__``), or 'default'."""
    raw = node.attrs.get("__storage_type__")
    if raw is None:
        return "default"
    return STYPE_NAMES.get(int(raw), "default")


def infer_storage(outputs: list[Entry], known: dict[int, str]) -> dict[tuple[int, int], str]:
    """The storage type of every entry of the graph; ``known`` maps id(variable) to a type."""
    out: dict[tuple[int, int], str] = {}
    for node in topo_order(outputs):
        if node.op is None:
            out[(id(node), 0)] = known.get(id(node)) or variable_stype(node)
            continue
        prop = node.prop()
        in_st = [out[(id(n), i)] for n, i in node.inputs]
        form = prop.sparse_form
        res = (
            form.infer(prop, in_st)
            if form is not None and (form.from_dense or any(s != "default" for s in in_st))
            else None
        )
        if res is None:
            res = ["default"] * prop.num_outputs()
        for i, st in enumerate(res):
            out[(id(node), i)] = st
    return out


def grad_storage(outputs: list[Entry], stypes: dict[tuple[int, int], str]) -> dict[int, str]:
    """id(variable) -> the storage type of its gradient."""
    uses: dict[int, list[str]] = {}
    for node in topo_order(outputs):
        if node.op is None:
            continue
        in_st = [stypes[(id(n), i)] for n, i in node.inputs]
        grads = node.prop().grad_stypes(in_st)
        for (src, _), g in zip(node.inputs, grads):
            if src.op is None:
                uses.setdefault(id(src), []).append(g)
    return {
        k: "row_sparse" if v and all(g == "row_sparse" for g in v) else "default"
        for k, v in uses.items()
    }


def infer_storage_type(symbol: Any, args: tuple, kwargs: dict) -> tuple[list, list, list]:
    """``Symbol.infer_storage_type``: (argument, output, auxiliary) storage types."""
    known = symbol._known("infer_storage_type", args, kwargs, lambda s: check_stype(
        "infer_storage_type", s))  # fmt: skip
    values = infer_storage(symbol._entries, known)
    return symbol._collect(values)
