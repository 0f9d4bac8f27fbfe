"""ONNX translations of the neural-network layers: convolution, pooling, normalization,
activations, softmax and the ``*Output`` heads (exported as their inference computation)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...operator.registry import register_onnx
from .._walk import NodeContext


def _spatial(value: tuple, n: int, default: int) -> list[int]:
    return list(value) if value else [default] * n


def _conv_common(ctx: NodeContext, layout_hint: str) -> tuple[Any, list[int], list[int]]:
    """Convolution's and Deconvolution's parameters, their strides and dilations; a layout
    other than channels-first cannot be exported."""
    p = ctx.param
    if p.layout not in (None, "NCW", "NCHW", "NCDHW"):
        raise ctx.fail(f"layout={p.layout!r}", layout_hint)
    n = len(p.kernel)
    return p, _spatial(p.stride, n, 1), _spatial(p.dilate, n, 1)


def _conv_node(
    ctx: NodeContext,
    onnx_op: str,
    stride: list[int],
    dilate: list[int],
    pad: list[int],
    output_padding: list[int] | None = None,
) -> None:
    """The ONNX ``Conv`` or ``ConvTranspose`` node of a (de)convolution, bias included unless
    ``no_bias``; ``pad`` is each spatial axis's padding, at its start and at its end."""
    p = ctx.param
    ctx.op1(
        onnx_op,
        ctx.inputs[: 2 if p.no_bias else 3],
        ctx.out(),
        kernel_shape=list(p.kernel),
        strides=stride,
        dilations=dilate,
        pads=pad + pad,
        output_padding=output_padding,
        group=p.num_group,
    )


@register_onnx("Convolution")
def _convolution(ctx: NodeContext) -> None:
    p, stride, dilate = _conv_common(ctx, "ONNX Conv takes channels-first data only.")
    pad = _spatial(p.pad, len(p.kernel), 0)
    _conv_node(ctx, "Conv", stride, dilate, pad)


@register_onnx("Deconvolution")
def _deconvolution(ctx: NodeContext) -> None:
    p, stride, dilate = _conv_common(ctx, "ONNX ConvTranspose takes channels-first data.")
    pads, adj = [], []
    for i in range(len(p.kernel)):
        size_in, size_out = ctx.in_shapes[0][2 + i], ctx.out_shapes[0][2 + i]
        full = (size_in - 1) * stride[i] + dilate[i] * (p.kernel[i] - 1) + 1
        if p.target_shape:
            pad = (full - size_out + 1) // 2
        else:
            pad = p.pad[i] if p.pad else 0
        pads.append(pad)
        adj.append(size_out - (full - 2 * pad))
    _conv_node(ctx, "ConvTranspose", stride, dilate, pads, adj if any(adj) else None)


@register_onnx("FullyConnected")
def _fully_connected(ctx: NodeContext) -> None:
    p = ctx.param
    x, w = ctx.inputs[0], ctx.inputs[1]
    bias = [] if p.no_bias else [ctx.inputs[2]]
    if p.flatten or ctx.ndim() == 2:
        if ctx.ndim() != 2:
            x = ctx.op1("Flatten", [x], axis=1)
        ctx.op1("Gemm", [x, w, *bias], ctx.out(), transB=1)
        return
    y = ctx.op1("MatMul", [x, ctx.op1("Transpose", [w], perm=[1, 0])])
    if bias:
        ctx.op1("Add", [y, bias[0]], ctx.out())
    else:
        ctx.alias(0, y)


@register_onnx("BatchNorm", "BatchNorm_v1", "_contrib_SyncBatchNorm")
def _batch_norm(ctx: NodeContext) -> None:
    # inference: the moving statistics normalise whatever use_global_stats says
    p = ctx.param
    x, gamma, beta, mean, var = ctx.inputs
    ndim = ctx.ndim()
    axis = getattr(p, "axis", 1) % ndim  # BatchNorm_v1 and SyncBatchNorm: axis 1
    channels = ctx.in_shapes[0][axis]
    dtype = ctx.dtype()
    if p.fix_gamma:
        gamma = ctx.const(np.ones(channels, dtype), "gamma_fixed")
    if axis == 1:
        ctx.emit("BatchNormalization", [x, gamma, beta, mean, var], [ctx.out()], epsilon=p.eps)
        return
    # another axis: x * a + b with per-channel constants shaped to broadcast along it
    vals = ctx.values
    if any(v is None for v in vals[2:]) or (not p.fix_gamma and vals[1] is None):
        raise ctx.fail(f"axis={axis}", "its statistics must be parameters for axis != 1.")
    g = np.ones(channels, dtype) if p.fix_gamma else vals[1]
    scale = g / np.sqrt(vals[4].astype(np.float64) + p.eps)
    shift = vals[2] - vals[3] * scale
    shape = [channels if i == axis else 1 for i in range(ndim)]
    a = ctx.const(scale.astype(dtype).reshape(shape), "scale")
    b = ctx.const(shift.astype(dtype).reshape(shape), "shift")
    ctx.op1("Add", [ctx.op1("Mul", [x, a]), b], ctx.out())


@register_onnx("InstanceNorm")
def _instance_norm(ctx: NodeContext) -> None:
    ctx.emit("InstanceNormalization", ctx.inputs, [ctx.out()], epsilon=ctx.param.eps)


def _normalize(ctx: NodeContext, x: str, axes: list[int], eps: float) -> str:
    mean = ctx.reduce("ReduceMean", x, axes, True, None)
    d = ctx.op1("Sub", [x, mean])
    var = ctx.reduce("ReduceMean", ctx.op1("Mul", [d, d]), axes, True, None)
    std = ctx.op1("Sqrt", [ctx.op1("Add", [var, ctx.scalar(eps, ctx.dtype(), "eps")])])
    return ctx.op1("Div", [d, std])


def _channel_shaped(ctx: NodeContext, t: str, axis: int) -> str:
    ndim = ctx.ndim()
    if axis == ndim - 1:
        return t
    shape = [-1 if i == axis else 1 for i in range(ndim)][axis:]
    return ctx.op1("Reshape", [t, ctx.ints(shape, "cshape")])


@register_onnx("LayerNorm")
def _layer_norm(ctx: NodeContext) -> None:
    p = ctx.param
    axis = p.axis % ctx.ndim()
    y = _normalize(ctx, ctx.inputs[0], [axis], p.eps)
    y = ctx.op1("Mul", [y, _channel_shaped(ctx, ctx.inputs[1], axis)])
    ctx.op1("Add", [y, _channel_shaped(ctx, ctx.inputs[2], axis)], ctx.out())


@register_onnx("GroupNorm")
def _group_norm(ctx: NodeContext) -> None:
    p = ctx.param
    x = ctx.inputs[0]
    # MXNet 1.x's gamma and beta hold one value per group, applied in the grouped layout
    grouped = ctx.op1("Reshape", [x, ctx.ints([0, p.num_groups, -1], "gshape")])
    y = _normalize(ctx, grouped, [2], p.eps)
    per_group = ctx.ints([-1, 1], "pgshape")
    y = ctx.op1("Mul", [y, ctx.op1("Reshape", [ctx.inputs[1], per_group])])
    y = ctx.op1("Add", [y, ctx.op1("Reshape", [ctx.inputs[2], per_group])])
    ctx.op1("Reshape", [y, ctx.op1("Shape", [x])], ctx.out())


@register_onnx("L2Normalization")
def _l2_normalization(ctx: NodeContext) -> None:
    p = ctx.param
    ndim = ctx.ndim()
    axes = {"instance": list(range(1, ndim)), "channel": [1], "spatial": list(range(2, ndim))}
    x = ctx.inputs[0]
    ss = ctx.reduce("ReduceSum", ctx.op1("Mul", [x, x]), axes[p.mode], True, None)
    norm = ctx.op1("Sqrt", [ctx.op1("Add", [ss, ctx.scalar(p.eps, ctx.dtype(), "eps")])])
    ctx.op1("Div", [x, norm], ctx.out())


@register_onnx("LRN")
def _lrn(ctx: NodeContext) -> None:
    p = ctx.param
    ctx.emit(
        "LRN", ctx.inputs[:1], [ctx.out()], alpha=p.alpha, beta=p.beta, bias=p.knorm, size=p.nsize
    )


@register_onnx("Pooling")
def _pooling(ctx: NodeContext) -> None:
    p = ctx.param
    if p.layout not in (None, "NCW", "NCHW", "NCDHW"):
        raise ctx.fail(f"layout={p.layout!r}", "ONNX pooling takes channels-first data only.")
    x, out = ctx.inputs[0], ctx.out()
    n = ctx.ndim() - 2
    if p.global_pool:
        if p.pool_type == "max":
            ctx.op1("GlobalMaxPool", [x], out)
        elif p.pool_type == "avg":
            ctx.op1("GlobalAveragePool", [x], out)
        elif p.pool_type == "sum":
            ctx.reduce("ReduceSum", x, list(range(2, n + 2)), True, out)
        else:
            ctx.op1("GlobalLpPool", [x], out, p=int(p.p_value or 2))
        return
    kernel = list(p.kernel)
    stride, pad = _spatial(p.stride, n, 1), _spatial(p.pad, n, 0)
    full = p.pooling_convention == "full"
    if p.pooling_convention == "same":
        raise ctx.fail("pooling_convention='same'", "ONNX has no such output rule for MXNet's.")
    if full:
        # ONNX's ceil mode drops a last window that starts in the end padding, which MXNet
        # keeps; padding the end for floor mode instead needs pads ONNX Runtime refuses
        # (as large as the kernel), so such a window is an error
        for i in range(n):
            size = ctx.in_shapes[0][2 + i]
            if (ctx.out_shapes[0][2 + i] - 1) * stride[i] >= size + pad[i]:
                raise ctx.fail(
                    "pooling_convention='full'", "its last window starts in the padding."
                )
    common = dict(kernel_shape=kernel, strides=stride, pads=pad + pad, ceil_mode=int(full))
    if p.pool_type == "max":
        ctx.op1("MaxPool", [x], out, **common)
    elif p.pool_type == "lp":
        ctx.op1("LpPool", [x], out, p=int(p.p_value or 2), **common)
    else:
        include = p.count_include_pad is None or p.count_include_pad
        if p.pool_type == "sum":
            if full:
                raise ctx.fail("pool_type='sum'", "sum pooling needs pooling_convention='valid'.")
            include = True
        y = ctx.op1(
            "AveragePool",
            [x],
            None if p.pool_type == "sum" else out,
            count_include_pad=int(include),
            **common,
        )
        if p.pool_type == "sum":
            ctx.op1("Mul", [y, ctx.scalar(math.prod(kernel), ctx.dtype(), "ksize")], out)


@register_onnx("UpSampling")
def _upsampling(ctx: NodeContext) -> None:
    p = ctx.param
    if p.num_args != 1:
        raise ctx.fail(f"num_args={p.num_args}", "only one input can be exported.")
    s = p.scale
    if p.sample_type == "nearest":
        scales = ctx.const(np.array([1, 1, s, s], np.float32), "scales")
        ctx.op1(
            "Resize",
            [ctx.inputs[0], "", scales],
            ctx.out(),
            mode="nearest",
            nearest_mode="floor",
            coordinate_transformation_mode="asymmetric",
        )
        return
    channels = ctx.in_shapes[0][1]
    k = 2 * s - s % 2
    pad = math.ceil((s - 1) / 2)
    ctx.op1(
        "ConvTranspose",
        ctx.inputs[:2],
        ctx.out(),
        kernel_shape=[k, k],
        strides=[s, s],
        pads=[pad] * 4,
        group=channels,
    )


@register_onnx("Activation")
def _activation(ctx: NodeContext) -> None:
    ops = {
        "relu": "Relu",
        "sigmoid": "Sigmoid",
        "tanh": "Tanh",
        "softrelu": "Softplus",
        "softsign": "Softsign",
    }
    ctx.op1(ops[ctx.param.act_type], ctx.inputs, ctx.out())


@register_onnx("LeakyReLU")
def _leaky_relu(ctx: NodeContext) -> None:
    p = ctx.param
    x, out = ctx.inputs[0], ctx.out()
    act = p.act_type
    if act == "leaky":
        ctx.op1("LeakyRelu", [x], out, alpha=p.slope)
    elif act == "rrelu":  # inference: the mean of the random slope's range
        ctx.op1("LeakyRelu", [x], out, alpha=(p.lower_bound + p.upper_bound) / 2)
    elif act == "elu":
        ctx.op1("Elu", [x], out, alpha=p.slope)
    elif act == "selu":
        ctx.op1("Selu", [x], out, alpha=1.6732632423543772, gamma=1.0507009873554805)
    elif act == "gelu":
        dt = ctx.dtype()
        e = ctx.op1("Erf", [ctx.op1("Mul", [x, ctx.scalar(1 / math.sqrt(2), dt, "rsqrt2")])])
        half = ctx.op1("Mul", [x, ctx.scalar(0.5, dt, "half")])
        ctx.op1("Mul", [half, ctx.op1("Add", [e, ctx.scalar(1, dt, "one")])], out)
    else:  # prelu: one slope per channel (axis 1)
        ctx.op1("PRelu", [x, _channel_shaped(ctx, ctx.inputs[1], 1)], out)
    if len(ctx.outputs) > 1:  # rrelu's mask output, unused at inference
        ctx.alias(1, "")


def _softmax(ctx: NodeContext, op_type: str, negate: bool = False) -> None:
    p = ctx.param
    if p.use_length:
        raise ctx.fail("use_length=True", "ONNX softmax takes no lengths.")
    x = ctx.inputs[0]
    if p.temperature is not None and p.temperature != 1.0:
        x = ctx.op1("Div", [x, ctx.scalar(p.temperature, ctx.dtype(), "temperature")])
    if negate:
        x = ctx.op1("Neg", [x])
    if p.dtype is not None and np.dtype(p.dtype) != ctx.dtype():
        ctx.cast(ctx.op1(op_type, [x], axis=p.axis), p.dtype, ctx.out())
    else:
        ctx.op1(op_type, [x], ctx.out(), axis=p.axis)


register_onnx("softmax")(lambda ctx: _softmax(ctx, "Softmax"))
register_onnx("log_softmax")(lambda ctx: _softmax(ctx, "LogSoftmax"))
register_onnx("softmin")(lambda ctx: _softmax(ctx, "Softmax", negate=True))


@register_onnx("SoftmaxActivation")
def _softmax_activation(ctx: NodeContext) -> None:
    axis = 1 if ctx.param.mode == "channel" else -1
    ctx.op1("Softmax", ctx.inputs[:1], ctx.out(), axis=axis)


@register_onnx("SoftmaxOutput")
def _softmax_output(ctx: NodeContext) -> None:
    p = ctx.param
    x = ctx.inputs[0]
    if p.multi_output:
        ctx.op1("Softmax", [x], ctx.out(), axis=1)
    elif p.preserve_shape or ctx.ndim() <= 2:
        ctx.op1("Softmax", [x], ctx.out(), axis=-1)
    else:  # softmax over everything but the batch axis, back in the input's shape
        y = ctx.op1("Softmax", [ctx.op1("Flatten", [x], axis=1)], axis=-1)
        ctx.op1("Reshape", [y, ctx.op1("Shape", [x])], ctx.out())


register_onnx("LogisticRegressionOutput")(lambda ctx: ctx.op1("Sigmoid", ctx.inputs[:1], ctx.out()))


def _identity(ctx: NodeContext) -> None:
    for k in range(len(ctx.outputs)):
        ctx.alias(k, ctx.inputs[0] if k == 0 else "")


register_onnx(
    "LinearRegressionOutput",
    "MAERegressionOutput",
    "SVMOutput",
    "Dropout",
    "BlockGrad",
    "MakeLoss",
    "make_loss",
    "_copy",
    "_identity_with_attr_like_rhs",
)(_identity)


@register_onnx("Embedding")
def _embedding(ctx: NodeContext) -> None:
    idx = ctx.cast(ctx.inputs[0], np.int64)
    ctx.op1("Gather", [ctx.inputs[1], idx], ctx.out(), axis=0)


@register_onnx("ROIPooling")
def _roi_pooling(ctx: NodeContext) -> None:
    p = ctx.param
    ctx.op1(
        "MaxRoiPool",
        ctx.inputs,
        ctx.out(),
        pooled_shape=list(p.pooled_size),
        spatial_scale=p.spatial_scale,
    )
