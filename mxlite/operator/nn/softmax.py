"""Softmax family: ``softmax``, ``log_softmax``, ``softmin`` and ``SoftmaxActivation``.

Design note
-----------
One kernel serves the three NNVM operators: subtract the maximum along ``axis`` (after
negating for ``softmin``), divide by ``temperature``, exponentiate and normalise (or subtract
the log of the sum for ``log_softmax``). With ``use_length=True`` a second input ``length``
(int32/int64, the data shape without ``axis``; ``softmax`` only, as in MXNet) masks the axis:
positions at or beyond the length are left out of the sums and their output and gradient
are 0.

Backward reads the output and the head gradient only (plus ``length``); MXNet's formulas:
``softmax``: ``out * (g - sum(g * out)) / T``; ``log_softmax``: ``(g - exp(out) * sum(g)) / T``;
``softmin`` negates either. float16 is computed in float32 and rounded once.

``SoftmaxActivation`` (legacy) keeps MXNet 1.9.1's quirk: ``mode='instance'`` normalises over
the *last* axis in forward (MXNet flattens to 2-D), while its backward always reduces over axis
1, like ``mode='channel'``; the two agree for 2-D input, the common case.

:func:`softmax_lastaxis` is shared with the loss layers (loss_output.py).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from ...base import DTypeError, ShapeError
from ...context import Context
from .. import parallel
from ..param import Param, field
from ..registry import OpContext, Operator, OperatorProperty, register, shape_assign
from ..req import OpReq, assign

_NULL = OpReq.NULL  # quicker than OpReq.X (req.py)

__all__ = ["SoftmaxParam", "SoftmaxActivationParam", "softmax_lastaxis", "softmax_axis"]


class SoftmaxParam(Param):
    axis: int = field(default=-1, doc="The axis along which to compute softmax.")
    temperature: float | None = field(default=None, doc="Temperature parameter in softmax")
    dtype: str | None = field(
        default=None,
        choices=("float16", "float32", "float64"),
        doc="DType of the output in case this can't be inferred. Defaults to the same as "
        "input's dtype if not defined (dtype=None).",
    )
    use_length: bool | None = field(
        default=False, doc="Whether to use the length input as a mask over the data input."
    )


class SoftmaxActivationParam(Param):
    mode: str = field(
        default="instance",
        choices=("instance", "channel"),
        doc="Specifies how to compute the softmax. If set to ``instance``, it computes softmax "
        "for each instance. If set to ``channel``, It computes cross channel softmax for each "
        "position of each instance.",
    )


def _work(x: Any) -> Any:
    """float16 is computed in float32 (rounded once at the end)."""
    return x.astype(np.float32) if x.dtype == np.float16 else x


def _short_rows(xp: Any, x: Any, axis: int) -> bool:
    """Whether ``x`` reduces along a short last axis, where NumPy's row-by-row reductions
    are slow (a classifier's (1120, 28) logits: max 57 us, sum 29 us)."""
    return (
        xp is np
        and x.ndim >= 2
        and axis in (-1, x.ndim - 1)
        and 1 < x.shape[-1] <= 64
        and x.size >= 4096
        and x.flags.c_contiguous
        and x.dtype in (np.float32, np.float64)
    )


def row_max(xp: Any, x: Any, axis: int) -> Any:
    """``max(x, axis, keepdims=True)``; over short last-axis rows on the transposed copy
    (one contiguous maximum per column: 23 us for the logits above, the same values)."""
    if not _short_rows(xp, x, axis):
        return xp.max(x, axis=axis, keepdims=True)
    rows = x.reshape(-1, x.shape[-1])
    return np.ascontiguousarray(rows.T).max(axis=0).reshape(*x.shape[:-1], 1)


def _last_rows(xp: Any, x: Any, axis: int) -> bool:
    """Whether ``x`` reduces along its last axis, over C-contiguous float rows (NumPy; not
    empty)."""
    return (
        xp is np
        and x.size > 0
        and x.ndim >= 2
        and axis in (-1, x.ndim - 1)
        and x.flags.c_contiguous
        and x.dtype in (np.float32, np.float64)
    )


def row_sum(xp: Any, x: Any, axis: int) -> Any:
    """``sum(x, axis, keepdims=True)``; over last-axis rows as a product with ones, BLAS's
    order of the additions (3 us for the logits above; (4096, 768) float32: 0.08 ms against
    NumPy's 0.55)."""
    if not (_last_rows(xp, x, axis) and x.shape[-1] > 1 and x.size >= 4096):
        return xp.sum(x, axis=axis, keepdims=True)
    ones = np.ones(x.shape[-1], x.dtype)
    return (x.reshape(-1, x.shape[-1]) @ ones).reshape(*x.shape[:-1], 1)


def softmax_axis(xp: Any, x: Any, axis: int, log: bool = False, out: Any = None) -> Any:
    """Numerically stable (log-)softmax of ``x`` along ``axis``: into ``out`` where it can
    take the result as computed (C-contiguous, of ``x``'s compute dtype), else a new array;
    the last-axis rows of a large array are split over the kernel threads, one share each
    (smaller blocks ran slower: at (4096, 768) float32, 2^16 elements 6.3 ms, 2^18 4.5, one
    share 3.3)."""
    x = _work(x)
    if out is not None and not (
        out.dtype == x.dtype and out.shape == x.shape and out.flags.c_contiguous
    ):
        out = None
    if not _last_rows(xp, x, axis):
        return _softmax(xp, x, axis, log, out)
    rows = x.reshape(-1, x.shape[-1])
    dst = np.empty_like(rows) if out is None else out.reshape(rows.shape)
    parallel.over_rows(partial(_softmax_rows, log=log), len(rows), 3 * x.size, rows, dst)
    return dst.reshape(x.shape) if out is None else out


def _softmax_grad_rows(y: Any, g: Any) -> Any:
    """``(g - sum(g * y)) * y`` along the last axis of C-contiguous ``y`` and ``g`` (a new
    array), the rows split over the kernel threads, the sums as products with ones."""
    n = y.shape[-1]
    rows, grads = y.reshape(-1, n), g.reshape(-1, n)
    out = np.empty_like(rows)
    ones = np.ones(n, y.dtype)

    def part(yb: Any, gb: Any, ob: Any) -> None:
        np.multiply(gb, yb, out=ob)
        s = ob @ ones
        with parallel.row_buffer(n):
            np.subtract(gb, s[:, None], out=ob)
        ob *= yb

    parallel.over_rows(part, len(rows), 3 * y.size, rows, grads, out)
    return out.reshape(y.shape)


def _softmax_rows(x: Any, out: Any, log: bool) -> None:
    _softmax(np, x, -1, log, out)


def _softmax(xp: Any, x: Any, axis: int, log: bool, out: Any = None) -> Any:
    m = row_max(xp, x, axis)
    # the maximum and the sums broadcast along the rows: a buffer of one row
    with parallel.row_buffer(parallel.broadcast_run(x.shape, [m.shape])):
        e = xp.subtract(x, m, out=out)
        if log:
            s = row_sum(xp, xp.exp(e), axis)
            e -= xp.log(s, out=s)
            return e
        xp.exp(e, out=e)
        e /= row_sum(xp, e, axis)
    return e


def softmax_lastaxis(xp: Any, x: Any) -> Any:
    """Softmax over the last axis (the loss layers' 2-D and 3-D views)."""
    return softmax_axis(xp, x, -1)


def _check_float(op: str, arg: str, dtype: Any) -> None:
    if not np.issubdtype(dtype, np.floating):
        raise DTypeError(
            f"{op}: argument {arg!r} must have a floating-point dtype (float16, float32, "
            f"float64); got {np.dtype(dtype).name}."
        )


def _check_length(op: str, dtype: Any) -> None:
    if np.dtype(dtype) not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise DTypeError(
            f"{op}: argument 'length' must be int32 or int64; got {np.dtype(dtype).name}."
        )


# ---- softmax, log_softmax, softmin ------------------------------------------------------------


class _SoftmaxBaseProp(OperatorProperty):
    param_class = SoftmaxParam
    _log = False
    _negate = False
    _takes_length = False  # only softmax has the 'length' input in MXNet 1.9.1

    def _use_length(self) -> bool:
        return self._takes_length and bool(self.param.use_length)

    def list_arguments(self) -> list[str]:
        return ["data", "length"] if self._use_length() else ["data"]

    def _axis(self, ndim: int) -> int:
        axis = self.param.axis
        if not -ndim <= axis < ndim:
            raise ShapeError(
                f"{self.op_name}: argument 'axis' {axis} is out of range for input with "
                f"{ndim} dimensions."
            )
        return axis % ndim

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        if self.param.use_length and not self._takes_length:
            raise ShapeError(
                f"{self.op_name}: argument 'use_length' must be False; only softmax takes a "
                "'length' input."
            )
        n_in = len(self.list_arguments())
        if len(in_shape) != n_in:
            raise ShapeError(
                f"{self.op_name}: expected {n_in} inputs ({', '.join(self.list_arguments())}) "
                f"with use_length={self._use_length()}; got {len(in_shape)}."
            )
        dshape = in_shape[0]
        if dshape is None and out_shape and out_shape[0] is not None:
            dshape = out_shape[0]
        if dshape is None:
            return None
        ins = [dshape]
        if self._use_length():
            axis = self._axis(len(dshape))
            lshape = tuple(d for i, d in enumerate(dshape) if i != axis) or (1,)
            ins.append(shape_assign(self, "input", "length", in_shape[1], lshape))
        return ins, [dshape], []

    def infer_type(self, in_type: list, out_type: list | None = None):
        dt = in_type[0]
        if dt is None:
            return None
        _check_float(self.op_name, "data", dt)
        out = np.dtype(self.param.dtype) if self.param.dtype is not None else dt
        ins = [dt]
        if self._use_length():
            # MXNet's SoftmaxOpType leaves 'length' free (a bound graph defaults it to
            # float32); the kernel rejects a non-integer length when it runs
            ins.append(in_type[1])
        return ins, [out], []

    def infer_imperative(self, shapes: tuple, dtypes: tuple) -> tuple:
        if self._use_length() and len(dtypes) == 2:
            _check_length(self.op_name, dtypes[1])  # fail at the call, not at the next wait
        return super().infer_imperative(shapes, dtypes)

    def declare_backward_dependency(self, out_grad, in_data, out_data) -> list[int]:
        deps = [out_grad[0], out_data[0]]
        if self._use_length():
            deps.append(in_data[1])
        return deps

    def backward_inplace_option(self, out_grad, in_data, out_data, in_grad) -> list[tuple]:
        return [(out_grad[0], in_grad[0])]

    def create_operator(self, ctx: Context) -> Operator:
        return _SoftmaxOp(self, ctx.xp)


class _SoftmaxOp(Operator):
    def _mask(self, x: Any, length: Any, axis: int) -> Any:
        xp = self.xp
        shape = [1] * x.ndim
        shape[axis] = x.shape[axis]
        pos = xp.arange(x.shape[axis]).reshape(shape)
        lshape = tuple(d for i, d in enumerate(x.shape) if i != axis)
        return pos < xp.expand_dims(length.reshape(lshape), axis)

    def _temperature(self) -> float:
        t = self.prop.param.temperature
        return 1.0 if t is None else t

    def forward(self, op_ctx: OpContext, in_data, req, out_data, aux) -> None:
        if req[0] == _NULL:
            return
        xp, prop = self.xp, self.prop
        x = _work(in_data[0])
        axis = prop._axis(x.ndim)
        if prop._negate:
            x = -x
        t = self._temperature()
        if t != 1.0:
            x = x / x.dtype.type(t)
        if prop._use_length():
            _check_length(prop.op_name, in_data[1].dtype)
            mask = self._mask(x, in_data[1], axis)
            xm = xp.where(mask, x, -xp.inf)
            m = xp.max(xm, axis=axis, keepdims=True) if x.shape[axis] else 0
            m = xp.where(xp.isfinite(m), m, 0)
            e = xp.where(mask, xp.exp(xm - m), 0)
            s = xp.sum(e, axis=axis, keepdims=True)
            with np.errstate(divide="ignore", invalid="ignore"):
                y = xm - m - xp.log(s) if prop._log else e / s
            y = xp.where(mask, y, 0)
        else:
            dst = None if req[0] == OpReq.ADD else out_data[0]
            y = softmax_axis(xp, x, axis, log=prop._log, out=dst) if x.size else x
        assign(out_data[0], req[0], y.astype(out_data[0].dtype, copy=False))

    def backward(self, op_ctx: OpContext, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        xp, prop = self.xp, self.prop
        if prop._use_length() and len(in_grad) > 1 and req[1] != _NULL:
            assign(in_grad[1], req[1], 0)
        if req[0] == _NULL:
            return
        y = _work(out_data[0])
        g = _work(out_grad[0]).astype(y.dtype, copy=False)
        axis = prop._axis(y.ndim)
        mask = self._mask(y, in_data[1], axis) if prop._use_length() else None
        sums = tuple(1 if i == axis % y.ndim else n for i, n in enumerate(y.shape))
        with parallel.row_buffer(parallel.broadcast_run(y.shape, [sums])):
            if prop._log:
                if mask is not None:
                    g = xp.where(mask, g, 0)
                dx = xp.exp(y)
                dx *= row_sum(xp, g, axis)
                xp.subtract(g, dx, out=dx)
                if mask is not None:
                    dx = xp.where(mask, dx, 0)
            elif _last_rows(xp, y, axis) and g.flags.c_contiguous:
                dx = _softmax_grad_rows(y, g)
            else:
                dx = g - row_sum(xp, g * y, axis)
                dx *= y
        t = self._temperature()
        if t != 1.0:
            dx /= y.dtype.type(t)
        if prop._negate:
            dx = -dx
        assign(in_grad[0], req[0], dx.astype(in_grad[0].dtype, copy=False))


@register("softmax", aliases=("_npx_softmax",))
class SoftmaxProp(_SoftmaxBaseProp):
    """Softmax along ``axis``: ``exp(x / T) / sum(exp(x / T))``."""

    lists_output_names = True

    fluent = ("softmax",)
    lists_input_names = True

    _takes_length = True


@register("log_softmax", aliases=("_npx_log_softmax",))
class LogSoftmaxProp(_SoftmaxBaseProp):
    """Log of the softmax along ``axis``."""

    fluent = ("log_softmax",)
    lists_input_names = True

    _log = True


@register("softmin")
class SoftminProp(_SoftmaxBaseProp):
    """Softmin along ``axis``: the softmax of ``-x``."""

    lists_output_names = True

    fluent = ("softmin",)

    _negate = True


# ---- SoftmaxActivation ------------------------------------------------------------------------


@register("SoftmaxActivation")
class SoftmaxActivationProp(OperatorProperty):
    """Legacy softmax activation: per instance (last axis) or across channels (axis 1)."""

    lists_output_names = True

    param_class = SoftmaxActivationParam

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        if len(in_shape) != 1:
            raise ShapeError(f"SoftmaxActivation: expected 1 input (data); got {len(in_shape)}.")
        res = super().infer_shape(in_shape, out_shape)
        if res is not None and self.param.mode == "channel" and len(res[0][0]) < 3:
            raise ShapeError(
                f"SoftmaxActivation: input 'data' needs at least 3 dimensions when "
                f"mode='channel'; got shape {res[0][0]}."
            )
        return res

    def infer_type(self, in_type: list, out_type: list | None = None):
        res = super().infer_type(in_type, out_type)
        if res is not None:
            _check_float("SoftmaxActivation", "data", res[0][0])
        return res

    def declare_backward_dependency(self, out_grad, in_data, out_data) -> list[int]:
        return [out_grad[0], out_data[0]]

    def forward_inplace_option(self, in_data, out_data) -> list[tuple]:
        return [(in_data[0], out_data[0])]

    def create_operator(self, ctx: Context) -> Operator:
        return _SoftmaxActivationOp(self, ctx.xp)


class _SoftmaxActivationOp(Operator):
    def forward(self, op_ctx: OpContext, in_data, req, out_data, aux) -> None:
        x = in_data[0]
        axis = 1 if self.prop.param.mode == "channel" else -1
        y = softmax_axis(self.xp, x, axis) if x.size else x
        assign(out_data[0], req[0], y.astype(out_data[0].dtype, copy=False))

    def backward(self, op_ctx: OpContext, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        if req[0] == _NULL:
            return
        xp = self.xp
        y = _work(out_data[0])
        g = _work(out_grad[0])
        # MXNet reduces over axis 1 in both modes (see the module note)
        view = (y.shape[0], y.shape[1] if y.ndim > 1 else 1, -1) if y.size else y.shape
        y3, g3 = y.reshape(view), g.reshape(view)
        dx = y3 * (g3 - xp.sum(g3 * y3, axis=1, keepdims=True))
        assign(in_grad[0], req[0], dx.reshape(y.shape).astype(in_grad[0].dtype, copy=False))
