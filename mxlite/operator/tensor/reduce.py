"""Reductions: ``sum``, ``mean``, ``prod``, ``nansum``, ``nanprod``, ``max``, ``min``, ``norm``,
``argmax``, ``argmin``, ``argmax_channel`` and ``moments``.

Design note
-----------
Every reduction computes with ``keepdims=True`` over a tuple of axes and reshapes the result to
the output shape MXNet 1.9.1 infers, so one helper (:func:`reduce_axes`) owns MXNet's axis
rules: ``axis=None`` or ``()`` reduces every axis into shape ``(1,)``; negative axes count from
the end; ``exclude=True`` reduces the axes *not* listed; duplicates or axes out of range raise
ShapeError. Backward broadcasts the head gradient back over the reduced axes, the same
"keepdims" shape.

MXNet's rules kept here: the output has the input's dtype (integer ``mean`` truncates, sums of
small integers wrap); ``max``/``min`` send the gradient to *every* element equal to the
result; ``prod``'s gradient is ``out / x`` (NaN where x is 0, as in MXNet); ``argmax``/``argmin``
return the first index of the extremum in the input's dtype and have a zero gradient; ``norm``
of an integer array follows MXNet's integer arithmetic (``ord=2`` gives
``int(max|x| * sqrt(count of max|x|))``).

Example::

    >>> mx.nd.sum(mx.nd.ones((2, 3)), axis=1).asnumpy()
    array([3., 3.], dtype=float32)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import ParamError, Shape, ShapeError, env_bool
from ...context import Context
from ..param import Param, field
from ..registry import Operator, OperatorProperty, OpTest, register, shape_is_known
from ..req import OpReq, assign
from ..sparse.forms_tensor import MEAN, NORM, SUM

__all__ = [
    "ReduceAxesParam",
    "ReduceAxisParam",
    "NormParam",
    "MomentsParam",
    "reduce_axes",
    "acc_dtype",
]


class ReduceAxesParam(Param):
    axis: tuple[int, ...] | None = field(
        default=None,
        doc="The axis or axes along which to perform the reduction. The default, `axis=()`, "
        "computes over all elements into an array of shape `(1,)`; negative values count "
        "from the end.",
    )
    keepdims: bool = field(
        default=False,
        doc="If this is set to `True`, the reduced axes are left in the result as dimension "
        "with size one.",
    )
    exclude: bool = field(
        default=False, doc="Whether to perform reduction on axis that are NOT in axis instead."
    )


class NormParam(Param):
    ord: int = field(default=2, doc="Order of the norm. Currently ord=1 and ord=2 is supported.")
    axis: tuple[int, ...] | None = field(
        default=None,
        doc="The axis or axes along which to perform the reduction; all of them by default.",
    )
    out_dtype: str | None = field(
        default=None,
        choices=("float16", "float32", "float64", "int64", "int32", "int8"),
        doc="The data type of the output.",
    )
    keepdims: bool = field(
        default=False,
        doc="If this is set to `True`, the reduced axis is left in the result as dimension "
        "with size one.",
    )


class ReduceAxisParam(Param):
    axis: int | None = field(
        default=None,
        doc="The axis along which to perform the reduction. Negative values means indexing "
        "from right to left. With None the flattened array is searched.",
    )
    keepdims: bool = field(
        default=False,
        doc="If this is set to `True`, the reduced axis is left in the result as dimension "
        "with size one.",
    )


class MomentsParam(Param):
    axes: tuple[int, ...] | None = field(
        default=None, doc="Array of ints. Axes along which to compute mean and variance."
    )
    keepdims: bool = field(
        default=False, doc="produce moments with the same dimensionality as the input."
    )


# ---- shape rules ----------------------------------------------------------------------------


def reduce_axes(
    op: str, ishape: Shape, axis: tuple[int, ...] | None, keepdims: bool, exclude: bool
) -> tuple[tuple[int, ...], Shape]:
    """The axes to reduce (sorted, non-negative) and the output shape, as MXNet infers them."""
    ndim = len(ishape)
    if not axis:
        return tuple(range(ndim)), (1,) * ndim if keepdims else (1,)
    axes = sorted(a + ndim if a < 0 else a for a in axis)
    for a, b in zip(axes, axes[1:]):
        if a == b:
            raise ShapeError(f"{op}: argument 'axis' has duplicates: {tuple(axis)}.")
    if axes[-1] >= ndim or axes[0] < 0:
        raise ShapeError(
            f"{op}: argument 'axis' {tuple(axis)} is out of range for an input of shape "
            f"{tuple(ishape)}."
        )
    kept = set(axes)
    red = tuple(i for i in range(ndim) if i not in kept) if exclude else tuple(axes)
    if keepdims:
        return red, tuple(1 if i in red else n for i, n in enumerate(ishape))
    out = tuple(n for i, n in enumerate(ishape) if i not in red)
    return red, out if out else (1,)


def _check_axis(op: str, axis: int, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise ShapeError(f"{op}: argument 'axis' {axis} is out of range for {ndim} dimensions.")
    return axis % ndim


def _int_mean(xp: Any, total: Any, n: int) -> Any:
    """C++ integer division (truncation toward zero) of ``total`` by ``n``."""
    q = xp.abs(total) // n
    return xp.where(total < 0, -q, q).astype(total.dtype, copy=False)


def _keep(red: tuple[int, ...], ishape: Shape) -> Shape:
    return tuple(1 if i in red else n for i, n in enumerate(ishape))


# ---- sum, mean, prod, nansum, nanprod, max, min ---------------------------------------------


# MXNET_SAFE_ACCUMULATION=1: float sums accumulate one precision up, as MXNet's AType does
_SAFE = {np.dtype(np.float16): np.float32, np.dtype(np.float32): np.float64}


def acc_dtype(dtype: Any) -> Any:
    """The dtype a sum of ``dtype`` values accumulates in: ``dtype`` itself, or the next wider
    float under ``MXNET_SAFE_ACCUMULATION=1`` (float16 -> float32, float32 -> float64)."""
    dtype = np.dtype(dtype)
    if dtype in _SAFE and env_bool("MXNET_SAFE_ACCUMULATION", False):
        return _SAFE[dtype]
    return dtype


def _sum(xp: Any, x: Any, red: tuple) -> Any:
    return xp.sum(x, axis=red, keepdims=True, dtype=acc_dtype(x.dtype)).astype(x.dtype, copy=False)


def _mean(xp: Any, x: Any, red: tuple) -> Any:
    acc = acc_dtype(x.dtype)
    total = xp.sum(x, axis=red, keepdims=True, dtype=acc)
    n = int(np.prod([x.shape[i] for i in red], dtype=np.int64))
    if x.dtype.kind in "iu":
        return _int_mean(xp, total, n)
    return (total / total.dtype.type(n)).astype(x.dtype, copy=False)


def _nansum(xp: Any, x: Any, red: tuple) -> Any:
    if x.dtype.kind == "f":
        return xp.nansum(x, axis=red, keepdims=True, dtype=acc_dtype(x.dtype)).astype(
            x.dtype, copy=False
        )
    return _sum(xp, x, red)


def _prod(xp: Any, x: Any, red: tuple) -> Any:
    return xp.prod(x, axis=red, keepdims=True, dtype=x.dtype)


def _nanprod(xp: Any, x: Any, red: tuple) -> Any:
    if x.dtype.kind == "f":
        return xp.nanprod(x, axis=red, keepdims=True, dtype=x.dtype)
    return _prod(xp, x, red)


def _mean_grad(xp: Any, g: Any, x: Any, y: Any, n: int) -> Any:
    return g / g.dtype.type(n) if g.dtype.kind == "f" else g // n


def _quiet(fn: Any) -> Any:
    """Run a gradient formula that divides by the input: 0/0 gives NaN, as in MXNet."""

    def run(xp: Any, g: Any, x: Any, y: Any, n: int) -> Any:
        with np.errstate(divide="ignore", invalid="ignore"):
            return fn(xp, g, x, y)

    return run


def _extremum(name: str) -> Any:
    def kernel(xp: Any, x: Any, red: tuple) -> Any:
        return getattr(xp, name)(x, axis=red, keepdims=True)

    return kernel


def _extremum_grad(xp: Any, g: Any, x: Any, y: Any, n: int) -> Any:
    return g * (x == y)  # to every element equal to the max (min), as MXNet's


# name -> (forward(xp, x, axes), gradient(xp, og, x, y, n) broadcastable to x, reads x,
#          reads y, infers only from a fully known input shape (max/min), aliases)
_REDUCE: dict[str, tuple[Any, Any, bool, bool, bool, tuple[str, ...]]] = {
    "sum": (_sum, lambda xp, g, x, y, n: g, False, False, False, ("sum_axis",)),
    "mean": (_mean, _mean_grad, False, False, False, ()),
    "prod": (_prod, _quiet(lambda xp, g, x, y: g * (y / x)), True, True, False, ()),
    "nansum": (_nansum, lambda xp, g, x, y, n: g * ~xp.isnan(x), True, False, False, ()),
    "nanprod": (
        _nanprod,
        _quiet(lambda xp, g, x, y: xp.where(xp.isnan(x), 0, g * (y / x))),
        True,
        True,
        False,
        (),
    ),
    "max": (_extremum("max"), _extremum_grad, True, True, True, ("max_axis",)),
    "min": (_extremum("min"), _extremum_grad, True, True, True, ("min_axis",)),
}


class _ReduceOperator(Operator):
    def _axes(self, ishape: Shape) -> tuple[int, ...]:
        p = self.prop.param
        return reduce_axes(self.prop.op_name, ishape, p.axis, p.keepdims, p.exclude)[0]

    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        if req[0] == OpReq.NULL:
            return
        x, out = in_data[0], out_data[0]
        y = self.prop.kernel(self.xp, x, self._axes(x.shape))
        assign(out, req[0], y.reshape(out.shape))

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        if req[0] == OpReq.NULL:
            return
        xp, prop, dx = self.xp, self.prop, in_grad[0]
        red = self._axes(dx.shape)
        keep = _keep(red, dx.shape)
        og = out_grad[0].reshape(keep)
        x = in_data[0] if prop.reads_in else None
        y = out_data[0].reshape(keep) if prop.reads_out else None
        assign(dx, req[0], prop.grad(xp, og, x, y, dx.size // max(og.size, 1)))


class _ReduceAxesProp(OperatorProperty):
    """A reduction over axes (MXNet's ReduceAxesParam operators)."""

    param_class = ReduceAxesParam
    kernel: Any = None
    grad: Any = None
    reads_in = False
    reads_out = False
    known_shape = False
    test = OpTest(shapes={"data": (2, 3, 4)}, params={"axis": (1,)}, low=0.5, high=2.0)

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        ishape = in_shape[0]
        if ishape is None or (self.known_shape and not shape_is_known(ishape)):
            return None
        p = self.param
        _, out = reduce_axes(self.op_name, ishape, p.axis, p.keepdims, p.exclude)
        return [ishape], [out], []

    def declare_backward_dependency(self, out_grad, in_data, out_data) -> list:
        return (
            [*out_grad]
            + (list(in_data) if self.reads_in else [])
            + (list(out_data) if self.reads_out else [])
        )

    def create_operator(self, ctx: Context) -> Operator:
        return _ReduceOperator(self, ctx.xp)


def _make_reduce(name: str) -> None:
    kernel, grad, reads_in, reads_out, known_shape, aliases = _REDUCE[name]
    body = {
        "__doc__": f"Computes the {name} of array elements over given axes.",
        "kernel": staticmethod(kernel),
        "grad": staticmethod(grad),
        "reads_in": reads_in,
        "reads_out": reads_out,
        "known_shape": known_shape,
        "sparse_form": {"sum": SUM, "mean": MEAN}.get(name),
        "fluent": (name,),  # x.sum(), x.max(), ...
    }
    register(name, aliases=aliases)(type(f"_{name.title()}Prop", (_ReduceAxesProp,), body))


for _name in _REDUCE:
    _make_reduce(_name)


# ---- norm -----------------------------------------------------------------------------------


def _int_nrm2(xp: Any, x: Any, red: tuple) -> Any:
    # MXNet's scaled sum of squares in integer arithmetic: every (|x| / scale) ** 2 is 0
    # except for elements equal to the running maximum, so the sum of squares counts the
    # elements equal to max|x|; the final scale * sqrt(count) is truncated to the int dtype.
    a = xp.abs(x)
    m = xp.max(a, axis=red, keepdims=True)
    count = xp.sum(a == m, axis=red, keepdims=True)
    return xp.trunc(m * xp.sqrt(count.astype(np.float64))).astype(x.dtype)


class _NormOperator(Operator):
    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        if req[0] == OpReq.NULL:
            return
        xp, p, x, out = self.xp, self.prop.param, in_data[0], out_data[0]
        red = reduce_axes("norm", x.shape, p.axis, p.keepdims, False)[0]
        if p.ord == 1:
            y = xp.sum(xp.abs(x), axis=red, keepdims=True, dtype=acc_dtype(x.dtype))
        elif x.dtype.kind in "iu":
            y = _int_nrm2(xp, x, red)
        else:
            acc = acc_dtype(x.dtype)
            y = xp.sqrt(xp.sum(xp.square(x.astype(acc, copy=False)), axis=red, keepdims=True))
        assign(out, req[0], y.reshape(out.shape).astype(out.dtype, copy=False))

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        if req[0] == OpReq.NULL:
            return
        xp, p, x, dx = self.xp, self.prop.param, in_data[0], in_grad[0]
        red = reduce_axes("norm", x.shape, p.axis, p.keepdims, False)[0]
        keep = _keep(red, x.shape)
        og = out_grad[0].reshape(keep).astype(dx.dtype, copy=False)
        if p.ord == 1:
            g = og * xp.sign(x)
        else:
            y = out_data[0].reshape(keep).astype(dx.dtype, copy=False)
            with np.errstate(divide="ignore", invalid="ignore"):
                g = og * (x / y)
        assign(dx, req[0], g)


@register("norm")
class NormProp(OperatorProperty):
    """Computes the L1 (``ord=1``) or L2 (``ord=2``) norm over the given axes (all by default).

    With a 2-tuple ``axis`` and ``ord=2`` this is the Frobenius norm of the matrices.
    """

    fluent = ("norm",)
    sparse_form = NORM

    param_class = NormParam
    test = OpTest(shapes={"data": (2, 3, 4)}, params={"axis": (1,)}, low=0.5, high=2.0)

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        if self.param.ord not in (1, 2):
            raise ParamError(f"norm: argument 'ord' expects 1 or 2, got {self.param.ord}.")
        ishape = in_shape[0]
        if not shape_is_known(ishape):
            return None
        p = self.param
        return [ishape], [reduce_axes("norm", ishape, p.axis, p.keepdims, False)[1]], []

    def infer_type(self, in_type: list, out_type: list | None = None):
        out_dtype = self.param.out_dtype
        if out_dtype is None:
            return super().infer_type(in_type, out_type)
        if in_type[0] is None:
            return None
        return [in_type[0]], [np.dtype(out_dtype)], []

    def declare_backward_dependency(self, out_grad, in_data, out_data) -> list:
        return [*out_grad, *in_data] + (list(out_data) if self.param.ord == 2 else [])

    def create_operator(self, ctx: Context) -> Operator:
        return _NormOperator(self, ctx.xp)


# ---- argmax, argmin, argmax_channel ---------------------------------------------------------


def reduce_axis_shape(op: str, ishape: Shape, axis: int | None, keepdims: bool) -> Shape:
    """MXNet's output shape of a search along one axis (None: the flattened array)."""
    if axis is None or len(ishape) == 1:
        if axis is not None:
            _check_axis(op, axis, 1)
        return (1,) * len(ishape) if keepdims else (1,)
    a = _check_axis(op, axis, len(ishape))
    if keepdims:
        return ishape[:a] + (1,) + ishape[a + 1 :]
    return ishape[:a] + ishape[a + 1 :]


class _SearchOperator(Operator):
    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        if req[0] == OpReq.NULL:
            return
        xp, x, out = self.xp, in_data[0], out_data[0]
        axis = self.prop.search_axis()
        find = xp.argmax if self.prop.largest else xp.argmin
        idx = find(x.reshape(-1)) if axis is None else find(x, axis=axis)
        assign(out, req[0], xp.asarray(idx).astype(out.dtype).reshape(out.shape))

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        assign(in_grad[0], req[0], 0)  # MXNet gives these searches a zero gradient


class _SearchProp(OperatorProperty):
    """Index of the largest or smallest element along an axis, in the input's dtype."""

    param_class = ReduceAxisParam
    largest = True
    test = OpTest(shapes={"data": (2, 3, 4)}, params={"axis": 1}, grad=False)

    def search_axis(self) -> int | None:
        return self.param.axis

    def keepdims(self) -> bool:
        return self.param.keepdims

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        ishape = in_shape[0]
        if not shape_is_known(ishape):
            return None
        return (
            [ishape],
            [reduce_axis_shape(self.op_name, ishape, self.search_axis(), self.keepdims())],
            [],
        )

    def declare_backward_dependency(self, out_grad, in_data, out_data) -> list:
        return []

    def create_operator(self, ctx: Context) -> Operator:
        return _SearchOperator(self, ctx.xp)


@register("argmax")
class ArgmaxProp(_SearchProp):
    """Returns indices of the maximum values along an axis (the first occurrence on ties)."""

    fluent = ("argmax",)
    grad_flow = "zeros"


@register("argmin")
class ArgminProp(_SearchProp):
    """Returns indices of the minimum values along an axis (the first occurrence on ties)."""

    fluent = ("argmin",)
    grad_flow = "zeros"

    largest = False


@register("argmax_channel")
class ArgmaxChannelProp(_SearchProp):
    """Returns argmax indices along axis 1 (each channel); the input needs 2 dimensions."""

    fluent = ("argmax_channel",)

    param_class = None
    test = OpTest(shapes={"data": (2, 3)}, grad=False)

    def search_axis(self) -> int | None:
        return 1

    def keepdims(self) -> bool:
        return False

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        if in_shape[0] is not None and len(in_shape[0]) < 2:
            raise ShapeError(
                f"argmax_channel: argument 'data' needs at least 2 dimensions, "
                f"got shape {in_shape[0]}."
            )
        return super().infer_shape(in_shape, out_shape)


# ---- moments --------------------------------------------------------------------------------


class _MomentsOperator(Operator):
    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        xp, x = self.xp, in_data[0]
        red = reduce_axes("moments", x.shape, self.prop.param.axes, True, False)[0]
        # MXNet accumulates these sums in float32 for float16 data (safe accumulation)
        acc = np.float32 if x.dtype == np.float16 else x.dtype
        mean = _mean(xp, x.astype(acc, copy=False), red).astype(x.dtype)
        var = _mean(xp, xp.square(x - mean).astype(acc, copy=False), red).astype(x.dtype)
        assign(out_data[0], req[0], mean.reshape(out_data[0].shape))
        assign(out_data[1], req[1], var.reshape(out_data[1].shape))

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        if req[0] == OpReq.NULL:
            return
        x, dx = in_data[0], in_grad[0]
        red = reduce_axes("moments", x.shape, self.prop.param.axes, True, False)[0]
        keep = _keep(red, x.shape)
        n = x.dtype.type(dx.size // max(out_data[0].size, 1))
        mean = out_data[0].reshape(keep)
        g = out_grad[0].reshape(keep) / n + out_grad[1].reshape(keep) * (x - mean) * 2 / n
        assign(dx, req[0], g)


@register("moments")
class MomentsProp(OperatorProperty):
    """Calculate the mean and variance of `data` over ``axes`` (both outputs)."""

    lists_input_names = True

    param_class = MomentsParam
    test = OpTest(shapes={"data": (2, 3, 4)}, params={"axes": (0, 2)})

    def list_outputs(self) -> list[str]:
        return ["output0", "output1"]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        if not self.param.axes:
            raise ParamError(
                "moments: argument 'axes' is empty; to compute global moments, "
                "pass every axis, e.g. axes=(0, 1)."
            )
        ishape = in_shape[0]
        if ishape is None:
            return None
        out = reduce_axes("moments", ishape, self.param.axes, self.param.keepdims, False)[1]
        return [ishape], [out, out], []

    def declare_backward_dependency(self, out_grad, in_data, out_data) -> list:
        return [*out_grad, in_data[0], out_data[0]]

    def create_operator(self, ctx: Context) -> Operator:
        return _MomentsOperator(self, ctx.xp)
