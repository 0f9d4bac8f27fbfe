"""``_sg_mkldnn_fully_connected``: MXNet 1.9.1's fused CPU fully connected layer (FullyConnected
[+ an element-wise activation]), float32 or quantized.

Inputs: ``data, weight[, bias]`` and, when ``quantized``, ``min_data, max_data`` then (unless
``channel_wise_quantize``) ``min_weight, max_weight[, min_bias, max_bias]``: the tensor-wise
form takes the int8 weight and bias that the quantization pass made, the channel-wise form the
float32 ones. Outputs: ``output`` and, when quantized without ``enable_float_output``,
``min_output, max_output``; the output is float32 with ``enable_float_output``, int8/uint8 with
a calibrated range, int32 otherwise. :func:`fc_role` declares what fuses into it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..nn import _int8_gemm as ig
from ..param import field
from ..registry import Operator, dtype_assign, register, register_onnx
from ..req import assign
from . import _mkldnn_common as mc

__all__ = ["fc_role", "SgMKLDNNFCProp"]

_ELTWISE = ("square", "sqrt", "exp")


def fc_role(node: Any, quantize: bool) -> str | None:
    """What ``node`` becomes inside a fused fully connected layer (MXNet's SgMKLDNNFCSelector):
    "fc" (the seed), "eltwise" (relu/sigmoid/tanh/softrelu Activation — relu only when
    quantizing —, a leaky/elu/gelu LeakyReLU, abs, a clip from 0 and, in float graphs, square,
    sqrt, exp) or None."""
    op, a = node.op, node.attrs
    if op == "FullyConnected":
        return "fc"
    if op in ("Activation", "LeakyReLU"):
        return "eltwise" if mc.fused_activation(node, quantize, ("leaky", "elu", "gelu")) else None
    if op == "abs" or (op in _ELTWISE and not quantize):
        return "eltwise"
    if op == "clip":
        return "eltwise" if float(a.get("a_min", "nan")) == 0.0 else "stop"
    return None


class MKLDNNFCParam(mc.CalibParam):
    enable_float_output: bool = field(default=False, doc="Whether to enable float32 output")
    with_eltwise: bool = field(
        default=False, doc="Whether there's a post with_eltwise after FullyConnected operator"
    )
    channel_wise_quantize: bool | None = field(
        default=None, doc="Whether support channel-wise-quantize for weight."
    )


@register("_sg_mkldnn_fully_connected")
class SgMKLDNNFCProp(mc.ProductProp):
    """The fused fully connected layer (see the module note)."""

    param_class = MKLDNNFCParam
    test = None
    legacy_names = {"with_relu": "with_eltwise"}
    # what mx.contrib.quantization's graph pass reads (MXNet's FQuantizable, FNeedRequantize)
    quantizable = "must"
    need_requantize = True

    def quantized_op(self, granularity: str) -> tuple[str, dict[str, str]] | None:
        """Fact for quantization (MXNet's SgMKLDNNFCQuantizedOp): the same fused node,
        ``quantized_<name>``, with ``quantized='True'`` (and ``channel_wise_quantize='True'``
        channel-wise, where the node scales the float weight per channel itself)."""
        if granularity == "channel-wise":
            return self.op_name, {"channel_wise_quantize": "True", "quantized": "True"}
        return self.op_name, {"quantized": "True"}

    def avoid_quantize_input(self, index: int, granularity: str) -> bool:
        """Fact for quantization: channel-wise, the weight and bias stay float (the node
        scales them per channel); tensor-wise, the pass quantizes them."""
        self._check_graph()
        return granularity == "channel-wise" and 0 < index < (2 if self.fc.param.no_bias else 3)

    def read_graph(self, nodes: list[Any]) -> None:
        self.fc = self.post = None
        for n in nodes:
            if n.op == "FullyConnected":
                self.fc = n.prop()
            else:
                self.post = mc.PostOp(n)
        if self.fc is None:
            raise mc.MXNetError(f"{self.where()}: its subgraph holds no FullyConnected.")

    def _channel_wise(self) -> bool:
        return bool(self.param.channel_wise_quantize)

    def list_arguments(self) -> list[str]:
        self._check_graph()
        no_bias = self.fc.param.no_bias
        names = ["data", "weight"] + ([] if no_bias else ["bias"])
        if self.param.quantized:
            names += ["min_data", "max_data"]
            if not self._channel_wise():
                names += ["min_weight", "max_weight"]
                names += [] if no_bias else ["min_bias", "max_bias"]
        return names

    def inner_inputs(self) -> tuple[Any, int]:
        self._check_graph()
        return self.fc, 2 if self.fc.param.no_bias else 3

    def output_dtype(self) -> np.dtype:
        p = self.param
        if not p.quantized or p.enable_float_output:
            return np.dtype(np.float32)
        if not mc.calibrated(p):
            return mc.I32
        post = self.post if p.with_eltwise else None
        return np.dtype(np.uint8) if mc.output_unsigned(post) else np.dtype(np.int8)

    def quantized_types(self, in_type: list, names: list[str]) -> tuple[list, list]:
        f = np.dtype(np.float32)
        k = 2 if self.fc.param.no_bias else 3
        wt = f if self._channel_wise() else np.dtype(np.int8)
        ts = [mc.check_int8(self, in_type[0])]
        ts += [dtype_assign(self, names[i], in_type[i], wt if i < k else f)
               for i in range(1, len(in_type))]  # fmt: skip
        return ts, [self.output_dtype()] + [f, f] * (self.num_outputs() > 1)

    def create_operator(self, ctx: Any) -> Operator:
        return _SgFCOp(self)


def _scalar(a: Any) -> np.float32:
    return mc._F(np.asarray(a).reshape(-1)[0])


class _SgFCOp(Operator):
    """One integer GEMM (or float32 GEMM on integer values), then the scales, the activation
    and the rounding."""

    def __init__(self, prop: SgMKLDNNFCProp) -> None:
        self.prop = prop
        self._key: Any = None
        self._cache: Any = None

    def forward(self, op_ctx: Any, in_data: list, req: list, out_data: list, aux: list) -> None:
        prop, p = self.prop, self.prop.param
        fp = prop.fc.param
        x = in_data[0]
        x2 = x.reshape(len(x), -1) if fp.flatten else x.reshape(-1, x.shape[-1])
        k = 2 if fp.no_bias else 3
        out = out_data[0]
        post = prop.post if p.with_eltwise else None
        if not p.quantized:
            y = x2.astype(np.float32, copy=False) @ in_data[1].T
            if k == 3:
                y += in_data[2]
            if post is not None:
                y = post(y)
            assign(out, req[0], y.reshape(out.shape))
            return
        ranges = [_scalar(a) for a in in_data[k:]]
        key = (x.dtype, *ranges, *((v, v.version) for v in (op_ctx.in_vars or ())[1:k]))
        if op_ctx.in_vars is None or key != self._key:
            self._key, self._cache = key, self._scaled(x.dtype, in_data[1:k], ranges)
        qw, qb, out_scale, lo, hi = self._cache
        if isinstance(qw, mc.IntKernel):  # the integer products, then each channel's scale
            acc = qw.product(*ig.as_uint8(np.ascontiguousarray(x2)))
            deq = qw.scale
            y = acc.astype(np.float64) if deq is None else np.multiply(acc, deq, dtype=np.float32)
        else:
            y = x2.astype(np.float32) @ qw.T
        if qb is not None:
            y += qb
        odt = prop.output_dtype()
        if post is not None:
            y = post(y)
        if out_scale is not None:
            y *= out_scale
        if odt == np.float32:
            assign(out, req[0], y.reshape(out.shape))
            return
        assign(out, req[0], mc.saturate_into(y, odt).reshape(out.shape))
        assign(out_data[1], req[1], lo)
        assign(out_data[2], req[2], hi)

    def _scaled(self, dtype: np.dtype, wb: list, ranges: list) -> tuple:
        """The weight (and int32 bias) as float32 arrays scaled so that the GEMM yields float
        values (requantized or float output) or int32 levels, the output scale and range; on
        the integer products (``_int8_gemm``) the weight is their product and the scale of
        each channel (None: int32 levels)."""
        p = self.prop.param
        ds = mc.data_scale(dtype, ranges[0], ranges[1])
        w = np.asarray(wb[0])
        b = np.asarray(wb[1]) if len(wb) > 1 else None
        requant = mc.calibrated(p) or p.enable_float_output
        if self.prop._channel_wise():
            ws, _, _ = mc.weight_scales(w.astype(np.float32), b, ds, True)
            qw = np.clip(np.rint(w * ws[:, None]), -128, 127).astype(np.float32)
            qb = None if b is None else np.rint(b * (ws * ds)).astype(np.float32)
            w_lo = w_hi = mc._F(0)
        else:
            w_lo, w_hi = ranges[2], ranges[3]
            ws = np.array([mc.data_scale(np.dtype(np.int8), w_lo, w_hi)], mc._F)
            qw = w.astype(np.float32)
            qb = None
            if b is not None:
                b_scale = mc.data_scale(np.dtype(np.int8), ranges[4], ranges[5])
                rescale = mc._F(ds * ws[0] / b_scale)
                with np.errstate(divide="ignore"):  # a zero bias range: no cap, as in MXNet
                    cap = mc._F(mc._F(2147483647) / 2 / mc._max_abs(ranges[4], ranges[5]) / b_scale)
                if rescale > cap:
                    w_rescale = mc._F(cap * b_scale / ds / ws[0])
                    qw = np.rint(qw * w_rescale).astype(np.float32)
                    ws = ws * w_rescale
                    rescale = cap
                qb = np.rint(b.astype(np.float32) * rescale).astype(np.float32)
        odt = self.prop.output_dtype()
        integer = ig.available()
        matmul = ig.Int8Matmul(np.ascontiguousarray(qw.T).astype(np.int8)) if integer else None
        if requant:
            # the GEMM's integer levels times 1 / (data scale x weight scale): float values
            deq = (mc._F(1) / mc._F(ds) / ws).astype(np.float32)
            qw = (
                mc.IntKernel(matmul, deq)
                if integer
                else (qw * deq.reshape(-1, 1)).astype(np.float32)
            )
            qb = None if qb is None else (qb * deq).astype(np.float32)
            out_scale = None
            lo = hi = mc._F(0)
            if mc.calibrated(p) and not p.enable_float_output:
                lo, hi = mc._F(p.min_calib_range), mc._F(p.max_calib_range)
                out_scale = mc.data_scale(odt, lo, hi)
            return qw, qb, out_scale, lo, hi
        lo, hi = mc.mult_range(ranges[0], ranges[1], dtype, w_lo, w_hi, data_first=True)
        return (mc.IntKernel(matmul, None) if integer else qw), qb, None, lo, hi


register_onnx(
    "_sg_mkldnn_fully_connected",
    why_not="a fused node of MXNet's CPU backend (MKLDNN); export the graph before "
    "get_backend_symbol, as MXNet's exporter needs too.",
)
