"""``Deconvolution``: transposed (fractionally strided) convolution, 1-D, 2-D and 3-D.

Design note
-----------
The deconvolution of ``x (N, C, *S)`` with ``weight (C, num_filter / num_group, *kernel)`` is
the gradient, with respect to its input, of the convolution that maps a
``(N, num_filter, *out)`` array to ``x`` with that same weight. So its forward is
``_conv_util.conv_data_grad`` (BLAS then col2im, or a flipped-kernel convolution at stride
1), its data gradient is ``conv_forward`` of the output gradient, and its weight gradient is
``conv_weight_grad`` with the roles of input and output swapped; the backward reads the output
gradient, data and weight.

Shape rules as MXNet 1.9.1 (src/operator/nn/deconvolution-inl.h, ``InferPad``):
``out = stride * (x - 1) + dilate * (kernel - 1) + 1 - 2 * pad + adj``, with ``adj < stride``.
A non-zero ``target_shape`` replaces ``pad`` and ``adj``: ``total = stride * (x - 1) +
dilated_kernel - target``, ``adj = total % 2``, ``pad = (total + 1) // 2``. The bias defaults
to off (``no_bias=True``), and 3-D deconvolution takes no dilation, as in MXNet.
Layouts and dtypes as Convolution (see convolution.py).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ...base import ParamError, Shape, ShapeError
from ..param import Param, field
from ..registry import OpContext, Operator, OpTest, register, shape_assign
from ..req import OpReq, assign
from . import _conv_algo as ca
from . import _conv_util as cu
from .convolution import KernelLayerProp

__all__ = ["DeconvolutionParam", "DeconvolutionProp"]


class DeconvolutionParam(Param):
    kernel: tuple[int, ...] = field(
        doc="Deconvolution kernel size: (w,), (h, w) or (d, h, w). This is same as the kernel "
        "size used for the corresponding convolution"
    )
    stride: tuple[int, ...] = field(
        default=(),
        doc="The stride used for the corresponding convolution: (w,), (h, w) or (d, h, w). "
        "Defaults to 1 for each dimension.",
    )
    dilate: tuple[int, ...] = field(
        default=(),
        doc="Dilation factor for each dimension of the input: (w,), (h, w) or (d, h, w). "
        "Defaults to 1 for each dimension.",
    )
    pad: tuple[int, ...] = field(
        default=(),
        doc="The amount of implicit zero padding added during convolution for each dimension "
        "of the input: (w,), (h, w) or (d, h, w). ``(kernel-1)/2`` is usually a good choice. "
        "If `target_shape` is set, `pad` will be ignored and a padding that will generate the "
        "target shape will be used. Defaults to no padding.",
    )
    adj: tuple[int, ...] = field(
        default=(),
        doc="Adjustment for output shape: (w,), (h, w) or (d, h, w). If `target_shape` is set, "
        "`adj` will be ignored and computed accordingly.",
    )
    target_shape: tuple[int, ...] = field(
        default=(), doc="Shape of the output tensor: (w,), (h, w) or (d, h, w)."
    )
    num_filter: int = field(low=1, doc="Number of output filters.")
    num_group: int = field(default=1, low=1, doc="Number of groups partition.")
    workspace: int = field(
        default=512,
        low=0,
        typename="long (non-negative)",
        doc="Maximum temporary workspace allowed (MB) in deconvolution. Accepted and ignored.",
    )
    no_bias: bool = field(default=True, doc="Whether to disable bias parameter.")
    cudnn_tune: str | None = field(
        default=None,
        choices=("off", "limited_workspace", "fastest"),
        doc="Whether to pick convolution algorithm by running performance test (ignored).",
    )
    cudnn_off: bool = field(default=False, doc="Turn off cudnn for this layer (ignored).")
    layout: str | None = field(
        default=None,
        choices=("NCW", "NCHW", "NCDHW", "NHWC", "NDHWC"),
        doc="Set layout for input, output and weight. Empty for default layout, NCW for 1d, "
        "NCHW for 2d and NCDHW for 3d. NHWC and NDHWC are GPU-only in MXNet; here they also "
        "run on CPU.",
    )


def _check(op: str, name: str | None, param: DeconvolutionParam) -> tuple[cu.Geometry, Shape]:
    """The geometry and ``adj`` after MXNet's parameter checks."""
    geom = cu.check_geometry(op, name, param, extra=("adj",))
    where = f"{op}(name={name!r})" if name else op
    nd = geom.nd
    adj = param.adj or (0,) * nd
    target = param.target_shape
    if target and len(target) != nd:
        raise ParamError(
            f"{where}: argument 'target_shape' must have as many dimensions as kernel "
            f"{param.kernel}, got {target}."
        )
    if min(target, default=0) < 0:
        raise ParamError(f"{where}: argument 'target_shape' expects sizes >= 0, got {target}.")
    if not any(target) and any(a >= s for a, s in zip(adj, geom.stride)):
        raise ParamError(
            f"{where}: argument 'adj' {adj} must be smaller than stride {geom.stride}."
        )
    if nd == 3 and any(d != 1 for d in geom.dilate):
        raise ParamError(
            f"{where}: argument 'dilate' {geom.dilate} is not supported in 3-D deconvolution "
            "(MXNet takes no dilation there)."
        )
    return geom, adj


@register("Deconvolution", aliases=("_npx_deconvolution",))
class DeconvolutionProp(KernelLayerProp):
    """Computes 1D, 2D or 3D transposed convolution (aka fractionally strided convolution) of
    the input tensor. This operation can be seen as the gradient of Convolution operation with
    respect to its input: it goes from a smaller input to a larger output while preserving the
    connectivity pattern. The weight is ``(channel, num_filter / num_group, *kernel)``.
    """

    lists_output_names = True

    lists_input_names = True

    param_class = DeconvolutionParam
    test = OpTest(
        shapes={"data": (2, 3, 4, 4), "weight": (3, 2, 3, 3)},
        params={"kernel": (3, 3), "num_filter": 2, "stride": (2, 2)},
    )

    @classmethod
    def parse_params(cls, kwargs: dict[str, Any], name: str | None = None) -> Any:
        param = super().parse_params(kwargs, name)
        _check(cls.op_name, name, param)
        return param

    def __init__(self, param: Any = None, attrs: dict[str, str] | None = None) -> None:
        super().__init__(param, attrs)
        self.geom, self.adj = _check(self.op_name, None, param)

    def pads(self, in_spatial: Shape) -> tuple[Shape, Shape]:
        """``(pad, adj)`` for these input sizes (MXNet's ``InferPad``)."""
        g, target = self.geom, self.param.target_shape
        if not any(target):
            return g.pad, self.adj
        pad, adj = [], []
        for size, s, dk, t in zip(in_spatial, g.stride, g.dilated(), target):
            total = s * (size - 1) + dk if size else 0
            if size and total < t:
                raise ShapeError(
                    f"{self.where()}: argument 'target_shape' {target} is too big for input "
                    f"sizes {tuple(in_spatial)} (at most {total} here)."
                )
            total = total - t if size else 0
            adj.append(total % 2)
            pad.append((total + 1) // 2)
        return tuple(pad), tuple(adj)

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        self.check_num_inputs(in_shape, f"no_bias={self.param.no_bias}")
        p, g = self.param, self.geom
        nd = g.nd
        dshape = in_shape[0]
        if dshape is None:
            return None
        d = tuple(self.data_channels_first(dshape))
        ins = self.assign_weight_bias(in_shape, (d[1], p.num_filter // g.groups) + p.kernel)
        pad, adj = self.pads(d[2:])
        o = [d[0], p.num_filter]
        for i in range(nd):
            size = d[2 + i]
            if adj[i] >= g.stride[i]:
                raise ShapeError(
                    f"{self.where()}: argument 'target_shape' {p.target_shape} needs adj "
                    f"{adj} for input sizes {d[2:]}, but adj must be smaller than stride "
                    f"{g.stride}."
                )
            size_out = g.stride[i] * (size - 1) + g.dilated()[i] - 2 * pad[i] + adj[i]
            if size and size_out <= 0:
                raise ShapeError(
                    f"{self.where()}: pad {pad} leaves no output for input 'data' {tuple(dshape)}."
                )
            o.append(size_out if size else 0)
        oshape = cu.to_channels_last(tuple(o), g)
        if out_shape and out_shape[0] is not None:
            oshape = shape_assign(self, "output", "output", out_shape[0], oshape)
        return ins, [oshape], []

    def create_operator(self, ctx: Any) -> Operator:
        return _DeconvolutionOp(self, ctx.xp)


class _DeconvolutionOp(Operator):
    def _geometry(self, x: Any) -> cu.Geometry:
        """The convolution geometry whose data gradient this deconvolution is."""
        pad, _ = self.prop.pads(x.shape[2:])
        return dataclasses.replace(self.prop.geom, pad=pad)

    def forward(
        self, op_ctx: OpContext, in_data: list, req: list, out_data: list, aux: list
    ) -> None:
        if req[0] == OpReq.NULL:
            return
        xp, prop = self.xp, self.prop
        cu.check_dtype(prop.op_name, xp, in_data[0].dtype)
        x = cu.to_channels_first(in_data[0], prop.geom)
        w = cu.to_channels_first(in_data[1], prop.geom)
        g = self._geometry(x)
        out_spatial = cu.to_channels_first(out_data[0].shape, g)[2:]
        y = ca.conv_data_grad(xp, x, w, g, out_spatial)
        if not prop.param.no_bias:
            y = y + in_data[2].reshape((1, -1) + (1,) * g.nd)
        assign(out_data[0], req[0], cu.to_channels_last(y, g))

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        xp, prop = self.xp, self.prop
        cu.check_dtype(prop.op_name, xp, in_data[0].dtype)
        dy = cu.to_channels_first(out_grad[0], prop.geom)
        x = cu.to_channels_first(in_data[0], prop.geom)
        w = cu.to_channels_first(in_data[1], prop.geom)
        g = self._geometry(x)
        if req[1] != OpReq.NULL:
            dw = ca.conv_weight_grad(xp, dy, x, g, w.shape)
            assign(in_grad[1], req[1], cu.to_channels_last(dw, g))
        if not prop.param.no_bias and req[2] != OpReq.NULL:
            assign(in_grad[2], req[2], dy.sum(axis=(0, *range(2, g.nd + 2))))
        if req[0] != OpReq.NULL:
            dx = ca.conv_forward(xp, dy, w, g, x.shape[2:])
            assign(in_grad[0], req[0], cu.to_channels_last(dx, g))
