"""L2Normalization and LRN, as in MXNet 1.9.1: operators that divide by a norm over an axis or
a window of channels (the statistics-based normalisations are in ``normalization.py``).

LRN sums squares over a window of ``nsize`` channels: y = x * (knorm + alpha / nsize * sum) ^
-beta; the hidden output is that base.
"""

from __future__ import annotations

from typing import Any

from ...base import ShapeError
from ...context import Context
from ..param import Param, field
from ..registry import Operator, OperatorProperty, register
from ..req import OpReq, assign
from .activation import FloatDataProp
from .normalization import _only_float32, _put

__all__ = ["L2NormalizationParam", "LRNParam"]


# ---------------------------------------------------------------------------------------------
# L2Normalization


class L2NormalizationParam(Param):
    eps: float = field(default=1e-10, doc="A small constant for numerical stability.")
    mode: str = field(
        default="instance",
        choices=("channel", "instance", "spatial"),
        doc="Specify the dimension along which to compute L2 norm.",
    )


def _l2_axes(mode: str, ndim: int) -> tuple[int, ...]:
    if mode == "instance":
        return tuple(range(1, ndim))
    if mode == "channel":
        return (1,)
    return tuple(range(2, ndim))


class _L2NormOp(Operator):
    def forward(self, op_ctx, in_data, req, out_data, aux):
        xp, p, x = self.xp, self.prop.param, in_data[0]
        red = _l2_axes(p.mode, x.ndim)
        norm = xp.sqrt(xp.square(x).sum(axis=red, keepdims=True) + x.dtype.type(p.eps))
        _put(out_data[1], req[1], norm.reshape(out_data[1].shape))
        _put(out_data[0], req[0], x / norm)

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux):
        if req[0] == OpReq.NULL:
            return
        y, g = out_data[0], out_grad[0]  # backward does not read the input
        red = _l2_axes(self.prop.param.mode, y.ndim)
        kshape = tuple(1 if i in red else n for i, n in enumerate(y.shape))
        norm = out_data[1].reshape(kshape)
        dot = (g * y).sum(axis=red, keepdims=True)
        assign(in_grad[0], req[0], (g - y * dot) / norm)


@register("L2Normalization")
class L2NormalizationProp(FloatDataProp):
    """x divided by its L2 norm over all axes but the first (instance), over the channel axis
    (channel) or over the spatial axes (spatial)."""

    lists_output_names = True
    bfloat16_kernel = False  # MXNet 1.9.1 refuses bfloat16 here (operator/bfloat16.py)

    lists_input_names = True

    param_class = L2NormalizationParam

    def list_outputs(self) -> list[str]:
        return ["output", "norm"]

    def num_visible_outputs(self) -> int:
        return 1

    def infer_shape(self, in_shape, out_shape=None):
        self.check_num_inputs(in_shape)
        data = in_shape[0]
        if data is None:
            return None
        mode = self.param.mode
        if len(data) < (3 if mode == "spatial" else 2):
            raise ShapeError(
                f"{self.where()}: argument 'data' has shape {tuple(data)}; mode={mode!r} needs "
                f"at least {3 if mode == 'spatial' else 2} dimensions."
            )
        red = _l2_axes(mode, len(data))
        norm = tuple(n for i, n in enumerate(data) if i not in red)
        return [data], [data, norm], []

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        return [out_grad[0], out_data[0], out_data[1]]

    def create_operator(self, ctx: Context) -> Operator:
        return _L2NormOp(self, ctx.xp)


# ---------------------------------------------------------------------------------------------
# LRN


class LRNParam(Param):
    alpha: float = field(
        default=1e-4, doc="The variance scaling parameter :math:`alpha` in the LRN expression."
    )
    beta: float = field(default=0.75, doc="The power parameter :math:`beta` in the LRN expression.")
    knorm: float = field(default=2.0, doc="The parameter :math:`k` in the LRN expression.")
    nsize: int = field(
        low=1, typename="int (non-negative)", doc="normalization window width in elements."
    )


def _channel_window_sum(xp: Any, v: Any, nsize: int) -> Any:
    """Sum of ``v`` over a window of ``nsize`` channels (axis 1) centred on each channel
    (``nsize // 2`` below it, the rest above), zero padded: one shifted addition per
    neighbour, where a cumulative sum over the padded channels took 6x as long ((8, 64, 56,
    56) float32: 7.7 -> 1.3 ms) and lost digits to its differences of large prefix sums."""
    c = v.shape[1]
    out = v.copy()
    below = nsize // 2
    for j in range(1, min(below, c - 1) + 1):
        out[:, j:] += v[:, : c - j]
    for j in range(1, min(nsize - below - 1, c - 1) + 1):
        out[:, : c - j] += v[:, j:]
    return out


def _neg_power(xp: Any, base: Any, beta: float) -> Any:
    """``base ** -beta`` (a new array); the usual 0.75 (AlexNet's, MXNet's default) as
    ``1 / sqrt(base * sqrt(base))``, three vectorised passes where ``power`` with a fractional
    exponent runs a scalar loop ((8, 64, 56, 56) float32: 1.9 -> 0.5 ms; within 2 ulps)."""
    if beta != 0.75 or base.dtype.kind != "f":
        return base ** base.dtype.type(-beta)
    out = xp.sqrt(base)
    out *= base
    xp.sqrt(out, out=out)
    return xp.reciprocal(out, out=out)


class _LRNOp(Operator):
    def forward(self, op_ctx, in_data, req, out_data, aux):
        xp, p, x = self.xp, self.prop.param, in_data[0]
        salpha = x.dtype.type(p.alpha / p.nsize)
        base = _channel_window_sum(xp, xp.square(x), p.nsize)
        base *= salpha
        base += x.dtype.type(p.knorm)
        _put(out_data[1], req[1], base)
        _put(out_data[0], req[0], x * _neg_power(xp, base, p.beta))

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux):
        if req[0] == OpReq.NULL:
            return
        xp, p, x, g = self.xp, self.prop.param, in_data[0], out_grad[0]
        base = out_data[1]
        salpha = p.alpha / p.nsize
        dx = g * _neg_power(xp, base, p.beta)
        inner = dx * x / base  # g x base^(-beta - 1)
        dx -= x.dtype.type(2 * p.beta * salpha) * _channel_window_sum(xp, inner, p.nsize) * x
        assign(in_grad[0], req[0], dx)


@register("LRN")
class LRNProp(OperatorProperty):
    """Local response normalisation across channels (axis 1)."""

    lists_output_names = True

    lists_input_names = True

    param_class = LRNParam

    def list_outputs(self) -> list[str]:
        return ["output", "tmp_norm"]

    def num_visible_outputs(self) -> int:
        return 1

    def infer_shape(self, in_shape, out_shape=None):
        self.check_num_inputs(in_shape)
        if self.param.nsize % 2 == 0:
            raise ShapeError(
                f"{self.where()}: argument 'nsize' is {self.param.nsize}; LRN only supports odd "
                f"window widths."
            )
        data = in_shape[0]
        if data is None:
            return None
        if len(data) != 4:
            raise ShapeError(
                f"{self.where()}: argument 'data' has shape {tuple(data)}; expected 4 "
                f"dimensions (batch, channel, height, width)."
            )
        return [data], [data, data], []

    def infer_type(self, in_type, out_type=None):
        _only_float32(self, in_type[0] if in_type else None)
        return super().infer_type(in_type, out_type)

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        return [out_grad[0], in_data[0], out_data[1]]

    def create_operator(self, ctx: Context) -> Operator:
        return _LRNOp(self, ctx.xp)
