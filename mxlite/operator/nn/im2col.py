"""``im2col`` and ``col2im``: sliding blocks of an image to columns and back, as in MXNet 1.9.1.

Design note
-----------
im2col turns data (N, C, *spatial) (1 to 3 spatial dims) into (N, C * prod(kernel), L), where
row c * prod(kernel) + (kernel offset in C order) holds, for each of the L output positions
of a convolution with the same kernel/stride/dilate/pad, the input value under that kernel
point (zero in the padding). It is one strided view (a sliding-window view of the padded
input, subsampled by dilate and stride) and one copy. col2im is its adjoint: it sums every
column entry back into its pixel, one strided ``+=`` per kernel offset. Each one's backward is
the other.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

from ...base import ParamError, Shape, ShapeError
from ...context import Context
from ..param import Param, field
from ..registry import Operator, OperatorProperty, register
from ..req import OpReq, assign

__all__ = ["Im2colParam", "Col2imParam", "windows", "add_windows"]

_SHAPE_DOC = "(w,), (h, w) or (d, h, w)"


def _stride() -> tuple[int, ...]:
    return field(
        default=(),
        doc="The stride between adjacent sliding blocks in spatial dimension: "
        f"{_SHAPE_DOC}. Defaults to 1 for each dimension.",
    )


def _dilate() -> tuple[int, ...]:
    return field(
        default=(),
        doc=f"The spacing between adjacent kernel points: {_SHAPE_DOC}. Defaults to 1 for each "
        "dimension.",
    )


def _pad() -> tuple[int, ...]:
    return field(
        default=(),
        doc=f"The zero-value padding size on both sides of spatial dimension: {_SHAPE_DOC}. "
        "Defaults to no padding.",
    )


class Im2colParam(Param):
    kernel: tuple[int, ...] = field(doc=f"Sliding kernel size: {_SHAPE_DOC}.")
    stride: tuple[int, ...] = _stride()
    dilate: tuple[int, ...] = _dilate()
    pad: tuple[int, ...] = _pad()


class Col2imParam(Param):
    output_size: tuple[int, ...] = field(doc=f"The spatial dimension of image array: {_SHAPE_DOC}.")
    kernel: tuple[int, ...] = field(doc=f"Sliding kernel size: {_SHAPE_DOC}.")
    stride: tuple[int, ...] = _stride()
    dilate: tuple[int, ...] = _dilate()
    pad: tuple[int, ...] = _pad()


class _Geometry:
    """Kernel, stride, dilate, pad (filled with defaults) and output sizes for one image size."""

    def __init__(self, prop: OperatorProperty, spatial: tuple[int, ...]) -> None:
        p = prop.param
        nd = len(p.kernel)
        if not 1 <= nd <= 3:
            raise ParamError(
                f"{prop.where()}: argument 'kernel' must have 1 to 3 dims, got {p.kernel}."
            )
        self.kernel = p.kernel
        self.stride = p.stride or (1,) * nd
        self.dilate = p.dilate or (1,) * nd
        self.pad = p.pad or (0,) * nd
        for name, v in (("stride", self.stride), ("dilate", self.dilate), ("pad", self.pad)):
            if len(v) != nd:
                raise ParamError(
                    f"{prop.where()}: argument {name!r} has {len(v)} dims; kernel {p.kernel} "
                    f"has {nd}."
                )
        if min(self.kernel) < 1 or min(self.stride) < 1 or min(self.dilate) < 1:
            raise ParamError(
                f"{prop.where()}: arguments 'kernel', 'stride' and 'dilate' must be positive, "
                f"got {self.kernel}, {self.stride}, {self.dilate}."
            )
        if len(spatial) != nd:
            raise ShapeError(
                f"{prop.where()}: the image has {len(spatial)} spatial dims; kernel "
                f"{p.kernel} has {nd}."
            )
        self.spatial = tuple(spatial)
        self.span = tuple((k - 1) * d + 1 for k, d in zip(self.kernel, self.dilate))
        self.out = tuple(
            (x + 2 * q - s) // st + 1
            for x, q, s, st in zip(spatial, self.pad, self.span, self.stride)
        )
        if min(self.out) < 1:
            raise ShapeError(
                f"{prop.where()}: kernel {self.kernel} with dilate {self.dilate} does not fit "
                f"the padded image of spatial shape {self.spatial} (pad {self.pad})."
            )

    def rows(self, channels: int) -> int:
        return channels * math.prod(self.kernel)

    def blocks(self) -> int:
        return math.prod(self.out)


def windows(
    xp: Any, x: Any, kernel: Shape, stride: Shape, dilate: Shape, pad: Shape, out: Shape
) -> Any:
    """A ``(N, C, *out, *kernel)`` view of ``x (N, C, *S)`` zero-padded by ``pad``: entry
    ``[n, c, o, j]`` is padded position ``o * stride + j * dilate`` (one copy of ``x`` when
    there is padding, none otherwise)."""
    nd = len(kernel)
    if any(pad):
        x = xp.pad(x, [(0, 0), (0, 0), *[(q, q) for q in pad]])
    span = tuple((k - 1) * d + 1 for k, d in zip(kernel, dilate))
    win = xp.lib.stride_tricks.sliding_window_view(x, span, axis=tuple(range(2, 2 + nd)))
    sub = (slice(None), slice(None))
    sub += tuple(slice(0, (o - 1) * s + 1, s) for o, s in zip(out, stride))
    sub += tuple(slice(None, None, d) for d in dilate)
    return win[sub]


def add_windows(cols: Any, img: Any, stride: Shape, dilate: Shape) -> None:
    """The adjoint of :func:`windows`: add ``cols (N, C, *out, *kernel)`` (any strides) onto
    the padded image ``img (N, C, *padded)``, one slice addition per kernel offset or per
    output cell, whichever there are fewer of."""
    nd = len(stride)
    out, kernel = cols.shape[2 : 2 + nd], cols.shape[2 + nd :]
    lead = (slice(None), slice(None))
    if math.prod(kernel) <= math.prod(out):
        for jj in itertools.product(*map(range, kernel)):
            sl = tuple(
                slice(j * d, j * d + (o - 1) * s + 1, s)
                for j, d, o, s in zip(jj, dilate, out, stride)
            )
            img[lead + sl] += cols[(*lead, Ellipsis, *jj)]
    else:
        for oo in itertools.product(*map(range, out)):
            sl = tuple(
                slice(o * s, o * s + (k - 1) * d + 1, d)
                for o, s, k, d in zip(oo, stride, kernel, dilate)
            )
            img[lead + sl] += cols[(*lead, *oo)]


def _im2col(xp: Any, x: Any, g: _Geometry) -> Any:
    n, c = x.shape[:2]
    nd = len(g.kernel)
    win = windows(xp, x, g.kernel, g.stride, g.dilate, g.pad, g.out)
    order = (0, 1, *range(2 + nd, 2 + 2 * nd), *range(2, 2 + nd))
    return win.transpose(order).reshape(n, g.rows(c), g.blocks())


def _col2im(xp: Any, col: Any, g: _Geometry, channels: int) -> Any:
    n = col.shape[0]
    nd = len(g.kernel)
    padded = tuple(x + 2 * q for x, q in zip(g.spatial, g.pad))
    img = xp.zeros((n, channels, *padded), col.dtype)
    cols = col.reshape(n, channels, *g.kernel, *g.out)
    order = (0, 1, *range(2 + nd, 2 + 2 * nd), *range(2, 2 + nd))
    add_windows(cols.transpose(order), img, g.stride, g.dilate)
    crop = tuple(slice(q, q + x) for q, x in zip(g.pad, g.spatial))
    return img[(slice(None), slice(None), *crop)]


class _Im2colOp(Operator):
    def forward(self, op_ctx, in_data, req, out_data, aux):
        if req[0] != OpReq.NULL:
            g = _Geometry(self.prop, in_data[0].shape[2:])
            assign(out_data[0], req[0], _im2col(self.xp, in_data[0], g))

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux):
        if req[0] != OpReq.NULL:
            shape = in_grad[0].shape
            g = _Geometry(self.prop, shape[2:])
            assign(in_grad[0], req[0], _col2im(self.xp, out_grad[0], g, shape[1]))


class _Col2imOp(Operator):
    def forward(self, op_ctx, in_data, req, out_data, aux):
        if req[0] != OpReq.NULL:
            g = _Geometry(self.prop, self.prop.param.output_size)
            c = out_data[0].shape[1]
            assign(out_data[0], req[0], _col2im(self.xp, in_data[0], g, c))

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux):
        if req[0] != OpReq.NULL:
            g = _Geometry(self.prop, self.prop.param.output_size)
            assign(in_grad[0], req[0], _im2col(self.xp, out_grad[0], g))


class _BlocksProp(OperatorProperty):
    """What im2col and col2im share: each is the other's adjoint, so the backward reads only
    the output gradient."""

    lists_output_names = True
    lists_input_names = True

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        return [out_grad[0]]

    def infer_shape(self, in_shape, out_shape=None):
        self.check_num_inputs(in_shape)
        data = in_shape[0]
        if data is None or len(data) == 0:
            return None
        return self.data_shapes(data)

    def data_shapes(self, data: Shape) -> tuple:
        """(inputs, outputs, aux) shapes for this (known, non-scalar) ``data`` shape."""
        raise NotImplementedError


@register("im2col")
class Im2colProp(_BlocksProp):
    """Extract sliding blocks of ``data`` (N, C, *spatial) into columns (N, C*prod(kernel), L)."""

    param_class = Im2colParam

    def data_shapes(self, data: Shape) -> tuple:
        nd = len(self.param.kernel)
        if len(data) != nd + 2:
            raise ShapeError(
                f"{self.where()}: argument 'data' must have {nd + 2} dims for kernel "
                f"{self.param.kernel}, got shape {tuple(data)}."
            )
        if 0 in data[2:]:
            return [data], [None], []
        g = _Geometry(self, tuple(data[2:]))
        return [tuple(data)], [(data[0], g.rows(data[1]), g.blocks())], []

    def create_operator(self, ctx: Context) -> Operator:
        return _Im2colOp(self, ctx.xp)


@register("col2im")
class Col2imProp(_BlocksProp):
    """Sum columns (N, C*prod(kernel), L) back into an image (N, C, *output_size)."""

    param_class = Col2imParam

    def data_shapes(self, data: Shape) -> tuple:
        p = self.param
        if len(p.output_size) != len(p.kernel):
            raise ParamError(
                f"{self.where()}: argument 'output_size' {p.output_size} must have as many "
                f"dims as kernel {p.kernel}."
            )
        g = _Geometry(self, p.output_size)
        if len(data) != 3:
            raise ShapeError(
                f"{self.where()}: argument 'data' must be 3-D (N, C*prod(kernel), L), got "
                f"{tuple(data)}."
            )
        block = math.prod(p.kernel)
        if data[1] % block or (data[2] and data[2] != g.blocks()):
            raise ShapeError(
                f"{self.where()}: argument 'data' has shape {tuple(data)}; kernel {p.kernel} and "
                f"output_size {p.output_size} need (N, C*{block}, {g.blocks()})."
            )
        return [tuple(data)], [(data[0], data[1] // block, *p.output_size)], []

    def create_operator(self, ctx: Context) -> Operator:
        return _Col2imOp(self, ctx.xp)
