"""The executable graph: forward steps over entries, and the gradient steps built from them.

Design note
-----------
Binding turns a symbol's nodes into an :class:`ExecGraph`: a table of *entries* (one per
array the executor touches: arguments, auxiliary states, operator outputs, gradients) and
two lists of *steps* (forward, then backward) that read and write entries by index. Later
passes (the memory plan, the executor) work on that table only.

The gradient pass walks the forward nodes in reverse order. A node gets a backward step when
one of its inputs needs a gradient and one of its outputs has one. The step reads what the
operator's ``declare_backward_dependency`` names (and nothing more, so the planner may free
or overwrite the rest) and writes one gradient per input. Gradients of an entry used several
times are summed where they land: the first contribution writes (``OpReq.WRITE``), the later
ones accumulate (``OpReq.ADD``) into the same array, so no separate sum node and no extra
buffer is needed; the engine orders the writers because they mutate the same var. Two
contributions from one step (``x * x``) go through a temporary and an ``accumulate`` step, as
a kernel may assign its input gradients in any order.

``BlockGrad`` (``stop_gradient``) passes no gradient: its input gets none from it. Neither
do the operators MXNet gives a zero gradient (``MakeZeroGradNodes``: comparisons,
``shape_array``...): their backward reads no head gradient, so MXNet's executor neither asks
for one nor checks its shape, and the same holds here. Binding
fails when a gradient must flow through an operator that has none (``differentiable`` false).
An output whose operator's backward never reads ``out_grad`` (a loss such as
``SoftmaxOutput`` or ``MakeLoss``) needs no head gradient; every other head does, and the
executor asks for it. An argument with ``grad_req='write'`` that gets no gradient at all is
filled with zeros, as in MXNet.

Example::

    g = build_graph(outputs, shapes, dtypes, arg_names, aux_names, grad_reqs)
    [s.name for s in g.backward]      # ['fc1_backward', ...]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..base import MXNetError
from ..operator.req import OpReq
from ..symbol.graph import Entry, Node, topo_order
from ..util import is_np_shape

__all__ = ["EntryInfo", "Step", "ExecGraph", "build_graph"]

# Entry kinds. External entries live in arrays given to or made by bind; the memory plan
# places only internal ones.
ARG, AUX, GRAD, HEAD_GRAD, INTERNAL = "arg", "aux", "grad", "head_grad", "internal"


@dataclass
class EntryInfo:
    """One array of the executor: its shape, dtype, kind and a name for debug output."""

    shape: tuple[int, ...]
    dtype: np.dtype
    kind: str
    name: str

    @property
    def nbytes(self) -> int:
        n = self.dtype.itemsize
        for d in self.shape:
            n *= d
        return n


@dataclass
class Step:
    """One operator application (or a zero fill / accumulation) over entries.

    ``kind`` is ``forward``, ``backward``, ``zeros`` or ``accumulate``. For a backward step
    ``out_grad``, ``in_data``, ``out_data`` hold one entry per slot, -1 where the operator does
    not read it; ``outputs`` holds the input gradients (-1: not wanted) and ``req`` their
    requests. ``inplace`` lists (read entry, written entry) pairs the operator allows to share
    memory.
    """

    kind: str
    name: str
    node: Node | None = None
    prop: Any = None
    inputs: list[int] = field(default_factory=list)
    outputs: list[int] = field(default_factory=list)
    aux: list[int] = field(default_factory=list)
    req: list[OpReq] = field(default_factory=list)
    out_grad: list[int] = field(default_factory=list)
    in_data: list[int] = field(default_factory=list)
    out_data: list[int] = field(default_factory=list)
    inplace: list[tuple[int, int]] = field(default_factory=list)

    def reads(self) -> list[int]:
        """Entries read (ADD targets included: accumulation reads the old value)."""
        if self.kind == "backward":
            got = [e for e in (*self.out_grad, *self.in_data, *self.out_data) if e >= 0]
        else:
            got = list(self.inputs)
        got += [e for e, r in zip(self.outputs, self.req) if r == OpReq.ADD and e >= 0]
        return list(dict.fromkeys(got))

    def writes(self) -> list[int]:
        return [e for e in self.outputs if e >= 0]


@dataclass
class ExecGraph:
    """The entry table and the steps of one bound symbol."""

    entries: list[EntryInfo]
    forward: list[Step]
    backward: list[Step]
    arg_eids: list[int]
    aux_eids: list[int]
    output_eids: list[int]
    grad_eids: list[int]  # per argument: its gradient entry, -1 when grad_req is null
    head_grad_eids: list[int]  # per output: -1 when the backward never reads it
    output_names: list[str] = field(default_factory=list)


def _node_entries(node: Node) -> int:
    return node.num_outputs()


def build_graph(
    outputs: list[Entry],
    shapes: dict[tuple[int, int], Any],
    dtypes: dict[tuple[int, int], Any],
    arg_names: list[str],
    aux_names: list[str],
    grad_reqs: dict[str, OpReq],
    output_names: list[str] | None = None,
) -> ExecGraph:
    """Build the forward steps and, where any ``grad_reqs`` is not NULL, the backward ones.

    Parameters
    ----------
    outputs : list of (Node, int)
        The symbol's output entries.
    shapes, dtypes : dict
        ``(id(node), index) -> shape / dtype`` for every entry (from the inference passes).
    arg_names, aux_names : list of str
        Variable names in ``list_arguments()`` / ``list_auxiliary_states()`` order.
    grad_reqs : dict of str to OpReq
        The gradient request of each argument.
    """
    order = topo_order(outputs)
    entries: list[EntryInfo] = []
    eid_of: dict[tuple[int, int], int] = {}
    var_by_name: dict[str, Node] = {}

    def new_entry(shape: Any, dtype: Any, kind: str, name: str) -> int:
        entries.append(EntryInfo(tuple(shape), np.dtype(dtype), kind, name))
        return len(entries) - 1

    def info(key: tuple[int, int], node: Node) -> tuple[Any, Any]:
        shape, dtype = shapes.get(key), dtypes.get(key)
        if shape is None or (0 in shape and not is_np_shape()):
            if not node.is_variable() and node.prop().dynamic_shape:
                raise MXNetError(
                    f"bind: the output shape of {node.name!r} ({node.op}) depends on the "
                    "values of its inputs, so no executor can plan it; call it on NDArrays or "
                    "inside a hybridized HybridBlock, which runs such graphs node by node."
                )
            raise MXNetError(
                f"bind: cannot infer the shape of {node.name!r} (output {key[1]}); give the "
                f"shapes of the inputs (got {shape})."
            )
        if dtype is None:
            raise MXNetError(f"bind: cannot infer the dtype of {node.name!r} (output {key[1]}).")
        return shape, dtype

    aux_set = set(aux_names)
    for node in order:
        if node.is_variable():
            var_by_name[node.name] = node
            key = (id(node), 0)
            shape, dtype = info(key, node)
            kind = AUX if node.name in aux_set else ARG
            eid_of[key] = new_entry(shape, dtype, kind, node.name)
            continue
        outs = node.prop().list_outputs()
        for i in range(_node_entries(node)):
            key = (id(node), i)
            shape, dtype = info(key, node)
            oname = outs[i] if i < len(outs) else str(i)
            eid_of[key] = new_entry(shape, dtype, INTERNAL, f"{node.name}_{oname}")

    arg_eids = [eid_of[(id(var_by_name[n]), 0)] for n in arg_names]
    aux_eids = [eid_of[(id(var_by_name[n]), 0)] for n in aux_names]
    output_eids = [eid_of[(id(n), i)] for n, i in outputs]

    forward: list[Step] = []
    for node in order:
        if node.is_variable():
            continue
        prop = node.prop()
        n_arg = len(prop.list_arguments())
        ins = [eid_of[(id(n), i)] for n, i in node.inputs]
        outs = [eid_of[(id(node), i)] for i in range(_node_entries(node))]
        step = Step("forward", node.name, node, prop, ins[:n_arg], outs, ins[n_arg:])
        step.req = [OpReq.WRITE] * len(outs)
        pairs = prop.forward_inplace_option(
            list(range(n_arg)), list(range(n_arg, n_arg + len(outs)))
        )
        step.inplace = [(step.inputs[a], outs[b - n_arg]) for a, b in pairs]
        forward.append(step)

    grad_eids = [-1] * len(arg_names)
    head_grad_eids = [-1] * len(outputs)
    backward: list[Step] = []
    if any(grad_reqs.get(n, OpReq.NULL) != OpReq.NULL for n in arg_names):
        _GradientPass(entries, eid_of, order, grad_reqs, arg_names, arg_eids).run(
            forward, output_eids, grad_eids, head_grad_eids, backward
        )
    return ExecGraph(
        entries,
        forward,
        backward,
        arg_eids,
        aux_eids,
        output_eids,
        grad_eids,
        head_grad_eids,
        list(output_names or []),
    )


class _GradientPass:
    """State of one gradient construction: where each entry's gradient lands and who wrote it."""

    def __init__(
        self,
        entries: list[EntryInfo],
        eid_of: dict[tuple[int, int], int],
        order: list[Node],
        grad_reqs: dict[str, OpReq],
        arg_names: list[str],
        arg_eids: list[int],
    ) -> None:
        self.entries = entries
        self.eid_of = eid_of
        self.order = order
        self.grad_target: dict[int, int] = {}  # forward entry -> its gradient entry
        self.writers: dict[int, int] = {}  # gradient entry -> contributions so far
        self.add_only: set[int] = set()  # gradient entries every contribution adds to
        self.needs = [False] * len(entries)
        for name, eid in zip(arg_names, arg_eids):
            self.needs[eid] = grad_reqs.get(name, OpReq.NULL) != OpReq.NULL
        self.grad_reqs = grad_reqs
        self.arg_names = arg_names
        self.arg_eids = arg_eids

    def new_entry(self, like: int, kind: str, name: str) -> int:
        e = self.entries[like]
        self.entries.append(EntryInfo(e.shape, e.dtype, kind, name))
        return len(self.entries) - 1

    def run(
        self,
        forward: list[Step],
        output_eids: list[int],
        grad_eids: list[int],
        head_grad_eids: list[int],
        backward: list[Step],
    ) -> None:
        needs = self.needs
        for step in forward:  # an output needs a gradient when some input does
            if step.prop.grad_flow == "none":
                continue
            if any(needs[e] for e in step.inputs):
                for e in step.outputs:
                    needs[e] = True
        for i, (name, eid) in enumerate(zip(self.arg_names, self.arg_eids)):
            if needs[eid]:
                g = self.new_entry(eid, GRAD, f"{name}_grad")
                grad_eids[i] = g
                self.grad_target[eid] = g
                if self.grad_reqs[name] == OpReq.ADD:
                    self.add_only.add(g)
        heads: dict[int, int] = {}
        for i, eid in enumerate(output_eids):
            if needs[eid] and eid not in heads and self.entries[eid].kind == INTERNAL:
                h = self.new_entry(eid, HEAD_GRAD, f"_head_grad_{i}")
                heads[eid] = i
                head_grad_eids[i] = h
                self.grad_target[eid] = h
                self.writers[h] = 1  # filled by the copy from the user's out_grads
        read_heads: set[int] = set()
        for step in reversed(forward):
            if step.prop.grad_flow != "backward":
                continue
            if not any(needs[e] for e in step.inputs):
                continue
            self._backward_step(step, backward, read_heads)
        for i, h in enumerate(head_grad_eids):
            if h >= 0 and h not in read_heads:
                head_grad_eids[i] = -1  # a loss output: its backward never reads out_grad
        for g in grad_eids:  # write-gradients nobody contributed to are zero
            if g >= 0 and self.writers.get(g, 0) == 0 and g not in self.add_only:
                backward.append(Step("zeros", f"{self.entries[g].name}_zeros", outputs=[g]))
                backward[-1].req = [OpReq.WRITE]

    def _backward_step(self, step: Step, backward: list[Step], read_heads: set[int]) -> None:
        """Append ``step``'s backward (after any zero fills it needs) to ``backward``."""
        prop = step.prop
        n_out, n_in = len(step.outputs), len(step.inputs)
        og_ids = list(range(n_out))
        in_ids = list(range(n_out, n_out + n_in))
        out_ids = list(range(n_out + n_in, n_out + n_in + n_out))
        deps = set(prop.declare_backward_dependency(og_ids, in_ids, out_ids))
        have = [self.grad_target.get(e, -1) for e in step.outputs]
        have = [g if g >= 0 and self.writers.get(g, 0) > 0 else -1 for g in have]
        if all(g < 0 for g in have) and any(i in deps for i in og_ids):
            return  # no gradient reaches this node's outputs
        if not prop.differentiable:
            # fail at bind, as MXNet does for an operator without FGradient
            raise MXNetError(
                f"bind: operator {prop.op_name} (node {step.name!r}) is non-differentiable: it "
                f"has no gradient, yet the gradient of its input is requested (use "
                f"stop_gradient on its output or grad_req='null' for its inputs)."
            )
        b = Step("backward", f"{step.name}_backward", step.node, prop, aux=list(step.aux))
        b.inputs = list(step.inputs)  # the forward inputs, for reference (not read)
        for i, e in enumerate(step.outputs):
            if i not in deps:
                b.out_grad.append(-1)
                continue
            g = have[i]
            if g < 0:  # read but never produced: a zero gradient
                g = self.new_entry(e, INTERNAL, f"{step.name}_ograd{i}_zeros")
                z = Step("zeros", self.entries[g].name, outputs=[g], req=[OpReq.WRITE])
                backward.append(z)
            elif self.entries[g].kind == HEAD_GRAD:
                read_heads.add(g)
            b.out_grad.append(g)
        b.in_data = [e if n_out + i in deps else -1 for i, e in enumerate(step.inputs)]
        b.out_data = [e if n_out + n_in + i in deps else -1 for i, e in enumerate(step.outputs)]
        pending: list[Step] = []
        seen_here: set[int] = set()
        for e in step.inputs:
            if not self.needs[e]:
                b.outputs.append(-1)
                b.req.append(OpReq.NULL)
                continue
            target = self.grad_target.get(e)
            if target is None:
                target = self.new_entry(e, INTERNAL, f"{self.entries[e].name}_grad")
                self.grad_target[e] = target
            if target in seen_here:  # a second slot of this step: sum through a temporary
                tmp = self.new_entry(e, INTERNAL, f"{b.name}_tmp{len(b.outputs)}")
                b.outputs.append(tmp)
                b.req.append(OpReq.WRITE)
                acc = Step("accumulate", f"{b.name}_sum", inputs=[tmp], outputs=[target])
                acc.req = [OpReq.ADD]
                pending.append(acc)
                continue
            seen_here.add(target)
            first = self.writers.get(target, 0) == 0 and target not in self.add_only
            b.outputs.append(target)
            b.req.append(OpReq.WRITE if first else OpReq.ADD)
            self.writers[target] = self.writers.get(target, 0) + 1
        slots = [*b.out_grad, *step.inputs, *step.outputs]
        ig_ids = list(range(2 * n_out + n_in, 2 * n_out + 2 * n_in))
        for a, c in prop.backward_inplace_option(og_ids, in_ids, out_ids, ig_ids):
            k = c - ig_ids[0]
            if not 0 <= k < n_in or not (a in og_ids or a in deps):
                continue  # the backward does not read that slot, or it is no input gradient
            src, dst = slots[a], b.outputs[k]
            if src >= 0 and dst >= 0 and b.req[k] == OpReq.WRITE:
                b.inplace.append((src, dst))
        backward.append(b)
        backward.extend(pending)
