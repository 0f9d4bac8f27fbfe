"""Imperative operator calls: infer, allocate, push one engine function, return at once.

Design note
-----------
``invoke(prop, inputs, out)`` is the whole path of ``mx.nd.X(...)``. On the calling thread it
infers output shapes and dtypes (cached per input set on the property, so a repeated call
costs one dict lookup), checks contexts, allocates the outputs, picks up the resources the
operator requests, and pushes a single engine function that reads the inputs' vars and
mutates the outputs', the auxiliary states', the mutated inputs' (``mutate_inputs``) and the
resources' vars. Errors in the arguments are raised here; errors inside the kernel surface at
the next wait on an output.

Autograd (when recording) sees each call through ``_record_hook``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..base import DTypeError, MXNetError, storage_dtype
from ..context import Context, current_context
from ..engine import get as _engine
from ..engine import inline_limit, small_enough_inline
from ..operator.modes import STATE
from ..operator.registry import OpContext, OperatorProperty
from ..operator.req import OpReq
from ..util import is_np_shape
from .ndarray import SMALL_ARRAY_BYTES, NDArray, _Chunk, _new, _wrap

__all__ = [
    "invoke",
    "set_record_hook",
    "set_sparse_dispatch",
    "sparse_array_made",
    "is_train_flag",
]

_WRITE = OpReq.WRITE
_INPLACE = OpReq.INPLACE

# Set by mxlite.autograd: (prop, inputs, outputs, aux, inline) -> None, called only while
# recording; ``inline`` says whether the call's arrays were small enough to run on the caller.
_record_hook: Any = None
# [is_recording, is_training]: a list so that autograd flips them without a call.
_state = STATE  # [is_recording, is_training] (operator/modes.py)
# sparse_dispatch's entry, (prop, inputs, out, name, ctx) -> the result, or NotImplemented when
# no array of the call is sparse: given by set_sparse_dispatch when that module is imported,
# and consulted (``_sparse_hook``) only once a sparse array exists (sparse_array_made), so
# that dense-only programs never pay for the check.
_sparse_dispatch: Any = None
_sparse_hook: Any = None


def set_record_hook(hook: Any) -> None:
    global _record_hook
    _record_hook = hook


def set_sparse_dispatch(dispatch: Any) -> None:
    global _sparse_dispatch
    _sparse_dispatch = dispatch


def sparse_array_made() -> None:
    """Called by every new sparse array: from now on, calls go through the sparse dispatch."""
    global _sparse_hook
    _sparse_hook = _sparse_dispatch


def is_train_flag() -> bool:
    return _state[1]


def _ctx_of(prop: OperatorProperty, inputs: Sequence[Any], name: str | None) -> Context:
    ctx = inputs[0]._chunk.ctx
    for i, x in enumerate(inputs):
        if x._chunk.ctx is not ctx and x._chunk.ctx != ctx:
            raise MXNetError(
                f"{prop.where(name)}: all inputs must be on one context; input {i} is on "
                f"{x._chunk.ctx}, input 0 on {ctx}."
            )
    return ctx


def invoke(
    prop: OperatorProperty,
    inputs: Sequence[Any],
    out: Any = None,
    name: str | None = None,
    ctx: Context | None = None,
) -> Any:
    """Run ``prop`` on NDArrays ``inputs`` (arguments, then auxiliary states).

    Returns the visible output NDArray, or a list when the operator has several; with
    ``out`` (an NDArray or a list of them), writes there and returns ``out``.
    """
    if _sparse_hook is not None:
        res = _sparse_hook(prop, inputs, out, name, ctx)
        if res is not NotImplemented:
            return res
    if out is None and ctx is None and inputs:
        # (loops, not comprehensions: quicker for the one or two inputs of most calls)
        shape_list, dtype_list = [], []
        for x in inputs:
            d = x._data
            shape_list.append(d.shape)
            dtype_list.append(d.dtype)
        plan = prop._plans.get((tuple(shape_list), tuple(dtype_list), is_np_shape()))
        if plan is not None:
            ctx = plan.ctx
            for x in inputs:
                if x._chunk.ctx is not ctx:
                    break
            else:
                return _run_plan(prop, plan, inputs)
            ctx = None
    n_aux = len(prop.list_auxiliary_states()) if prop._has_aux else 0
    args = inputs[: len(inputs) - n_aux] if n_aux else inputs
    aux = inputs[len(inputs) - n_aux :] if n_aux else ()
    if inputs:
        if ctx is None:
            ctx = _ctx_of(prop, inputs, name)
        shapes = tuple([x._data.shape for x in args])
        dtypes = tuple([x._data.dtype for x in args])
    else:
        ctx = ctx or current_context()
        shapes = dtypes = ()
    out_shapes, out_dtypes, _aux_shapes, _aux_dtypes = prop.infer_imperative(shapes, dtypes)
    if prop.dynamic_shape:  # the output shape depends on the input values: wait for them
        for x in args:
            x.wait_to_read()
        out_shapes = prop.dynamic_output_shapes([x._data for x in args])

    if out is None:
        outputs = [_new(s, t, ctx) for s, t in zip(out_shapes, out_dtypes)]
        req = [_WRITE] * len(outputs)
    else:
        outputs = list(out) if isinstance(out, (list, tuple)) else [out]
        nvis = prop.num_visible_outputs()
        if len(outputs) == nvis < len(out_shapes):  # as MXNet: the visible ones, hidden made here
            outputs += [_new(s, t, ctx) for s, t in zip(out_shapes[nvis:], out_dtypes[nvis:])]
        _check_out(prop, outputs, out_shapes, out_dtypes, ctx, name)
        req = [_INPLACE if any(o._chunk is x._chunk for x in inputs) else _WRITE for o in outputs]

    if prop.runs_on_caller:
        prop.forward_ndarray(_state[1], req, list(args), outputs, list(aux))
        return _finish(prop, args, outputs, aux, out, False)

    resources = prop.forward_resource(list(shapes)) if prop._has_resources else ()
    if resources:
        from ..resource import request

        resources = [request(ctx, r) for r in resources]
    mutate = [o._chunk.var for o in outputs]
    if aux:
        mutate += [a._chunk.var for a in aux]
    if resources:
        mutate += [r.var for r in resources]
    in_data = [x._data for x in args]
    out_data = [o._data for o in outputs]
    aux_data = [a._data for a in aux]
    operator = prop.operator_for(ctx, (*dtypes, *out_dtypes))
    forward = operator.forward
    is_train = _state[1]

    reads = [x._chunk.var for x in args]
    in_vars = reads

    def run(rctx: Any) -> None:
        forward(OpContext(is_train, rctx, resources, in_vars), in_data, req, out_data, aux_data)

    # inline: all arrays are small (the backward's test too); run_inline: also a gather from
    # a large input
    inline = run_inline = small_enough_inline(ctx, in_data, out_data, aux_data)
    g = prop.gathered_input
    if not inline and g is not None and g < len(in_data):
        others = in_data[:g] + in_data[g + 1 :]
        run_inline = small_enough_inline(ctx, others, out_data, aux_data)
    if out is None and inputs and not (aux or resources or prop._mutates or prop.dynamic_shape):
        key = (shapes, dtypes, is_np_shape())
        if key not in prop._plans and len(prop._plans) < _PLANS_PER_PROP:
            prop._plans[key] = _Plan(prop, ctx, operator, key, out_shapes, out_dtypes)
    if prop._mutates:  # states updated in place (FMutateInputs): written, not only read
        mutated = [args[i]._chunk.var for i in prop._mutates]
        mutate += mutated
        reads = [v for v in reads if v not in mutated]
        _engine().push_sync(run, ctx, reads, mutate, 0, prop.op_name, inline=run_inline)
    elif out is None:  # fresh outputs: no var is both read and written
        _engine().push_sync_trusted(run, ctx, reads, mutate, prop.op_name, run_inline)
    else:
        _engine().push_sync(run, ctx, reads, mutate, 0, prop.op_name, inline=run_inline)
    return _finish(prop, args, outputs, aux, out, inline)


class _Plan:
    """What an imperative call of one property on inputs of given shapes and dtypes on one
    context always does: its outputs, kernel, whether it may run inline, its visible outputs
    (an operator without auxiliary states, resources, mutated inputs or data-dependent
    shapes). :func:`invoke` keeps one per input set and then skips inference and checks."""

    __slots__ = ("ctx", "outs", "forward", "nbytes", "run_nbytes", "nvis", "name", "small")

    def __init__(
        self,
        prop: OperatorProperty,
        ctx: Context,
        operator: Any,
        key: tuple,
        shapes: list,
        dtypes: list,
    ) -> None:
        self.ctx = ctx
        self.outs = tuple(zip([tuple(s) for s in shapes], dtypes))
        self.forward = operator.forward
        stored = [storage_dtype(t) for t in dtypes]
        sizes = [math.prod(s) * t.itemsize for (s, _), t in zip(self.outs, stored)]
        in_sizes = [math.prod(s) * t.itemsize for s, t in zip(key[0], key[1])]
        self.nvis = prop.num_visible_outputs()
        self.name = prop.op_name
        # outputs NumPy allocates itself, as _new does (plain dtypes, not bfloat16's record)
        self.small = ctx.device_typeid != 2 and all(
            n < SMALL_ARRAY_BYTES and isinstance(t, np.dtype) and t.names is None
            for n, t in zip(sizes, dtypes)
        )
        # the largest array of the call, inputs included (small_enough_inline's test); a GPU
        # call never runs inline
        self.nbytes = max(sizes + in_sizes, default=0) if ctx.device_typeid != 2 else None
        # the same without the operator's gathered input (gathered_input)
        self.run_nbytes = self.nbytes
        g = prop.gathered_input
        if self.nbytes is not None and g is not None and g < len(in_sizes):
            self.run_nbytes = max(sizes + in_sizes[:g] + in_sizes[g + 1 :], default=0)


# properties that see many input sets (one per sequence length, say) keep that many plans
_PLANS_PER_PROP = 64


def _run_plan(prop: OperatorProperty, plan: _Plan, inputs: Sequence[Any]) -> Any:
    """``invoke`` on fresh outputs along a plan made by an earlier call."""
    ctx = plan.ctx
    small = plan.small
    outputs, out_data, writes = [], [], []
    for s, t in plan.outs:
        o = _wrap(_Chunk(ctx), np.empty(s, t)) if small else _new(s, t, ctx)
        outputs.append(o)
        out_data.append(o._data)
        writes.append(o._chunk.var)
    in_data, reads = [], []
    for x in inputs:
        in_data.append(x._data)
        reads.append(x._chunk.var)
    req = [_WRITE] * len(outputs)
    forward = plan.forward
    is_train = _state[1]

    def run(rctx: Any) -> None:
        forward(OpContext(is_train, rctx, (), reads), in_data, req, out_data, [])

    limit = inline_limit()
    inline = plan.nbytes is not None and plan.nbytes <= limit
    run_inline = inline or (plan.run_nbytes is not None and plan.run_nbytes <= limit)
    _engine().push_sync_trusted(run, ctx, reads, writes, plan.name, run_inline)
    if _state[0] and _record_hook is not None:
        _record_hook(prop, list(inputs), outputs, [], inline)
    if plan.nvis == 1:
        return outputs[0]
    return outputs[: plan.nvis]


def _finish(
    prop: OperatorProperty,
    args: Sequence[Any],
    outputs: list,
    aux: Sequence[Any],
    out: Any,
    inline: bool,
) -> Any:
    if _state[0] and _record_hook is not None:  # inline: the arrays are small (the backward's too)
        _record_hook(prop, list(args), outputs, list(aux), inline)
    if out is not None:
        return out
    nvis = prop.num_visible_outputs()
    if nvis == 1:
        return outputs[0]
    return outputs[:nvis]


def _check_out(
    prop: OperatorProperty,
    outputs: list[Any],
    shapes: list,
    dtypes: list,
    ctx: Context,
    name: str | None,
) -> None:
    if len(outputs) != len(shapes):
        raise MXNetError(
            f"{prop.where(name)}: argument 'out' needs {len(shapes)} arrays, got {len(outputs)}."
        )
    for i, (o, s, t) in enumerate(zip(outputs, shapes, dtypes)):
        if not isinstance(o, NDArray):
            raise MXNetError(
                f"{prop.where(name)}: argument 'out' must hold NDArrays, got {type(o).__name__}."
            )
        if o.shape != tuple(s):
            raise MXNetError(
                f"{prop.where(name)}: argument 'out' (output {i}) has shape "
                f"{o.shape}; the result has shape {tuple(s)}."
            )
        if o._data.dtype != t:
            raise DTypeError(
                f"{prop.where(name)}: argument 'out' (output {i}) has dtype "
                f"{o._data.dtype.name}; the result has dtype {t.name}."
            )
        if o._chunk.ctx != ctx:
            raise MXNetError(
                f"{prop.where(name)}: argument 'out' is on {o._chunk.ctx}; the inputs are on {ctx}."
            )
        if not o.writable:
            raise MXNetError(f"{prop.where(name)}: argument 'out' is not writable.")
