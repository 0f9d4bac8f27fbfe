"""The graph passes of INT8 quantization: MXNet 1.9.1's ``QuantizeGraph`` (``MXQuantizeSymbol``)
and ``SetCalibTableToQuantizedGraph`` (``MXSetCalibTableToQuantizedSymbol``).

Design note
-----------
Everything the passes know about an operator they ask its property
(``OperatorProperty.quantized_op``, ``quantizable``, ``need_requantize``,
``avoid_quantize_input``, ``avoid_dequantize_output``, ``asym_quantize_input``,
``calibrate_input``, ``calibrate_output``); there is no list of operator names here.

``quantize`` walks the float graph once in NNVM's post-order and builds a new graph beside it
(``mirror`` maps each float node to the node that now gives its value):

- a node with a quantized form (not excluded, and in "smart" mode lying between two "must"
  nodes) becomes ``quantized_<name>``; each float input gets a ``<src>[_<output>]_quantize``
  node (one per entry, shared by its users), and an int32 output a ``requantize_<name>``;
- a float node reading a quantized one gets ``<src>_dequantize`` in between;
- the quantize nodes of ``offline_params`` become variables ``<param>_quantize``,
  ``..._min`` and ``..._max``, whose values ``_quantize_params`` computes.

The names and attributes are MXNet's, so ``tojson()`` gives MXNet's text for the same graph.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from ..base import MXNetError
from ..operator import registry
from ..symbol.graph import Entry, Node, topo_order

__all__ = ["quantize", "set_calib_table", "output_name"]

_QUANTIZE = "_contrib_quantize_v2"
_QUANTIZE_ASYM = "_contrib_quantize_asym"
_REQUANTIZE = "_contrib_requantize"
_DEQUANTIZE = "_contrib_dequantize"


def output_name(node: Node, index: int) -> str:
    """The name of output ``index`` of ``node`` as MXNet's monitor and calibration know it
    (``conv0_output``; a variable's own name)."""
    if node.is_variable():
        return node.name
    return f"{node.name}_{node.prop().list_outputs()[index]}"


def _op_class(node: Node) -> type[registry.OperatorProperty] | None:
    return None if node.is_variable() else type(node.prop())


def _quantized_nodes(
    order: list[Node],
    excluded_nodes: set[str],
    excluded_ops: set[str],
    mode: str,
    granularity: str,
) -> dict[int, Node]:
    """MXNet's MarkQuantizedNodes: the quantized node (no inputs yet) of each float node that
    is quantized, by ``id`` of the float node."""
    qmap: dict[int, Node] = {}
    must: list[Node] = []
    support: dict[int, int] = {}
    users: dict[int, list[Node]] = {}
    for node in order:
        for src, _ in node.inputs:
            users.setdefault(id(src), []).append(node)
        if node.is_variable():
            continue
        prop = node.prop()
        quantized = prop.quantized_op(granularity)
        if quantized is None:
            continue
        if node.name in excluded_nodes or type(prop).op_name in excluded_ops:
            continue
        # a fused node is left in float when one of the nodes it holds is excluded
        if any(
            not inner.is_variable() and inner.name in excluded_nodes
            for sub in node.subgraphs
            for inner in topo_order(sub)
        ):
            continue
        qname, extra = quantized
        qmap[id(node)] = Node(
            qname, "quantized_" + node.name, {**node.attrs, **extra}, [], node.subgraphs
        )
        if type(prop).quantizable == "must":
            must.append(node)
        else:
            support[id(node)] = 0
    if mode == "full":
        return qmap
    if mode != "smart":
        raise MXNetError(f"quantize_graph: unrecognized quantize_mode {mode!r}; expected "
                         "'smart' or 'full'.")  # fmt: skip
    # "smart": a supporting node stays quantized only if a "must" node lies upstream of it
    # (bit 2) and another downstream (bit 1)
    for bit, step in ((1, lambda n: [s for s, _ in n.inputs]), (2, lambda n: users.get(id(n), []))):
        queue = deque(must)
        while queue:
            for nxt in step(queue.popleft()):
                flags = support.get(id(nxt))
                if flags is not None and not flags & bit:
                    support[id(nxt)] = flags | bit
                    queue.append(nxt)
    for key, flags in support.items():
        if flags != 3:
            del qmap[key]
    return qmap


def _avoid_dequantize(node: Node, index: int) -> bool:
    return not node.is_variable() and node.prop().avoid_dequantize_output(index)


def _range_indices(mirror: Node, index: int, num_outputs: int | None = None) -> tuple[int, int]:
    """Where the min and max of output ``index`` of a quantized node are: after its data
    outputs (``num_outputs``; by default those of ``mirror`` less its own min and max)."""
    if num_outputs is None:
        num_outputs = mirror.prop().num_visible_outputs() - 2
    return num_outputs + 2 * index, num_outputs + 2 * index + 1


def _dequantize(src: Node, mirror: Node, index: int, num_outputs: int | None = None) -> Node:
    lo, hi = _range_indices(mirror, index, num_outputs)
    return Node(_DEQUANTIZE, src.name + "_dequantize", {},
                [(mirror, index), (mirror, lo), (mirror, hi)])  # fmt: skip


def quantize(
    outputs: list[Entry],
    excluded_nodes: set[str],
    excluded_ops: set[str],
    offline_params: set[str],
    quantized_dtype: str,
    mode: str,
    granularity: str,
) -> tuple[list[Entry], list[str]]:
    """The quantized graph of ``outputs`` and the names of the float outputs whose ranges
    calibrate it (MXNet's QuantizeGraph pass and its ``calib_nodes``)."""
    order = topo_order(outputs)
    qmap = _quantized_nodes(order, excluded_nodes, excluded_ops, mode, granularity)
    mirror: dict[int, Node] = {}
    reverse: dict[int, Node] = {}
    quantized_entry: dict[tuple[int, int], Entry] = {}
    for node in order:
        if id(node) in qmap:
            new = _quantized_node(node, qmap, mirror, quantized_entry, quantized_dtype,
                                  granularity)  # fmt: skip
        else:
            new = Node(node.op, node.name, node.attrs, [], node.subgraphs)
            for src, index in node.inputs:
                m = mirror[id(src)]
                key = (id(src), index)
                if id(src) in qmap and m.op != _DEQUANTIZE and not _avoid_dequantize(src, index):
                    dq = _dequantize(src, m, index)
                    new.inputs.append((dq, 0))
                    mirror[id(src)] = dq
                    reverse[id(dq)] = src
                elif key in quantized_entry:
                    new.inputs.append((quantized_entry[key][0].inputs[0][0], index))
                else:
                    new.inputs.append((m, index))
        mirror[id(node)] = new
        reverse[id(new)] = node
    heads: list[Entry] = []
    for src, index in outputs:
        m = mirror[id(src)]
        if id(src) in qmap and not _avoid_dequantize(src, index):
            if m.op == _DEQUANTIZE:  # a float node reads it too: dequantize the quantized one
                m = m.inputs[0][0]
            heads.append((_dequantize(src, m, index, src.prop().num_visible_outputs()), 0))
        else:
            heads.append((m, index))
    if offline_params:
        _offline(heads, offline_params)
    return heads, _calib_names(heads, reverse)


def _quantized_node(
    node: Node,
    qmap: dict[int, Node],
    mirror: dict[int, Node],
    quantized_entry: dict[tuple[int, int], Entry],
    quantized_dtype: str,
    granularity: str,
) -> Node:
    """The quantized node of ``node`` with its inputs (data, then each quantized input's min
    and max), followed by its requantize node where it needs one."""
    new = qmap[id(node)]
    prop = node.prop()
    for i, (src, index) in enumerate(node.inputs):
        m = mirror[id(src)]
        key = (id(src), index)
        if prop.avoid_quantize_input(i, granularity):
            new.inputs.append((m, index))
        elif id(src) not in qmap or _avoid_dequantize(src, index):
            if key not in quantized_entry:
                suffix = ""
                if not m.is_variable():
                    sprop = src.prop()
                    out = sprop.list_outputs()[index] if sprop.lists_output_names else index
                    suffix = f"_{out}"
                name = src.name + suffix + "_quantize"
                if prop.asym_quantize_input(i):
                    q = Node(_QUANTIZE_ASYM, name, {}, [(m, index)])
                else:
                    q = Node(_QUANTIZE, name, {"out_type": quantized_dtype}, [(m, index)])
                quantized_entry[key] = (q, 0)
            new.inputs.append(quantized_entry[key])
        elif m.op == _DEQUANTIZE:
            new.inputs.append((m.inputs[0][0], index))
        else:
            new.inputs.append((m, index))
    for i, (src, index) in enumerate(node.inputs):
        if prop.avoid_quantize_input(i, granularity):
            continue
        m = mirror[id(src)]
        if m.op == _DEQUANTIZE:
            m = m.inputs[0][0]
        key = (id(src), index)
        lo, hi = (1, 2)
        if id(src) in qmap and key in quantized_entry:
            # a quantized node with float outputs (an LSTM) feeding a quantized one: MXNet
            # 1.9.1 wires a wrapped index (2**32 - 1) here, a graph that cannot run
            raise MXNetError(f"quantize_graph: {node.name!r} reads the float output of the "
                             f"quantized {src.name!r}, which MXNet 1.9.1 cannot wire; exclude "
                             "one of them (excluded_sym_names).")  # fmt: skip
        if id(src) in qmap:
            lo, hi = _range_indices(m, index)
        elif key not in quantized_entry:
            raise MXNetError(f"quantize_graph: input {i} of {node.name!r} is neither "
                             "quantized nor a quantize node.")  # fmt: skip
        owner = quantized_entry[key][0] if key in quantized_entry else m
        new.inputs += [(owner, lo), (owner, hi)]
    if registry.get(new.op).need_requantize:
        return Node(_REQUANTIZE, "requantize_" + node.name, {"out_type": quantized_dtype},
                    [(new, 0), (new, 1), (new, 2)])  # fmt: skip
    return new


def _offline(heads: list[Entry], offline_params: set[str]) -> None:
    """MXNet's OfflineParams: each quantize node of a parameter becomes three variables, whose
    values are computed ahead (``<param>_quantize``, ``..._min``, ``..._max``)."""
    made: dict[tuple[int, int], Node] = {}
    suffixes = ("", "_min", "_max")
    for node in topo_order(heads):
        for i, (src, index) in enumerate(node.inputs):
            if (src.op == _QUANTIZE and src.inputs[0][0].is_variable()
                    and src.inputs[0][0].name in offline_params):  # fmt: skip
                key = (id(src), index)
                if key not in made:
                    made[key] = Node(None, src.name + suffixes[index])
                node.inputs[i] = (made[key], 0)


def _calib_names(heads: list[Entry], reverse: dict[int, Node]) -> list[str]:
    names: list[str] = []
    for node in topo_order(heads):
        cls = _op_class(node)
        if cls is None:
            continue
        if cls.calibrate_input is not None:
            src, index = node.inputs[cls.calibrate_input]
            if id(node) in reverse:
                names.append(output_name(reverse[id(node)], index))
            elif src.is_variable():
                names.append(src.name)
            elif id(src) in reverse:
                names.append(output_name(reverse[id(src)], index))
            else:
                raise MXNetError(f"quantize_graph: no calibration node for {node.name!r}.")
        elif cls.calibrate_output is not None:
            owner = reverse.get(id(node), node)
            names.append(output_name(owner, cls.calibrate_output))
    return names


def _calib_key(node: Node, index: int) -> str:
    name = output_name(node, index)
    prefix = "quantized_"
    return name[len(prefix) :] if node.name.startswith(prefix) else name


def _c_float_text(value: object) -> str:
    """``std::to_string`` of a C float: a threshold (a number or a one-element array, as the
    entropy calibration gives) as float32, written with six decimals."""
    return f"{float(np.asarray(value, dtype=np.float32).reshape(-1)[0]):f}"


def set_calib_table(heads: list[Entry], table: dict[str, tuple[float, float]]) -> list[Entry]:
    """MXNet's SetCalibTableToQuantizedGraph: a copy of the graph where each quantize,
    requantize and quantized BatchNorm node whose float output has a range in ``table`` has it
    as ``min_calib_range``/``max_calib_range`` (C's ``%f`` of the float32 value, as MXNet)."""
    new: dict[int, Node] = {}
    for node in topo_order(heads):
        attrs = dict(node.attrs)
        cls = _op_class(node)
        key = None
        if cls is not None and cls.calibrate_input is not None:
            src, index = node.inputs[cls.calibrate_input]
            key = _calib_key(src, index)
        elif cls is not None and cls.calibrate_output is not None:
            key = _calib_key(node, cls.calibrate_output)
        if key in table:
            lo, hi = table[key]
            attrs["min_calib_range"] = _c_float_text(lo)
            attrs["max_calib_range"] = _c_float_text(hi)
        new[id(node)] = Node(node.op, node.name, attrs,
                             [(new[id(s)], i) for s, i in node.inputs], node.subgraphs)  # fmt: skip
    return [(new[id(n)], i) for n, i in heads]
