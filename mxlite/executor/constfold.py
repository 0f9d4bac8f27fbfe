"""Inference graph pass: constant subgraphs computed once, not on every forward.

Design note
-----------
In the inference forward of an executor without gradients (the plan where ``fuse.py``'s
passes run, under the same ``MXLITE_INFERENCE_FOLD``), :func:`fold_constants` finds the steps
whose every input is a constant and computes them in one engine operator placed first in the
plan, which does the work only when one of the constants it reads has been written since it
last did. The constants are:

- the auxiliary states, and the arguments that are the executor's parameters
  (``Executor._param_names``: bound once and not fed on each call; Module names them to
  ``simple_bind`` as ``shared_arg_names``, a hybridized Gluon block by its ``param_indices``).
  Other arguments are data, and an executor that was told nothing (a plain ``bind``) has
  none of its arguments as constants;
- the outputs of constant steps: a step is constant when its inputs are all constants (or it
  has none: ``_arange``, ``ones``) and its operator computes the same result from the same
  inputs and changes nothing else (:func:`.cse.repeatable`: no random numbers, no state, no
  auxiliary states or inputs it updates), runs as one engine function (not ``Custom``), has
  no subgraph and no output shape that depends on values. A step whose output is a graph
  output, is read by a step that runs on the caller, or is updated in place by its reader,
  stays in the plan (its inputs may still be constants).

Weight transforms (``transpose``, ``reshape``, ``Cast`` or ``_mul_scalar`` of a weight,
``broadcast_to`` of a bias), positional encodings made from ``_arange`` and fills with no data
input become constants. Of them, the entries that a remaining step reads (the frontier) are
kept in the executor's own arrays, one per entry, outside the memory plan (whose blocks later
steps overwrite); the other constant entries are temporaries of the recomputation, gone when
it ends. The arithmetic is the unfolded graph's, on the same inputs, so the outputs are equal.

Versions, as ``fuse.py``'s refolding: the operator reads the constants' engine vars, so the
engine orders it after any write to them, and recomputes when their versions (their counts
of completed writes) differ from those it computed from last: ``set_params``,
``Parameter.set_data``, ``copy_params_from`` or an optimizer update between calls is seen at
the next forward. It writes one private var that every reader of a frontier entry reads as
well (so a reader runs after it, and it after the previous call's readers), and it moves the
frontier arrays' own versions only when it recomputes, so what kernels cache from them
(Winograd's transformed kernel, BatchNorm folded into a convolution over a transformed weight)
is remade exactly then. The user's arrays are only read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..engine import Opr
from ..engine import get as _engine
from ..ndarray.ndarray import _new
from ..operator.registry import OpContext
from ..operator.req import OpReq
from .cse import repeatable
from .gradient import Step

__all__ = ["fold_constants"]


def _constant_steps(exe: Any, steps: list[Step]) -> tuple[list[int], set[int]]:
    """The positions of the constant steps and the constant entries they read or write."""
    graph = exe._graph
    names = dict(zip(graph.arg_eids, exe._arg_names))
    const = set(graph.aux_eids)
    const.update(e for e, n in names.items() if n in exe._param_names)
    kept = set(graph.output_eids)  # entries a constant step may not make
    for s in steps:
        if s.kind != "forward" or s.prop is None:
            kept.update(s.inputs)
            continue
        if s.prop.runs_on_caller:
            kept.update(s.inputs)
        mutated = s.prop.mutate_inputs()
        kept.update(s.inputs[i] for i in mutated if i < len(s.inputs))
    folded: list[int] = []
    for i, s in enumerate(steps):
        if (
            s.kind != "forward"
            or s.prop is None
            or s.aux
            or not all(e in const for e in s.inputs)
            or any(e in kept for e in s.outputs)
            or s.prop.runs_on_caller
            or s.prop.dynamic_shape
            or (s.node is not None and s.node.subgraphs)
            or not repeatable(s.prop, [graph.entries[e].shape for e in s.inputs])
        ):
            continue
        folded.append(i)
        const.update(s.outputs)
    return folded, const


def fold_constants(
    exe: Any, steps: list[Step]
) -> tuple[Opr | None, list[Step], list[Any], Callable[[Any], Any]]:
    """Split the constant steps (see the design note) off the inference ``steps``.

    Returns the operator computing them (None when there are none), the other steps, the
    executor's arrays with the frontier entries replaced by the executor's own, and a function
    that makes an operator built from those steps read the private var (an operator that reads
    no frontier entry, or a step run on the caller, is returned as it is)."""
    if exe._boundary is not None:
        return None, steps, exe._arrays, _same
    folded, const = _constant_steps(exe, steps)
    if not folded:
        return None, steps, exe._arrays, _same
    positions = set(folded)
    rest = [s for i, s in enumerate(steps) if i not in positions]
    graph, ctx = exe._graph, exe._ctx
    made = {e for i in folded for e in steps[i].outputs}
    frontier = [e for e in dict.fromkeys(e for s in rest for e in s.reads()) if e in made]
    arrays = list(exe._arrays)
    for e in frontier:
        info = graph.entries[e]
        arrays[e] = _new(info.shape, info.dtype, ctx)
    sources = sorted({e for i in folded for e in steps[i].inputs if e not in made})
    var = _engine().new_var("constants")  # the private var: computed, then read
    opr = _const_opr(exe, [steps[i] for i in folded], sources, frontier, arrays, var)
    if not frontier:
        return opr, rest, arrays, _same
    watched = {arrays[e]._chunk.var for e in frontier}  # type: ignore[union-attr]

    def link(made_opr: Any) -> Any:
        if type(made_opr) is not Opr or watched.isdisjoint(made_opr.const_vars):
            return made_opr
        o = made_opr
        return Opr(o.fn, (*o.const_vars, var), o.mutate_vars, o._name, False, False, o.inline)

    return opr, rest, arrays, link


def _same(opr: Any) -> Any:
    return opr


def _const_opr(
    exe: Any,
    folded: list[Step],
    sources: list[int],
    frontier: list[int],
    arrays: list[Any],
    var: Any,
) -> Opr:
    """One operator computing the ``folded`` steps in order when a source has been written."""
    from ..resource import request

    graph, ctx = exe._graph, exe._ctx
    xp = ctx.xp
    src_arrays = [arrays[e] for e in sources]
    src_vars = [a._chunk.var for a in src_arrays]
    own = [arrays[e] for e in frontier]
    kernels = []
    res_vars = []
    for s in folded:
        shapes = [graph.entries[e].shape for e in s.inputs]
        resources = [request(ctx, r) for r in s.prop.forward_resource(shapes)]
        res_vars += [r.var for r in resources]
        kernels.append((s.prop.operator(ctx).forward, s.inputs, s.outputs, resources))
    temps = [
        (e, graph.entries[e].shape, graph.entries[e].dtype)
        for s in folded
        for e in s.outputs
        if e not in set(frontier)
    ]
    done: list[Any] = [None]  # the source versions the frontier was computed from

    def run(rctx: Any) -> None:
        versions = tuple(v.version for v in src_vars)
        if versions == done[0]:
            return
        values = {e: a._data for e, a in zip(sources, src_arrays)}
        values.update((e, a._data) for e, a in zip(frontier, own))
        values.update((e, xp.empty(shape, dtype)) for e, shape, dtype in temps)
        for forward, ins, outs, resources in kernels:
            forward(
                OpContext(False, rctx, resources, None),
                [values[e] for e in ins],
                [OpReq.WRITE] * len(outs),
                [values[e] for e in outs],
                [],
            )
        for a in own:
            a._chunk.var.version += 1  # read only after this operator (the private var)
        done[0] = versions

    writes = (var, *dict.fromkeys(res_vars))
    reads = tuple(v for v in dict.fromkeys(src_vars) if v not in writes)
    name = f"constants[{len(folded)}]"
    return Opr(run, reads, writes, name, False, False, False)
