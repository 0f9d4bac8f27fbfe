"""``Convolution``: 1-D, 2-D and 3-D convolution with groups, stride, dilation and padding.

Design note
-----------
Parameters, shape rules and arguments follow MXNet 1.9.1 (src/operator/nn/convolution.cc):
weight ``(num_filter, C / num_group, *kernel)``, bias ``(num_filter,)``, output
``floor((x + 2*pad - dilate*(kernel-1) - 1) / stride) + 1`` per spatial axis; shape inference
also runs backwards (batch size always, spatial sizes where the stride is 1). The kernels are the
im2col products of ``_conv_util`` (one BLAS call per block of images, no loop over pixels); a
depthwise convolution (one input channel per group) is a multiply-add per kernel offset instead.
3x3 stride-1 float32 convolutions may run Winograd F(2x2,3x3) or F(4x4,3x3) instead
(``_winograd``), whichever of the three ``_conv_algo`` measured fastest on the first call of
the shape (``MXLITE_CONV_ALGO`` forces one). The backward reads the output gradient, data and
weight, never the output.

Layouts: MXNet accepts ``NCW``/``NCHW``/``NCDHW`` everywhere and ``NHWC``/``NDHWC`` only on
GPU; here the channels-last layouts also work on CPU (they are transposed to channels-first at
the boundary). Dtypes: float32 and float64 (float16 only on GPU), as MXNet's CPU kernels.
"""

from __future__ import annotations

from typing import Any

from ...base import Shape, ShapeError
from ..param import Param, field
from ..registry import (
    OpContext,
    Operator,
    OperatorProperty,
    OpTest,
    plot_dims,
    register,
    shape_assign,
)
from ..req import OpReq, assign
from . import _conv_algo as ca
from . import _conv_util as cu

__all__ = ["ConvolutionParam", "ConvolutionProp"]


class ConvolutionParam(Param):
    kernel: tuple[int, ...] = field(doc="Convolution kernel size: (w,), (h, w) or (d, h, w)")
    stride: tuple[int, ...] = field(
        default=(),
        doc="Convolution stride: (w,), (h, w) or (d, h, w). Defaults to 1 for each dimension.",
    )
    dilate: tuple[int, ...] = field(
        default=(),
        doc="Convolution dilate: (w,), (h, w) or (d, h, w). Defaults to 1 for each dimension.",
    )
    pad: tuple[int, ...] = field(
        default=(),
        doc="Zero pad for convolution: (w,), (h, w) or (d, h, w). Defaults to no padding.",
    )
    num_filter: int = field(low=1, doc="Convolution filter(channel) number")
    num_group: int = field(default=1, low=1, doc="Number of group partitions.")
    workspace: int = field(
        default=1024,
        low=0,
        typename="long (non-negative)",
        doc="Maximum temporary workspace allowed (MB) in convolution. Accepted and ignored "
        "here (the im2col buffer is sized by the input).",
    )
    no_bias: bool = field(default=False, doc="Whether to disable bias parameter.")
    cudnn_tune: str | None = field(
        default=None,
        choices=("off", "limited_workspace", "fastest"),
        doc="Whether to pick convolution algo by running performance test (ignored).",
    )
    cudnn_off: bool = field(default=False, doc="Turn off cudnn for this layer (ignored).")
    layout: str | None = field(
        default=None,
        choices=("NCW", "NCHW", "NCDHW", "NHWC", "NDHWC"),
        doc="Set layout for input, output and weight. Empty for default layout: NCW for 1d, "
        "NCHW for 2d and NCDHW for 3d. NHWC and NDHWC are GPU-only in MXNet; here they also "
        "run on CPU.",
    )


class WeightedLayerProp(OperatorProperty):
    """What Convolution, Deconvolution and FullyConnected share: inputs data, weight and (unless
    ``no_bias``) bias, floating-point types only, and a backward that reads the output
    gradient, the data and the weight (not the output)."""

    def list_arguments(self) -> list[str]:
        return ["data", "weight"] if self.param.no_bias else ["data", "weight", "bias"]

    def infer_type(self, in_type: list, out_type: list | None = None):
        res = super().infer_type(in_type, out_type)
        if res is not None and res[1][0] not in cu.FLOATS:
            cu.check_dtype(self.op_name, None, res[1][0])
        return res

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list) -> list:
        return [out_grad[0], in_data[0], in_data[1]]


class KernelLayerProp(WeightedLayerProp):
    """What Convolution and Deconvolution share: an (N+2)-D input in the layout of ``geom``
    (set by the subclass) whose channels split into ``num_group`` groups, and a weight of
    ``kernel`` taps with a bias ``(num_filter,)``."""

    geom: cu.Geometry

    def data_channels_first(self, dshape: Shape) -> list[int]:
        """``dshape`` channels first, after checking its rank and its channels."""
        g = self.geom
        if len(dshape) != g.nd + 2:
            raise ShapeError(
                f"{self.where()}: input 'data' must be {g.nd + 2}-D for a {g.nd}-D kernel "
                f"{self.param.kernel}, got shape {tuple(dshape)}."
            )
        d = list(cu.to_channels_first(tuple(dshape), g))
        c = d[1]
        if c and c % g.groups:
            raise ShapeError(
                f"{self.where()}: input 'data' has {c} channels, not a multiple of "
                f"num_group={g.groups}."
            )
        return d

    def assign_weight_bias(self, in_shape: list, wshape: Shape) -> list:
        """``in_shape`` with the weight (``wshape`` channels first) and the bias filled in."""
        ins = list(in_shape)
        ins[1] = shape_assign(
            self, "input", "weight", in_shape[1], cu.to_channels_last(wshape, self.geom)
        )
        if not self.param.no_bias:
            ins[2] = shape_assign(self, "input", "bias", in_shape[2], (self.param.num_filter,))
        return ins


@register("Convolution", aliases=("_npx_convolution",))
class ConvolutionProp(KernelLayerProp):
    """Compute *N*-D convolution on *(N+2)*-D input.

    In the 2-D case, data ``(batch_size, channel, height, width)``, weight
    ``(num_filter, channel / num_group, kernel[0], kernel[1])`` and bias ``(num_filter,)`` give
    ``out[n, i] = bias[i] + sum_j data[n, j] * weight[i, j]`` (cross-correlation) with shape
    ``(batch_size, num_filter, out_height, out_width)``, where
    ``out = floor((x + 2 * pad - dilate * (kernel - 1) - 1) / stride) + 1``. With ``num_group``
    g > 1 the channels and filters are split into g groups convolved separately.
    """

    lists_output_names = True

    plot_kind = "layer"
    quantized_name = "_contrib_quantized_conv"
    quantizable = "must"

    @classmethod
    def plot_label(cls, name: str, attrs: dict[str, str]) -> str:
        stride = plot_dims(attrs["stride"]) if "stride" in attrs else "1"
        return f"Convolution\n{plot_dims(attrs['kernel'])}/{stride}, {attrs['num_filter']}"

    lists_input_names = True

    param_class = ConvolutionParam
    test = OpTest(
        shapes={"data": (2, 3, 6, 6), "weight": (4, 3, 3, 3), "bias": (4,)},
        params={"kernel": (3, 3), "num_filter": 4},
    )

    @classmethod
    def parse_params(cls, kwargs: dict[str, Any], name: str | None = None) -> Any:
        param = super().parse_params(kwargs, name)
        cu.check_geometry(cls.op_name, name, param)
        return param

    def __init__(self, param: Any = None, attrs: dict[str, str] | None = None) -> None:
        super().__init__(param, attrs)
        self.geom = cu.check_geometry(self.op_name, None, param)

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        self.check_num_inputs(in_shape, f"no_bias={self.param.no_bias}")
        p, g = self.param, self.geom
        nd = g.nd
        dshape = in_shape[0]
        if dshape is None:
            return None
        d = self.data_channels_first(dshape)
        ins = self.assign_weight_bias(in_shape, (p.num_filter, d[1] // g.groups) + p.kernel)
        dk = g.dilated()
        o = [d[0], p.num_filter]
        for i in range(nd):
            size = d[2 + i]
            if size and dk[i] > size + 2 * g.pad[i]:
                raise ShapeError(
                    f"{self.where()}: kernel {p.kernel} (dilated to {dk}) exceeds input 'data' "
                    f"{tuple(dshape)} padded by {g.pad}."
                )
            o.append((size + 2 * g.pad[i] - dk[i]) // g.stride[i] + 1 if size else 0)
        oshape = cu.to_channels_last(tuple(o), g)
        if out_shape and out_shape[0] is not None:
            oshape = shape_assign(self, "output", "output", out_shape[0], oshape)
            # fill what the output tells about the data: the batch, and sizes where stride is 1
            on = cu.to_channels_first(oshape, g)
            d[0] = d[0] or on[0]
            for i in range(nd):
                if not d[2 + i] and on[2 + i] and g.stride[i] == 1:
                    d[2 + i] = on[2 + i] + dk[i] - 1 - 2 * g.pad[i]
            ins[0] = shape_assign(self, "input", "data", dshape, cu.to_channels_last(tuple(d), g))
        return ins, [oshape], []

    def create_operator(self, ctx: Any) -> Operator:
        return _ConvolutionOp(self, ctx.xp)

    def absorb_channel_affine(self) -> ConvolutionProp | None:
        """Fact for inference passes (``executor/fuse.py``): ``y * scale + shift`` per output
        channel (axis 1) of this convolution's output is the returned convolution (with a
        bias) of the weight scaled along axis 0 and the bias ``bias * scale + shift``; None
        for a channels-last layout."""
        if self.geom.channels_last:
            return None
        if not self.param.no_bias:
            return self
        import dataclasses

        return type(self)(dataclasses.replace(self.param, no_bias=False))

    def absorb_epilogue(self) -> bool:
        """Fact for inference passes: the residual add and ReLU run in the output pass of
        each block of images (channels first only)."""
        return not self.geom.channels_last


class _ConvolutionOp(Operator):
    __slots__ = ("op_name", "geom", "no_bias", "xp")

    def __init__(self, prop: ConvolutionProp, xp: Any) -> None:
        self.op_name = prop.op_name
        self.geom = prop.geom
        self.no_bias = prop.param.no_bias
        self.xp = xp

    def forward(
        self, op_ctx: OpContext, in_data: list, req: list, out_data: list, aux: list
    ) -> None:
        self.forward_epilogue(op_ctx, in_data, req, out_data, None, False)

    def forward_epilogue(
        self,
        op_ctx: OpContext,
        in_data: list,
        req: list,
        out_data: list,
        residual: Any,
        relu: bool,
    ) -> None:
        if req[0] == OpReq.NULL:
            return
        xp, g = self.xp, self.geom
        cu.check_dtype(self.op_name, xp, in_data[0].dtype)
        x = cu.to_channels_first(in_data[0], g)
        w = cu.to_channels_first(in_data[1], g)
        out = out_data[0]
        direct = req[0] != OpReq.ADD and not g.channels_last and out.flags.c_contiguous
        out_spatial = cu.to_channels_first(out.shape, g)[2:]
        bias = None if self.no_bias else in_data[2]
        wvar = None if op_ctx.is_train or op_ctx.in_vars is None else op_ctx.in_vars[1]
        y = ca.conv_forward(
            xp,
            x,
            w,
            g,
            out_spatial,
            out=out if direct else None,
            bias=bias,
            weight_var=wvar,
            residual=residual if direct else None,
            relu=relu and direct,
        )
        if not direct:
            if residual is not None:
                y = y + residual
            assign(out, req[0], cu.to_channels_last(xp.maximum(y, 0) if relu else y, g))

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        xp, g = self.xp, self.geom
        cu.check_dtype(self.op_name, xp, in_data[0].dtype)
        dy = cu.to_channels_first(out_grad[0], g)
        x = cu.to_channels_first(in_data[0], g)
        w = cu.to_channels_first(in_data[1], g)
        want_db = not self.no_bias and req[2] != OpReq.NULL
        if req[1] != OpReq.NULL:
            dw, db = ca.conv_weight_grad(xp, x, dy, g, w.shape, bias_grad=want_db), None
            if want_db:
                dw, db = dw
            assign(in_grad[1], req[1], cu.to_channels_last(dw, g))
        elif want_db:
            db = dy.sum(axis=(0, *range(2, g.nd + 2)))
        if want_db:
            assign(in_grad[2], req[2], db)
        if req[0] != OpReq.NULL:
            gx = in_grad[0]
            if req[0] in (OpReq.WRITE, OpReq.ADD) and not g.channels_last and gx.flags.c_contiguous:
                # written (or added) straight into the gradient array
                ca.conv_data_grad(xp, dy, w, g, x.shape[2:], out=gx, add=req[0] == OpReq.ADD)
            else:
                dx = ca.conv_data_grad(xp, dy, w, g, x.shape[2:])
                assign(gx, req[0], cu.to_channels_last(dx, g))
