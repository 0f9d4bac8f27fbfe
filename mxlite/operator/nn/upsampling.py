"""UpSampling: nearest-neighbour (one or more inputs) and bilinear (a fixed-kernel deconvolution).

Nearest: the output is ``scale`` times the first input's height and width; every input is
repeated by ``out_h // h_i`` along both axes, then the results are concatenated along channels
(``multi_input_mode='concat'``) or added (``'sum'``). The gradient sums ``out_grad`` over each
``s x s`` block (a reshape and a sum, no loops).

Bilinear: as in MXNet, a depthwise transposed convolution of ``data`` with the ``weight``
input (shape ``(C, 1, k, k)``, ``k = 2*scale - scale % 2``), stride ``scale`` and padding
``ceil((scale - 1) / 2)``; the caller initialises the weight (``mx.init.Bilinear``). The loop
runs over the ``k*k`` kernel offsets only, each a strided slice covering every pixel at once.
"""

from __future__ import annotations

import math
from typing import Any

from ...base import ParamError, ShapeError
from ...context import Context
from ..param import Param, field
from ..registry import Operator, OperatorProperty, OpTest, register, shape_assign
from ..req import OpReq, assign

__all__: list[str] = []


class UpSamplingParam(Param):
    scale: int = field(low=1, doc="Up sampling scale")
    num_filter: int = field(
        default=0,
        doc="Input filter. Only used by bilinear sample_type. Since bilinear upsampling uses "
        "deconvolution, num_filters is set to the number of channels.",
    )
    sample_type: str = field(choices=("nearest", "bilinear"), doc="upsampling method")
    multi_input_mode: str = field(
        default="concat",
        choices=("concat", "sum"),
        doc="How to handle multiple input: concatenate along channels, or add (nearest only).",
    )
    num_args: int = field(
        low=1, doc="Number of inputs to be upsampled (bilinear: 2, the data and the weight)."
    )
    workspace: int = field(default=512, low=0, doc="Tmp workspace for deconvolution (MB)")


@register("UpSampling")
class UpSamplingProp(OperatorProperty):
    """Enlarge 4-D images by an integer ``scale``."""

    lists_output_names = True
    bfloat16_kernel = False  # MXNet 1.9.1 refuses bfloat16 here (operator/bfloat16.py)

    input_var_init = {1: '["bilinear", {}]'}  # the bilinear weight
    lists_input_names = True

    param_class = UpSamplingParam
    key_var_num_args = "num_args"
    test = OpTest(
        shapes={"arg0": (2, 3, 3, 3)},
        params={"scale": 2, "sample_type": "nearest", "num_args": 1},
    )

    def _fail(self, why: str) -> ShapeError:
        return ShapeError(f"{self.where()}: {why}")

    def list_arguments(self) -> list[str]:
        if self.param.sample_type == "bilinear":
            return ["data", "weight"]
        return [f"arg{i}" for i in range(self.param.num_args)]

    def kernel(self) -> int:
        s = self.param.scale
        return 2 * s - s % 2

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        p = self.param
        n = len(self.list_arguments())
        if len(in_shape) != n:
            raise self._fail(
                f"expects {n} inputs ({', '.join(self.list_arguments())}), got {len(in_shape)}."
            )
        dshape = in_shape[0]
        if dshape is None or 0 in dshape:
            return None
        for i, s in enumerate(in_shape):
            if s is not None and len(s) != 4 and (p.sample_type == "nearest" or i == 0):
                raise self._fail(
                    f"input {self.list_arguments()[i]!r} must be 4-D (batch, channel, y, x), "
                    f"got shape {tuple(s)}."
                )
        oh, ow = dshape[2] * p.scale, dshape[3] * p.scale
        if p.sample_type == "bilinear":
            if p.num_filter != dshape[1]:
                raise ParamError(
                    f"{self.where()}: argument 'num_filter' must equal the {dshape[1]} channels "
                    f"of 'data' (shape {tuple(dshape)}) for bilinear sampling, got {p.num_filter}."
                )
            k = self.kernel()
            w = shape_assign(self, "input", "weight", in_shape[1], (dshape[1], 1, k, k))
            return [tuple(dshape), w], [(dshape[0], dshape[1], oh, ow)], []
        if any(s is None or 0 in s for s in in_shape):
            return None
        channels = 0
        for i, s in enumerate(in_shape):
            if oh % s[2] or ow % s[3] or oh // s[2] != ow // s[3]:
                raise self._fail(
                    f"input 'arg{i}' of shape {tuple(s)} does not divide the output size "
                    f"({oh}, {ow}) by one integer factor."
                )
            if p.multi_input_mode == "sum":
                if channels and channels != s[1]:
                    raise self._fail(
                        f"with multi_input_mode='sum' every input needs {channels} channels; "
                        f"'arg{i}' has shape {tuple(s)}."
                    )
                channels = s[1]
            else:
                channels += s[1]
        return [tuple(s) for s in in_shape], [(dshape[0], channels, oh, ow)], []

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list):
        if self.param.sample_type == "bilinear":
            return [*out_grad, *in_data]
        return list(out_grad)

    def create_operator(self, ctx: Context) -> Operator:
        return _UpSamplingOp(self, ctx.xp)


def _repeat(xp: Any, x: Any, s: int) -> Any:
    if s == 1:
        return x
    n, c, h, w = x.shape
    out = xp.broadcast_to(x[:, :, :, None, :, None], (n, c, h, s, w, s))
    return out.reshape(n, c, h * s, w * s)


def _block_sum(g: Any, s: int) -> Any:
    if s == 1:
        return g
    n, c, oh, ow = g.shape
    return g.reshape(n, c, oh // s, s, ow // s, s).sum(axis=(3, 5))


class _UpSamplingOp(Operator):
    def __init__(self, prop: UpSamplingProp, xp: Any) -> None:
        self.param = prop.param
        self.k = prop.kernel()
        self.xp = xp

    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        if req[0] == OpReq.NULL:
            return
        out, p = out_data[0], self.param
        if p.sample_type == "bilinear":
            assign(out, req[0], self._deconv(in_data[0], in_data[1]))
            return
        oh = out.shape[2]
        if p.multi_input_mode == "sum":
            res = None
            for x in in_data:
                up = _repeat(self.xp, x, oh // x.shape[2])
                res = up.copy() if res is None else self.xp.add(res, up, out=res)
            assign(out, req[0], res)
            return
        begin = 0
        for x in in_data:
            end = begin + x.shape[1]
            assign(out[:, begin:end], req[0], _repeat(self.xp, x, oh // x.shape[2]))
            begin = end

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        dy, p = out_grad[0], self.param
        if p.sample_type == "bilinear":
            self._deconv_grad(dy, in_data[0], in_data[1], req, in_grad)
            return
        begin = 0
        for i, g in enumerate(in_grad):
            end = begin + g.shape[1]
            part = dy if p.multi_input_mode == "sum" else dy[:, begin:end]
            if req[i] != OpReq.NULL:
                assign(g, req[i], _block_sum(part, dy.shape[2] // g.shape[2]))
            begin = end

    # ---- bilinear: depthwise transposed convolution ---------------------------------------

    def _geometry(self, h: int, w: int) -> tuple[int, int, int, int]:
        s = self.param.scale
        pad = math.ceil((s - 1) / 2)
        # full (uncropped) transposed-convolution size, then the output is cut at ``pad``
        return s, pad, (h - 1) * s + self.k, (w - 1) * s + self.k

    def _deconv(self, x: Any, weight: Any) -> Any:
        n, c, h, w = x.shape
        s, pad, fh, fw = self._geometry(h, w)
        full = self.xp.zeros((n, c, fh, fw), dtype=x.dtype)
        wk = weight[:, 0]
        for a in range(self.k):
            for b in range(self.k):
                full[:, :, a : a + (h - 1) * s + 1 : s, b : b + (w - 1) * s + 1 : s] += (
                    x * wk[None, :, a, b, None, None]
                )
        return full[:, :, pad : pad + h * s, pad : pad + w * s]

    def _deconv_grad(self, dy: Any, x: Any, weight: Any, req: list, in_grad: list) -> None:
        n, c, h, w = x.shape
        s, pad, fh, fw = self._geometry(h, w)
        full = self.xp.zeros((n, c, fh, fw), dtype=dy.dtype)
        full[:, :, pad : pad + h * s, pad : pad + w * s] = dy
        wk = weight[:, 0]
        dx = self.xp.zeros_like(x) if req[0] != OpReq.NULL else None
        dw = self.xp.zeros(weight.shape, dtype=weight.dtype) if req[1] != OpReq.NULL else None
        for a in range(self.k):
            for b in range(self.k):
                sl = full[:, :, a : a + (h - 1) * s + 1 : s, b : b + (w - 1) * s + 1 : s]
                if dx is not None:
                    dx += sl * wk[None, :, a, b, None, None]
                if dw is not None:
                    dw[:, 0, a, b] = self.xp.einsum("nchw,nchw->c", sl, x)
        if dx is not None:
            assign(in_grad[0], req[0], dx)
        if dw is not None:
            assign(in_grad[1], req[1], dw)
