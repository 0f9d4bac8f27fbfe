"""ONNX translations of the operators that move data: reshape, transpose, join and split,
slicing, padding, broadcasting, gathering, creation."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...operator.registry import register_onnx
from .._walk import INT_MAX, INT_MIN, NodeContext


@register_onnx("Flatten")
def _flatten(ctx: NodeContext) -> None:
    ctx.op1("Flatten", ctx.inputs, ctx.out(), axis=1)


@register_onnx("Reshape", "reshape_like")
def _reshape(ctx: NodeContext) -> None:
    # MXNet's special codes (0, -1, -2, -3, -4, reverse) are resolved by shape inference; the
    # target is the inferred shape, with its dynamic dimensions copied or inferred
    if ctx.op == "reshape_like" and not any(ctx.out_dyn[0]):
        ctx.reshape_to_out(ctx.inputs[0], ctx.out())
    elif ctx.op == "reshape_like":
        p = ctx.param
        if any(v is not None for v in (p.lhs_begin, p.lhs_end, p.rhs_begin, p.rhs_end)):
            raise ctx.fail("lhs_begin/rhs_begin", "a partial reshape_like needs static shapes.")
        ctx.op1("Reshape", [ctx.inputs[0], ctx.op1("Shape", [ctx.inputs[1]])], ctx.out())
    else:
        ctx.reshape_to_out(ctx.inputs[0], ctx.out())


@register_onnx("transpose")
def _transpose(ctx: NodeContext) -> None:
    axes = list(ctx.param.axes) or list(range(ctx.ndim()))[::-1]
    ctx.op1("Transpose", ctx.inputs, ctx.out(), perm=[a % ctx.ndim() for a in axes])


@register_onnx("SwapAxis")
def _swap_axis(ctx: NodeContext) -> None:
    perm = list(range(ctx.ndim()))
    a, b = ctx.param.dim1, ctx.param.dim2
    perm[a], perm[b] = perm[b], perm[a]
    ctx.op1("Transpose", ctx.inputs, ctx.out(), perm=perm)


@register_onnx("expand_dims")
def _expand_dims(ctx: NodeContext) -> None:
    ctx.unsqueeze(ctx.inputs[0], [ctx.param.axis % (ctx.ndim() + 1)], ctx.out())


@register_onnx("squeeze")
def _squeeze(ctx: NodeContext) -> None:
    axis = ctx.param.axis
    if axis is None:  # the dimensions of size 1 that stay 1 at any size of the dynamic ones
        shape, dyn = ctx.in_shapes[0], ctx.in_dyn[0]
        axes = [i for i, (s, d) in enumerate(zip(shape, dyn)) if s == 1 and not d]
    else:
        axes = [a % ctx.ndim() for a in ((axis,) if isinstance(axis, int) else axis)]
    if len(axes) == ctx.ndim():  # MXNet keeps one dimension
        ctx.op1("Reshape", [ctx.inputs[0], ctx.ints([1], "one")], ctx.out())
    else:
        ctx.squeeze(ctx.inputs[0], axes, ctx.out())


@register_onnx("Concat")
def _concat(ctx: NodeContext) -> None:
    ctx.op1("Concat", ctx.inputs, ctx.out(), axis=ctx.param.dim)


@register_onnx("stack")
def _stack(ctx: NodeContext) -> None:
    axis = ctx.param.axis % (ctx.ndim() + 1)
    parts = [ctx.unsqueeze(x, [axis]) for x in ctx.inputs]
    ctx.op1("Concat", parts, ctx.out(), axis=axis)


@register_onnx("SliceChannel")
def _slice_channel(ctx: NodeContext) -> None:
    p = ctx.param
    axis = p.axis % ctx.ndim()
    n = p.num_outputs
    if ctx.in_dyn[0][axis]:
        raise ctx.fail(f"axis={p.axis}", "the axis it splits is dynamic.")
    part = ctx.in_shapes[0][axis] // n
    split = ctx.ints([part] * n, "split")
    if not p.squeeze_axis:
        ctx.emit("Split", [ctx.inputs[0], split], ctx.outputs, axis=axis)
        return
    parts = ctx.emit("Split", [ctx.inputs[0], split], n, axis=axis)
    for k, x in enumerate(parts):
        ctx.squeeze(x, [axis], ctx.out(k))


@register_onnx("_split_v2")
def _split_v2(ctx: NodeContext) -> None:
    p = ctx.param
    axis = p.axis % ctx.ndim()
    sizes = [s[axis] for s in ctx.out_shapes] if not p.squeeze_axis else [1] * len(ctx.outputs)
    if ctx.in_dyn[0][axis]:
        raise ctx.fail(f"axis={p.axis}", "the axis it splits is dynamic.")
    if not p.squeeze_axis:
        ctx.emit("Split", [ctx.inputs[0], ctx.ints(sizes, "split")], ctx.outputs, axis=axis)
        return
    parts = ctx.emit("Split", [ctx.inputs[0], ctx.ints(sizes, "split")], len(sizes), axis=axis)
    for k, x in enumerate(parts):
        ctx.squeeze(x, [axis], ctx.out(k))


def _slice(
    ctx: NodeContext,
    x: str,
    axes: Sequence[int],
    begin: Sequence,
    end: Sequence,
    step: Sequence,
    out: str | None,
) -> str:
    starts, ends = [], []
    for b, e, s in zip(begin, end, step):
        s = s or 1
        starts.append(b if b is not None else (0 if s > 0 else INT_MAX))
        ends.append(e if e is not None else (INT_MAX if s > 0 else INT_MIN))
    ins = [x, ctx.ints(starts, "starts"), ctx.ints(ends, "ends"), ctx.ints(axes, "axes")]
    if any((s or 1) != 1 for s in step):
        ins.append(ctx.ints([s or 1 for s in step], "steps"))
    return ctx.op1("Slice", ins, out)


@register_onnx("slice")
def _slice_op(ctx: NodeContext) -> None:
    p = ctx.param
    n = len(p.begin)
    step = list(p.step or ()) + [None] * (n - len(p.step or ()))
    _slice(ctx, ctx.inputs[0], range(n), p.begin, p.end, step, ctx.out())


@register_onnx("slice_axis")
def _slice_axis(ctx: NodeContext) -> None:
    p = ctx.param
    _slice(ctx, ctx.inputs[0], [p.axis % ctx.ndim()], [p.begin], [p.end], [1], ctx.out())


@register_onnx("slice_like")
def _slice_like(ctx: NodeContext) -> None:
    axes = ctx.param.axes or tuple(range(ctx.ndim()))
    axes = [a % ctx.ndim() for a in axes]
    ends = ctx.op1("Gather", [ctx.op1("Shape", [ctx.inputs[1]]), ctx.ints(axes, "axes")], axis=0)
    zeros = ctx.ints([0] * len(axes), "starts")
    ctx.op1("Slice", [ctx.inputs[0], zeros, ends, ctx.ints(axes, "axes")], ctx.out())


@register_onnx("Crop")
def _crop(ctx: NodeContext) -> None:
    p = ctx.param
    h, w = ctx.out_shapes[0][2:]
    if p.center_crop:
        oy = (ctx.in_shapes[0][2] - h) // 2
        ox = (ctx.in_shapes[0][3] - w) // 2
    else:
        oy, ox = p.offset
    _slice(ctx, ctx.inputs[0], [2, 3], [oy, ox], [oy + h, ox + w], [1, 1], ctx.out())


@register_onnx("reverse")
def _reverse(ctx: NodeContext) -> None:
    axis = ctx.param.axis
    axes = [a % ctx.ndim() for a in ((axis,) if isinstance(axis, int) else axis)]
    n = len(axes)
    _slice(ctx, ctx.inputs[0], axes, [-1] * n, [None] * n, [-1] * n, ctx.out())


@register_onnx("SequenceReverse", "SequenceLast", "SequenceMask")
def _sequence(ctx: NodeContext) -> None:
    p = ctx.param
    if p.use_sequence_length:
        raise ctx.fail("use_sequence_length=True", "sequence lengths are not exported.")
    axis = getattr(p, "axis", 0)
    x = ctx.inputs[0]
    if ctx.op == "SequenceMask":
        ctx.alias(0, x)
    elif ctx.op == "SequenceReverse":
        _slice(ctx, x, [axis], [-1], [None], [-1], ctx.out())
    else:
        ctx.squeeze(_slice(ctx, x, [axis], [-1], [None], [1], None), [axis], ctx.out())


@register_onnx("tile")
def _tile(ctx: NodeContext) -> None:
    reps = list(ctx.param.reps)
    x, ndim = ctx.inputs[0], ctx.ndim()
    if len(reps) > ndim:
        x = ctx.unsqueeze(x, list(range(len(reps) - ndim)))
    reps = [1] * (ndim - len(reps)) + reps
    ctx.op1("Tile", [x, ctx.ints(reps, "reps")], ctx.out())


@register_onnx("repeat")
def _repeat(ctx: NodeContext) -> None:
    p = ctx.param
    x = ctx.inputs[0]
    if p.axis is None:
        x, axis, ndim = ctx.op1("Reshape", [x, ctx.ints([-1], "flat")]), 0, 1
    else:
        axis, ndim = p.axis % ctx.ndim(), ctx.ndim()
    x = ctx.unsqueeze(x, [axis + 1])
    reps = [1] * (ndim + 1)
    reps[axis + 1] = p.repeats
    ctx.reshape_to_out(ctx.op1("Tile", [x, ctx.ints(reps, "reps")]), ctx.out())


@register_onnx("Pad")
def _pad(ctx: NodeContext) -> None:
    p = ctx.param
    widths = list(p.pad_width)
    pads = widths[0::2] + widths[1::2]
    ins = [ctx.inputs[0], ctx.ints(pads, "pads")]
    if p.mode == "constant":
        ins.append(ctx.scalar(p.constant_value, ctx.dtype(), "value"))
    ctx.op1("Pad", ins, ctx.out(), mode=p.mode)


def _expand(ctx: NodeContext, shape: Sequence[int]) -> None:
    ctx.op1("Expand", [ctx.inputs[0], ctx.ints(shape, "shape")], ctx.out())


@register_onnx("broadcast_to")
def _broadcast_to(ctx: NodeContext) -> None:
    # 1 keeps the input's size: dimensions not broadcast (0 in MXNet's shape, or dynamic)
    src = ctx.in_shapes[0]
    out = ctx.out_shapes[0]
    _expand(ctx, [1 if d or s == o else o for s, o, d in zip(src, out, ctx.out_dyn[0])])


@register_onnx("broadcast_axis")
def _broadcast_axis(ctx: NodeContext) -> None:
    out = ctx.out_shapes[0]
    src = ctx.in_shapes[0]
    _expand(ctx, [o if s == 1 and o != 1 else 1 for s, o in zip(src, out)])


@register_onnx("broadcast_like")
def _broadcast_like(ctx: NodeContext) -> None:
    p = ctx.param
    if p.lhs_axes is not None or p.rhs_axes is not None:
        _expand(ctx, [1 if s == o else o for s, o in zip(ctx.in_shapes[0], ctx.out_shapes[0])])
        return
    ctx.op1("Expand", [ctx.inputs[0], ctx.op1("Shape", [ctx.inputs[1]])], ctx.out())


@register_onnx("depth_to_space")
def _depth_to_space(ctx: NodeContext) -> None:
    ctx.op1("DepthToSpace", ctx.inputs, ctx.out(), blocksize=ctx.param.block_size, mode="DCR")


@register_onnx("space_to_depth")
def _space_to_depth(ctx: NodeContext) -> None:
    ctx.op1("SpaceToDepth", ctx.inputs, ctx.out(), blocksize=ctx.param.block_size)


@register_onnx("take")
def _take(ctx: NodeContext) -> None:
    p = ctx.param
    axis = p.axis % ctx.ndim()
    n = ctx.static_dim(0, axis, f"axis={p.axis}")
    idx = ctx.cast(ctx.inputs[1], np.int64)
    if p.mode == "clip":
        idx = ctx.op1(
            "Clip", [idx, ctx.scalar(0, np.int64, "lo"), ctx.scalar(n - 1, np.int64, "hi")]
        )
    elif p.mode == "wrap":
        idx = ctx.op1("Mod", [idx, ctx.scalar(n, np.int64, "n")], fmod=0)
    ctx.op1("Gather", [ctx.inputs[0], idx], ctx.out(), axis=axis)


@register_onnx("pick")
def _pick(ctx: NodeContext) -> None:
    p = ctx.param
    axis = ctx.ndim() - 1 if p.axis is None else p.axis % ctx.ndim()
    n = ctx.static_dim(0, axis, f"axis={p.axis}")
    idx = ctx.unsqueeze(ctx.cast(ctx.inputs[1], np.int64), [axis])
    if p.mode == "clip":
        idx = ctx.op1(
            "Clip", [idx, ctx.scalar(0, np.int64, "lo"), ctx.scalar(n - 1, np.int64, "hi")]
        )
    else:
        idx = ctx.op1("Mod", [idx, ctx.scalar(n, np.int64, "n")], fmod=0)
    y = ctx.op1(
        "GatherElements", [ctx.inputs[0], idx], None if not p.keepdims else ctx.out(), axis=axis
    )
    if not p.keepdims:
        ctx.squeeze(y, [axis], ctx.out())


@register_onnx("where")
def _where(ctx: NodeContext) -> None:
    cond = ctx.inputs[0]
    if ctx.ndim(0) == 1 and ctx.ndim(1) > 1:  # a 1-D condition picks whole rows
        cond = ctx.unsqueeze(cond, list(range(1, ctx.ndim(1))))
    ctx.op1("Where", [ctx.cast(cond, np.bool_), *ctx.inputs[1:]], ctx.out())


@register_onnx("one_hot")
def _one_hot(ctx: NodeContext) -> None:
    p = ctx.param
    values = ctx.const(np.array([p.off_value, p.on_value], dtype=p.dtype), "values")
    depth = ctx.scalar(p.depth, np.int64, "depth")
    ctx.op1("OneHot", [ctx.cast(ctx.inputs[0], np.int64), depth, values], ctx.out(), axis=-1)


@register_onnx("topk")
def _topk(ctx: NodeContext) -> None:
    p = ctx.param
    axis = ctx.ndim() - 1 if p.axis is None else p.axis % ctx.ndim()
    if p.ret_typ == "mask":
        raise ctx.fail("ret_typ='mask'", "ONNX TopK returns values and indices only.")
    k = ctx.ints([p.k], "k")
    values, indices = ctx.emit(
        "TopK", [ctx.inputs[0], k], 2, axis=axis, largest=int(not p.is_ascend)
    )
    if p.ret_typ == "value":
        ctx.op1("Identity", [values], ctx.out())
    elif p.ret_typ == "indices":
        ctx.cast(indices, p.dtype, ctx.out())
    else:
        ctx.op1("Identity", [values], ctx.out(0))
        ctx.cast(indices, p.dtype, ctx.out(1))


@register_onnx("sort", "argsort")
def _sort(ctx: NodeContext) -> None:
    p = ctx.param
    axis = ctx.ndim() - 1 if p.axis is None else p.axis % ctx.ndim()
    n = ctx.static_dim(0, axis, f"axis={p.axis}")
    x = ctx.inputs[0]
    if p.axis is None:
        x, axis = ctx.op1("Reshape", [x, ctx.ints([-1], "flat")]), 0
    k = ctx.ints([n], "k")
    values, indices = ctx.emit("TopK", [x, k], 2, axis=axis, largest=int(not p.is_ascend))
    if ctx.op == "sort":
        ctx.op1("Identity", [values], ctx.out())
    else:
        ctx.cast(indices, p.dtype, ctx.out())


@register_onnx("zeros_like", "ones_like")
def _fill_like(ctx: NodeContext) -> None:
    value = np.array([0 if ctx.op == "zeros_like" else 1], dtype=ctx.dtype())
    shape = ctx.op1("Shape", ctx.inputs[:1])
    ctx.op1("ConstantOfShape", [shape], ctx.out(), value=_tensor(value))


def _tensor(arr: np.ndarray):  # noqa: ANN202 (an onnx TensorProto)
    from onnx import numpy_helper

    return numpy_helper.from_array(arr)


@register_onnx("shape_array")
def _shape_array(ctx: NodeContext) -> None:
    ctx.op1("Shape", ctx.inputs, ctx.out())


@register_onnx("size_array")
def _size_array(ctx: NodeContext) -> None:
    ctx.op1("Reshape", [ctx.op1("Size", ctx.inputs), ctx.ints([1], "one")], ctx.out())


@register_onnx("_zeros", "_ones", "_full", "_arange", "_eye", "_linspace")
def _constant(ctx: NodeContext) -> None:
    # no inputs: the value is fixed at export; compute it with mxlite itself
    from ...context import cpu
    from ...symbol import Symbol

    arr = Symbol([(ctx.node, 0)]).bind(cpu(), {}).forward()[0].asnumpy()
    ctx.alias(0, ctx.const(arr, "value"))


@register_onnx("_contrib_arange_like")
def _arange_like(ctx: NodeContext) -> None:
    p = ctx.param
    if p.repeat != 1:
        raise ctx.fail(f"repeat={p.repeat}", "ONNX's Range repeats no values.")
    x = ctx.inputs[0]
    if p.axis is None:
        n = ctx.op1("Size", [x])
    else:
        n = ctx.op1("Gather", [ctx.op1("Shape", [x]), ctx.scalar(p.axis, np.int64, "axis")])
    dt = ctx.out_dtypes[0]
    start, step = ctx.scalar(p.start, dt, "start"), ctx.scalar(p.step, dt, "step")
    limit = ctx.op1("Add", [start, ctx.op1("Mul", [ctx.cast(n, dt), step])])
    if p.axis is None:
        y = ctx.op1("Range", [start, limit, step])
        ctx.op1("Reshape", [y, ctx.op1("Shape", [x])], ctx.out())
    else:
        ctx.op1("Range", [start, limit, step], ctx.out())
