"""The import table: one function per ONNX operator, building mxlite symbols (see _import.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._import import Importer, _importer

INT_MAX = np.iinfo(np.int64).max // 2  # ends at or past this mean "to the end"


def _pads(im: Importer, n: int) -> tuple:
    if im.attr("auto_pad", "NOTSET") not in ("NOTSET", "VALID"):
        raise im.fail("auto_pad SAME_* is not supported; give explicit pads.")
    pads = list(im.attr("pads", [0] * (2 * n)))
    if pads[:n] != pads[n:]:
        raise im.fail(f"asymmetric pads {pads} have no MXNet equivalent.")
    return tuple(pads[:n])


@_importer("Conv")
def _conv(im: Importer) -> Any:
    w = im.shape(1)
    n = len(w) - 2
    return im.sym.Convolution(
        *[im.x(i) for i in range(len(im.node.input)) if im.node.input[i]],
        kernel=tuple(im.attr("kernel_shape", w[2:])),
        stride=tuple(im.attr("strides", [1] * n)),
        dilate=tuple(im.attr("dilations", [1] * n)),
        pad=_pads(im, n),
        num_filter=w[0],
        num_group=im.attr("group", 1),
        no_bias=len(im.node.input) < 3 or not im.node.input[2],
        name=im.name(),
    )


@_importer("ConvTranspose")
def _conv_transpose(im: Importer) -> Any:
    w = im.shape(1)
    n = len(w) - 2
    group = im.attr("group", 1)
    if im.attr("output_shape") is not None:
        raise im.fail("output_shape is not supported; give pads and output_padding.")
    return im.sym.Deconvolution(
        *[im.x(i) for i in range(len(im.node.input)) if im.node.input[i]],
        kernel=tuple(im.attr("kernel_shape", w[2:])),
        stride=tuple(im.attr("strides", [1] * n)),
        dilate=tuple(im.attr("dilations", [1] * n)),
        pad=_pads(im, n),
        adj=tuple(im.attr("output_padding", [0] * n)),
        num_filter=w[1] * group,
        num_group=group,
        no_bias=len(im.node.input) < 3 or not im.node.input[2],
        name=im.name(),
    )


@_importer("Gemm")
def _gemm(im: Importer) -> Any:
    alpha, beta = im.attr("alpha", 1.0), im.attr("beta", 1.0)
    a = im.x(0)
    if im.attr("transA", 0):
        a = im.sym.transpose(a, name=im.name("_at"))
    wname = im.node.input[1]
    has_c = len(im.node.input) > 2 and im.node.input[2]
    if wname in im.consts and wname not in im.tensors and alpha == 1.0 and beta == 1.0:
        w = im.consts[wname]
        if not im.attr("transB", 0):
            im.consts[wname] = np.ascontiguousarray(w.T)
        c = im.node.input[2] if has_c else None
        bias = None
        if c is not None and im.consts.get(c, np.zeros(0)).size == im.consts[wname].shape[0]:
            im.consts[c] = im.consts[c].reshape(-1)
            bias = im.get(c)
        y = im.sym.FullyConnected(
            a, im.get(wname), *([bias] if bias is not None else []),
            num_hidden=im.consts[wname].shape[0], no_bias=bias is None, name=im.name(),
        )  # fmt: skip
        if c is not None and bias is None:
            y = im.sym.broadcast_add(y, im.get(c), name=im.name("_c"))
        return y
    y = im.sym.dot(a, im.x(1), transpose_b=bool(im.attr("transB", 0)), name=im.name("_ab"))
    if alpha != 1.0:
        y = im.op("_mul_scalar")(y, scalar=alpha, name=im.name("_alpha"))
    if has_c:
        c = im.x(2)
        if beta != 1.0:
            c = im.op("_mul_scalar")(c, scalar=beta, name=im.name("_beta"))
        y = im.sym.broadcast_add(y, c, name=im.name())
    return y


@_importer("MatMul")
def _matmul(im: Importer) -> Any:
    ra, rb = im.rank(0), im.rank(1)
    if rb == 2 or (ra <= 2 and rb <= 2):
        return im.sym.dot(im.x(0), im.x(1), name=im.name())
    if ra == rb == 3:
        return im.sym.batch_dot(im.x(0), im.x(1), name=im.name())
    if ra == rb:  # fold the batch dimensions into one
        a = im.sym.Reshape(im.x(0), shape=(-1, 0, 0), reverse=True, name=im.name("_a3"))
        b = im.sym.Reshape(im.x(1), shape=(-1, 0, 0), reverse=True, name=im.name("_b3"))
        y = im.sym.batch_dot(a, b, name=im.name("_bd"))
        out = im.shapes.get(im.node.output[0])
        if out is None or None in out:
            raise im.fail("a batched MatMul of rank > 3 needs static shapes.")
        return im.sym.Reshape(y, shape=out, name=im.name())
    raise im.fail(f"MatMul of ranks {ra} and {rb} is not supported.")


_ELEMWISE = {
    "Add": ("broadcast_add", "_plus_scalar", "_plus_scalar"),
    "Sub": ("broadcast_sub", "_minus_scalar", "_rminus_scalar"),
    "Mul": ("broadcast_mul", "_mul_scalar", "_mul_scalar"),
    "Div": ("broadcast_div", "_div_scalar", "_rdiv_scalar"),
    "Pow": ("broadcast_power", "_power_scalar", "_rpower_scalar"),
    "Equal": ("broadcast_equal", "_equal_scalar", "_equal_scalar"),
    "Greater": ("broadcast_greater", "_greater_scalar", "_lesser_scalar"),
    "Less": ("broadcast_lesser", "_lesser_scalar", "_greater_scalar"),
    "GreaterOrEqual": ("broadcast_greater_equal", "_greater_equal_scalar", "_lesser_equal_scalar"),
    "LessOrEqual": ("broadcast_lesser_equal", "_lesser_equal_scalar", "_greater_equal_scalar"),
    "And": ("broadcast_logical_and", "_logical_and_scalar", "_logical_and_scalar"),
    "Or": ("broadcast_logical_or", "_logical_or_scalar", "_logical_or_scalar"),
    "Xor": ("broadcast_logical_xor", "_logical_xor_scalar", "_logical_xor_scalar"),
}


@_importer(*_ELEMWISE)
def _elemwise(im: Importer) -> Any:
    full, right, left = _ELEMWISE[im.node.op_type]
    b, a = im.scalar_const(1), im.scalar_const(0)
    if b is not None and im.node.input[0] not in im.consts:
        return im.op(right)(im.x(0), scalar=b, name=im.name())
    if a is not None and im.node.input[1] not in im.consts:
        return im.op(left)(im.x(1), scalar=a, name=im.name())
    return im.op(full)(im.x(0), im.x(1), name=im.name())


@_importer("Mod")
def _mod(im: Importer) -> Any:
    if im.attr("fmod", 0):
        raise im.fail("fmod=1 (C's fmod) differs from MXNet's mod, which takes the divisor's sign.")
    return im.sym.broadcast_mod(im.x(0), im.x(1), name=im.name())


@_importer("Max", "Min", "Sum", "Mean")
def _variadic(im: Importer) -> Any:
    op = im.node.op_type
    xs = [im.x(i) for i in range(len(im.node.input))]
    if op in ("Sum", "Mean"):
        y = xs[0] if len(xs) == 1 else im.sym.add_n(*xs, name=im.name("_sum"))
        if op == "Mean":
            y = im.op("_div_scalar")(y, scalar=float(len(xs)), name=im.name())
        return y
    fn = im.sym.broadcast_maximum if op == "Max" else im.sym.broadcast_minimum
    y = xs[0]
    for k, x in enumerate(xs[1:]):
        y = fn(y, x, name=im.name(f"_{k}") if k < len(xs) - 2 else im.name())
    return y


_UNARY = {
    "Relu": "relu", "Sigmoid": "sigmoid", "Tanh": "tanh", "Exp": "exp", "Log": "log",
    "Sqrt": "sqrt", "Abs": "abs", "Neg": "negative", "Floor": "floor", "Ceil": "ceil",
    "Erf": "erf", "Reciprocal": "reciprocal", "Sin": "sin", "Cos": "cos", "Tan": "tan",
    "Asin": "arcsin", "Acos": "arccos", "Atan": "arctan", "Sinh": "sinh", "Cosh": "cosh",
    "Asinh": "arcsinh", "Acosh": "arccosh", "Atanh": "arctanh", "Sign": "sign", "Round": "rint",
    "Softsign": "softsign", "Not": "logical_not", "Identity": "_copy", "Dropout": "_copy",
}  # fmt: skip


@_importer(*_UNARY)
def _unary(im: Importer) -> Any:
    return im.op(_UNARY[im.node.op_type])(im.x(0), name=im.name())


@_importer("Softplus")
def _softplus(im: Importer) -> Any:
    return im.sym.Activation(im.x(0), act_type="softrelu", name=im.name())


@_importer("HardSigmoid")
def _hard_sigmoid(im: Importer) -> Any:
    return im.sym.hard_sigmoid(
        im.x(0), alpha=im.attr("alpha", 0.2), beta=im.attr("beta", 0.5), name=im.name()
    )


@_importer("LeakyRelu", "Elu")
def _leaky(im: Importer) -> Any:
    act = "leaky" if im.node.op_type == "LeakyRelu" else "elu"
    alpha = im.attr("alpha", 0.01 if act == "leaky" else 1.0)
    return im.sym.LeakyReLU(im.x(0), act_type=act, slope=alpha, name=im.name())


@_importer("Selu")
def _selu(im: Importer) -> Any:
    if abs(im.attr("alpha", 1.67326319) - 1.67326319) > 1e-6:
        raise im.fail("only the standard alpha and gamma of SELU exist in MXNet.")
    return im.sym.LeakyReLU(im.x(0), act_type="selu", name=im.name())


@_importer("PRelu")
def _prelu(im: Importer) -> Any:
    slope = im.x(1)
    shape = im.shape(1)
    if shape is not None and len(shape) != 1:  # MXNet's slope is one value per channel
        slope = im.sym.Reshape(slope, shape=(-1,), name=im.name("_slope"))
    return im.sym.LeakyReLU(im.x(0), slope, act_type="prelu", name=im.name())


@_importer("Softmax", "LogSoftmax")
def _softmax(im: Importer) -> Any:
    fn = im.sym.softmax if im.node.op_type == "Softmax" else im.sym.log_softmax
    return fn(im.x(0), axis=im.attr("axis", -1), name=im.name())


@_importer("MaxPool", "AveragePool", "LpPool")
def _pool(im: Importer) -> Any:
    if len(im.node.output) > 1 and im.node.output[1]:
        raise im.fail("MaxPool's indices output has no MXNet equivalent.")
    kernel = tuple(im.attr("kernel_shape"))
    n = len(kernel)
    if any(d != 1 for d in im.attr("dilations", [1] * n)):
        raise im.fail("pooling with dilations has no MXNet equivalent.")
    kind = {"MaxPool": "max", "AveragePool": "avg", "LpPool": "lp"}[im.node.op_type]
    extra = {}
    if kind == "avg":
        extra["count_include_pad"] = bool(im.attr("count_include_pad", 0))
    if kind == "lp":
        extra["p_value"] = im.attr("p", 2)
    return im.sym.Pooling(
        im.x(0),
        kernel=kernel,
        pool_type=kind,
        stride=tuple(im.attr("strides", [1] * n)),
        pad=_pads(im, n),
        pooling_convention="full" if im.attr("ceil_mode", 0) else "valid",
        name=im.name(),
        **extra,
    )


@_importer("GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool")
def _global_pool(im: Importer) -> Any:
    kind = {"GlobalAveragePool": "avg", "GlobalMaxPool": "max", "GlobalLpPool": "lp"}
    extra = {"p_value": im.attr("p", 2)} if im.node.op_type == "GlobalLpPool" else {}
    n = im.rank() - 2
    return im.sym.Pooling(
        im.x(0), kernel=(1,) * n, global_pool=True, pool_type=kind[im.node.op_type],
        name=im.name(), **extra,
    )  # fmt: skip


@_importer("BatchNormalization")
def _batch_norm(im: Importer) -> Any:
    if im.attr("training_mode", 0):
        raise im.fail("training_mode=1 is not an inference graph.")
    ins = [im.x(0), im.x(1), im.x(2)]
    ins += [im.get(im.node.input[3], aux=True), im.get(im.node.input[4], aux=True)]
    return im.sym.BatchNorm(
        *ins, eps=im.attr("epsilon", 1e-5), fix_gamma=False, use_global_stats=True,
        name=im.name(),
    )  # fmt: skip


@_importer("InstanceNormalization")
def _instance_norm(im: Importer) -> Any:
    return im.sym.InstanceNorm(im.x(0), im.x(1), im.x(2), eps=im.attr("epsilon", 1e-5),
                               name=im.name())  # fmt: skip


@_importer("LRN")
def _lrn(im: Importer) -> Any:
    return im.sym.LRN(
        im.x(0), alpha=im.attr("alpha", 1e-4), beta=im.attr("beta", 0.75),
        knorm=im.attr("bias", 1.0), nsize=im.attr("size"), name=im.name(),
    )  # fmt: skip


@_importer("Flatten")
def _flatten(im: Importer) -> Any:
    axis = im.attr("axis", 1)
    if axis == 1:
        return im.sym.Flatten(im.x(0), name=im.name())
    out = im.shapes.get(im.node.output[0])
    if axis == 0:
        return im.sym.Reshape(im.x(0), shape=(1, -1), name=im.name())
    if out is None or out[1] is None:
        raise im.fail(f"Flatten(axis={axis}) needs a static size after the axis.")
    return im.sym.Reshape(im.x(0), shape=(-1, out[1]), name=im.name())


@_importer("Reshape")
def _reshape(im: Importer) -> Any:
    src = im.shape_of.get(im.node.input[1])
    if src is not None:
        return im.sym.reshape_like(im.x(0), im.get(src), name=im.name())
    shape = [int(d) for d in im.const(1)]
    if im.attr("allowzero", 0) and 0 in shape:
        raise im.fail("allowzero=1 with a 0 in the shape has no MXNet equivalent.")
    return im.sym.Reshape(im.x(0), shape=tuple(shape), name=im.name())


@_importer("Concat")
def _concat(im: Importer) -> Any:
    xs = [im.x(i) for i in range(len(im.node.input))]
    return im.sym.Concat(*xs, dim=im.attr("axis"), num_args=len(xs), name=im.name())


@_importer("Split")
def _split(im: Importer) -> Any:
    axis = im.attr("axis", 0)
    n = len(im.node.output)
    sizes = im.const(1)
    if sizes is None:
        sizes = im.attr("split")
    if sizes is None or len(set(int(s) for s in sizes)) == 1:
        y = im.sym.SliceChannel(im.x(0), num_outputs=n, axis=axis, name=im.name())
    else:
        idx = tuple(int(v) for v in np.cumsum([0, *sizes[:-1]]))
        y = im.op("_split_v2")(im.x(0), indices=idx, axis=axis, name=im.name())
    return [y[k] for k in range(n)] if n > 1 else y


@_importer("Transpose")
def _transpose(im: Importer) -> Any:
    perm = im.attr("perm")
    return im.sym.transpose(im.x(0), axes=tuple(perm) if perm else (), name=im.name())


def _axes_input(im: Importer, i: int = 1, attr: str = "axes") -> list[int] | None:
    v = im.const(i) if len(im.node.input) > i else None
    if v is None:
        v = im.attr(attr)
    return None if v is None else [int(a) for a in np.atleast_1d(v)]


@_importer("Unsqueeze")
def _unsqueeze(im: Importer) -> Any:
    axes = _axes_input(im)
    rank = im.rank() + len(axes)
    y = im.x(0)
    for k, a in enumerate(sorted(a % rank for a in axes)):
        y = im.sym.expand_dims(
            y, axis=a, name=im.name() if k == len(axes) - 1 else im.name(f"_{k}")
        )
    return y


@_importer("Squeeze")
def _squeeze(im: Importer) -> Any:
    axes = _axes_input(im)
    return im.sym.squeeze(im.x(0), axis=None if axes is None else tuple(axes), name=im.name())


@_importer("Clip")
def _clip(im: Importer) -> Any:
    lo, hi = im.const(1), im.const(2)
    big = float(np.finfo(np.float32).max)
    return im.sym.clip(
        im.x(0),
        a_min=-big if lo is None else float(lo.reshape(-1)[0]),
        a_max=big if hi is None else float(hi.reshape(-1)[0]),
        name=im.name(),
    )


@_importer("Cast")
def _cast(im: Importer) -> Any:
    from onnx import helper

    dtype = np.dtype(helper.tensor_dtype_to_np_dtype(im.attr("to")))
    if dtype == np.bool_:  # MXNet keeps truth values as 0/1 numbers
        return im.op("_not_equal_scalar")(im.x(0), scalar=0.0, name=im.name())
    return im.sym.Cast(im.x(0), dtype=dtype.name, name=im.name())


@_importer("Gather")
def _gather(im: Importer) -> Any:
    axis = im.attr("axis", 0)
    idx = im.node.input[1]
    if idx in im.consts and im.consts[idx].ndim == 0:
        im.consts[idx] = im.consts[idx].reshape(1)
        y = im.sym.take(im.x(0), im.x(1), axis=axis, mode="wrap", name=im.name("_t"))
        return im.sym.squeeze(y, axis=axis, name=im.name())
    return im.sym.take(im.x(0), im.x(1), axis=axis, mode="wrap", name=im.name())


@_importer("GatherElements")
def _gather_elements(im: Importer) -> Any:
    axis = im.attr("axis", 0)
    y = im.sym.pick(im.x(0), im.x(1), axis=axis, keepdims=True, mode="wrap", name=im.name())
    return y


@_importer("Where")
def _where(im: Importer) -> Any:
    # ONNX broadcasts the three; MXNet's where wants them alike: broadcast each to the one
    # that has the output's shape
    out = im.shapes.get(im.node.output[0])
    shapes = [im.shape(i) for i in range(3)]
    xs = [im.x(i) for i in range(3)]
    full = next((k for k, s in enumerate(shapes) if s is not None and s == out), None)
    if full is None and any(s != shapes[0] for s in shapes):
        raise im.fail("its inputs broadcast, and none has the output's shape.")
    for k, s in enumerate(shapes):
        if full is None or s == out:
            continue
        x = xs[k]
        if s is None:
            raise im.fail(f"the shape of input {k} is unknown.")
        if len(s) < len(out):
            dims = (1,) * (len(out) - len(s)) + tuple(-1 if d is None else d for d in s)
            x = im.sym.Reshape(x, shape=dims, name=im.name(f"_r{k}"))
        xs[k] = im.sym.broadcast_like(x, xs[full], name=im.name(f"_b{k}"))
    return im.sym.where(*xs, name=im.name())


@_importer("Pad")
def _pad(im: Importer) -> Any:
    pads = [int(v) for v in im.const(1)]
    n = len(pads) // 2
    width = tuple(v for pair in zip(pads[:n], pads[n:]) for v in pair)
    value = im.const(2)
    return im.sym.Pad(
        im.x(0), mode=im.attr("mode", "constant"), pad_width=width,
        constant_value=0.0 if value is None else float(value.reshape(())), name=im.name(),
    )  # fmt: skip


_REDUCE = {
    "ReduceSum": "sum", "ReduceMean": "mean", "ReduceMax": "max", "ReduceMin": "min",
    "ReduceProd": "prod", "ReduceL2": "norm", "ReduceL1": "norm",
}  # fmt: skip


@_importer(*_REDUCE)
def _reduce(im: Importer) -> Any:
    op = im.node.op_type
    axes = _axes_input(im)
    keep = bool(im.attr("keepdims", 1))
    if axes is None and im.attr("noop_with_empty_axes", 0):
        return im.op("_copy")(im.x(0), name=im.name())
    axis = None if axes is None else tuple(axes)
    if op in ("ReduceL2", "ReduceL1"):
        return im.sym.norm(im.x(0), ord=2 if op == "ReduceL2" else 1, axis=axis, keepdims=keep,
                           name=im.name())  # fmt: skip
    return getattr(im.sym, _REDUCE[op])(im.x(0), axis=axis, keepdims=keep, name=im.name())


@_importer("ArgMax", "ArgMin")
def _arg(im: Importer) -> Any:
    if im.attr("select_last_index", 0):
        raise im.fail("select_last_index=1 has no MXNet equivalent.")
    fn = im.sym.argmax if im.node.op_type == "ArgMax" else im.sym.argmin
    y = fn(im.x(0), axis=im.attr("axis", 0), keepdims=bool(im.attr("keepdims", 1)),
           name=im.name("_f"))  # fmt: skip
    return im.sym.Cast(y, dtype="int64", name=im.name())


@_importer("DepthToSpace", "SpaceToDepth")
def _depth_space(im: Importer) -> Any:
    if im.node.op_type == "DepthToSpace":
        if im.attr("mode", "DCR") != "DCR":
            raise im.fail("mode='CRD' has no MXNet equivalent.")
        return im.sym.depth_to_space(im.x(0), block_size=im.attr("blocksize"), name=im.name())
    return im.sym.space_to_depth(im.x(0), block_size=im.attr("blocksize"), name=im.name())


@_importer("Tile")
def _tile(im: Importer) -> Any:
    return im.sym.tile(im.x(0), reps=tuple(int(r) for r in im.const(1)), name=im.name())


@_importer("Expand")
def _expand(im: Importer) -> Any:
    src = im.shape_of.get(im.node.input[1])
    if src is not None:
        return im.sym.broadcast_like(im.x(0), im.get(src), name=im.name())
    shape = [int(d) for d in im.const(1)]
    x, rank = im.x(0), im.rank()
    if len(shape) > rank:
        x = im.sym.Reshape(x, shape=(1,) * (len(shape) - rank) + (0,) * rank, name=im.name("_r"))
    src_shape = (1,) * (len(shape) - rank) + tuple(im.shape(0))
    target = tuple(0 if d == 1 else d for d in shape)
    target = tuple(0 if t == s else t for t, s in zip(target, src_shape))
    return im.sym.broadcast_to(x, shape=target, name=im.name())


@_importer("Slice")
def _slice(im: Importer) -> Any:
    starts = [int(v) for v in im.const(1)]
    ends = [int(v) for v in im.const(2)]
    rank = im.rank()
    axes = [int(a) % rank for a in im.const(3, np.arange(len(starts)))]
    steps = [int(v) for v in im.const(4, np.ones(len(starts), np.int64))]
    begin, end, step = [None] * rank, [None] * rank, [None] * rank
    for a, b, e, s in zip(axes, starts, ends, steps):
        begin[a] = None if (s < 0 and b >= INT_MAX) else b
        end[a] = None if abs(e) >= INT_MAX else e
        step[a] = s
    last = max(axes) + 1
    return im.sym.slice(
        im.x(0), begin=tuple(begin[:last]), end=tuple(end[:last]), step=tuple(step[:last]),
        name=im.name(),
    )  # fmt: skip


@_importer("Resize", "Upsample")
def _resize(im: Importer) -> Any:
    if im.attr("mode", "nearest") != "nearest":
        raise im.fail("only nearest-neighbour resizing has an MXNet equivalent (UpSampling).")
    scales = im.const(2 if im.node.op_type == "Resize" else 1)
    if scales is None or len(scales) != 4 or scales[2] != scales[3] or scales[2] % 1:
        raise im.fail("UpSampling needs one integer scale on both spatial axes.")
    return im.sym.UpSampling(im.x(0), scale=int(scales[2]), sample_type="nearest", num_args=1,
                             name=im.name())  # fmt: skip


@_importer("MaxRoiPool")
def _roi_pool(im: Importer) -> Any:
    return im.sym.ROIPooling(
        im.x(0), im.x(1), pooled_size=tuple(im.attr("pooled_shape")),
        spatial_scale=im.attr("spatial_scale", 1.0), name=im.name(),
    )  # fmt: skip


@_importer("Shape")
def _shape(im: Importer) -> Any:
    return im.sym.shape_array(im.x(0), name=im.name())


@_importer("Size")
def _size(im: Importer) -> Any:
    return im.sym.size_array(im.x(0), name=im.name())


@_importer("ConstantOfShape")
def _constant_of_shape(im: Importer) -> Any:
    from onnx import numpy_helper

    value = 0.0
    for a in im.node.attribute:
        if a.name == "value":
            value = float(numpy_helper.to_array(a.t).reshape(-1)[0])
    src = im.shape_of.get(im.node.input[0])
    if src is not None:
        z = im.sym.zeros_like(im.get(src), name=im.name("_z"))
        return im.op("_plus_scalar")(z, scalar=value, name=im.name()) if value else z
    shape = tuple(int(d) for d in im.const(0))
    return im.sym.full(shape=shape, val=value, name=im.name())


@_importer("OneHot")
def _one_hot(im: Importer) -> Any:
    depth = int(np.asarray(im.const(1)).reshape(-1)[0])
    off, on = (float(v) for v in im.const(2))
    if im.attr("axis", -1) != -1:
        raise im.fail("only axis=-1 has an MXNet equivalent.")
    return im.sym.one_hot(im.x(0), depth=depth, on_value=on, off_value=off, name=im.name())


@_importer("TopK")
def _topk(im: Importer) -> Any:
    k = int(np.asarray(im.const(1)).reshape(-1)[0])
    y = im.sym.topk(
        im.x(0), k=k, axis=im.attr("axis", -1), ret_typ="both",
        is_ascend=not im.attr("largest", 1), name=im.name(),
    )  # fmt: skip
    return [y[0], im.sym.Cast(y[1], dtype="int64", name=im.name("_indices"))]


@_importer("CumSum")
def _cumsum(im: Importer) -> Any:
    if im.attr("exclusive", 0) or im.attr("reverse", 0):
        raise im.fail("exclusive and reverse sums have no MXNet equivalent.")
    axis = int(np.asarray(im.const(1)).reshape(-1)[0])
    return im.op("_np_cumsum")(im.x(0), axis=axis, name=im.name())


def _index_tuples_first(im: Importer, i: int) -> Any:
    # ONNX's index tuples run along the last axis of indices; MXNet's along the first
    n = im.rank(i)
    return im.sym.transpose(im.x(i), axes=(n - 1, *range(n - 1)), name=im.name(f"_idx{i}"))


@_importer("GatherND")
def _gather_nd(im: Importer) -> Any:
    if im.attr("batch_dims", 0):
        raise im.fail("batch_dims > 0 has no MXNet equivalent.")
    return im.sym.gather_nd(im.x(0), _index_tuples_first(im, 1), name=im.name())


@_importer("ScatterND")
def _scatter_nd(im: Importer) -> Any:
    data = im.const(0)
    if np.any(data) or im.attr("reduction", "none") != "none":
        raise im.fail("only scattering into zeros (MXNet's scatter_nd) is supported.")
    return im.sym.scatter_nd(im.x(2), _index_tuples_first(im, 1), shape=data.shape,
                             name=im.name())  # fmt: skip


from . import _import_rnn  # noqa: E402,F401  (LSTM, GRU and RNN)
