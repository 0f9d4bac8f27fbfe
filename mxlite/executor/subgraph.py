"""Run a symbolic subgraph inside an operator: the body of ``_foreach``, ``_while_loop`` and
``_cond``.

Design note
-----------
A control-flow node holds its bodies as graphs (lists of output entries of
:class:`~mxlite.symbol.graph.Node`). :class:`SubgraphRunner` executes one such graph directly
on ``xp`` arrays, node by node in topological order, calling each operator's kernel as the
executor would but without the engine: the control-flow operator is itself one engine
function, so the body must not push or wait. ``forward`` returns the outputs and a *tape* (every
entry's array, plus each node's inputs); ``backward`` walks the tape in reverse and returns the
gradients of the inputs. Shape and dtype inference reuse the graph-wide passes of
:mod:`mxlite.symbol.infer`, so a body's weights get their shapes from the data as in any graph.

The subgraph's inputs are its variables in graph order (``Symbol.list_inputs``); callers map
them to their own inputs with the ``*_locs`` parameters of MXNet's control-flow operators.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base import MXNetError
from ..operator.registry import OpContext
from ..operator.req import OpReq
from ..resource import request
from ..symbol.graph import topo_order
from ..symbol.infer import infer_shapes, infer_types

__all__ = ["SubgraphRunner", "Tape"]


class Tape:
    """Arrays of one forward run: every entry's value by ``(id(node), index)``."""

    __slots__ = ("values", "is_train")

    def __init__(self, values: dict[tuple[int, int], Any], is_train: bool) -> None:
        self.values = values
        self.is_train = is_train


class SubgraphRunner:
    """Executes the graph with outputs ``entries`` on arrays (see the module note)."""

    def __init__(self, entries: list[Any]) -> None:
        self.entries = list(entries)
        self.nodes = topo_order(self.entries)
        self.inputs = [n for n in self.nodes if n.is_variable()]
        self.ops = [n for n in self.nodes if not n.is_variable()]
        for n in self.ops:
            if n.prop().runs_on_caller:
                raise MXNetError(
                    f"control flow: operator {n.op} (node {n.name!r}) runs Python code on the "
                    "caller and cannot be used inside a loop or branch body."
                )

    def input_names(self) -> list[str]:
        return [v.name for v in self.inputs]

    # ---- inference ---------------------------------------------------------------------------

    def infer_shape(self, in_shapes: list, out_shapes: list | None = None):
        """(input shapes, output shapes), each partially known (None where unknown)."""
        known = {id(v): s for v, s in zip(self.inputs, in_shapes) if s is not None}
        values = infer_shapes(self.entries, known)
        return self._collect(values, merge_outs=out_shapes)

    def infer_type(self, in_types: list, out_types: list | None = None):
        """(input dtypes, output dtypes), None where unknown."""
        known = {id(v): t for v, t in zip(self.inputs, in_types) if t is not None}
        values = infer_types(self.entries, known)
        return self._collect(values, merge_outs=out_types)

    def _collect(self, values: dict, merge_outs: list | None) -> tuple[list, list]:
        ins = [values.get((id(v), 0)) for v in self.inputs]
        outs = [values.get((id(n), i)) for n, i in self.entries]
        if merge_outs:
            outs = [o if o is not None else m for o, m in zip(outs, merge_outs)]
        return ins, outs

    # ---- execution ---------------------------------------------------------------------------

    def forward(self, arrays: list[Any], ctx: Any, is_train: bool) -> tuple[list[Any], Tape]:
        """Run the body on ``arrays`` (one per input); return its outputs and the tape."""
        if len(arrays) != len(self.inputs):
            raise MXNetError(
                f"control flow: the body takes {len(self.inputs)} inputs "
                f"({self.input_names()}), got {len(arrays)}."
            )
        xp = ctx.xp
        values: dict[tuple[int, int], Any] = {}
        for v, a in zip(self.inputs, arrays):
            values[(id(v), 0)] = a
        for node in self.ops:
            prop = node.prop()
            n_args = len(prop.list_arguments())
            ins = [values[(id(s), i)] for s, i in node.inputs]
            args, aux = ins[:n_args], ins[n_args:]
            shapes = tuple(tuple(a.shape) for a in args)
            dtypes = tuple(a.dtype for a in args)
            out_shapes, out_types, _, _ = prop.infer_imperative(shapes, dtypes)
            outs = [xp.zeros(s, t) for s, t in zip(out_shapes, out_types)]
            res = [request(ctx, r) for r in prop.forward_resource(list(shapes))]
            op = prop.operator_for(ctx, (*dtypes, *out_types))
            op.forward(OpContext(is_train, None, res), args, [OpReq.WRITE] * len(outs), outs, aux)
            for i, o in enumerate(outs):
                values[(id(node), i)] = o
        return [values[(id(n), i)] for n, i in self.entries], Tape(values, is_train)

    def backward(
        self, tape: Tape, out_grads: list[Any | None], ctx: Any, need: list[bool]
    ) -> list[Any | None]:
        """Gradients of the inputs (None where not needed or not reached) given the gradients
        of the outputs (None for zero)."""
        xp = ctx.xp
        grads: dict[tuple[int, int], Any] = {}

        def add(key: tuple[int, int], g: Any) -> None:
            old = grads.get(key)
            grads[key] = g if old is None else old + g

        for (n, i), g in zip(self.entries, out_grads):
            if g is not None:
                add((id(n), i), g)
        wanted = self._needs_grad(need)
        for node in reversed(self.ops):
            prop = node.prop()
            if prop.grad_flow != "backward":
                continue
            n_out = prop.num_outputs()
            ograds = [grads.get((id(node), i)) for i in range(n_out)]
            if all(g is None for g in ograds):
                continue
            if not any(wanted.get((id(s), i), False) for s, i in node.inputs):
                continue
            if not prop.differentiable:
                raise MXNetError(
                    f"control flow: operator {node.op} (node {node.name!r}) has no gradient."
                )
            n_args = len(prop.list_arguments())
            ins = [tape.values[(id(s), i)] for s, i in node.inputs]
            args, aux = ins[:n_args], ins[n_args:]
            outs = [tape.values[(id(node), i)] for i in range(n_out)]
            ograds = [xp.zeros_like(o) if g is None else g for g, o in zip(ograds, outs)]
            req = [
                OpReq.WRITE
                if wanted.get((id(s), i), False) and np.dtype(a.dtype).kind == "f"
                else OpReq.NULL
                for (s, i), a in zip(node.inputs[:n_args], args)
            ]
            igrads = [xp.zeros_like(a) for a in args]
            res = [request(ctx, r) for r in prop.backward_resource([a.shape for a in args])]
            op = prop.operator_for(ctx, [a.dtype for a in (*args, *outs)])
            op.backward(OpContext(tape.is_train, None, res), ograds, args, outs, req, igrads, aux)
            for (s, i), g, r in zip(node.inputs[:n_args], igrads, req):
                if r != OpReq.NULL:
                    add((id(s), i), g)
        return [grads.get((id(v), 0)) if want else None for v, want in zip(self.inputs, need)]

    def _needs_grad(self, need: list[bool]) -> dict[tuple[int, int], bool]:
        """Which entries lie on a path from an input that needs a gradient."""
        wanted: dict[tuple[int, int], bool] = {}
        for v, want in zip(self.inputs, need):
            wanted[(id(v), 0)] = want
        for node in self.ops:
            hit = any(wanted.get((id(s), i), False) for s, i in node.inputs)
            for i in range(node.num_outputs()):
                wanted[(id(node), i)] = hit
        return wanted
