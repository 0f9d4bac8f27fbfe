"""The control-flow operators ``_foreach``, ``_while_loop`` and ``_cond``: nodes that hold
graphs (MXNet 1.9.1's subgraph operators, made by ``mx.sym.contrib.foreach`` & co.). They live
with the executor, not with the other operators, because running a body is graph execution:
they are registered when ``mxlite.executor`` is imported.

A node's bodies arrive as ``subgraphs`` (lists of output entries), set on the property by
:meth:`mxlite.symbol.graph.Node.prop`. Each body's inputs (its variables in graph order) are
mapped to the node's inputs by the ``*_locs`` parameters, as in MXNet:

- ``_foreach``: inputs are the data arrays, then the initial states, then the rest;
  ``in_data_locs`` / ``in_state_locs`` / ``remain_locs`` say which body input each one feeds.
  Step t feeds ``data[t]``; outputs are the ``num_out_data`` step outputs stacked on a new
  first axis, then the final states.
- ``_while_loop``: ``cond_input_locs`` and ``func_input_locs`` pick each body's inputs among
  the node's; loop variable j is the func input at ``func_var_locs[j]``. While the condition
  holds (at most ``max_iterations`` times) the body runs and its new loop variables replace
  the old; step outputs are stacked into ``max_iterations`` rows (rows not reached are 0).
- ``_cond``: runs the ``then`` or the ``else`` graph on the inputs they pick, by the value of
  the condition graph.

Backward runs the loop forward again, keeping each step's tape, then walks the steps in reverse
(so it reads only the inputs and the head gradients; a random operator in a body draws again).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base import MXNetError, ShapeError
from ..context import Context
from ..operator.param import Param, field
from ..operator.registry import Operator, OperatorProperty, register
from ..operator.req import OpReq, assign
from .subgraph import SubgraphRunner

__all__: list[str] = []


class ForeachParam(Param):
    num_args: int = field(low=1, doc="Number of inputs.")
    num_outputs: int = field(doc="The number of outputs of the subgraph.")
    num_out_data: int = field(doc="The number of output data of the subgraph.")
    in_state_locs: tuple[int, ...] = field(doc="The locations of loop states among the inputs.")
    in_data_locs: tuple[int, ...] = field(doc="The locations of input data among the inputs.")
    remain_locs: tuple[int, ...] = field(doc="The locations of remaining data among the inputs.")


class WhileLoopParam(Param):
    num_args: int = field(low=2, doc="Number of input arguments, including cond and func as two "
                          "symbol inputs.")  # fmt: skip
    num_outputs: int = field(low=1, doc="The number of outputs of the subgraph.")
    num_out_data: int = field(low=0, doc="The number of outputs from the function body.")
    max_iterations: int = field(low=1, doc="Maximum number of iterations.")
    cond_input_locs: tuple[int, ...] = field(
        doc="The locations of cond's inputs in the given inputs."
    )
    func_input_locs: tuple[int, ...] = field(
        doc="The locations of func's inputs in the given inputs."
    )
    func_var_locs: tuple[int, ...] = field(doc="The locations of loop_vars among func's inputs.")


class CondParam(Param):
    num_args: int = field(low=3, doc="Number of input arguments, including cond, then and else "
                          "as three symbol inputs.")  # fmt: skip
    num_outputs: int = field(low=1, doc="The number of outputs of the subgraph.")
    cond_input_locs: tuple[int, ...] = field(
        doc="The locations of cond's inputs in the given inputs."
    )
    then_input_locs: tuple[int, ...] = field(
        doc="The locations of then's inputs in the given inputs."
    )
    else_input_locs: tuple[int, ...] = field(
        doc="The locations of else's inputs in the given inputs."
    )


class _SubgraphProp(OperatorProperty):
    """Common ground: the bodies, input/output names, and the rule that these operators are
    built by ``mx.sym.contrib`` (never called on NDArrays directly)."""

    n_graphs = 1

    def __init__(self, param: Any = None, attrs: dict[str, str] | None = None) -> None:
        self.runners: list[SubgraphRunner] = []
        super().__init__(param, attrs)

    def set_subgraphs(self, subgraphs: list[list[Any]]) -> None:
        """Install the bodies (lists of output entries), as the node that holds them does."""
        if len(subgraphs) != self.n_graphs:
            raise MXNetError(
                f"{self.op_name}: expects {self.n_graphs} subgraphs, got {len(subgraphs)}."
            )
        self.runners = [SubgraphRunner(g) for g in subgraphs]

    def _check_graphs(self) -> None:
        if not self.runners:
            raise MXNetError(
                f"{self.op_name}: this operator holds subgraphs and is built by "
                "mx.sym.contrib.foreach / while_loop / cond (mx.nd.contrib runs them as Python "
                "loops)."
            )

    def list_arguments(self) -> list[str]:
        return [f"data{i}" for i in range(self.param.num_args - self.n_graphs)]

    def list_outputs(self) -> list[str]:
        n = self.param.num_outputs
        return ["output"] if n == 1 else [f"output{i}" for i in range(n)]

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list):
        return [*out_grad, *in_data]


class _SubgraphOp(Operator):
    """The operator of a :class:`_SubgraphProp`: runs the prop's bodies on ``ctx``."""

    def __init__(self, prop: _SubgraphProp, ctx: Context) -> None:
        self.prop = prop
        self.ctx = ctx


def _known(ins: list, outs: list) -> tuple | None:
    """The inference result: the inputs and outputs, or None while one is still unknown."""
    if any(v is None for v in outs) or any(v is None for v in ins):
        return None
    return ins, outs, []


def _sum(total: Any, grad: Any) -> Any:
    """A gradient summed into ``total`` (None: nothing so far)."""
    return grad if total is None else total + grad


def _assign_grads(in_grad: list, req: list, grads: list) -> None:
    """Write each input's gradient as its ``req`` asks (None: no gradient reached it, zero)."""
    for i, g in enumerate(grads):
        if req[i] != OpReq.NULL:
            assign(in_grad[i], req[i], 0 if g is None else g)


def _first(*values: Any) -> Any:
    return next((v for v in values if v is not None), None)


# ---- _foreach ---------------------------------------------------------------------------------


@register("_foreach")
class ForeachProp(_SubgraphProp):
    """Run a body over the first axis of its data inputs, carrying states (``foreach``)."""

    param_class = ForeachParam

    def _body_inputs(self, ins: list, step_of: Any) -> list:
        """The body's inputs from the node's: data transformed by ``step_of``."""
        p = self.param
        body: list = [None] * len(self.runners[0].inputs)
        nd_, ns = len(p.in_data_locs), len(p.in_state_locs)
        for k, loc in enumerate(p.in_data_locs):
            body[loc] = step_of(ins[k])
        for k, loc in enumerate(p.in_state_locs):
            body[loc] = ins[nd_ + k]
        for k, loc in enumerate(p.remain_locs):
            body[loc] = ins[nd_ + ns + k]
        return body

    def _node_inputs(self, ins: list, body: list, data_of: Any) -> list:
        """The node's inputs from what the body's inputs ``body`` tell (the inverse of
        :meth:`_body_inputs`): data input k becomes ``data_of(ins[k], body value)``."""
        p = self.param
        out = list(ins)
        nd_, ns = len(p.in_data_locs), len(p.in_state_locs)
        for k, loc in enumerate(p.in_data_locs):
            out[k] = data_of(ins[k], body[loc])
        for k, loc in enumerate(p.in_state_locs):
            out[nd_ + k] = body[loc]
        for k, loc in enumerate(p.remain_locs):
            out[nd_ + ns + k] = body[loc]
        return out

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        self._check_graphs()
        p = self.param
        run = self.runners[0]
        nd_ = len(p.in_data_locs)
        steps = _first(*[s[0] if s else None for s in in_shape[:nd_]])
        out_shape = list(out_shape) if out_shape else [None] * p.num_outputs
        step_out = [s[1:] if s else None for s in out_shape[: p.num_out_data]]
        body_in = self._body_inputs(in_shape, lambda s: None if s is None else tuple(s[1:]))
        # a state's shape is also the shape of the body's matching output
        for k, loc in enumerate(p.in_state_locs):
            body_in[loc] = _first(body_in[loc], out_shape[p.num_out_data + k])
        b_in, b_out = run.infer_shape(body_in, step_out + out_shape[p.num_out_data :])
        for k, loc in enumerate(p.in_state_locs):
            b_in[loc] = _first(b_in[loc], b_out[p.num_out_data + k])
        ins = self._node_inputs(
            in_shape, b_in, lambda s, b: s if b is None or steps is None else (steps, *b)
        )
        outs = [
            None if s is None or steps is None else (steps, *s) for s in b_out[: p.num_out_data]
        ] + [b_in[loc] for loc in p.in_state_locs]
        return _known(ins, outs)

    def infer_type(self, in_type: list, out_type: list | None = None):
        self._check_graphs()
        p = self.param
        body_in = self._body_inputs(in_type, lambda t: t)
        b_in, b_out = self.runners[0].infer_type(body_in)
        for k, loc in enumerate(p.in_state_locs):
            b_in[loc] = _first(b_in[loc], b_out[p.num_out_data + k])
        ins = self._node_inputs(in_type, b_in, lambda t, b: b)
        outs = list(b_out[: p.num_out_data]) + [b_in[loc] for loc in p.in_state_locs]
        return _known(ins, outs)

    def create_operator(self, ctx: Context) -> Operator:
        self._check_graphs()
        return _ForeachOp(self, ctx)


class _ForeachOp(_SubgraphOp):
    prop: ForeachProp

    def _run(self, in_data: list, is_train: bool, keep: bool):
        prop, p = self.prop, self.prop.param
        run = prop.runners[0]
        nd_, ns = len(p.in_data_locs), len(p.in_state_locs)
        steps = in_data[0].shape[0] if nd_ else 0
        states = list(in_data[nd_ : nd_ + ns])
        outs: list[list] = [[] for _ in range(p.num_out_data)]
        tapes = []
        for t in range(steps):
            body = prop._body_inputs(in_data[:nd_] + states + list(in_data[nd_ + ns :]),
                                     lambda a, t=t: a[t])  # fmt: skip
            res, tape = run.forward(body, self.ctx, is_train)
            for k in range(p.num_out_data):
                outs[k].append(res[k])
            states = res[p.num_out_data :]
            if keep:
                tapes.append(tape)
        return outs, states, tapes

    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        p = self.prop.param
        outs, states, _ = self._run(list(in_data), op_ctx.is_train, keep=False)
        xp = self.ctx.xp
        for k in range(p.num_out_data):
            if outs[k]:
                assign(out_data[k], req[k], xp.stack(outs[k]))
        for k, s in enumerate(states):
            assign(out_data[p.num_out_data + k], req[p.num_out_data + k], s)

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        prop, p = self.prop, self.prop.param
        run = prop.runners[0]
        nd_, ns = len(p.in_data_locs), len(p.in_state_locs)
        _, _, tapes = self._run(list(in_data), op_ctx.is_train, keep=True)
        need = [False] * len(run.inputs)
        for k, loc in enumerate(p.in_data_locs):
            need[loc] = req[k] != OpReq.NULL
        for loc in p.in_state_locs:
            need[loc] = True  # the state gradient flows from step to step
        for k, loc in enumerate(p.remain_locs):
            need[loc] = req[nd_ + ns + k] != OpReq.NULL
        xp = self.ctx.xp
        d_data = [xp.zeros_like(a) for a in in_data[:nd_]]
        d_remain: list[Any] = [None] * len(p.remain_locs)
        d_state = [out_grad[p.num_out_data + k] for k in range(ns)]
        for t in reversed(range(len(tapes))):
            ogs = [out_grad[k][t] if out_grad[k] is not None else None
                   for k in range(p.num_out_data)] + list(d_state)  # fmt: skip
            g = run.backward(tapes[t], ogs, self.ctx, need)
            for k, loc in enumerate(p.in_data_locs):
                if g[loc] is not None:
                    d_data[k][t] = g[loc]
            d_state = [g[loc] for loc in p.in_state_locs]
            for k, loc in enumerate(p.remain_locs):
                if g[loc] is not None:
                    d_remain[k] = _sum(d_remain[k], g[loc])
        _assign_grads(in_grad, req, d_data + d_state + d_remain)


# ---- _while_loop ------------------------------------------------------------------------------


@register("_while_loop")
class WhileLoopProp(_SubgraphProp):
    """Run a body while a condition graph holds, at most ``max_iterations`` times."""

    param_class = WhileLoopParam
    n_graphs = 2

    def _var_input(self, j: int) -> int:
        """The node input that holds loop variable j."""
        p = self.param
        return p.func_input_locs[p.func_var_locs[j]]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        self._check_graphs()
        p = self.param
        nv = len(p.func_var_locs)
        out_shape = list(out_shape) if out_shape else [None] * p.num_outputs
        ins = list(in_shape)
        for j in range(nv):
            ins[self._var_input(j)] = _first(ins[self._var_input(j)], out_shape[p.num_out_data + j])
        body_in = [ins[i] for i in p.func_input_locs]
        step_out = [s[1:] if s else None for s in out_shape[: p.num_out_data]]
        b_in, b_out = self.runners[1].infer_shape(body_in, step_out + out_shape[p.num_out_data :])
        for j, loc in enumerate(p.func_var_locs):
            b_in[loc] = _first(b_in[loc], b_out[p.num_out_data + j])
        for k, i in enumerate(p.func_input_locs):
            ins[i] = _first(ins[i], b_in[k])
        c_in, _ = self.runners[0].infer_shape([ins[i] for i in p.cond_input_locs])
        for k, i in enumerate(p.cond_input_locs):
            ins[i] = _first(ins[i], c_in[k])
        outs = [None if s is None else (p.max_iterations, *s) for s in b_out[: p.num_out_data]]
        outs += [ins[self._var_input(j)] for j in range(nv)]
        return _known(ins, outs)

    def infer_type(self, in_type: list, out_type: list | None = None):
        self._check_graphs()
        p = self.param
        ins = list(in_type)
        b_in, b_out = self.runners[1].infer_type([ins[i] for i in p.func_input_locs])
        for k, i in enumerate(p.func_input_locs):
            ins[i] = _first(ins[i], b_in[k])
        c_in, _ = self.runners[0].infer_type([ins[i] for i in p.cond_input_locs])
        for k, i in enumerate(p.cond_input_locs):
            ins[i] = _first(ins[i], c_in[k])
        outs = list(b_out[: p.num_out_data])
        outs += [ins[self._var_input(j)] for j in range(len(p.func_var_locs))]
        return _known(ins, outs)

    def create_operator(self, ctx: Context) -> Operator:
        self._check_graphs()
        return _WhileLoopOp(self, ctx)


def _truth(x: Any) -> bool:
    arr = np.asarray(x.get() if hasattr(x, "get") else x)
    if arr.size != 1:
        raise MXNetError(
            f"control flow: the condition must be a single value, got shape {arr.shape}."
        )
    return bool(arr.reshape(-1)[0])


class _WhileLoopOp(_SubgraphOp):
    prop: WhileLoopProp

    def _run(self, in_data: list, is_train: bool, keep: bool):
        prop, p = self.prop, self.prop.param
        cond, func = prop.runners
        cur = list(in_data)
        outs: list[list] = [[] for _ in range(p.num_out_data)]
        tapes = []
        for _ in range(p.max_iterations):
            (c,), _ = cond.forward([cur[i] for i in p.cond_input_locs], self.ctx, is_train)
            if not _truth(c):
                break
            res, tape = func.forward([cur[i] for i in p.func_input_locs], self.ctx, is_train)
            if keep:
                tapes.append((tape, list(cur)))
            for k in range(p.num_out_data):
                outs[k].append(res[k])
            for j in range(len(p.func_var_locs)):
                cur[prop._var_input(j)] = res[p.num_out_data + j]
        return outs, cur, tapes

    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        prop, p = self.prop, self.prop.param
        outs, cur, _ = self._run(list(in_data), op_ctx.is_train, keep=False)
        xp = self.ctx.xp
        for k in range(p.num_out_data):
            full = xp.zeros(out_data[k].shape, out_data[k].dtype)
            if outs[k]:
                if tuple(outs[k][0].shape) != tuple(out_data[k].shape[1:]):
                    raise ShapeError(
                        f"_while_loop: step output {k} has shape {outs[k][0].shape}; expected "
                        f"{out_data[k].shape[1:]}."
                    )
                full[: len(outs[k])] = xp.stack(outs[k])
            assign(out_data[k], req[k], full)
        for j in range(len(p.func_var_locs)):
            i = p.num_out_data + j
            assign(out_data[i], req[i], cur[prop._var_input(j)])

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        prop, p = self.prop, self.prop.param
        func = prop.runners[1]
        _, _, tapes = self._run(list(in_data), op_ctx.is_train, keep=True)
        nv = len(p.func_var_locs)
        var_inputs = [prop._var_input(j) for j in range(nv)]
        grads: list[Any] = [None] * len(in_data)
        d_var = [out_grad[p.num_out_data + j] for j in range(nv)]
        need = [True] * len(func.inputs)
        for t in reversed(range(len(tapes))):
            tape, _ = tapes[t]
            ogs = [out_grad[k][t] if out_grad[k] is not None else None
                   for k in range(p.num_out_data)] + list(d_var)  # fmt: skip
            g = func.backward(tape, ogs, self.ctx, need)
            d_var = [g[loc] for loc in p.func_var_locs]
            for k, i in enumerate(p.func_input_locs):
                if k in p.func_var_locs or g[k] is None:
                    continue
                grads[i] = _sum(grads[i], g[k])
        for j, i in enumerate(var_inputs):
            if d_var[j] is not None:
                grads[i] = _sum(grads[i], d_var[j])
        _assign_grads(in_grad, req, grads)


# ---- _cond ------------------------------------------------------------------------------------


@register("_cond")
class CondProp(_SubgraphProp):
    """Run the ``then`` or the ``else`` graph by the value of a condition graph."""

    param_class = CondParam
    n_graphs = 3

    def _infer(self, known: list, out: list | None, method: str):
        p = self.param
        ins = list(known)
        branch_outs = []
        for runner, locs in zip(self.runners, (p.cond_input_locs, p.then_input_locs,
                                               p.else_input_locs)):  # fmt: skip
            b_in, b_out = getattr(runner, method)(
                [ins[i] for i in locs], out if runner is not self.runners[0] else None
            )
            for k, i in enumerate(locs):
                ins[i] = _first(ins[i], b_in[k])
            branch_outs.append(b_out)
        outs = [_first(a, b) for a, b in zip(branch_outs[1], branch_outs[2])]
        return _known(ins, outs)

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        self._check_graphs()
        return self._infer(in_shape, out_shape, "infer_shape")

    def infer_type(self, in_type: list, out_type: list | None = None):
        self._check_graphs()
        return self._infer(in_type, out_type, "infer_type")

    def create_operator(self, ctx: Context) -> Operator:
        self._check_graphs()
        return _CondOp(self, ctx)


class _CondOp(_SubgraphOp):
    prop: CondProp

    def _branch(self, in_data: list, is_train: bool) -> tuple[SubgraphRunner, tuple]:
        p = self.prop.param
        cond, then, other = self.prop.runners
        (c,), _ = cond.forward([in_data[i] for i in p.cond_input_locs], self.ctx, is_train)
        return (then, p.then_input_locs) if _truth(c) else (other, p.else_input_locs)

    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        runner, locs = self._branch(list(in_data), op_ctx.is_train)
        res, _ = runner.forward([in_data[i] for i in locs], self.ctx, op_ctx.is_train)
        for k, r in enumerate(res):
            assign(out_data[k], req[k], r)

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        runner, locs = self._branch(list(in_data), op_ctx.is_train)
        _, tape = runner.forward([in_data[i] for i in locs], self.ctx, op_ctx.is_train)
        g = runner.backward(tape, list(out_grad), self.ctx, [True] * len(locs))
        grads: list[Any] = [None] * len(in_data)
        for k, i in enumerate(locs):
            if g[k] is not None:
                grads[i] = _sum(grads[i], g[k])
        _assign_grads(in_grad, req, grads)
