"""ONNX translations of the contrib, AMP and storage operators whose inference computation ONNX
holds: identities, element-wise helpers, ``box_iou``/``box_decode``, ``ROIAlign``,
``BilinearResize2D``, ``AdaptiveAvgPooling2D``, ``MultiBoxPrior``, attention products, checks
(``box_nms`` is in ``detection.py``; ``amp_cast``/``amp_multicast`` in ``math.py``)."""

from __future__ import annotations

import math

import numpy as np

from ...operator.registry import register_onnx
from .._walk import NodeContext
from .math import _BINARY, _binary, _reducer, _round, _scalar
from .nn import _embedding, _identity

# inference forms: storage is dense in ONNX; the gradient tricks are identities forward
register_onnx("cast_storage", "_contrib_gradientmultiplier")(_identity)
register_onnx("_contrib_SparseEmbedding")(_embedding)
register_onnx("_contrib_round_ste")(lambda ctx: _round(ctx, ctx.inputs[0], ctx.out()))


@register_onnx("_contrib_sign_ste")
def _sign_ste(ctx: NodeContext) -> None:
    x = ctx.inputs[0]
    if np.dtype(ctx.dtype()).kind != "f":
        ctx.op1("Sign", [x], ctx.out())
        return
    # MXNet's sign of NaN is 0; ONNX's is NaN
    zero = ctx.scalar(0, ctx.dtype(), "zero")
    ctx.op1("Where", [ctx.op1("IsNaN", [x]), zero, ctx.op1("Sign", [x])], ctx.out())


register_onnx("_square_sum")(_reducer("ReduceSumSquare"))
# the scatter forms differ from the dense ones only for sparse storage
register_onnx("_scatter_elemwise_div")(_binary(_BINARY["div"]))
register_onnx("_scatter_plus_scalar")(_scalar(_BINARY["add"], False))
register_onnx("_scatter_minus_scalar")(_scalar(_BINARY["sub"], False))


@register_onnx("_contrib_div_sqrt_dim")
def _div_sqrt_dim(ctx: NodeContext) -> None:
    n = ctx.static_dim(0, ctx.ndim() - 1, "data")
    ctx.op1("Div", [ctx.inputs[0], ctx.scalar(math.sqrt(n), ctx.dtype(), "sqrt_dim")], ctx.out())


@register_onnx("_contrib_quadratic")
def _quadratic(ctx: NodeContext) -> None:
    p, x, dt = ctx.param, ctx.inputs[0], ctx.dtype()
    ax = ctx.op1("Mul", [x, ctx.scalar(p.a, dt, "a")])
    y = ctx.op1("Mul", [ctx.op1("Add", [ax, ctx.scalar(p.b, dt, "b")]), x])
    ctx.op1("Add", [y, ctx.scalar(p.c, dt, "c")], ctx.out())


@register_onnx("_contrib_quantize")
def _quantize(ctx: NodeContext) -> None:
    # MXNet's rounding (add a half, truncate) and range outputs, not QuantizeLinear's
    x, lo, hi = ctx.inputs
    f = np.float32
    if ctx.param.out_type == "uint8":
        scale = ctx.op1("Div", [ctx.scalar(255.0, f, "levels"), ctx.op1("Sub", [hi, lo])])
        q = ctx.op1("Mul", [ctx.op1("Sub", [x, lo]), scale])
        q = ctx.op1("Floor", [ctx.op1("Add", [q, ctx.scalar(0.5, f, "half")])])
        ctx.cast(q, np.uint8, ctx.out(0))
        ctx.alias(1, lo)
        ctx.alias(2, hi)
        return
    real = ctx.op1("Max", [ctx.op1("Abs", [lo]), ctx.op1("Abs", [hi])])
    scale = ctx.op1("Div", [ctx.scalar(127.0, f, "levels"), real])
    mag = ctx.op1("Add", [ctx.op1("Mul", [ctx.op1("Abs", [x]), scale]), ctx.scalar(0.5, f, "h")])
    mag = ctx.op1("Floor", [ctx.op1("Min", [mag, ctx.scalar(127.0, f, "top")])])
    ctx.cast(ctx.op1("Mul", [ctx.op1("Sign", [x]), mag]), np.int8, ctx.out(0))
    ctx.op1("Neg", [real], ctx.out(1))
    ctx.op1("Identity", [real], ctx.out(2))


@register_onnx("_contrib_dequantize")
def _dequantize(ctx: NodeContext) -> None:
    q, lo, hi = ctx.inputs
    f = np.float32
    x = ctx.cast(q, f)
    if np.dtype(ctx.dtype()) == np.uint8:
        step = ctx.op1("Div", [ctx.op1("Sub", [hi, lo]), ctx.scalar(255.0, f, "levels")])
        ctx.op1("Add", [ctx.op1("Mul", [x, step]), lo], ctx.out())
        return
    real = ctx.op1("Max", [ctx.op1("Abs", [lo]), ctx.op1("Abs", [hi])])
    ctx.op1("Mul", [x, ctx.op1("Div", [real, ctx.scalar(127.0, f, "levels")])], ctx.out())


# ---- boxes --------------------------------------------------------------------------------------


def coords(ctx: NodeContext, box: str) -> list[str]:
    """The four coordinates of boxes ``box`` (..., 4), each (..., 1)."""
    return ctx.emit("Split", [box, ctx.ints([1, 1, 1, 1], "split")], 4, axis=-1)


def corners(ctx: NodeContext, box: str, fmt: str) -> list[str]:
    """(left, top, right, bottom) of boxes given in ``fmt``."""
    a, b, c, d = coords(ctx, box)
    if fmt == "corner":
        return [a, b, c, d]
    half = ctx.scalar(0.5, ctx.dtype(), "half")
    hw, hh = ctx.op1("Mul", [c, half]), ctx.op1("Mul", [d, half])
    return [ctx.op1("Sub", [a, hw]), ctx.op1("Sub", [b, hh]), ctx.op1("Add", [a, hw]),
            ctx.op1("Add", [b, hh])]  # fmt: skip


def _area(ctx: NodeContext, c: list[str]) -> str:
    # a box of negative width or height has area 0
    zero = ctx.scalar(0, ctx.dtype(), "zero")
    w, h = ctx.op1("Sub", [c[2], c[0]]), ctx.op1("Sub", [c[3], c[1]])
    neg = ctx.op1("Or", [ctx.op1("Less", [w, zero]), ctx.op1("Less", [h, zero])])
    return ctx.op1("Where", [neg, zero, ctx.op1("Mul", [w, h])])


@register_onnx("_contrib_box_iou")
def _box_iou(ctx: NodeContext) -> None:
    nl, nr = ctx.ndim(0) - 1, ctx.ndim(1) - 1
    lhs = ctx.unsqueeze(ctx.inputs[0], list(range(nl, nl + nr))) if nr else ctx.inputs[0]
    rhs = ctx.unsqueeze(ctx.inputs[1], list(range(nl))) if nl else ctx.inputs[1]
    fmt = ctx.param.format
    a, b = corners(ctx, lhs, fmt), corners(ctx, rhs, fmt)
    zero = ctx.scalar(0, ctx.dtype(), "zero")

    def overlap(lo: int, hi: int) -> str:
        d = ctx.op1("Sub", [ctx.op1("Min", [a[hi], b[hi]]), ctx.op1("Max", [a[lo], b[lo]])])
        return ctx.op1("Max", [d, zero])

    inter = ctx.op1("Mul", [overlap(0, 2), overlap(1, 3)])
    union = ctx.op1("Sub", [ctx.op1("Add", [_area(ctx, a), _area(ctx, b)]), inter])
    hit = ctx.op1("Greater", [inter, zero])
    safe = ctx.op1("Where", [hit, union, ctx.scalar(1, ctx.dtype(), "one")])
    iou = ctx.op1("Where", [hit, ctx.op1("Div", [inter, safe]), zero])
    ctx.squeeze(iou, [nl + nr], ctx.out())


@register_onnx("_contrib_box_decode")
def _box_decode(ctx: NodeContext) -> None:
    p, dt = ctx.param, ctx.dtype()
    n = ctx.static_dim(0, 1, "data")
    anchors = ctx.op1("Reshape", [ctx.inputs[1], ctx.ints([-1, 4], "a2d")])
    anchors = ctx.op1("Slice", [anchors, ctx.ints([0], "s0"), ctx.ints([n], "sn"),
                                ctx.ints([0], "ax0")])  # fmt: skip
    a = coords(ctx, anchors)
    half = ctx.scalar(0.5, dt, "half")
    if p.format == "corner":
        aw, ah = ctx.op1("Sub", [a[2], a[0]]), ctx.op1("Sub", [a[3], a[1]])
        ax = ctx.op1("Add", [a[0], ctx.op1("Mul", [aw, half])])
        ay = ctx.op1("Add", [a[1], ctx.op1("Mul", [ah, half])])
    else:
        ax, ay, aw, ah = a
    x = coords(ctx, ctx.inputs[0])
    std = [ctx.scalar(s, dt, f"std{i}") for i, s in enumerate((p.std0, p.std1, p.std2, p.std3))]
    t = [ctx.op1("Mul", [x[i], std[i]]) for i in range(4)]
    ox = ctx.op1("Add", [ctx.op1("Mul", [t[0], aw]), ax])
    oy = ctx.op1("Add", [ctx.op1("Mul", [t[1], ah]), ay])
    dw, dh = t[2], t[3]
    if p.clip > 0:
        clip = ctx.scalar(p.clip, dt, "clip")
        dw, dh = ctx.op1("Min", [dw, clip]), ctx.op1("Min", [dh, clip])
    ow = ctx.op1("Mul", [ctx.op1("Mul", [ctx.op1("Exp", [dw]), aw]), half])
    oh = ctx.op1("Mul", [ctx.op1("Mul", [ctx.op1("Exp", [dh]), ah]), half])
    parts = [ctx.op1("Sub", [ox, ow]), ctx.op1("Sub", [oy, oh]), ctx.op1("Add", [ox, ow]),
             ctx.op1("Add", [oy, oh])]  # fmt: skip
    ctx.op1("Concat", parts, ctx.out(), axis=-1)


@register_onnx("_contrib_ROIAlign")
def _roi_align(ctx: NodeContext) -> None:
    p = ctx.param
    if p.position_sensitive:
        raise ctx.fail("position_sensitive=True", "ONNX RoiAlign pools every channel alike.")
    if p.aligned and ctx.opset < 16:
        raise ctx.fail("aligned=True", "ONNX RoiAlign shifts by half a pixel from opset 16.")
    rois = ctx.inputs[1]
    boxes = ctx.op1("Slice", [rois, ctx.ints([1], "b1"), ctx.ints([5], "b5"),
                              ctx.ints([1], "ax1")])  # fmt: skip
    batch = ctx.squeeze(ctx.op1("Slice", [rois, ctx.ints([0], "i0"), ctx.ints([1], "i1"),
                                          ctx.ints([1], "iax")]), [1])  # fmt: skip
    # a negative batch index gives zeros in MXNet; ONNX needs a valid one
    zero = ctx.scalar(0, ctx.dtype(1), "zero")
    idx = ctx.cast(ctx.op1("Max", [batch, zero]), np.int64)
    mode = {"coordinate_transformation_mode": "half_pixel" if p.aligned else "output_half_pixel"}
    y = ctx.op1(
        "RoiAlign",
        [ctx.inputs[0], boxes, idx],
        mode="avg",
        output_height=p.pooled_size[0],
        output_width=p.pooled_size[-1],
        sampling_ratio=max(p.sample_ratio, 0),
        spatial_scale=p.spatial_scale,
        **(mode if ctx.opset >= 16 else {}),
    )
    skip = ctx.unsqueeze(ctx.op1("Less", [batch, zero]), [1, 2, 3])
    ctx.op1("Where", [skip, ctx.scalar(0, ctx.dtype(), "fill"), y], ctx.out())


def _resize_sizes(ctx: NodeContext) -> str:
    if any(ctx.out_dyn[0][2:]):
        raise ctx.fail(None, "its output's height and width must not be dynamic.")
    nc = ctx.op1("Slice", [ctx.op1("Shape", [ctx.inputs[0]]), ctx.ints([0], "z"),
                           ctx.ints([2], "two")])  # fmt: skip
    return ctx.op1("Concat", [nc, ctx.ints(ctx.out_shapes[0][2:], "hw")], axis=0)


@register_onnx("_contrib_BilinearResize2D")
def _bilinear_resize(ctx: NodeContext) -> None:
    # MXNet samples at max(scale * (dst + 0.5) - 0.5, 0) and at 0 for an output size of 1:
    # ONNX's pytorch_half_pixel (Resize clamps to the edge)
    mode = "align_corners" if ctx.param.align_corners else "pytorch_half_pixel"
    ctx.op1("Resize", [ctx.inputs[0], "", "", _resize_sizes(ctx)], ctx.out(), mode="linear",
            coordinate_transformation_mode=mode)  # fmt: skip


@register_onnx("_contrib_AdaptiveAvgPooling2D")
def _adaptive_avg_pool(ctx: NodeContext) -> None:
    from ...operator.contrib.resize import _avg_matrix

    x, out = ctx.inputs[0], ctx.out()
    oh, ow = ctx.out_shapes[0][2:]
    if (oh, ow) == (1, 1):
        ctx.op1("GlobalAveragePool", [x], out)
        return
    h = ctx.static_dim(0, 2, "output_size")
    w = ctx.static_dim(0, 3, "output_size")
    if h % oh == 0 and w % ow == 0:  # equal bins: an ordinary average pooling
        k = [h // oh, w // ow]
        ctx.op1("AveragePool", [x], out, kernel_shape=k, strides=k)
        return
    # overlapping bins: out = A_h @ x @ A_w.T with the bins' averaging matrices
    dt = ctx.dtype()
    a_h = ctx.const(_avg_matrix(h, oh).astype(dt), "rows")
    a_wt = ctx.const(np.ascontiguousarray(_avg_matrix(w, ow).T).astype(dt), "cols")
    ctx.op1("MatMul", [ctx.op1("MatMul", [a_h, x]), a_wt], out)


@register_onnx("_contrib_MultiBoxPrior")
def _multibox_prior(ctx: NodeContext) -> None:
    # the anchors depend on the input's shape only: computed by mxlite at export
    from ...context import cpu
    from ...ndarray import zeros
    from ...symbol import Symbol
    from ...symbol.graph import Node

    if any(ctx.in_dyn[0][2:]):
        raise ctx.fail(None, "its anchors need a static height and width.")
    data = Node(None, "data")
    node = Node(ctx.op, ctx.name, ctx.node.params(), [(data, 0)])
    shape = (1, *ctx.in_shapes[0][1:])
    exe = Symbol([(node, 0)]).bind(cpu(), {"data": zeros(shape, dtype=ctx.dtype())})
    ctx.alias(0, ctx.const(exe.forward()[0].asnumpy(), "anchors"))


@register_onnx("_contrib_index_copy")
def _index_copy(ctx: NodeContext) -> None:
    idx = ctx.unsqueeze(ctx.cast(ctx.inputs[1], np.int64), [1])
    ctx.op1("ScatterND", [ctx.inputs[0], idx, ctx.inputs[2]], ctx.out())


# ---- interleaved multi-head attention --------------------------------------------------------


def _heads_split(ctx: NodeContext, i: int, parts: int, which: int) -> str:
    """Projection ``which`` of input ``i`` (L, B, heads * parts * D) as (B * heads, L, D)."""
    heads = ctx.param.heads
    seq = ctx.static_dim(i, 0, "heads")
    d = ctx.static_dim(i, 2, "heads") // (heads * parts)
    x = ctx.op1("Reshape", [ctx.inputs[i], ctx.ints([0, 0, heads, parts, d], "packed")])
    x = ctx.op1("Gather", [x, ctx.scalar(which, np.int64, "which")], axis=3)
    x = ctx.op1("Transpose", [x], perm=[1, 2, 0, 3])
    return ctx.op1("Reshape", [x, ctx.ints([-1, seq, d], "bhld")])


def _scaled(ctx: NodeContext, q: str, i: int, parts: int) -> str:
    d = ctx.in_shapes[i][2] // (ctx.param.heads * parts)
    return ctx.op1("Mul", [q, ctx.scalar(1 / math.sqrt(d), ctx.dtype(i), "scale")])


def _qk(ctx: NodeContext, q: str, k: str) -> None:
    ctx.op1("MatMul", [q, ctx.op1("Transpose", [k], perm=[0, 2, 1])], ctx.out())


def _heads_merge(ctx: NodeContext, y: str) -> None:
    """(B * heads, L, D) to (L, B, heads * D)."""
    heads = ctx.param.heads
    seq, width = ctx.out_shapes[0][0], ctx.out_shapes[0][2]
    y = ctx.op1("Reshape", [y, ctx.ints([-1, heads, seq, width // heads], "bhld")])
    y = ctx.op1("Transpose", [y], perm=[2, 0, 1, 3])
    ctx.op1("Reshape", [y, ctx.ints([0, 0, -1], "lbw")], ctx.out())


register_onnx("_contrib_interleaved_matmul_selfatt_qk")(
    lambda ctx: _qk(ctx, _scaled(ctx, _heads_split(ctx, 0, 3, 0), 0, 3), _heads_split(ctx, 0, 3, 1))
)
register_onnx("_contrib_interleaved_matmul_encdec_qk")(
    lambda ctx: _qk(ctx, _scaled(ctx, _heads_split(ctx, 0, 1, 0), 0, 1), _heads_split(ctx, 1, 2, 0))
)
register_onnx("_contrib_interleaved_matmul_selfatt_valatt")(
    lambda ctx: _heads_merge(ctx, ctx.op1("MatMul", [ctx.inputs[1], _heads_split(ctx, 0, 3, 2)]))
)
register_onnx("_contrib_interleaved_matmul_encdec_valatt")(
    lambda ctx: _heads_merge(ctx, ctx.op1("MatMul", [ctx.inputs[1], _heads_split(ctx, 0, 2, 1)]))
)


# ---- checks and index grids -------------------------------------------------------------------


def _all_of(ctx: NodeContext, flags: str) -> str:
    """1 when every boolean of ``flags`` is true, else 0, as an int32 scalar."""
    return ctx.reduce("ReduceMin", ctx.cast(flags, np.int32), None, False, None)


@register_onnx("all_finite", "multi_all_finite")
def _all_finite(ctx: NodeContext) -> None:
    if not ctx.param.init_output:
        raise ctx.fail("init_output=False", "it accumulates into the previous output's value.")
    alls = []
    for x in ctx.inputs:
        bad = ctx.op1("Or", [ctx.op1("IsInf", [x]), ctx.op1("IsNaN", [x])])
        alls.append(_all_of(ctx, ctx.op1("Not", [bad])))
    y = alls[0] if len(alls) == 1 else ctx.op1("Min", alls)
    ctx.cast(ctx.op1("Reshape", [y, ctx.ints([1], "one")]), np.float32, ctx.out())


@register_onnx("_contrib_allclose")
def _allclose(ctx: NodeContext) -> None:
    p, (a, b), dt = ctx.param, ctx.inputs, ctx.dtype()
    tol = ctx.op1(
        "Add",
        [
            ctx.scalar(p.atol, dt, "atol"),
            ctx.op1("Mul", [ctx.scalar(p.rtol, dt, "rtol"), ctx.op1("Abs", [b])]),
        ],
    )
    close = ctx.op1("LessOrEqual", [ctx.op1("Abs", [ctx.op1("Sub", [a, b])]), tol])
    if p.equal_nan:
        both = ctx.op1("And", [ctx.op1("IsNaN", [a]), ctx.op1("IsNaN", [b])])
        close = ctx.op1("Or", [close, both])
    ctx.cast(_all_of(ctx, close), np.uint8, ctx.out())


@register_onnx("_contrib_index_array")
def _index_array(ctx: NodeContext) -> None:
    x, ndim = ctx.inputs[0], ctx.ndim()
    axes = list(range(ndim)) if ctx.param.axes is None else [a % ndim for a in ctx.param.axes]
    shape = ctx.op1("Shape", [x])
    zero, one = ctx.scalar(0, np.int64, "zero"), ctx.scalar(1, np.int64, "one")
    grids = []
    for a in axes:
        n = ctx.op1("Gather", [shape, ctx.scalar(a, np.int64, "axis")])
        line = ctx.op1("Range", [zero, n, one])
        line = ctx.op1("Reshape", [line, ctx.ints([-1 if i == a else 1 for i in range(ndim)])])
        grids.append(ctx.unsqueeze(ctx.op1("Expand", [line, shape]), [ndim]))
    if not grids:
        raise ctx.fail("axes=()", "an index array with no axes is empty.")
    if len(grids) == 1:
        ctx.op1("Identity", grids, ctx.out())
    else:
        ctx.op1("Concat", grids, ctx.out(), axis=-1)


@register_onnx("_contrib_ModulatedDeformableConvolution")
def _deformable_conv(ctx: NodeContext) -> None:
    # DCN v2 samples as ONNX's DeformConv does: bilinear, zero outside the map
    p = ctx.param
    if ctx.opset < 19:
        raise ctx.fail(f"opset_version={ctx.opset}", "ONNX has DeformConv from opset 19.")
    n = len(p.kernel)
    if n != 2:
        raise ctx.fail(f"kernel={p.kernel}", "ONNX DeformConv is exported for 2-D kernels.")
    data, offset, mask, weight = ctx.inputs[:4]
    bias = ctx.inputs[4] if len(ctx.inputs) > 4 else ""
    pad = list(p.pad) if p.pad else [0, 0]
    ctx.op1(
        "DeformConv",
        [data, weight, offset, bias, mask],
        ctx.out(),
        kernel_shape=list(p.kernel),
        strides=list(p.stride) if p.stride else [1, 1],
        dilations=list(p.dilate) if p.dilate else [1, 1],
        pads=pad + pad,
        group=p.num_group,
        offset_group=p.num_deformable_group,
    )


@register_onnx("_contrib_boolean_mask")
def _boolean_mask(ctx: NodeContext) -> None:
    keep = ctx.cast(ctx.inputs[1], np.bool_)
    ctx.op1("Compress", [ctx.inputs[0], keep], ctx.out(), axis=ctx.param.axis)
