"""Common subexpression elimination over a forward graph (``MXNET_ELIMINATE_COMMON_EXPR``).

Design note
-----------
Binding runs this pass on a copy of the symbol's graph before the gradient pass, as MXNet's
executor does (on by default). Two operator nodes are merged when they read the very same
input entries, run the same operator with the same attributes, and computing one twice is
sure to give the same result: no auxiliary states or other inputs it updates, no resource
other than temporary space (random numbers differ on each call), no ``Custom`` operator (it
may keep state). Rounds repeat until nothing merges, so ``(a+b)+c`` twice folds in two
rounds. When merging makes two graph outputs the same entry, the later ones are given a
``_copy`` node each (named ``<node>_<k>_copy``) so every output keeps its own array.

Variable nodes are kept as they are (callers key what they know by ``id(variable)``); every
operator node is copied, so the user's symbol is never changed.

Example::

    outs = eliminate_common_expr(sym._entries)   # (a+b)+(a+b) -> one a+b read twice
"""

from __future__ import annotations

from typing import Any

from ..resource import ResourceRequest
from ..symbol.compose import copy_graph
from ..symbol.graph import Entry, Node, topo_order

__all__ = ["eliminate_common_expr", "repeatable"]


def repeatable(prop: Any, in_shapes: list[Any]) -> bool:
    """Whether computing ``prop`` twice from the same inputs is sure to give the same result
    and to change nothing else: no state kept from call to call, no auxiliary states or
    inputs it updates, no resource other than temporary space (random numbers differ on each
    call). ``in_shapes`` may hold None (requests depend on the operator and its attributes)."""
    try:
        if prop.stateful or prop.list_auxiliary_states() or prop.mutate_inputs():
            return False
        requests = prop.forward_resource(list(in_shapes))
    except Exception:  # noqa: BLE001  (an operator that cannot tell is kept as it is)
        return False
    return all(r == ResourceRequest.TEMP_SPACE for r in requests)


def _mergeable(node: Node) -> bool:
    if node.subgraphs:
        return False
    try:
        prop = node.prop()
    except Exception:  # noqa: BLE001
        return False
    return repeatable(prop, [None] * len(node.inputs))


def _equal(a: Node, b: Node) -> bool:
    return a.op == b.op and a.attrs == b.attrs and _mergeable(a)


def _common_pairs(outputs: list[Entry]) -> list[tuple[Node, Node]]:
    groups: dict[tuple, list[Node]] = {}
    for node in topo_order(outputs):
        if node.inputs and not node.is_variable():
            groups.setdefault(tuple((id(s), i) for s, i in node.inputs), []).append(node)
    pairs: list[tuple[Node, Node]] = []
    for group in groups.values():
        replaced: set[int] = set()
        for i, src in enumerate(group):
            if i in replaced:
                continue
            for j in range(i + 1, len(group)):
                if j not in replaced and _equal(src, group[j]):
                    replaced.add(j)
                    pairs.append((src, group[j]))
    return pairs


def eliminate_common_expr(outputs: list[Entry]) -> list[Entry]:
    """Return the outputs of a copy of the graph with common subexpressions merged.

    Parameters
    ----------
    outputs : list of (Node, int)
        The graph's output entries.

    Returns
    -------
    list of (Node, int)
        The output entries of the new graph (its variable nodes are the original ones).
    """
    outs = copy_graph(outputs, keep_variables=True)
    merged_any = False
    while True:
        pairs = _common_pairs(outs)
        if not pairs:
            break
        merged_any = True
        to_src = {id(rep): src for src, rep in pairs}
        for node in topo_order(outs):
            node.inputs = [(to_src.get(id(s), s), i) for s, i in node.inputs]
        outs = [(to_src.get(id(n), n), i) for n, i in outs]
    if not merged_any:
        return outs
    seen: dict[tuple[int, int], int] = {}
    for k, (node, i) in enumerate(outs):
        key = (id(node), i)
        if key not in seen:
            seen[key] = 0
            continue
        copy = Node("_copy", f"{node.name}_{seen[key]}_copy", {}, [(node, i)])
        seen[key] += 1
        outs[k] = (copy, 0)
    return outs
