"""The partitioning passes of MXNet 1.9.1's CPU backends ``MKLDNN`` and ``MKLDNN_QUANTIZE``.

Design note
-----------
Each pass walks the graph's nodes in NNVM's order and, from every node not yet taken that
seeds a pattern, grows a chain forward through single consumers (MXNet's selectors stop a
chain at a node whose output more than one node reads, and never look at consumers already
taken by an earlier chain nor at the graph's outputs). The chain is replaced by one node:

- identity: ``_copy`` and a Dropout in its default mode vanish into the operator before them;
- convolution: Convolution [BatchNorm] [elemwise_add] [activation] as ``_sg_mkldnn_conv``
  named ``sg_mkldnn_conv[_bn][_add][_act]_<k>``, holding the chain as its subgraph, whose
  inputs are new variables named after what fed them (``data0``, ``<node>_output0``); the sum's
  other operand is moved last;
- fully connected: FullyConnected [one element-wise op] as ``_sg_mkldnn_fully_connected``;
- transformer: each ``_contrib_interleaved_matmul_selfatt_qk``/``_valatt`` alone as
  ``_sg_mkldnn_selfatt_qk``/``_valatt`` (named ``sg_mkldnn_selfatt_*_<k>``);
- post-quantize (MKLDNN_QUANTIZE): a quantized ``_sg_mkldnn_conv`` or quantized elemwise_add
  followed by a calibrated ``_contrib_requantize`` takes the requantize's range; a quantized
  fully connected layer, elemwise_mul or self-attention product takes it too, or with a
  ``_contrib_dequantize`` after it gives float output; then the calibrated nodes feeding a
  quantized concat (through concats and poolings) take one common range (scale alignment).

Which operators play which part is declared next to the fused operators (``conv_role``,
``fc_role``, ``identity_role``, ``requantize_fusion``, ``align_scale_role`` in
``mxlite/operator/subgraph``). ``<k>`` counts the nodes each pass made.

Where a convolution's own output is read by more than one node, the chain stops there (what
MXNet's selectors mean to do); MXNet 1.9.1 itself then fuses one reader or none depending on
the order of pointers in a hash map, and rewires the other readers to the fused output.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..operator.subgraph._mkldnn_common import (
    align_scale_role,
    identity_role,
    post_quantize_role,
    requantize_fusion,
)
from ..operator.subgraph.mkldnn_conv import SgMKLDNNConvProp, conv_role
from ..operator.subgraph.mkldnn_fc import SgMKLDNNFCProp, fc_role
from ..operator.subgraph.mkldnn_selfatt import selfatt_role
from .graph import Entry, Node, entry_name, topo_order

__all__ = ["partition"]


class _Graph:
    """The graph being rewritten: its nodes in order and who reads each node."""

    def __init__(self, outputs: list[Entry]) -> None:
        self.outputs = list(outputs)
        self.nodes = topo_order(self.outputs)
        # (id(node), index) -> the entry standing for it after the fusions made so far
        self.remap: dict[tuple[int, int], Entry] = {}
        self.readers: dict[int, list[Node]] = {}
        for n in self.nodes:
            for src, _ in n.inputs:
                lst = self.readers.setdefault(id(src), [])
                if not any(r is n for r in lst):
                    lst.append(n)


def _chain(g: _Graph, seed: Node, step: Callable[[str, Node], str | None], taken: set) -> list:
    """The nodes from ``seed`` forward while ``step(state, next)`` accepts the sole free
    reader; ``step`` returns the new state or None to stop."""
    chain, state = [seed], "start"
    while True:
        readers = [r for r in g.readers.get(id(chain[-1]), []) if id(r) not in taken]
        if len(readers) != 1 or readers[0].is_variable():
            return chain
        new = step(state, readers[0])
        if new is None:
            return chain
        chain.append(readers[0])
        state = new
        if state == "done":
            return chain


def _conv_step(quantize: bool) -> Callable[[str, Node], str | None]:
    order = {"start": 0, "bn": 1, "sum": 2}

    def step(state: str, node: Node) -> str | None:
        role = conv_role(node, quantize)
        if role == "bn" and order[state] < 1:
            return "bn"
        if role == "sum" and order[state] < 2:
            return "sum"
        if role == "act" or (role == "clip" and not (quantize and state == "sum")):
            return "done"
        return None

    return step


def _fc_step(quantize: bool) -> Callable[[str, Node], str | None]:
    def step(state: str, node: Node) -> str | None:
        return "done" if fc_role(node, quantize) == "eltwise" else None

    return step


def _fused_node(g: _Graph, chain: list[Node], op: str, name: str, attrs: dict) -> Node:
    """The node holding ``chain`` as its subgraph, fed by what fed the chain. The variables
    are named in the order a depth-first walk of the chain as it was meets its inputs (as
    MXNet's CutGraphInputs counts them); then the sum's chain operand is put first."""
    inside = {id(n): n for n in chain}
    outer: dict[int, Entry] = {}  # subgraph variable -> the entry feeding it
    slot_var: dict[tuple[int, int], Node] = {}  # (id(node), input slot) -> its variable
    names: dict[str, int] = {}
    done: set[int] = set()
    stack = [(chain[-1], 0)]
    while stack:
        n, j = stack.pop()
        if j == len(n.inputs):
            done.add(id(n))
            continue
        stack.append((n, j + 1))
        src, i = n.inputs[j]
        if id(src) in inside:
            if id(src) not in done:
                stack.append((src, 0))
            continue
        # named after what feeds it now: an earlier fused node of this pass, maybe
        base = entry_name(g.remap.get((id(src), i), (src, i)))
        k = names[base] = names.get(base, -1) + 1
        var = slot_var[(id(n), j)] = Node(None, f"{base}{k}")
        outer[id(var)] = (src, i)
    copies: dict[int, Node] = {}
    for n in chain:
        ins = [(copies[id(s)], i) if id(s) in inside else (slot_var[(id(n), j)], 0)
               for j, (s, i) in enumerate(n.inputs)]  # fmt: skip
        if conv_role(n, False) == "sum" and id(n.inputs[1][0]) in inside:
            ins = [ins[1], ins[0]]
        copies[id(n)] = Node(n.op, n.name, n.attrs, ins, n.subgraphs)
    head = copies[id(chain[-1])]
    order = [v for v in topo_order([(head, 0)]) if v.is_variable()]
    return Node(op, name, attrs, [outer[id(v)] for v in order], [[(head, 0)]])


def _conv_node(g: _Graph, chain: list[Node], k: int) -> Node:
    attrs: dict[str, str] = {}
    parts = []
    seen_sum = False
    for n in chain:
        role = conv_role(n, False) or conv_role(n, True)
        if role == "conv":
            parts.append("conv")
        elif role == "bn":
            parts.append("bn")
            attrs["with_bn"] = "true"
        elif role == "sum":
            parts.append("add")
            attrs["with_sum"] = "true"
            seen_sum = True
        else:
            parts.append("act")
            attrs["with_postsum_act" if seen_sum else "with_act"] = "true"
    name = "sg_mkldnn_" + "_".join(parts) + f"_{k}"
    return _fused_node(g, chain, SgMKLDNNConvProp.op_name, name, attrs)


def _fc_node(g: _Graph, chain: list[Node], k: int) -> Node:
    attrs = {"with_eltwise": "True"} if len(chain) > 1 else {}
    name = "sg_mkldnn_fully_connected_" + ("eltwise_" if len(chain) > 1 else "") + str(k)
    return _fused_node(g, chain, SgMKLDNNFCProp.op_name, name, attrs)


def _selfatt_node(g: _Graph, chain: list[Node], k: int) -> Node:
    (node,) = chain
    op = selfatt_role(node)
    attrs = {"heads": str(node.prop().param.heads), "quantized": "False",
             "enable_float_output": "False"}  # fmt: skip
    return _fused_node(g, chain, op, f"{op[1:]}_{k}", attrs)


def _rewrite(outputs: list[Entry], remap: dict[tuple[int, int], Entry]) -> list[Entry]:
    """``outputs`` with every entry in ``remap`` (by ``(id(node), index)``) replaced, copying
    each node whose inputs change (nodes are shared, so never edited in place). A replacement
    node's inputs are old entries that come before it, so one walk in order suffices."""
    memo: dict[int, Node] = {}

    def node(n: Node) -> Node:
        got = memo.get(id(n))
        if got is None:
            ins = [entry(e) for e in n.inputs]
            same = all(a[0] is b[0] and a[1] == b[1] for a, b in zip(ins, n.inputs))
            got = memo[id(n)] = n if same else Node(n.op, n.name, n.attrs, ins, n.subgraphs)
        return got

    def entry(e: Entry) -> Entry:
        e = remap.get((id(e[0]), e[1]), e)
        return (node(e[0]), e[1])

    for n in topo_order(outputs):
        node(n)
    return [entry(e) for e in outputs]


def _fuse_pass(outputs: list[Entry], seed: Callable, step: Callable, make: Callable) -> list:
    """One selector pass: chains from seeds, each replaced by ``make(g, chain, k)`` whose
    output 0 stands for every output of the chain (the fused convolution) or whose output i
    for output i of the chain's last node."""
    g = _Graph(outputs)
    taken: set[int] = set()
    remap = g.remap
    k = 0
    for n in g.nodes:
        if n.is_variable() or id(n) in taken or not seed(n):
            continue
        chain = _chain(g, n, step, taken)
        taken.update(id(c) for c in chain)
        fused = make(g, chain, k)
        k += 1
        for c in chain:
            for i in range(c.num_outputs()):
                remap[(id(c), i)] = (fused, 0 if fused.op == SgMKLDNNConvProp.op_name else i)
    return _rewrite(outputs, remap) if remap else outputs


def _identity_pass(outputs: list[Entry]) -> list[Entry]:
    """``_copy`` and a training-mode Dropout (the identity in inference) fold into the operator
    that feeds them."""
    g = _Graph(outputs)
    taken: set[int] = set()
    remap: dict[tuple[int, int], Entry] = {}
    for n in g.nodes:
        if not identity_role(n) or id(n) in taken:
            continue
        src, i = n.inputs[0]
        if src.is_variable() or id(src) in taken:
            continue
        taken.update((id(n), id(src)))
        copy = Node(src.op, src.name, src.attrs, src.inputs, src.subgraphs)
        for j in range(src.num_outputs()):
            remap[(id(src), j)] = (copy, j)
        for j in range(n.num_outputs()):
            remap[(id(n), j)] = (copy, i)
    return _rewrite(outputs, remap) if remap else outputs


def _calib_text(v: str) -> str:
    """A range as MXNet writes it back (``std::to_string`` of the float: six decimals)."""
    return f"{float(np.float32(float(v))):.6f}"


def _post_quantize_pass(outputs: list[Entry], kinds: tuple[str, ...]) -> list[Entry]:
    """A node whose ``requantize_fusion`` is in ``kinds`` and the calibrated requantize after
    it (and, for "float" ones, a dequantize after that) become the node with the range (or
    float output)."""
    g = _Graph(outputs)
    remap: dict[tuple[int, int], Entry] = {}
    taken: set[int] = set()
    for n in g.nodes:
        kind = None if n.is_variable() or id(n) in taken else requantize_fusion(n)
        if kind not in kinds:
            continue
        readers = [r for r in g.readers.get(id(n), []) if id(r) not in taken]
        if len(readers) != 1 or post_quantize_role(readers[0]) != "requantize":
            continue
        req = readers[0]
        attrs = dict(n.attrs)
        last = req
        deq = [r for r in g.readers.get(id(req), []) if id(r) not in taken]
        if kind == "float" and len(deq) == 1 and post_quantize_role(deq[0]) == "dequantize":
            attrs["enable_float_output"] = "True"
            last = deq[0]
        else:
            attrs["min_calib_range"] = _calib_text(req.attrs["min_calib_range"])
            attrs["max_calib_range"] = _calib_text(req.attrs["max_calib_range"])
        fused = Node(n.op, n.name, attrs, n.inputs, n.subgraphs)
        taken.update((id(n), id(req), id(last)))
        for i in range(last.num_outputs()):
            remap[(id(last), i)] = (fused, i)
        if last is not req:
            for i in range(req.num_outputs()):
                remap[(id(req), i)] = (fused, i)
    return _rewrite(outputs, remap) if remap else outputs


def _align_scale_pass(outputs: list[Entry]) -> list[Entry]:
    """Every calibrated node feeding a quantized concat (through concats and poolings whose
    outputs only the walk reads) takes the union of their ranges and 0, so the concat's
    inputs share one scale."""
    g = _Graph(outputs)
    remap: dict[tuple[int, int], Entry] = {}
    taken: set[int] = set()
    for seed in g.nodes:
        if seed.is_variable() or id(seed) in taken or align_scale_role(seed, True) != "concat":
            continue
        visited = {id(seed)}
        matched: list[Node] = []
        queue = [seed]
        down = len(g.readers.get(id(seed), [])) <= 1
        while queue:
            cur = queue.pop(0)
            for src, _ in cur.inputs:
                if src.is_variable() or id(src) in taken or any(src is m for m in matched):
                    continue
                if any(id(r) not in visited for r in g.readers.get(id(src), [])):
                    continue
                role = align_scale_role(src)
                if role == "calibrated":
                    matched.append(src)
                elif role == "through" and id(src) not in visited:
                    visited.add(id(src))
                    queue.append(src)
            for r in g.readers.get(id(cur), []) if down else []:
                if id(r) not in visited and id(r) not in taken:
                    if align_scale_role(r) == "through":
                        visited.add(id(r))
                        queue.append(r)
        taken.update(visited)
        if len(matched) < 2:
            continue
        lo = min([0.0] + [float(np.float32(float(m.attrs["min_calib_range"]))) for m in matched])
        hi = max([0.0] + [float(np.float32(float(m.attrs["max_calib_range"]))) for m in matched])
        for m in matched:
            taken.add(id(m))
            attrs = {**m.attrs, "min_calib_range": f"{lo:.6f}", "max_calib_range": f"{hi:.6f}"}
            new = Node(m.op, m.name, attrs, m.inputs, m.subgraphs)
            for i in range(m.num_outputs()):
                remap[(id(m), i)] = (new, i)
    return _rewrite(outputs, remap) if remap else outputs


def partition(outputs: list[Entry], backend: str) -> list[Entry]:
    """The output entries of the graph partitioned by ``backend`` (see the module note)."""
    quantize = backend == "MKLDNN_QUANTIZE"
    out = _identity_pass(outputs)
    out = _fuse_pass(out, lambda n: conv_role(n, quantize) == "conv", _conv_step(quantize),
                     _conv_node)  # fmt: skip
    out = _fuse_pass(out, lambda n: fc_role(n, quantize) == "fc", _fc_step(quantize), _fc_node)
    if quantize:
        out = _identity_pass(out)
    out = _fuse_pass(out, selfatt_role, lambda state, node: None, _selfatt_node)
    if quantize:
        out = _post_quantize_pass(out, ("range",))
        out = _post_quantize_pass(out, ("float",))
        out = _align_scale_pass(out)
    return out
