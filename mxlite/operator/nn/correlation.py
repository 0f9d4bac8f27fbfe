"""``Correlation``: the FlowNet correlation layer of MXNet 1.9.1.

Design note
-----------
For every displacement (dy, dx) on a grid of radius max_displacement // stride2 (step
stride2), the output channel holds, at each output position, the mean over a
kernel_size x kernel_size patch and all channels of data1 * data2 shifted by (dy, dx) (or of
|data1 - data2| when ``is_multiply`` is False). Both inputs are zero-padded by ``pad_size``;
patch (i, j) starts at row i * stride1 + max_displacement of the padded input, as in MXNet's
CPU kernel. The loop runs over displacements only; each one is an element-wise product summed
over channels and a strided box sum (a sliding-window view). The hidden outputs ``tmp1`` and
``tmp2`` hold the padded inputs in NHWC, as MXNet's do, and backward reads them.
"""

from __future__ import annotations

import math
from typing import Any

from ...base import ParamError, ShapeError
from ...context import Context
from ..param import Param, field
from ..registry import Operator, OperatorProperty, register, shape_assign
from ..req import OpReq, assign
from .activation import check_float

__all__ = ["CorrelationParam"]


class CorrelationParam(Param):
    kernel_size: int = field(
        default=1, low=0, doc="kernel size for Correlation must be an odd number"
    )
    max_displacement: int = field(default=1, low=0, doc="Max displacement of Correlation ")
    stride1: int = field(default=1, low=0, doc="stride1 quantize data1 globally")
    stride2: int = field(default=1, low=0, doc="stride2 quantize data2 within the neighborhood")
    pad_size: int = field(default=0, low=0, doc="pad for Correlation")
    is_multiply: bool = field(
        default=True, doc="operation type is either multiplication or subduction"
    )


class _Geometry:
    """Output size and displacement grid for one input shape."""

    def __init__(self, p: CorrelationParam, h: int, w: int) -> None:
        self.hp, self.wp = h + 2 * p.pad_size, w + 2 * p.pad_size
        border = p.max_displacement + (p.kernel_size - 1) // 2
        self.top_h = math.ceil((self.hp - 2 * border) / p.stride1)
        self.top_w = math.ceil((self.wp - 2 * border) / p.stride1)
        radius = p.max_displacement // p.stride2
        width = 2 * radius + 1
        self.shifts = [
            ((c // width - radius) * p.stride2, (c % width - radius) * p.stride2)
            for c in range(width * width)
        ]
        k, s = p.kernel_size, p.stride1
        self.rh, self.rw = (self.top_h - 1) * s + k, (self.top_w - 1) * s + k  # rows a patch spans


class _CorrelationOp(Operator):
    def _regions(self, g: _Geometry, t1: Any, t2: Any, dy: int, dx: int) -> tuple[Any, Any]:
        m = self.prop.param.max_displacement
        a = t1[:, :, m : m + g.rh, m : m + g.rw]
        b = t2[:, :, m + dy : m + dy + g.rh, m + dx : m + dx + g.rw]
        return a, b

    def forward(self, op_ctx, in_data, req, out_data, aux):
        xp, p = self.xp, self.prop.param
        d1, d2 = in_data
        n, c, h, w = d1.shape
        g = _Geometry(p, h, w)
        pad = ((0, 0), (0, 0), (p.pad_size, p.pad_size), (p.pad_size, p.pad_size))
        t1, t2 = xp.pad(d1, pad), xp.pad(d2, pad)
        out_data[1][...] = t1.transpose(0, 2, 3, 1)
        out_data[2][...] = t2.transpose(0, 2, 3, 1)
        k, s = p.kernel_size, p.stride1
        out = xp.empty(out_data[0].shape, d1.dtype)
        scale = d1.dtype.type(1.0 / (k * k * c))
        for ch, (dy, dx) in enumerate(g.shifts):
            a, b = self._regions(g, t1, t2, dy, dx)
            prod = (a * b).sum(axis=1) if p.is_multiply else xp.abs(a - b).sum(axis=1)
            win = xp.lib.stride_tricks.sliding_window_view(prod, (k, k), axis=(1, 2))
            out[:, ch] = win[:, ::s, ::s].sum(axis=(-1, -2)) * scale
        if req[0] != OpReq.NULL:
            assign(out_data[0], req[0], out)

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux):
        xp, p = self.xp, self.prop.param
        n, c, h, w = in_grad[0].shape  # backward does not keep the inputs, only tmp1/tmp2
        g = _Geometry(p, h, w)
        t1 = out_data[1].transpose(0, 3, 1, 2)
        t2 = out_data[2].transpose(0, 3, 1, 2)
        g1, g2 = xp.zeros(t1.shape, t1.dtype), xp.zeros(t2.shape, t2.dtype)
        k, s = p.kernel_size, p.stride1
        scale = t1.dtype.type(1.0 / (k * k * c))
        m = p.max_displacement
        th, tw = g.top_h, g.top_w
        for ch, (dy, dx) in enumerate(g.shifts):
            go = out_grad[0][:, ch] * scale
            spread = xp.zeros((n, g.rh, g.rw), t1.dtype)  # each position's share of the patches
            for ky in range(k):
                for kx in range(k):
                    spread[:, ky : ky + (th - 1) * s + 1 : s, kx : kx + (tw - 1) * s + 1 : s] += go
            a, b = self._regions(g, t1, t2, dy, dx)
            spread = spread[:, None]
            if p.is_multiply:
                ga, gb = spread * b, spread * a
            else:
                sign = xp.where(a >= b, 1, -1).astype(t1.dtype)
                ga = spread * sign
                gb = -ga
            g1[:, :, m : m + g.rh, m : m + g.rw] += ga
            g2[:, :, m + dy : m + dy + g.rh, m + dx : m + dx + g.rw] += gb
        ps = p.pad_size
        for i, gi in enumerate((g1, g2)):
            if req[i] != OpReq.NULL:
                assign(in_grad[i], req[i], gi[:, :, ps : ps + h, ps : ps + w])


@register("Correlation")
class CorrelationProp(OperatorProperty):
    """Correlation of two feature maps over a grid of displacements (FlowNet)."""

    lists_output_names = True

    lists_input_names = True

    param_class = CorrelationParam

    def list_arguments(self) -> list[str]:
        return ["data1", "data2"]

    def list_outputs(self) -> list[str]:
        return ["output", "tmp1", "tmp2"]

    def num_visible_outputs(self) -> int:
        return 1

    def infer_shape(self, in_shape, out_shape=None):
        self.check_num_inputs(in_shape)
        d1, d2 = in_shape
        if d1 is None and d2 is None:
            return None
        for name, s in (("data1", d1), ("data2", d2)):
            if s is not None and len(s) != 4:
                raise ShapeError(f"{self.where()}: argument {name!r} must be 4-D, got {s}.")
        d1 = shape_assign(self, "argument", "data1", d1, d2)
        d2 = shape_assign(self, "argument", "data2", d2, d1)
        p = self.param
        if p.kernel_size % 2 == 0:
            raise ParamError(
                f"{self.where()}: argument 'kernel_size' must be odd, got {p.kernel_size}."
            )
        if p.stride1 < 1 or p.stride2 < 1:
            raise ParamError(
                f"{self.where()}: arguments 'stride1' and 'stride2' must be >= 1, got "
                f"{p.stride1} and {p.stride2}."
            )
        n, c, h, w = d1
        if 0 in (h, w):
            return [d1, d2], [None, None, None], []
        g = _Geometry(p, h, w)
        if g.top_h < 1 or g.top_w < 1:
            raise ShapeError(
                f"{self.where()}: data of shape {tuple(d1)} is too small for max_displacement="
                f"{p.max_displacement}, kernel_size={p.kernel_size}, pad_size={p.pad_size}."
            )
        tmp = (n, g.hp, g.wp, c)
        return [d1, d2], [(n, len(g.shifts), g.top_h, g.top_w), tmp, tmp], []

    def infer_type(self, in_type, out_type=None):
        res = super().infer_type(in_type, out_type)
        if res is not None:
            check_float(self, "data1", res[0][0])
        return res

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        return [out_grad[0], out_data[1], out_data[2]]

    def create_operator(self, ctx: Context) -> Operator:
        return _CorrelationOp(self, ctx.xp)
