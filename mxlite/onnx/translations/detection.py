"""ONNX translation of ``box_nms``: ONNX's NonMaxSuppression picks the boxes, gathers lay them
out as MXNet does.

Design note
-----------
MXNet keeps the boxes whose score passes ``valid_thresh`` (and whose class is not
``background_id``), takes the ``topk`` best, then suppresses overlaps; NonMaxSuppression's own
limit counts boxes *after* suppression, so the candidates are chosen first: a score that is not
a candidate becomes -inf, below the threshold. Class-aware suppression (``id_index`` without
``force_suppress``) moves each class's boxes, scaled into the unit square, to a square of their
own (class id * 2), where no box of another class overlaps them; IoU is scale-free, so the
overlaps within a class are unchanged (up to float32 rounding at the threshold itself).
ONNX Runtime reads a box with its corners swapped as the normalised box, MXNet as an empty one:
such boxes are flattened to zero width or height before suppression.

The selected (batch, box) pairs, in score order per batch, get their rank written into a
(batch, num_box) table filled with the count of selections; sorting each row puts the ranks
first and the filler after, and gathering the selected rows (plus one row of -1 at the filler's
index) gives MXNet's output: kept boxes first, in score order, the rest -1.
"""

from __future__ import annotations

import numpy as np

from ...operator.registry import register_onnx
from .._walk import NodeContext
from .contrib import coords


def _cols(ctx: NodeContext, x: str, start: int, stop: int) -> str:
    return ctx.op1("Slice", [x, ctx.ints([start], "c0"), ctx.ints([stop], "c1"),
                             ctx.ints([-1], "cax")])  # fmt: skip


def _dims(ctx: NodeContext, shape: str, start: int, stop: int) -> str:
    return ctx.op1("Slice", [shape, ctx.ints([start], "d0"), ctx.ints([stop], "d1")])


def _corner(ctx: NodeContext, c: list[str], fmt: str) -> list[str]:
    if fmt == "corner":
        return c
    half = ctx.scalar(0.5, np.float32, "half")
    hw, hh = ctx.op1("Mul", [c[2], half]), ctx.op1("Mul", [c[3], half])
    return [ctx.op1("Sub", [c[0], hw]), ctx.op1("Sub", [c[1], hh]), ctx.op1("Add", [c[0], hw]),
            ctx.op1("Add", [c[1], hh])]  # fmt: skip


def _convert(ctx: NodeContext, rows: str) -> str:
    """``rows`` (K, W) with the coordinates re-encoded from in_format to out_format; a row whose
    first coordinate is negative stays as it is, as in MXNet."""
    p = ctx.param
    cs, width = p.coord_start, ctx.in_shapes[0][-1]
    box = _cols(ctx, rows, cs, cs + 4)
    a, b, c, d = coords(ctx, box)
    half = ctx.scalar(0.5, ctx.dtype(), "half")
    if p.out_format == "center":
        new = [ctx.op1("Mul", [ctx.op1("Add", [a, c]), half]),
               ctx.op1("Mul", [ctx.op1("Add", [b, d]), half]),
               ctx.op1("Sub", [c, a]), ctx.op1("Sub", [d, b])]  # fmt: skip
    else:
        hw, hh = ctx.op1("Mul", [c, half]), ctx.op1("Mul", [d, half])
        new = [ctx.op1("Sub", [a, hw]), ctx.op1("Sub", [b, hh]), ctx.op1("Add", [a, hw]),
               ctx.op1("Add", [b, hh])]  # fmt: skip
    neg = ctx.op1("Less", [a, ctx.scalar(0, ctx.dtype(), "zero")])
    box = ctx.op1("Where", [neg, box, ctx.op1("Concat", new, axis=-1)])
    parts = ([_cols(ctx, rows, 0, cs)] if cs else []) + [box]
    if cs + 4 < width:
        parts.append(_cols(ctx, rows, cs + 4, width))
    return ctx.op1("Concat", parts, axis=-1)


@register_onnx("_contrib_box_nms")
def _box_nms(ctx: NodeContext) -> None:
    p = ctx.param
    x = ctx.inputs[0]
    if p.topk == 0:  # MXNet returns the data untouched
        ctx.op1("Identity", [x], ctx.out())
        ctx.alias(1, "")
        return
    f32, dt = np.float32, ctx.dtype()
    width = ctx.in_shapes[0][-1]
    shape = ctx.op1("Shape", [x])
    data = ctx.op1(
        "Reshape",
        [x, ctx.op1("Concat", [ctx.ints([-1], "m1"), _dims(ctx, shape, -2, ctx.ndim())], axis=0)],
    )
    dshape = ctx.op1("Shape", [data])
    bn, n = _dims(ctx, dshape, 0, 2), _dims(ctx, dshape, 1, 2)

    def row_field(i: int) -> str:  # column i as (B, 1, N), float32
        return ctx.cast(ctx.op1("Transpose", [_cols(ctx, data, i, i + 1)], perm=[0, 2, 1]), f32)

    scores = row_field(p.score_index)
    vt = ctx.const(np.array([p.valid_thresh], f32), "valid_thresh")
    valid = ctx.op1("Greater", [scores, vt])
    ids = None
    if p.id_index >= 0:
        ids = row_field(p.id_index)
        bg = ctx.scalar(p.background_id, f32, "background")
        valid = ctx.op1("And", [valid, ctx.op1("Not", [ctx.op1("Equal", [ids, bg])])])
    ninf = ctx.scalar(-np.inf, f32, "ninf")
    scores = ctx.op1("Where", [valid, scores, ninf])
    if p.topk > 0:  # only the topk best valid boxes are candidates
        k = ctx.op1("Min", [ctx.ints([p.topk], "topk"), n])
        best = ctx.emit("TopK", [scores, k], 2, axis=-1, largest=1, sorted=1)[1]
        zeros = ctx.op1("ConstantOfShape", [ctx.op1("Shape", [scores])])
        ones = ctx.op1("Expand", [ctx.scalar(1.0, f32, "one"), ctx.op1("Shape", [best])])
        chosen = ctx.op1("ScatterElements", [zeros, best, ones], axis=-1)
        chosen = ctx.op1("Greater", [chosen, ctx.scalar(0.0, f32, "zero")])
        scores = ctx.op1("Where", [chosen, scores, ninf])

    c = coords(ctx, ctx.cast(_cols(ctx, data, p.coord_start, p.coord_start + 4), f32))
    fmt = p.in_format
    if ids is not None and not p.force_suppress:
        c, fmt = _corner(ctx, c, fmt), "corner"
        lo = ctx.reduce("ReduceMin", ctx.op1("Concat", c, axis=-1), None, False, None)
        hi = ctx.reduce("ReduceMax", ctx.op1("Concat", c, axis=-1), None, False, None)
        span = ctx.op1("Add", [ctx.op1("Sub", [hi, lo]), ctx.scalar(1.0, f32, "one")])
        shift = ctx.op1("Mul", [ctx.op1("Transpose", [ids], perm=[0, 2, 1]),
                                ctx.scalar(2.0, f32, "two")])  # fmt: skip
        c = [ctx.op1("Add", [ctx.op1("Div", [ctx.op1("Sub", [v, lo]), span]), shift]) for v in c]
    if fmt == "corner":  # swapped corners: an empty box, as MXNet reads it
        c = [c[0], c[1], ctx.op1("Max", [c[0], c[2]]), ctx.op1("Max", [c[1], c[3]])]
    else:
        zero = ctx.scalar(0.0, f32, "zero")
        c = [c[0], c[1], ctx.op1("Max", [c[2], zero]), ctx.op1("Max", [c[3], zero])]
    boxes = ctx.op1("Concat", c, axis=-1)
    sel = ctx.op1(
        "NonMaxSuppression",
        [boxes, scores, n, ctx.const(np.array([p.overlap_thresh], f32), "iou"), vt],
        center_point_box=int(fmt == "center"),
    )
    pairs = ctx.op1("Concat", [_cols(ctx, sel, 0, 1), _cols(ctx, sel, 2, 3)], axis=-1)
    rows = ctx.op1("GatherND", [data, pairs])
    if p.in_format != p.out_format:
        rows = _convert(ctx, rows)
    filler = ctx.const(np.full((1, width), -1, dt), "filler")
    rows = ctx.op1("Concat", [rows, filler], axis=0)
    count = _dims(ctx, ctx.op1("Shape", [sel]), 0, 1)
    ranks = ctx.op1("Range", [ctx.scalar(0, np.int64, "r0"), ctx.squeeze(count, [0]),
                              ctx.scalar(1, np.int64, "r1")])  # fmt: skip
    table = ctx.op1("ScatterND", [ctx.op1("Expand", [count, bn]), pairs, ranks])
    order = ctx.emit("TopK", [table, n], 2, axis=-1, largest=0, sorted=1)[0]
    out = ctx.op1("Gather", [rows, order], axis=0)
    ctx.op1("Reshape", [out, shape], ctx.out(0))
    # the hidden record: the flat input row of each output row, -1 for none
    b, i = _cols(ctx, sel, 0, 1), _cols(ctx, sel, 2, 3)
    flat = ctx.op1("Add", [ctx.op1("Mul", [b, n]), i])
    flat = ctx.op1("Concat", [ctx.cast(ctx.squeeze(flat, [1]), dt),
                              ctx.const(np.array([-1], dt), "none")], axis=0)  # fmt: skip
    rec = ctx.op1("Gather", [flat, order], axis=0)
    rec_shape = ctx.op1("Concat", [_dims(ctx, shape, 0, ctx.ndim() - 1), ctx.ints([1], "one1")],
                        axis=0)  # fmt: skip
    ctx.op1("Reshape", [rec, rec_shape], ctx.out(1))
