"""The export walk: an mxlite symbol and its parameters to an ONNX graph.

Design note
-----------
Shapes and dtypes are inferred over the whole graph first (at the shapes given, and, for an
export with dynamic axes, once more with every dynamic dimension doubled: an output dimension
that changes between the two runs is dynamic too). The walk then visits the nodes in
topological order and asks each operator's translation (``registry.register_onnx``) for ONNX
nodes; a translation sees its node through a :class:`NodeContext`: the parsed parameters, the
ONNX names of its inputs and outputs, their shapes, dtypes and dynamic dimensions, the values
of inputs that are parameters, and ``emit``/``const`` to add nodes and constants.

Variables that hold parameters become initializers (never graph inputs); the labels of the
``*Output`` heads, whose translations compute the inference output, are dropped. Last, nodes
and initializers that no graph output needs are removed, so the graph holds no dead code.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import onnx
from onnx import helper, numpy_helper

from ..base import MXNetError
from ..symbol.graph import Node, topo_order
from ..symbol.infer import infer_shapes, infer_types

# operators whose argument 1 is a label, unused at inference
HEADS = (
    "SoftmaxOutput",
    "LinearRegressionOutput",
    "LogisticRegressionOutput",
    "MAERegressionOutput",
    "SVMOutput",
)
INT_MAX = np.iinfo(np.int64).max
INT_MIN = np.iinfo(np.int64).min


class ExportError(MXNetError, ValueError):
    """A node that ONNX cannot express, or input the exporter cannot use."""


def onnx_dtype(dtype: Any) -> int:
    return helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


class GraphBuilder:
    """The ONNX nodes and initializers emitted so far, with unique tensor names."""

    def __init__(self, opset: int) -> None:
        self.opset = opset
        self.nodes: list[onnx.NodeProto] = []
        self.inits: dict[str, np.ndarray] = {}
        self.names: set[str] = set()

    def fresh(self, hint: str) -> str:
        name, i = hint, 1
        while name in self.names:
            name, i = f"{hint}{i}", i + 1
        self.names.add(name)
        return name

    def const(self, value: Any, hint: str, dtype: Any = None) -> str:
        arr = np.asarray(value, dtype=dtype)
        name = self.fresh(hint)
        self.inits[name] = arr
        return name


class NodeContext:
    """What a translation sees of one node; see the module note."""

    def __init__(
        self,
        gb: GraphBuilder,
        node: Node,
        inputs: list[str],
        outputs: list[str],
        shapes: tuple[list, list],
        dtypes: tuple[list, list],
        dyn: tuple[list, list],
        values: list[np.ndarray | None],
    ) -> None:
        self.gb = gb
        self.node = node
        self.name = node.name
        self.op = node.op
        self.param = node.prop().param
        self.inputs = inputs
        self.outputs = outputs
        self.in_shapes, self.out_shapes = shapes
        self.in_dtypes, self.out_dtypes = dtypes
        self.in_dyn, self.out_dyn = dyn
        self.values = values
        self.opset = gb.opset

    def fail(self, attr: str | None, why: str) -> ExportError:
        what = f" with {attr}" if attr else ""
        return ExportError(
            f"export_model: node {self.name!r} (operator {self.op}){what} cannot be expressed "
            f"in ONNX: {why}"
        )

    def emit(
        self, op_type: str, inputs: Sequence[str], outputs: Any = 1, **attrs: Any
    ) -> list[str]:
        """Add one ONNX node; ``outputs`` is a list of names or a count of fresh names."""
        if isinstance(outputs, int):
            outputs = [self.gb.fresh(f"{self.name}_{op_type.lower()}") for _ in range(outputs)]
        self.gb.names.update(outputs)
        node_name = self.gb.fresh(f"{self.name}/{op_type}")
        attrs = {k: v for k, v in attrs.items() if v is not None}
        self.gb.nodes.append(helper.make_node(op_type, list(inputs), outputs, node_name, **attrs))
        return list(outputs)

    def op1(self, op_type: str, inputs: Sequence[str], out: str | None = None, **attrs: Any) -> str:
        """Add a one-output node; its output is ``out`` or a fresh name."""
        return self.emit(op_type, inputs, [out] if out else 1, **attrs)[0]

    def const(self, value: Any, hint: str = "const", dtype: Any = None) -> str:
        return self.gb.const(value, f"{self.name}_{hint}", dtype)

    def ints(self, values: Sequence[int], hint: str = "ints") -> str:
        return self.const(np.asarray(list(values), dtype=np.int64), hint)

    def scalar(self, value: float, dtype: Any, hint: str = "scalar") -> str:
        return self.const(np.asarray(value, dtype=dtype), hint)

    def out(self, i: int = 0) -> str:
        return self.outputs[i]

    def dtype(self, i: int = 0) -> np.dtype:
        return self.in_dtypes[i]

    def ndim(self, i: int = 0) -> int:
        return len(self.in_shapes[i])

    def static_dim(self, i: int, axis: int, attr: str) -> int:
        """Dimension ``axis`` of input ``i``, which must not be dynamic."""
        if self.in_dyn[i][axis]:
            raise self.fail(attr, f"it needs the size of dimension {axis}, which is dynamic.")
        return self.in_shapes[i][axis]

    def reshape_to_out(self, x: str, out: str | None = None, k: int = 0) -> str:
        """Reshape ``x`` to the inferred shape of output ``k`` (dynamic dimensions kept)."""
        shape = list(self.out_shapes[k])
        dyn = [i for i, d in enumerate(self.out_dyn[k]) if d]
        if len(dyn) > 1:
            src, src_dyn = self.in_shapes[0], self.in_dyn[0]
            # a dynamic dimension that sits where the input has the same one is copied (0)
            copied = [i for i in dyn if i < len(src) and src_dyn[i] and src[i] == shape[i]]
            for i in copied:
                shape[i] = 0
            dyn = [i for i in dyn if i not in copied]
            if len(dyn) > 1:
                raise self.fail(None, "its output has several dynamic dimensions that mix.")
        for i in dyn:
            shape[i] = -1
        return self.op1("Reshape", [x, self.ints(shape, "shape")], out)

    def reduce(
        self, op_type: str, x: str, axes: Sequence[int] | None, keepdims: bool, out: str | None
    ) -> str:
        """A Reduce* node; its axes are an input from opset 13 (ReduceSum) or 18 (the rest)."""
        as_input = self.opset >= (13 if op_type == "ReduceSum" else 18)
        if axes is None:
            return self.op1(op_type, [x], out, keepdims=int(keepdims))
        if as_input:
            return self.op1(op_type, [x, self.ints(axes, "axes")], out, keepdims=int(keepdims))
        return self.op1(op_type, [x], out, axes=list(axes), keepdims=int(keepdims))

    def unsqueeze(self, x: str, axes: Sequence[int], out: str | None = None) -> str:
        return self.op1("Unsqueeze", [x, self.ints(axes, "axes")], out)

    def squeeze(self, x: str, axes: Sequence[int], out: str | None = None) -> str:
        return self.op1("Squeeze", [x, self.ints(axes, "axes")], out)

    def cast(self, x: str, dtype: Any, out: str | None = None) -> str:
        return self.op1("Cast", [x], out, to=onnx_dtype(dtype))

    def alias(self, k: int, tensor: str) -> None:
        """Output ``k`` is the tensor ``tensor`` itself (no node; an identity)."""
        self.outputs[k] = tensor


def _dynamic_dims(
    entries: list, known: dict[int, tuple], data: list[Node], dyn_in: list[tuple[bool, ...]]
) -> tuple[dict[tuple[int, int], tuple[bool, ...]], dict[tuple[int, int], dict[int, str]]]:
    """Which dimension of each entry changes when a dynamic input dimension does, and, for
    a dimension that follows exactly one input dimension of the same size, that one's name.

    Each dynamic dimension is doubled on its own; one the network cannot vary (a channel
    count that weights fix) stays dynamic in the graph's input but changes nothing else."""
    first = infer_shapes(entries, known)
    sources: dict[tuple[int, int], list[list[str]]] = {
        k: [[] for _ in s] for k, s in first.items() if s is not None
    }
    for v, mask in zip(data, dyn_in):
        for axis, is_dyn in enumerate(mask):
            if not is_dyn:
                continue
            again = dict(known)
            shape = list(known[id(v)])
            shape[axis] *= 2
            again[id(v)] = tuple(shape)
            try:
                second = infer_shapes(entries, again)
            except MXNetError:
                continue
            dim_name = f"{v.name}_dim{axis}"
            for k, found in sources.items():
                other = second.get(k)
                if other is None or len(other) != len(found):
                    continue
                for i, (a, b) in enumerate(zip(first[k], other)):
                    if a != b:
                        found[i].append(dim_name if b == 2 * a == shape[axis] else "")
    dyn = {k: tuple(bool(f) for f in found) for k, found in sources.items()}
    names = {
        k: {i: f[0] for i, f in enumerate(found) if len(f) == 1 and f[0]}
        for k, found in sources.items()
    }
    return dyn, names


def build_graph(
    sym: Any,
    params: dict[str, np.ndarray],
    in_shapes: list[tuple],
    in_types: list[Any],
    dyn_in: list[tuple[bool, ...]] | None,
    opset: int,
    verbose: bool = False,
) -> onnx.GraphProto:
    """Translate ``sym`` with ``params`` to an ONNX graph (see the module note)."""
    entries = list(sym._entries)
    nodes = topo_order(entries)
    labels = {
        id(n.inputs[1][0])
        for n in nodes
        if n.op in HEADS and len(n.inputs) > 1 and n.inputs[1][0].is_variable()
    }
    # a label that something else reads too stays an input
    labels -= {
        id(src)
        for n in nodes
        for k, (src, _) in enumerate(n.inputs)
        if not (n.op in HEADS and k == 1)
    }
    variables = [n for n in nodes if n.is_variable()]
    data = [v for v in variables if v.name not in params and id(v) not in labels]
    if len(in_shapes) != len(data):
        raise ExportError(
            f"export_model: argument 'in_shapes' gives {len(in_shapes)} shape(s); the model has "
            f"{len(data)} data input(s) {[v.name for v in data]} (parameters and labels "
            "excluded)."
        )
    if len(in_types) != len(data):
        raise ExportError(
            f"export_model: argument 'in_types' gives {len(in_types)} type(s) for "
            f"{len(data)} data input(s)."
        )
    known = {id(v): tuple(int(d) for d in s) for v, s in zip(data, in_shapes)}
    known_t: dict[int, Any] = {id(v): np.dtype(t) for v, t in zip(data, in_types)}
    for v in variables:
        if v.name in params:
            known[id(v)] = params[v.name].shape
            known_t[id(v)] = params[v.name].dtype
    shapes = infer_shapes(entries, known)
    types = infer_types(entries, known_t)
    dyn_in = dyn_in or [tuple(False for _ in s) for s in in_shapes]
    dyn, dim_names = _dynamic_dims(entries, known, data, dyn_in)

    gb = GraphBuilder(opset)
    names: dict[tuple[int, int], str] = {}
    graph_inputs = []
    for v, t, mask in zip(data, in_types, dyn_in):
        dims = [f"{v.name}_dim{i}" if m else d for i, (d, m) in enumerate(zip(known[id(v)], mask))]
        graph_inputs.append(helper.make_tensor_value_info(v.name, onnx_dtype(t), dims))
        gb.names.add(v.name)
        names[(id(v), 0)] = v.name
    for v in variables:
        if v.name in params:
            gb.inits[v.name] = params[v.name]
            gb.names.add(v.name)
            names[(id(v), 0)] = v.name
        elif id(v) in labels:
            names[(id(v), 0)] = ""
    for n in nodes:
        if not n.is_variable():
            _translate(gb, n, names, shapes, types, dyn)
            if verbose:
                logging.info("export_model: converted %s %r", n.op, n.name)

    outputs, out_names = [], []
    # after an operator like boolean_mask, a 0 in an inferred shape is a size known at run time
    sized_at_run = any(n.op is not None and n.prop().dynamic_shape for n in nodes)
    input_names = {v.name for v in data}
    for n, i in entries:
        tensor = names[(id(n), i)]
        if not tensor:  # an output that only training computes (rrelu's mask)
            warnings.warn(
                f"export_model: output {i} of node {n.name!r} ({n.op}) exists only in "
                "training; it is left out of the ONNX graph.",
                stacklevel=3,
            )
            continue
        if tensor in gb.inits or tensor in out_names or tensor in input_names:
            # an output that is an input, a parameter or another output gets its own name
            new = gb.fresh(f"{n.name}_output")
            gb.nodes.append(helper.make_node("Identity", [tensor], [new], new))
            tensor = new
        out_names.append(tensor)
        mask = dyn.get((id(n), i), ())
        named = dim_names.get((id(n), i), {})
        dims = [
            named.get(k, f"{tensor}_dim{k}")
            if (k < len(mask) and mask[k]) or (d == 0 and sized_at_run)
            else d
            for k, d in enumerate(shapes[(id(n), i)])
        ]
        outputs.append(helper.make_tensor_value_info(tensor, onnx_dtype(types[(id(n), i)]), dims))
    kept = _live(gb.nodes, out_names)
    used = {t for node in kept for t in node.input}
    inits = [
        numpy_helper.from_array(a if a.flags.c_contiguous else a.copy(order="C"), k)
        for k, a in gb.inits.items()
        if k in used
    ]
    return helper.make_graph(
        kept, getattr(sym, "name", None) or "mxlite", graph_inputs, outputs, inits
    )


def _live(nodes: list[onnx.NodeProto], outputs: list[str]) -> list[onnx.NodeProto]:
    """The nodes some graph output needs, in their order."""
    need = set(outputs)
    keep = []
    for node in reversed(nodes):
        if any(o in need for o in node.output):
            keep.append(node)
            need.update(node.input)
    return keep[::-1]


def _translate(
    gb: GraphBuilder,
    n: Node,
    names: dict[tuple[int, int], str],
    shapes: dict,
    types: dict,
    dyn: dict,
) -> None:
    prop = n.prop()
    fn = prop.onnx_translation()
    if fn is None or isinstance(fn, str):
        why = fn or "no ONNX translation is registered for it."
        raise ExportError(
            f"export_model: node {n.name!r} (operator {n.op}) cannot be expressed in ONNX: {why}"
        )
    ins = [names[(id(s), i)] for s, i in n.inputs]
    n_out = prop.num_outputs()
    visible = prop.num_visible_outputs()
    outs = prop.list_outputs()
    if visible == 1:
        out_names = [gb.fresh(n.name)] + [gb.fresh(f"{n.name}_{o}") for o in outs[1:]]
    else:
        out_names = [gb.fresh(f"{n.name}_{o}") for o in outs]
    in_keys = [(id(s), i) for s, i in n.inputs]
    out_keys = [(id(n), i) for i in range(n_out)]

    def mask(key: tuple[int, int]) -> tuple[bool, ...]:
        shape = shapes.get(key) or ()
        return dyn.get(key, tuple(False for _ in shape))

    values = [gb.inits.get(x) if x else None for x in ins]
    ctx = NodeContext(
        gb,
        n,
        ins,
        out_names,
        ([shapes[k] for k in in_keys], [shapes[k] for k in out_keys]),
        ([types[k] for k in in_keys], [types[k] for k in out_keys]),
        ([mask(k) for k in in_keys], [mask(k) for k in out_keys]),
        values,
    )
    fn(ctx)
    for i in range(n_out):
        names[(id(n), i)] = ctx.outputs[i]
