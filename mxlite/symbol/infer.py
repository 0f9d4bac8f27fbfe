"""Graph-wide shape and dtype inference (NNVM's InferShape / InferType passes).

Design note
-----------
Every entry ``(node, output index)`` of the graph gets a shape (a tuple, where 0 means an
unknown dimension) or None (nothing known yet). Variables start from what the caller knows,
else from their ``__shape__`` / ``__dtype__`` attribute. Then the pass sweeps the nodes in
topological order and back again, asking each operator's property to fill in what it can from
its inputs *and* outputs (so weights get their shapes from the data, and a known output can
fill an input), until a full sweep changes nothing. An entry the operator infers differently
from what is already known raises, with MXNet's prefix ``Error in operator <name>: ...``.

Results are keyed by ``(id(node), index)``, variables as ``(id(var), 0)``.

Example::

    shapes = infer_shapes([(fc, 0)], {id(data): (32, 784)})
    shapes[(id(weight), 0)]   # (num_hidden, 784)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..base import DTYPE_MX_TO_NP, DTypeError, MXNetError, Shape, ShapeError, storage_dtype
from ..operator.bfloat16 import infer_type as infer_bfloat16
from ..operator.registry import merge_shape
from .graph import Entry, Node, topo_order

__all__ = ["infer_shapes", "infer_types", "parse_shape_attr"]

_MAX_SWEEPS = 64  # each useful sweep fills at least one entry; real graphs settle in 2-3


def parse_shape_attr(text: str) -> Shape | None:
    """Parse a ``__shape__`` attribute such as ``"(2, 3)"`` or ``"[2,-1]"`` (-1 and 0 are
    unknown dims); None if empty or ``"None"``."""
    body = text.strip().strip("()[]").strip()
    if not body or body == "None":
        return None
    try:
        # -1 is NumPy-shape semantics' unknown dim; inference writes unknown as 0
        return tuple(max(int(p), 0) for p in body.replace("L", "").split(",") if p.strip())
    except ValueError:
        raise ShapeError(f"infer_shape: cannot read shape attribute {text!r}.") from None


def _merge_dtype(a: Any, b: Any) -> Any:
    if a is None:
        return b
    if b is None or a == b:
        return a
    raise ValueError


def _fmt_shape(s: Shape | None) -> str:
    return "None" if s is None else "[" + ",".join(map(str, s)) + "]"


def _fmt_dtype(t: Any) -> str:
    return "None" if t is None else np.dtype(t).name


def _run(
    outputs: list[Entry],
    known: dict[int, Any],
    var_default: Callable[[Node], Any],
    call: Callable[[Any, list, list], Any],
    merge: Callable[[Any, Any], Any],
    fmt: Callable[[Any], str],
    error: type[MXNetError],
    what: str,
) -> dict[tuple[int, int], Any]:
    nodes = topo_order(outputs)
    values: dict[tuple[int, int], Any] = {}
    for node in nodes:
        if node.is_variable():
            v = known.get(id(node))
            values[(id(node), 0)] = v if v is not None else var_default(node)
        else:
            for i in range(node.num_outputs()):
                values[(id(node), i)] = None
    ops = [n for n in nodes if not n.is_variable()]

    def visit(node: Node) -> bool:
        prop = node.prop()
        n_args = len(prop.list_arguments())
        keys = [(id(src), idx) for src, idx in node.inputs]
        ins = [values[k] for k in keys]
        outs = [(id(node), i) for i in range(prop.num_outputs())]
        try:
            res = call(prop, ins[:n_args], [values[k] for k in outs])
        except MXNetError as exc:
            raise type(exc)(f"Error in operator {node.name}: {exc}") from exc
        if res is None:
            return False
        new_args, new_outs, new_aux = res
        changed = False
        names = prop.list_arguments() + prop.list_auxiliary_states()
        pairs = list(zip(keys, [*new_args, *new_aux], names)) + list(
            zip(outs, new_outs, prop.list_outputs())
        )
        for key, value, label in pairs:
            old = values[key]
            try:
                merged = merge(old, value)
            except ValueError:
                raise error(
                    f"Error in operator {node.name}: {what} inconsistent for {label!r}, "
                    f"Provided = {fmt(old)}, inferred {what.lower()}={fmt(value)}"
                ) from None
            # "is None" first: np.dtype compares equal to None (None means float64 to NumPy)
            if (old is None) != (merged is None) or (old is not None and merged != old):
                values[key] = merged
                changed = True
        return changed

    for _ in range(_MAX_SWEEPS):
        changed = False
        for node in ops:
            changed |= visit(node)
        for node in reversed(ops):
            changed |= visit(node)
        if not changed:
            break
    return values


def _var_shape(node: Node) -> Shape | None:
    text = node.attrs.get("__shape__")
    if text is None:
        return None
    shape = parse_shape_attr(text)
    # an all-unknown hint says nothing; keep None so "unknown rank" stays unknown
    return shape if shape and any(shape) else None


def _var_dtype(node: Node) -> np.dtype | None:
    text = node.attrs.get("__dtype__")
    if text is None:
        return None
    try:
        t = DTYPE_MX_TO_NP[int(text)]
    except (ValueError, KeyError):
        raise DTypeError(
            f"infer_type: variable {node.name!r} has __dtype__={text!r}, which is not a "
            f"dtype flag MXNet knows."
        ) from None
    return None if t is None else storage_dtype(t)


def _call_shape(prop: Any, ins: list, outs: list) -> Any:
    return prop.infer_shape(list(ins), list(outs))


def _call_type(prop: Any, ins: list, outs: list) -> Any:
    res = infer_bfloat16(prop, list(ins), list(outs))
    if res is None:
        return None
    return tuple([None if t is None else np.dtype(t) for t in part] for part in res)


def infer_shapes(outputs: list[Entry], known: dict[int, Shape]) -> dict[tuple[int, int], Any]:
    """Infer the shape of every entry reachable from ``outputs``.

    Parameters
    ----------
    outputs : list of (Node, int)
        The graph's output entries.
    known : dict of int to tuple
        ``id(variable node)`` to its shape (0 dims unknown); variables not given fall back to
        their ``__shape__`` attribute.

    Returns
    -------
    dict of (int, int) to tuple or None
        ``(id(node), output index)`` to the shape inferred, None where nothing is known.
    """
    known = {k: (None if v is None else tuple(int(d) for d in v)) for k, v in known.items()}
    return _run(
        outputs, known, _var_shape, _call_shape, merge_shape, _fmt_shape, ShapeError, "Shape"
    )


def infer_types(
    outputs: list[Entry], known: dict[int, np.dtype]
) -> dict[tuple[int, int], np.dtype | None]:
    """Infer the dtype of every entry reachable from ``outputs``.

    Parameters
    ----------
    outputs : list of (Node, int)
        The graph's output entries.
    known : dict of int to numpy.dtype
        ``id(variable node)`` to its dtype; variables not given fall back to their
        ``__dtype__`` attribute.

    Returns
    -------
    dict of (int, int) to numpy.dtype or None
        ``(id(node), output index)`` to the dtype inferred, None where nothing is known.
    """
    known = {k: (None if v is None else storage_dtype(v)) for k, v in known.items()}
    return _run(
        outputs, known, _var_dtype, _call_type, _merge_dtype, _fmt_dtype, DTypeError, "Type"
    )
