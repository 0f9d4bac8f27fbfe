"""ONNX translations of the element-wise families: unary functions, binary and broadcast
arithmetic, comparisons and logic, their ``_scalar`` forms, reductions, dot products."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ...operator.registry import register_onnx
from .._walk import NodeContext

_DIRECT_UNARY = {
    "abs": "Abs", "negative": "Neg", "exp": "Exp", "log": "Log", "sqrt": "Sqrt",
    "reciprocal": "Reciprocal", "sin": "Sin", "cos": "Cos", "tan": "Tan", "arcsin": "Asin",
    "arccos": "Acos", "arctan": "Atan", "sinh": "Sinh", "cosh": "Cosh", "tanh": "Tanh",
    "arcsinh": "Asinh", "arccosh": "Acosh", "arctanh": "Atanh", "sigmoid": "Sigmoid",
    "relu": "Relu", "floor": "Floor", "ceil": "Ceil", "sign": "Sign",
    "erf": "Erf", "softsign": "Softsign",
}  # fmt: skip


def _direct(op_type: str) -> Callable[[NodeContext], None]:
    return lambda ctx: ctx.op1(op_type, ctx.inputs, ctx.out())


for _name, _op in _DIRECT_UNARY.items():
    register_onnx(_name)(_direct(_op))


def _unary(name: str) -> Callable:
    def deco(build: Callable[[NodeContext, str], str]) -> Callable:
        def translate(ctx: NodeContext) -> None:
            build(ctx, ctx.inputs[0], ctx.out())

        register_onnx(name)(translate)
        return build

    return deco


def _k(ctx: NodeContext, value: float) -> str:
    return ctx.scalar(value, ctx.dtype(), "k")


@_unary("square")
def _square(ctx: NodeContext, x: str, out: str | None = None) -> str:
    return ctx.op1("Mul", [x, x], out)


@_unary("rsqrt")
def _rsqrt(ctx: NodeContext, x: str, out: str | None = None) -> str:
    return ctx.op1("Reciprocal", [ctx.op1("Sqrt", [x])], out)


@_unary("round")  # half away from zero, where ONNX Round goes to even
def _round(ctx: NodeContext, x: str, out: str | None = None) -> str:
    a = ctx.op1("Floor", [ctx.op1("Add", [ctx.op1("Abs", [x]), _k(ctx, 0.5)])])
    return ctx.op1("Mul", [ctx.op1("Sign", [x]), a], out)


@_unary("rint")  # MXNet's rint takes the lower neighbour at a half (ONNX Round: the even one)
def _rint(ctx: NodeContext, x: str, out: str | None = None) -> str:
    f = ctx.op1("Floor", [x])
    low = ctx.op1("LessOrEqual", [ctx.op1("Sub", [x, f]), _k(ctx, 0.5)])
    return ctx.op1("Where", [low, f, ctx.op1("Ceil", [x])], out)


@_unary("trunc")
def _trunc(ctx: NodeContext, x: str, out: str | None = None) -> str:
    return ctx.op1("Mul", [ctx.op1("Sign", [x]), ctx.op1("Floor", [ctx.op1("Abs", [x])])], out)


register_onnx("fix")(lambda ctx: _trunc(ctx, ctx.inputs[0], ctx.out()))


@_unary("log1p")
def _log1p(ctx: NodeContext, x: str, out: str | None = None) -> str:
    return ctx.op1("Log", [ctx.op1("Add", [x, _k(ctx, 1)])], out)


@_unary("expm1")
def _expm1(ctx: NodeContext, x: str, out: str | None = None) -> str:
    return ctx.op1("Sub", [ctx.op1("Exp", [x]), _k(ctx, 1)], out)


@_unary("log2")
def _log2(ctx: NodeContext, x: str, out: str | None = None) -> str:
    return ctx.op1("Div", [ctx.op1("Log", [x]), _k(ctx, math.log(2))], out)


@_unary("log10")
def _log10(ctx: NodeContext, x: str, out: str | None = None) -> str:
    return ctx.op1("Div", [ctx.op1("Log", [x]), _k(ctx, math.log(10))], out)


@_unary("cbrt")
def _cbrt(ctx: NodeContext, x: str, out: str | None = None) -> str:
    r = ctx.op1("Pow", [ctx.op1("Abs", [x]), _k(ctx, 1 / 3)])
    return ctx.op1("Mul", [ctx.op1("Sign", [x]), r], out)


@_unary("rcbrt")
def _rcbrt(ctx: NodeContext, x: str, out: str | None = None) -> str:
    return ctx.op1("Reciprocal", [_cbrt(ctx, x)], out)


@_unary("degrees")
def _degrees(ctx: NodeContext, x: str, out: str | None = None) -> str:
    return ctx.op1("Mul", [x, _k(ctx, 180 / math.pi)], out)


@_unary("radians")
def _radians(ctx: NodeContext, x: str, out: str | None = None) -> str:
    return ctx.op1("Mul", [x, _k(ctx, math.pi / 180)], out)


@_unary("logical_not")
def _logical_not(ctx: NodeContext, x: str, out: str | None = None) -> str:
    return ctx.cast(ctx.op1("Not", [ctx.cast(x, np.bool_)]), ctx.dtype(), out)


@register_onnx("hard_sigmoid")
def _hard_sigmoid(ctx: NodeContext) -> None:
    p = ctx.param
    ctx.op1("HardSigmoid", ctx.inputs, ctx.out(), alpha=p.alpha, beta=p.beta)


@register_onnx("clip")
def _clip(ctx: NodeContext) -> None:
    p = ctx.param
    lo, hi = _k(ctx, p.a_min), _k(ctx, p.a_max)
    ctx.op1("Clip", [ctx.inputs[0], lo, hi], ctx.out())


@register_onnx("Cast")
def _cast(ctx: NodeContext) -> None:
    ctx.cast(ctx.inputs[0], ctx.param.dtype, ctx.out())


# ---- binary, broadcast and scalar ---------------------------------------------------------


def _mod(ctx: NodeContext, a: str, b: str, out: str | None = None) -> str:
    # MXNet's mod takes the divisor's sign (as Python's %), and x mod 0 is 0
    if np.issubdtype(ctx.dtype(), np.integer):
        return ctx.op1("Mod", [a, b], out, fmod=0)
    q = ctx.op1("Floor", [ctx.op1("Div", [a, b])])
    r = ctx.op1("Sub", [a, ctx.op1("Mul", [q, b])])
    zero = ctx.op1("Equal", [b, _k(ctx, 0)])
    return ctx.op1("Where", [zero, ctx.op1("Sub", [a, a]), r], out)


def _hypot(ctx: NodeContext, a: str, b: str, out: str | None = None) -> str:
    sq = ctx.op1("Add", [ctx.op1("Mul", [a, a]), ctx.op1("Mul", [b, b])])
    return ctx.op1("Sqrt", [sq], out)


def _compare(op_type: str, negate: bool = False) -> Callable:
    def build(ctx: NodeContext, a: str, b: str, out: str | None = None) -> str:
        r = ctx.op1(op_type, [a, b])
        return ctx.cast(ctx.op1("Not", [r]) if negate else r, ctx.dtype(), out)

    return build


def _logic(op_type: str) -> Callable:
    def build(ctx: NodeContext, a: str, b: str, out: str | None = None) -> str:
        r = ctx.op1(op_type, [ctx.cast(a, np.bool_), ctx.cast(b, np.bool_)])
        return ctx.cast(r, ctx.dtype(), out)

    return build


def _plain(op_type: str) -> Callable:
    return lambda ctx, a, b, out=None: ctx.op1(op_type, [a, b], out)


_BINARY: dict[str, Callable] = {
    "add": _plain("Add"), "sub": _plain("Sub"), "mul": _plain("Mul"), "div": _plain("Div"),
    "power": _plain("Pow"), "maximum": _plain("Max"), "minimum": _plain("Min"), "mod": _mod,
    "hypot": _hypot, "equal": _compare("Equal"), "not_equal": _compare("Equal", True),
    "greater": _compare("Greater"), "greater_equal": _compare("GreaterOrEqual"),
    "lesser": _compare("Less"), "lesser_equal": _compare("LessOrEqual"),
    "logical_and": _logic("And"), "logical_or": _logic("Or"), "logical_xor": _logic("Xor"),
}  # fmt: skip


def _binary(build: Callable) -> Callable[[NodeContext], None]:
    return lambda ctx: build(ctx, *ctx.inputs[:2], ctx.out())


def _scalar(build: Callable, reverse: bool) -> Callable[[NodeContext], None]:
    def translate(ctx: NodeContext) -> None:
        s = _k(ctx, ctx.param.scalar)
        a, b = (s, ctx.inputs[0]) if reverse else (ctx.inputs[0], s)
        build(ctx, a, b, ctx.out())

    return translate


for _name, _build in _BINARY.items():
    register_onnx(f"broadcast_{_name}")(_binary(_build))
    if _name in ("add", "sub", "mul", "div"):
        register_onnx(f"elemwise_{_name}")(_binary(_build))
    else:
        register_onnx(f"_{_name}")(_binary(_build))
for _name, _mx in (("add", "plus"), ("sub", "minus"), ("mul", "mul"), ("div", "div"),
                   ("power", "power"), ("mod", "mod")):  # fmt: skip
    register_onnx(f"_{_mx}_scalar")(_scalar(_BINARY[_name], False))
    if _name in ("sub", "div", "power", "mod"):
        register_onnx(f"_r{_mx}_scalar")(_scalar(_BINARY[_name], True))
for _name in ("maximum", "minimum", "hypot", "equal", "not_equal", "greater", "greater_equal",
              "lesser", "lesser_equal", "logical_and", "logical_or", "logical_xor"):  # fmt: skip
    register_onnx(f"_{_name}_scalar")(_scalar(_BINARY[_name], False))


@register_onnx("smooth_l1")
def _smooth_l1(ctx: NodeContext) -> None:
    x = ctx.inputs[0]
    s2 = ctx.param.scalar**2
    ax = ctx.op1("Abs", [x])
    quad = ctx.op1("Mul", [ctx.op1("Mul", [x, x]), _k(ctx, 0.5 * s2)])
    lin = ctx.op1("Sub", [ax, _k(ctx, 0.5 / s2)])
    ctx.op1("Where", [ctx.op1("Less", [ax, _k(ctx, 1 / s2)]), quad, lin], ctx.out())


@register_onnx("add_n")
def _add_n(ctx: NodeContext) -> None:
    ctx.op1("Sum", ctx.inputs, ctx.out())


# ---- reductions -----------------------------------------------------------------------------


def _axes(ctx: NodeContext, axis: object, exclude: bool = False) -> list[int] | None:
    ndim = ctx.ndim()
    if axis is None or axis == ():
        return None if not exclude else []
    axes = [a % ndim for a in ((axis,) if isinstance(axis, int) else axis)]
    return [a for a in range(ndim) if a not in axes] if exclude else axes


def _reducer(op_type: str, nan_to: float | None = None) -> Callable[[NodeContext], None]:
    def translate(ctx: NodeContext) -> None:
        p = ctx.param
        x = ctx.inputs[0]
        if nan_to is not None:
            x = ctx.op1("Where", [ctx.op1("IsNaN", [x]), _k(ctx, nan_to), x])
        axes = _axes(ctx, p.axis, getattr(p, "exclude", False))
        if axes == []:
            ctx.op1("Identity", [x], ctx.out())
        elif axes is None and not p.keepdims:  # MXNet keeps one dimension: shape (1,)
            y = ctx.reduce(op_type, x, None, False, None)
            ctx.op1("Reshape", [y, ctx.ints(ctx.out_shapes[0], "shape")], ctx.out())
        else:
            ctx.reduce(op_type, x, axes, p.keepdims, ctx.out())

    return translate


register_onnx("sum")(_reducer("ReduceSum"))
register_onnx("mean")(_reducer("ReduceMean"))
register_onnx("max")(_reducer("ReduceMax"))
register_onnx("min")(_reducer("ReduceMin"))
register_onnx("prod")(_reducer("ReduceProd"))
register_onnx("nansum")(_reducer("ReduceSum", 0.0))
register_onnx("nanprod")(_reducer("ReduceProd", 1.0))


@register_onnx("norm")
def _norm(ctx: NodeContext) -> None:
    p = ctx.param
    if p.ord not in (1, 2):
        raise ctx.fail(f"ord={p.ord}", "only the 1- and 2-norms have ONNX reductions.")
    axes = _axes(ctx, p.axis)
    y = ctx.reduce("ReduceL2" if p.ord == 2 else "ReduceL1", ctx.inputs[0], axes, p.keepdims, None)
    if axes is None and not p.keepdims:
        y = ctx.op1("Reshape", [y, ctx.ints(ctx.out_shapes[0], "shape")])
    if p.out_dtype is not None and np.dtype(p.out_dtype) != ctx.dtype():
        ctx.cast(y, p.out_dtype, ctx.out())
    else:
        ctx.op1("Identity", [y], ctx.out())


def _arg(op_type: str) -> Callable[[NodeContext], None]:
    def translate(ctx: NodeContext) -> None:
        p = ctx.param
        x, axis = ctx.inputs[0], p.axis
        if axis is None:
            x, axis = ctx.op1("Reshape", [x, ctx.ints([-1], "flat")]), 0
        y = ctx.op1(op_type, [x], axis=axis, keepdims=int(p.keepdims and p.axis is not None))
        if p.axis is None:
            y = ctx.op1("Reshape", [y, ctx.ints([1], "one")])
        ctx.cast(y, ctx.out_dtypes[0], ctx.out())

    return translate


register_onnx("argmax")(_arg("ArgMax"))
register_onnx("argmin")(_arg("ArgMin"))


@register_onnx("argmax_channel")
def _argmax_channel(ctx: NodeContext) -> None:
    ctx.cast(ctx.op1("ArgMax", ctx.inputs, axis=-1, keepdims=0), ctx.out_dtypes[0], ctx.out())


# ---- products -------------------------------------------------------------------------------


def _t(ctx: NodeContext, x: str, ndim: int) -> str:
    perm = list(range(ndim))
    perm[-2], perm[-1] = perm[-1], perm[-2]
    return ctx.op1("Transpose", [x], perm=perm)


@register_onnx("dot")
def _dot(ctx: NodeContext) -> None:
    p = ctx.param
    a, b = ctx.inputs[:2]
    na, nb = ctx.ndim(0), ctx.ndim(1)
    if na == 1 and nb == 1:
        ctx.op1("Reshape", [ctx.op1("MatMul", [a, b]), ctx.ints([1], "one")], ctx.out())
        return
    if (p.transpose_a or p.transpose_b) and (na != 2 or nb != 2):
        raise ctx.fail("transpose_a/transpose_b", "transposes are exported for 2-D inputs only.")
    if p.transpose_a:
        a = _t(ctx, a, 2)
    if p.transpose_b:
        b = _t(ctx, b, 2)
    if nb > 2:  # contract a's last axis with b's first: b as a matrix, then the full shape
        b = ctx.op1("Reshape", [b, ctx.ints([ctx.in_shapes[1][0], -1], "bmat")])
        ctx.reshape_to_out(ctx.op1("MatMul", [a, b]), ctx.out())
        return
    ctx.op1("MatMul", [a, b], ctx.out())


@register_onnx("batch_dot")
def _batch_dot(ctx: NodeContext) -> None:
    p = ctx.param
    a, b = ctx.inputs[:2]
    if p.transpose_a:
        a = _t(ctx, a, ctx.ndim(0))
    if p.transpose_b:
        b = _t(ctx, b, ctx.ndim(1))
    ctx.op1("MatMul", [a, b], ctx.out())


def _linalg_product(ctx: NodeContext, alpha: float, ta: bool, tb: bool, axis: int) -> str:
    if axis not in (-2, ctx.ndim() - 2):
        raise ctx.fail(f"axis={axis}", "only the last two axes hold the matrices in ONNX.")
    a, b = ctx.inputs[:2]
    if ta:
        a = _t(ctx, a, ctx.ndim(0))
    if tb:
        b = _t(ctx, b, ctx.ndim(1))
    y = ctx.op1("MatMul", [a, b])
    return y if alpha == 1.0 else ctx.op1("Mul", [y, _k(ctx, alpha)])


@register_onnx("_linalg_gemm")
def _linalg_gemm(ctx: NodeContext) -> None:
    p = ctx.param
    y = _linalg_product(ctx, p.alpha, p.transpose_a, p.transpose_b, p.axis)
    c = ctx.inputs[2] if p.beta == 1.0 else ctx.op1("Mul", [ctx.inputs[2], _k(ctx, p.beta)])
    ctx.op1("Add", [y, c], ctx.out())


@register_onnx("_linalg_gemm2")
def _linalg_gemm2(ctx: NodeContext) -> None:
    p = ctx.param
    ctx.op1("Identity", [_linalg_product(ctx, p.alpha, p.transpose_a, p.transpose_b, p.axis)],
            ctx.out())  # fmt: skip


@register_onnx("_linalg_syrk")
def _linalg_syrk(ctx: NodeContext) -> None:
    p = ctx.param
    a = ctx.inputs[0]
    at = _t(ctx, a, ctx.ndim())
    y = ctx.op1("MatMul", [at, a] if p.transpose else [a, at])
    ctx.op1("Mul", [y, _k(ctx, p.alpha)], ctx.out())


@register_onnx("moments")
def _moments(ctx: NodeContext) -> None:
    p = ctx.param
    axes = _axes(ctx, p.axes)
    x = ctx.inputs[0]
    mean = ctx.reduce("ReduceMean", x, axes, True, None)
    d = ctx.op1("Sub", [x, mean])
    ctx.reduce("ReduceMean", ctx.op1("Mul", [d, d]), axes, p.keepdims, ctx.out(1))
    if p.keepdims:
        ctx.op1("Identity", [mean], ctx.out(0))
    else:
        ctx.reduce("ReduceMean", x, axes, False, ctx.out(0))


@register_onnx("_np_cumsum")
def _cumsum(ctx: NodeContext) -> None:
    p = ctx.param
    x = ctx.inputs[0]
    if p.axis is None:
        x, axis = ctx.op1("Reshape", [x, ctx.ints([-1], "flat")]), 0
    else:
        axis = p.axis
    if p.dtype is not None and np.dtype(p.dtype) != ctx.dtype():
        x = ctx.cast(x, p.dtype)
    ctx.op1("CumSum", [x, ctx.ints([axis], "axis")], ctx.out())


@register_onnx("gather_nd")
def _gather_nd(ctx: NodeContext) -> None:
    # MXNet's index tuples run along the first axis of indices; ONNX's along the last
    n = ctx.ndim(1)
    idx = ctx.cast(ctx.inputs[1], np.int64)
    idx = ctx.op1("Transpose", [idx], perm=list(range(1, n)) + [0])
    ctx.op1("GatherND", [ctx.inputs[0], idx], ctx.out())


@register_onnx("scatter_nd")
def _scatter_nd(ctx: NodeContext) -> None:
    n = ctx.ndim(1)
    idx = ctx.cast(ctx.inputs[1], np.int64)
    idx = ctx.op1("Transpose", [idx], perm=list(range(1, n)) + [0])
    zeros = ctx.const(np.zeros(ctx.out_shapes[0], ctx.dtype()), "zeros")
    ctx.op1("ScatterND", [zeros, idx, ctx.inputs[0]], ctx.out())


@register_onnx("batch_take")
def _batch_take(ctx: NodeContext) -> None:
    n = ctx.static_dim(0, 1, "a")
    idx = ctx.cast(ctx.inputs[1], np.int64)
    idx = ctx.op1("Clip", [idx, ctx.scalar(0, np.int64, "lo"), ctx.scalar(n - 1, np.int64, "hi")])
    y = ctx.op1("GatherElements", [ctx.inputs[0], ctx.unsqueeze(idx, [1])], axis=1)
    ctx.squeeze(y, [1], ctx.out())
