"""The import table: one function per ONNX operator, building mxlite symbols (see _import.py):
convolution, pooling, normalization, activations and element-wise arithmetic here; the rest in
_import_tensor.py and _import_rnn.py."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._importer import Importer, _importer


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
    "Asinh": "arcsinh", "Acosh": "arccosh", "Atanh": "arctanh", "Sign": "sign",
    "Softsign": "softsign", "Not": "logical_not", "Identity": "_copy", "Dropout": "_copy",
}  # fmt: skip


@_importer(*_UNARY)
def _unary(im: Importer) -> Any:
    return im.op(_UNARY[im.node.op_type])(im.x(0), name=im.name())


@_importer("Round")
def _round(im: Importer) -> Any:
    # ONNX rounds a half to the even neighbour; MXNet's round and rint do not: floor(x + 0.5),
    # less one where that was a tie landing on an odd number
    t = im.op("_plus_scalar")(im.x(0), scalar=0.5, name=im.name("_t"))
    f = im.sym.floor(t, name=im.name("_f"))
    tie = im.sym.broadcast_equal(t, f, name=im.name("_tie"))
    odd = im.op("_mod_scalar")(f, scalar=2.0, name=im.name("_odd"))
    return im.sym.broadcast_sub(f, im.sym.broadcast_mul(tie, odd, name=im.name("_fix")),
                                name=im.name())  # fmt: skip


@_importer("IsNaN")
def _isnan(im: Importer) -> Any:
    # NaN is the one value unequal to itself
    return im.sym.broadcast_not_equal(im.x(0), im.x(0), name=im.name())


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
